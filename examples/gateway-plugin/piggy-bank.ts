/**
 * A gateway plugin of a platform's own, outside the workspace's packages: the "piggy bank", a
 * bank that lives in the process. It pays every live charge a moment after it is made
 * (`PIXGATE_LIVE_PAY_AFTER_MS`) and settles every payout and refund at once, issuing end-to-end
 * ids under its ISPB (`PIXGATE_LIVE_ISPB`). It is the smallest whole plugin: a name, what it can
 * do, the settings it reads (an `effect/Schema` over its variables), a start-up check and a layer
 * providing the engine's `BankGatewayShape`. A real bank's plugin calls the bank where this one
 * keeps maps; docs/going-live.md, "Adding your bank", walks through one.
 *
 * `pixgate serve` loads it by path:
 * PIXGATE_LIVE_GATEWAY=./examples/gateway-plugin/piggy-bank.ts PIXGATE_LIVE_ISPB=12345678
 * PIXGATE_LIVE_CALLBACK_SECRET=<32 characters or more> (from TypeScript sources, under tsx).
 */
import { BankGateway, Domain, GatewayPlugin, Ids } from "@pixgate/core"
import { Clock, Effect, Layer, Option, ParseResult, Schema } from "effect"

/** What the piggy bank needs. */
export interface PiggySettings {
  /** The bank's ISPB, inside every end-to-end id it issues. */
  readonly ispb: string
  /** How long after its creation a charge is paid (ms). */
  readonly payAfterMs: number
}

/** The variables under `prefix`, field by field (their names without the prefix). */
const fields = (prefix: string) =>
  Schema.Struct({
    ISPB: Schema.String.pipe(
      Schema.pattern(/^\d{8}$/, { message: () => `${prefix}ISPB must be 8 digits` })
    ).annotations({ description: "The bank's ISPB (8 digits), inside every end-to-end id it issues" }),
    PAY_AFTER_MS: Schema.optional(
      Schema.transformOrFail(Schema.String, Schema.Number, {
        strict: true,
        decode: (text, _, ast) =>
          /^\d{1,7}$/.test(text)
            ? ParseResult.succeed(Number(text))
            : ParseResult.fail(
                new ParseResult.Type(
                  ast,
                  text,
                  `${prefix}PAY_AFTER_MS must be a whole number of milliseconds`
                )
              ),
        encode: (ms) => ParseResult.succeed(String(ms))
      })
    ).annotations({ description: "How long after its creation a charge is paid (default 500 ms)" })
  })

/** The settings from the variables under `prefix`. */
const settings = (prefix: string): Schema.Schema<PiggySettings, GatewayPlugin.Variables> =>
  GatewayPlugin.fromVariables(
    prefix,
    Schema.transform(fields(prefix), Schema.Struct({ ispb: Schema.String, payAfterMs: Schema.Number }), {
      strict: true,
      decode: (v) => ({ ispb: v.ISPB, payAfterMs: v.PAY_AFTER_MS ?? 500 }),
      encode: (s) => ({ ISPB: s.ispb, PAY_AFTER_MS: s.payAfterMs })
    })
  )

/** The job kind that pays a charge. */
const payKind = "piggy.pay"

/** The gateway: charges paid by a job of its own, sends and refunds settled at once, each once. */
const make = (piggy: PiggySettings): BankGateway.BankGatewayShape => {
  // What the bank has done, by the engine's ids: asking about a send answers from here.
  const sent = new Map<string, string>()
  const refunded = new Map<string, string>()
  const settle = (done: Map<string, string>, id: string) =>
    Effect.map(Clock.currentTimeMillis, (now): BankGateway.SendStatus => {
      const endToEndId = done.get(id) ?? Ids.newEndToEndId(piggy.ispb, now)
      done.set(id, endToEndId)
      return { _tag: "Settled", endToEndId }
    })
  const asked = (done: Map<string, string>, id: string): BankGateway.SendStatus => {
    const endToEndId = done.get(id)
    return endToEndId === undefined ? { _tag: "NotFound" } : { _tag: "Settled", endToEndId }
  }
  return {
    createCharge: (charge) => Effect.succeed({ location: `piggy.bank.example/qr/${charge.txid}` }),
    sender: {
      pollDelay: 1000,
      send: (payout) => settle(sent, payout.id),
      status: (payout) => Effect.succeed(asked(sent, payout.id))
    },
    refunder: {
      pollDelay: 1000,
      send: (refund) => settle(refunded, refund.id),
      status: (refund) => Effect.succeed(asked(refunded, refund.id))
    },
    timers: (moment, charge, ref, now) =>
      moment === "charge.created" && charge.dueTerms === null
        ? [{ id: Ids.jobId(now), kind: payKind, ref, runAt: now + piggy.payAfterMs }]
        : [],
    jobs: {
      [payKind]: (job, ctx) =>
        Effect.gen(function* () {
          const charge = yield* Domain.findById(Domain.TransactionId, job.ref, ctx.getTransaction)
          if (Option.isNone(charge) || charge.value.txid === null) return yield* ctx.finishJob(job.id)
          const now = yield* Clock.currentTimeMillis
          const paid = ctx.paymentReceived({
            txid: charge.value.txid,
            endToEndId: Ids.newEndToEndId(piggy.ispb, now),
            charge: charge.value
          })
          yield* ctx.asJob(
            job,
            Effect.map(paid, (outcome) => outcome === "completed")
          )
        })
    }
  }
}

/** The plugin (`PIXGATE_LIVE_GATEWAY=./examples/gateway-plugin/piggy-bank.ts`). */
export const plugin = GatewayPlugin.make<PiggySettings>({
  name: "piggy-bank",
  description: "An in-process bank: charges paid a moment after they are made, payouts and refunds at once",
  capabilities: {
    charges: true,
    dueDateCharges: false,
    sends: true,
    refunds: true,
    reconciliation: false,
    recurring: false,
    infractions: false
  },
  settings,
  // Nothing beyond the variables' form to check; a real bank checks its certificate here.
  check: (piggy) => Effect.succeed(piggy),
  layer: (piggy) => Layer.succeed(BankGateway.LiveGateway, make(piggy)),
  summary: (piggy) => `piggy bank ${piggy.ispb}`
})
