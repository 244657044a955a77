/**
 * A merchant's webhook endpoints: `webhook set`, `rotate-signing-key`, `status`, `log` and
 * `redeliver`, each the engine's admin operation of the same name.
 */
import { Effect } from "effect"
import { type Command, command, type Flag } from "./Command.js"
import { mode as flagMode, limit } from "./Flags.js"
import { fields, Readable, table, when } from "./Output.js"

type Mode = "test" | "live"
type DeliveryStatus = "pending" | "delivered" | "failed"

const endpointMode: Flag = { ...flagMode, description: "the endpoint of test (sandbox) or live events" }

/** `--status` of `webhook log`. */
const deliveryStatus: Flag = {
  value: "STATUS",
  description: "only deliveries in this status: pending, delivered or failed",
  test: (v) => ["pending", "delivered", "failed"].includes(v),
  message: "--status must be pending, delivered or failed"
}

/** `--overlap` of `webhook rotate-signing-key`. */
const overlap: Flag = {
  value: "SECONDS",
  description: "seconds the replaced signing key keeps signing too (default 86400, at most 604800)",
  test: (v) => /^\d{1,9}$/.test(v),
  message: "--overlap must be a whole number of seconds"
}

/** The last attempt's answer as a person reads it. */
const lastAnswer = (attempts: ReadonlyArray<{ statusCode: number | null; error: string | null }>) => {
  const last = attempts.at(-1)
  if (last === undefined) return "-"
  return last.statusCode === null ? `failed: ${last.error ?? "no answer"}` : String(last.statusCode)
}

/** `--no-secret-header`: a switch. */
const noSecretHeader: Flag = {
  value: "",
  switch: true,
  description:
    "deliveries leave the secret out of X-Pixgate-Signature: receivers check the Standard Webhooks webhook-signature alone (without it, the header is sent, the spec's scheme)"
}

/** The webhook commands by their words. */
export const webhookCommands: Readonly<Record<string, Command>> = {
  "webhook set": command({
    summary:
      "Sets the URL and secret of a merchant's webhook endpoint for one mode (with --no-secret-header, deliveries leave the secret out of X-Pixgate-Signature); the first time, prints its signing key (shown only once).",
    examples: [
      "pixgate webhook set --merchant mer_... --mode test --url http://127.0.0.1:4000/webhooks --secret - < webhook-secret.txt",
      "PIXGATE_WEBHOOK_SECRET=... pixgate webhook set --merchant mer_... --mode live --url https://shop.example/webhooks",
      "PIXGATE_WEBHOOK_SECRET=... pixgate webhook set --merchant mer_... --mode live --url https://shop.example/webhooks --no-secret-header"
    ],
    usage: "webhook set --merchant ID --mode test|live --url URL --secret SECRET|-",
    required: ["merchant", "mode", "url", "secret"],
    optional: ["no-secret-header"],
    flags: { mode: endpointMode, "no-secret-header": noSecretHeader },
    run: (admin, f) =>
      Effect.map(
        admin.setWebhook({
          merchantId: f.merchant,
          mode: f.mode as Mode,
          url: f.url,
          secret: f.secret,
          secretHeader: f["no-secret-header"] === undefined
        }),
        (e) =>
          new Readable(
            e,
            fields([
              ["merchant", e.merchantId],
              ["mode", e.mode],
              ["url", e.url],
              ["updated", e.updatedAt],
              ...(e.signingKey === undefined
                ? []
                : ([
                    [
                      "signing key",
                      `${e.signingKey} (shown only now: receivers verify webhook-signature with it)`
                    ]
                  ] as const))
            ])
          )
      )
  }),
  "webhook rotate-signing-key": command({
    summary:
      "Replaces the signing key of an endpoint; prints the new key (shown only once). The old one signs too for the overlap.",
    examples: ["pixgate webhook rotate-signing-key --merchant mer_... --mode live --overlap 3600"],
    usage: "webhook rotate-signing-key --merchant ID --mode test|live [--overlap SECONDS]",
    required: ["merchant", "mode"],
    optional: ["overlap"],
    flags: { mode: endpointMode, overlap },
    run: (admin, f) =>
      Effect.map(
        admin.rotateSigningKey({
          merchantId: f.merchant,
          mode: f.mode as Mode,
          ...(f.overlap === undefined ? {} : { overlapSeconds: Number(f.overlap) })
        }),
        (r) =>
          new Readable(
            r,
            fields([
              ["merchant", r.merchantId],
              ["mode", r.mode],
              ["signing key", `${r.signingKey} (shown only now)`],
              ["old key signs until", when(r.previousKeyExpiresAt)]
            ])
          )
      )
  }),
  "webhook status": command({
    summary:
      "Shows each endpoint of a merchant: healthy or failing, failures in a row, deliveries pending, attempts in flight.",
    examples: [
      "pixgate webhook status --merchant mer_...",
      "pixgate webhook status --merchant mer_... --json"
    ],
    usage: "webhook status --merchant ID",
    required: ["merchant"],
    run: (admin, f) =>
      Effect.map(
        admin.webhookStatus(f.merchant),
        (s) =>
          new Readable(
            s,
            table(
              ["MODE", "STATUS", "FAILURES IN A ROW", "PENDING", "IN FLIGHT", "URL"],
              s.endpoints.map((e) => [
                e.mode,
                e.status === "failing" ? `failing since ${when(e.failingSince)}` : e.status,
                String(e.consecutiveFailures),
                String(e.pending),
                String(e.inFlight),
                e.url
              ]),
              "(no webhook endpoints: pixgate webhook set)"
            )
          )
      )
  }),
  "webhook log": command({
    summary: "Shows a merchant's webhook deliveries, newest first, with each one's attempts.",
    examples: [
      "pixgate webhook log --merchant mer_... --status failed --limit 20",
      "pixgate webhook log --merchant mer_... --json"
    ],
    usage: "webhook log --merchant ID [--mode test|live] [--status pending|delivered|failed] [--limit N]",
    required: ["merchant"],
    optional: ["mode", "status", "limit"],
    flags: {
      mode: { ...flagMode, description: "only deliveries of test (sandbox) or live events (default both)" },
      status: deliveryStatus,
      limit: limit("at most this many deliveries, newest first (default 50, at most 500)")
    },
    run: (admin, f) =>
      Effect.map(
        admin.webhookLog({
          merchantId: f.merchant,
          ...(f.mode === undefined ? {} : { mode: f.mode as Mode }),
          ...(f.status === undefined ? {} : { status: f.status as DeliveryStatus }),
          ...(f.limit === undefined ? {} : { limit: Number(f.limit) })
        }),
        (deliveries) =>
          new Readable(
            deliveries,
            table(
              ["DELIVERY", "EVENT", "MODE", "STATUS", "ATTEMPTS", "LAST ANSWER", "CREATED"],
              deliveries.map((d) => [
                d.deliveryId,
                d.event,
                d.mode,
                d.status,
                String(d.attempts.length),
                lastAnswer(d.attempts),
                d.createdAt
              ]),
              "(no deliveries)"
            )
          )
      )
  }),
  "webhook redeliver": command({
    summary: "Sends an event again (a new delivery of the same event id to the current endpoint).",
    examples: ["pixgate webhook redeliver evt_..."],
    usage: "webhook redeliver EVENT_ID",
    required: [],
    args: ["EVENT_ID"],
    run: (admin, _, [id]) =>
      Effect.map(
        admin.redeliver(id),
        (r) => new Readable(r, `queued delivery ${r.deliveryId} of ${r.eventId} (${r.status})\n`)
      )
  })
}
