/**
 * Merchants and what belongs to one: `merchant create|list`, `key create|revoke|list`,
 * `balance` and `fee-plan set`, each the engine's admin operation of the same name.
 */
import { Requests } from "@pixgate/core"
import { Effect, Schema } from "effect"
import { type Command, command, type Flag } from "./Command.js"
import { mode as flagMode } from "./Flags.js"
import { decode } from "./Input.js"
import { fields, Readable, reais, table, when } from "./Output.js"

type Mode = "test" | "live"

// `--plan` holds the fee plan: its problems are named after the flag.
const planSchema = Schema.Struct({ plan: Requests.feePlan("plan") }).annotations({
  [Requests.FirstProblemOnlyId]: true
})

/** `--plan JSON`. */
const planFlag: Flag = {
  value: "JSON",
  description:
    "the fee plan as JSON, a charge part and a payout part, each with gatewayRate and marginRate in parts per million " +
    "(10000 = 1%) and gatewayFixed and marginFixed in centavos (docs/fees.md)",
  test: (v) => {
    try {
      const value = JSON.parse(v)
      return typeof value === "object" && value !== null
    } catch {
      return false
    }
  },
  message: "--plan must be a JSON object"
}

/** A rule of a fee plan as a person reads it: "0.25% + 0.74%" or "0.10 + 0.23". */
const rule = (r: { gatewayRate: number; marginRate: number; gatewayFixed: number; marginFixed: number }) => {
  const part = (rate: number, fixed: number) =>
    [rate === 0 ? "" : `${rate / 10_000}%`, fixed === 0 ? "" : reais(fixed / 100)]
      .filter((p) => p !== "")
      .join(" + ") || "0"
  return `gateway ${part(r.gatewayRate, r.gatewayFixed)}, margin ${part(r.marginRate, r.marginFixed)}`
}

/** The merchant commands by their words. */
export const merchantCommands: Readonly<Record<string, Command>> = {
  "merchant create": command({
    summary: "Creates a merchant; prints its id and its test and live API keys (shown only once).",
    examples: [
      'pixgate merchant create --name "Padaria Pao Quente" --json > merchant.json',
      'pixgate merchant create --name "Loja" --city "RIO DE JANEIRO"'
    ],
    usage: "merchant create --name NAME [--city CITY]",
    required: ["name"],
    optional: ["city"],
    run: (admin, f) =>
      Effect.map(
        admin.createMerchant({ name: f.name, city: f.city }),
        (m) =>
          new Readable(
            m,
            fields([
              ["merchant", m.merchantId],
              ["test key", m.testKey],
              ["live key", m.liveKey]
            ]) + "The keys are shown only now: keep them where your backend reads its secrets.\n"
          )
      )
  }),
  "merchant list": command({
    summary: "Lists every merchant, newest first: id, name, city and when it was created.",
    examples: ["pixgate merchant list", "pixgate merchant list --json"],
    usage: "merchant list",
    required: [],
    run: (admin) =>
      Effect.map(admin.listMerchants(), (merchants) => {
        const json = merchants.map((m) => ({
          merchantId: m.id,
          name: m.name,
          city: m.city,
          feePlan: m.feePlan,
          createdAt: new Date(m.createdAt).toISOString()
        }))
        return new Readable(
          json,
          table(
            ["ID", "NAME", "CITY", "CREATED"],
            json.map((m) => [m.merchantId, m.name, m.city, m.createdAt]),
            "(no merchants: pixgate merchant create --name NAME)"
          )
        )
      })
  }),
  "key create": command({
    summary: "Creates another API key for a merchant; prints the key (shown only once).",
    examples: ["pixgate key create --merchant mer_... --mode live"],
    usage: "key create --merchant ID --mode test|live",
    required: ["merchant", "mode"],
    flags: { mode: { ...flagMode, description: "the key's mode: test (sandbox) or live (real money)" } },
    run: (admin, f) =>
      Effect.map(
        admin.createKey(f.merchant, f.mode as Mode),
        (k) =>
          new Readable(
            k,
            fields([
              ["key id", k.keyId],
              ["mode", k.mode],
              ["key", k.key]
            ]) + "The key is shown only now.\n"
          )
      )
  }),
  "key revoke": command({
    summary: "Revokes an API key by its id (key_...); requests with it get 401 at once.",
    examples: ["pixgate key revoke key_..."],
    usage: "key revoke KEY_ID",
    required: [],
    args: ["KEY_ID"],
    run: (admin, _, [id]) =>
      Effect.map(admin.revokeKey(id), (r) => new Readable(r, `revoked ${r.keyId}: its requests get 401\n`))
  }),
  "key list": command({
    summary: "Lists a merchant's API keys: id, mode, hint and state (never the key itself).",
    examples: ["pixgate key list --merchant mer_...", "pixgate key list --merchant mer_... --json"],
    usage: "key list --merchant ID",
    required: ["merchant"],
    run: (admin, f) =>
      Effect.map(
        admin.listKeys(f.merchant),
        (keys) =>
          new Readable(
            keys,
            table(
              ["ID", "MODE", "HINT", "CREATED", "REVOKED"],
              keys.map((k) => [k.keyId, k.mode, k.hint, k.createdAt, when(k.revokedAt)]),
              "(no keys)"
            )
          )
      )
  }),
  balance: command({
    summary: "Shows a merchant's available and held balance in one mode.",
    examples: [
      "pixgate balance --merchant mer_... --mode test",
      "pixgate balance --merchant mer_... --mode live --json"
    ],
    usage: "balance --merchant ID --mode test|live",
    required: ["merchant", "mode"],
    flags: { mode: { ...flagMode, description: "the balance of test (sandbox) or live money" } },
    run: (admin, f) =>
      Effect.map(
        admin.balance(f.merchant, f.mode as Mode),
        (b) =>
          new Readable(
            b,
            fields([
              ["merchant", b.merchantId],
              ["mode", b.mode],
              ["available", reais(b.available)],
              ["held", `${reais(b.held)} (frozen by open chargebacks)`]
            ])
          )
      )
  }),
  "fee-plan set": command({
    summary: "Sets a merchant's fee plan for its new charges and payouts (docs/fees.md).",
    examples: [
      'pixgate fee-plan set --merchant mer_... --plan \'{"charge":{"gatewayRate":2500,"marginRate":7400,"gatewayFixed":0,"marginFixed":0},"payout":{"gatewayRate":0,"marginRate":0,"gatewayFixed":10,"marginFixed":23}}\''
    ],
    usage: 'fee-plan set --merchant ID --plan \'{"charge":{...},"payout":{...}}\'',
    required: ["merchant", "plan"],
    flags: { plan: planFlag },
    run: (admin, f) =>
      Effect.flatMap(decode(planSchema)({ plan: JSON.parse(f.plan) }), ({ plan }) =>
        Effect.map(
          admin.setFeePlan(f.merchant, plan),
          (set) =>
            new Readable(
              set,
              fields([
                ["merchant", set.merchantId],
                ["charges", rule(set.feePlan.charge)],
                ["payouts", rule(set.feePlan.payout)]
              ])
            )
        )
      )
  })
}
