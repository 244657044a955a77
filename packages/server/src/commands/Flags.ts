/**
 * The flags several commands share, by name. A command whose flag means something narrower
 * (`--amount` of a payout, `--limit` of the audit log) gives its own text in its `flags`, so
 * every command's `--help` says what the flag does for that command.
 */
import type { Flag } from "./Command.js"

/** `--mode test|live`. */
export const mode: Flag = {
  value: "test|live",
  description: "test (sandbox) or live",
  test: (v) => v === "test" || v === "live",
  message: "--mode must be test or live"
}

/** `--limit N`: a non-negative whole number. */
export const limit = (description: string): Flag => ({
  value: "N",
  description,
  test: (v) => /^\d{1,9}$/.test(v),
  message: "--limit must be a non-negative integer"
})

/** `--amount N` with what the amount is for this command. */
export const amount = (description: string): Flag => ({ value: "N", description })

/** Shared flags, by name (besides `--json` and `--help`, which every command that prints data takes). */
export const shared: Readonly<Record<string, Flag>> = {
  name: { value: "NAME", description: "the merchant's name (shown in its BR Codes)" },
  city: { value: "CITY", description: "the merchant's city for its BR Codes (default SAO PAULO)" },
  merchant: { value: "ID", description: "the merchant's id (mer_...)" },
  mode,
  url: { value: "URL", description: "where the webhook deliveries go (http or https)" },
  secret: {
    value: "SECRET|-",
    description:
      "the webhook secret sent in X-Pixgate-Signature: 8 to 256 printable ASCII characters, no leading or trailing space; " +
      "`-` reads it from stdin",
    secretEnv: "PIXGATE_WEBHOOK_SECRET"
  },
  amount: amount("an amount in reais, e.g. 100 or 25.90"),
  email: { value: "EMAIL", description: "the e-mail address the person signs in to the panel with" },
  panel: {
    value: "URL",
    description: "the panel's address, for the link (default http://127.0.0.1:3000/panel)"
  }
}
