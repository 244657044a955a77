/**
 * `infraction list` and `infraction answer`: MED infractions the bank reported against a
 * merchant's received PIX, as the admin API lists and answers them (the same checks and codes:
 * an answer after the deadline is `infraction_deadline_passed`, a second one
 * `infraction_not_answerable`).
 */
import { Engine, Errors, Infractions, InfractionViews, MedInfractions, Store } from "@pixgate/core"
import { Effect, Option } from "effect"
import { type Command, command, type Flag } from "./Command.js"
import { mode } from "./Flags.js"
import { decode } from "./Input.js"
import { fields, Readable, reais, table } from "./Output.js"

const stored = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.catchIf(
    effect,
    (e): e is Extract<E, Store.StoreError> => e instanceof Store.StoreError,
    (e) => Effect.fail(Errors.unavailable(e))
  )

const listFlags: Readonly<Record<string, Flag>> = {
  merchant: { value: "ID", description: "the merchant whose infractions to list (mer_...)" },
  mode: { ...mode, description: "the infractions of test (sandbox) or live charges" },
  status: {
    value: "STATUS",
    description: `only infractions in this state: ${MedInfractions.infractionStatuses.join(", ")}`,
    test: (v) => (MedInfractions.infractionStatuses as ReadonlyArray<string>).includes(v),
    message: `--status must be one of: ${MedInfractions.infractionStatuses.join(", ")}`
  }
}

const answerFlags: Readonly<Record<string, Flag>> = {
  infraction: { value: "INF_ID", description: "the infraction to answer (inf_...)" },
  analysis: {
    value: "accepted|contested",
    description: "accepted: the money goes back to the payer; contested: a defence the bank judges",
    test: (v) => v === "accepted" || v === "contested",
    message: "--analysis must be accepted or contested"
  },
  justification: {
    value: "TEXT",
    description: `why (1 to ${InfractionViews.maxJustification} characters), sent to the bank with the answer`
  }
}

const line = (i: InfractionViews.InfractionJson) => [
  i.infractionId,
  i.transactionId,
  i.status,
  reais(i.amountClaimed),
  reais(i.blockedAmount),
  reais(i.returnedAmount),
  i.deadline
]

/** The infraction commands by their words. */
export const infractionCommands: Readonly<Record<string, Command>> = {
  "infraction list": command({
    summary:
      "Lists a merchant's MED infractions, newest first, with what the bank blocked, what went back to the payer and the deadline to answer.",
    examples: [
      "pixgate infraction list --merchant mer_... --mode live",
      "pixgate infraction list --merchant mer_... --mode live --status open --json"
    ],
    usage: "infraction list --merchant ID --mode test|live [--status STATUS]",
    required: ["merchant", "mode"],
    optional: ["status"],
    flags: listFlags,
    run: (admin, f) =>
      Effect.gen(function* () {
        const merchant = yield* admin.getMerchant(f.merchant)
        const engine = yield* Engine.Engine
        const list = yield* stored(
          engine.infractions.list({
            merchantId: merchant.id,
            mode: f.mode as "test" | "live",
            ...(f.status === undefined ? {} : { statuses: [f.status as MedInfractions.InfractionStatus] })
          })
        )
        const data = list.map(InfractionViews.infractionJson)
        return new Readable(
          { data },
          table(
            ["INFRACTION", "CHARGE", "STATUS", "CLAIMED", "BLOCKED", "RETURNED", "ANSWER BY"],
            data.map(line),
            "(no infractions)"
          )
        )
      })
  }),
  "infraction answer": command({
    summary:
      "Answers an open MED infraction before its deadline: accepts it (the money goes back to the payer) or contests it with a justification.",
    examples: [
      'pixgate infraction answer --infraction inf_... --analysis contested --justification "Produto entregue, NF 1234"'
    ],
    usage: "infraction answer --infraction INF_ID --analysis accepted|contested --justification TEXT",
    required: ["infraction", "analysis", "justification"],
    flags: answerFlags,
    run: (_admin, f) =>
      Effect.gen(function* () {
        const input = yield* decode(InfractionViews.Answer)({
          analysis: f.analysis,
          justification: f.justification
        })
        const engine = yield* Engine.Engine
        const found = MedInfractions.isInfractionId(f.infraction)
          ? yield* stored(engine.infractions.get(f.infraction))
          : Option.none()
        if (Option.isNone(found)) return yield* Effect.fail(Errors.notFound("Infraction"))
        const inf = found.value
        const r = yield* stored(
          engine.infractions.answer({ merchantId: inf.merchantId, mode: inf.mode }, inf.id, {
            analysis: input.analysis,
            justification: input.justification.trim()
          })
        )
        if (!r.ok) return yield* Effect.fail(Infractions.answerError(r, inf))
        const json = InfractionViews.infractionJson(r.value)
        return new Readable(
          json,
          fields([
            ["infraction", json.infractionId],
            ["charge", json.transactionId],
            ["status", json.status],
            ["blocked", reais(json.blockedAmount)],
            ["deadline", json.deadline]
          ])
        )
      })
  })
}
