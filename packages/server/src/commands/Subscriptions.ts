/**
 * `subscription list`, `subscription show`, `subscription cycles`, `subscription cancel` and
 * `subscription retry`:
 * a merchant's Pix Automático subscriptions, as `/api/v1/subscriptions` answers them (the same
 * views and codes: an ended subscription's cancel is `subscription_not_cancellable`).
 */
import { Engine, Errors, Recurrence as R, type SubscriptionViews } from "@pixgate/core"
import { Effect } from "effect"
import { type Admin, type Command, command, type Flag } from "./Command.js"
import { mode } from "./Flags.js"
import { fields, Readable, table } from "./Output.js"

const flags: Readonly<Record<string, Flag>> = {
  merchant: { value: "ID", description: "the merchant the subscriptions belong to (mer_...)" },
  mode: { ...mode, description: "the subscriptions of test (sandbox) or live keys" },
  subscription: { value: "SUB_ID", description: "the subscription (sub_...)" },
  txid: { value: "TXID", description: "the cycle's charge (txid, from subscription cycles)" },
  date: {
    value: "YYYY-MM-DD",
    description: "the business day the retry's debit settles",
    test: (v) => /^\d{4}-\d{2}-\d{2}$/.test(v),
    message: "--date must be a YYYY-MM-DD date"
  },
  status: {
    value: "STATUS",
    description: `only subscriptions in this state: ${R.recStatuses.join(", ")}`,
    test: (v) => (R.recStatuses as ReadonlyArray<string>).includes(v),
    message: `--status must be one of: ${R.recStatuses.join(", ")}`
  }
}

/** The merchant's caller, as its API key of `mode` would be. */
const callerOf = (admin: Admin, merchantId: string, m: string | undefined) =>
  Effect.map(admin.getMerchant(merchantId), (merchant) => ({
    merchant,
    mode: m === "live" ? ("live" as const) : ("test" as const),
    keyId: "panel:cli" as const
  }))

const subs = Effect.map(Engine.Engine, (e) => e.subscriptions)

const shown = (s: SubscriptionViews.SubscriptionJson) =>
  new Readable(
    s,
    fields([
      ["id", s.id],
      ["idRec", s.idRec ?? "-"],
      ["status", s.status],
      ["jornada", s.jornada],
      ["contrato", s.vinculo.contrato],
      ["periodicidade", s.calendario.periodicidade],
      ["dataInicial", s.calendario.dataInicial],
      ["valorCiclo", s.valorCiclo],
      ["politicaRetentativa", s.politicaRetentativa],
      ...(s.dadosQR === undefined ? [] : [["pixCopiaECola", s.dadosQR.pixCopiaECola] as const])
    ])
  )

/** The subscription commands by their words. */
export const subscriptionCommands: Readonly<Record<string, Command>> = {
  "subscription list": command({
    summary: "Lists a merchant's Pix Automático subscriptions, newest first (up to 100).",
    examples: ["pixgate subscription list --merchant mer_... --mode test --status APROVADA"],
    usage: "subscription list --merchant ID --mode test|live [--status STATUS]",
    required: ["merchant", "mode"],
    optional: ["status"],
    flags,
    run: (admin, f) =>
      Effect.gen(function* () {
        const caller = yield* callerOf(admin, f.merchant, f.mode)
        const data = yield* (yield* subs).list(caller, {
          status: f.status as R.RecStatus | undefined,
          limit: 100
        })
        return new Readable(
          { data },
          table(
            ["SUBSCRIPTION", "STATUS", "JORNADA", "CONTRATO", "PERIODICIDADE", "VALOR"],
            data.map((s) => [
              s.id,
              s.status,
              s.jornada,
              s.vinculo.contrato,
              s.calendario.periodicidade,
              s.valorCiclo
            ]),
            "(no subscriptions)"
          )
        )
      })
  }),
  "subscription show": command({
    summary: "Shows one subscription: its status, calendar, amount and, for journeys 2 to 4, its QR.",
    examples: ["pixgate subscription show --merchant mer_... --mode test --subscription sub_..."],
    usage: "subscription show --merchant ID --mode test|live --subscription SUB_ID",
    required: ["merchant", "mode", "subscription"],
    flags,
    run: (admin, f) =>
      Effect.gen(function* () {
        const caller = yield* callerOf(admin, f.merchant, f.mode)
        return shown(yield* (yield* subs).get(caller, f.subscription))
      })
  }),
  "subscription cycles": command({
    summary: "Lists a subscription's cycles: due and settlement dates, status and attempts.",
    examples: ["pixgate subscription cycles --merchant mer_... --mode test --subscription sub_..."],
    usage: "subscription cycles --merchant ID --mode test|live --subscription SUB_ID",
    required: ["merchant", "mode", "subscription"],
    flags,
    run: (admin, f) =>
      Effect.gen(function* () {
        const caller = yield* callerOf(admin, f.merchant, f.mode)
        const data = yield* (yield* subs).cycles(caller, f.subscription)
        return new Readable(
          { data },
          table(
            ["CICLO", "TXID", "STATUS", "VENCIMENTO", "LIQUIDACAO", "VALOR", "TENTATIVAS"],
            data.map((c) => [
              String(c.ciclo),
              c.txid,
              c.status,
              c.calendario.dataDeVencimento,
              c.dataLiquidacao,
              c.valor.original,
              String(c.tentativas.length)
            ]),
            "(no cycles)"
          )
        )
      })
  }),
  "subscription cancel": command({
    summary:
      "Cancels a subscription for the merchant: no cycle follows; cycles not yet settling are cancelled.",
    examples: ["pixgate subscription cancel --merchant mer_... --mode test --subscription sub_..."],
    usage: "subscription cancel --merchant ID --mode test|live --subscription SUB_ID",
    required: ["merchant", "mode", "subscription"],
    flags,
    run: (admin, f) =>
      Effect.gen(function* () {
        const caller = yield* callerOf(admin, f.merchant, f.mode)
        return shown(yield* (yield* subs).cancel(caller, f.subscription))
      })
  }),
  "subscription retry": command({
    summary:
      "Orders a retry of a cycle the payer's bank rejected, under PERMITE_3R_7D: a future business day after every " +
      "earlier attempt, within 7 days after the settlement date, at most 3 (retry_not_allowed otherwise).",
    examples: [
      "pixgate subscription retry --merchant mer_... --mode test --subscription sub_... --txid ... --date 2026-12-14"
    ],
    usage:
      "subscription retry --merchant ID --mode test|live --subscription SUB_ID --txid TXID --date YYYY-MM-DD",
    required: ["merchant", "mode", "subscription", "txid", "date"],
    flags,
    run: (admin, f) =>
      Effect.gen(function* () {
        const caller = yield* callerOf(admin, f.merchant, f.mode)
        const s = yield* subs
        // A cycle is reached through its subscription, as the API's route does.
        const cycles = yield* s.cycles(caller, f.subscription)
        if (!cycles.some((c) => c.txid === f.txid)) return yield* Effect.fail(Errors.notFound("Cycle"))
        const c = yield* s.retry(caller, f.txid, f.date)
        return new Readable(
          c,
          fields([
            ["txid", c.txid],
            ["ciclo", String(c.ciclo)],
            ["status", c.status],
            ...c.tentativas.map(
              (t, i) => [`tentativa ${i + 1}`, `${t.tipo} ${t.dataLiquidacao} ${t.status}`] as const
            )
          ])
        )
      })
  })
}
