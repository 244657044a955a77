/**
 * Received PIX: a callback's or a list's PIX is confirmed with the PSP (`GET /pix/{e2eid}`)
 * before anything is done, since callbacks carry no signature, and handed to the engine, which
 * credits it, records it to be returned, or knows it already.
 */
import type { BankGateway, Store } from "@pixgate/core"
import { Effect, Option } from "effect"
import type { Setup } from "./Setup.js"
import { failure, type ReceivedPix, receivedPix, str } from "./Wire.js"

/** Confirms a PIX with the PSP (`GET /pix/{e2eid}`): None when the PSP does not know it. */
export const confirm = (setup: Setup, endToEndId: string) =>
  Effect.flatMap(
    setup.psp.call({ method: "GET", path: `${setup.pix}/pix/${encodeURIComponent(endToEndId)}` }),
    (res) =>
      res.status === 404
        ? Effect.succeed(Option.none<ReceivedPix>())
        : res.status === 200
          ? Effect.succeed(receivedPix(res.body))
          : Effect.fail(failure("Confirming a PIX")(res))
  )

/**
 * Hands a PIX the PSP listed to the engine; one without a txid is no charge's, and ignored. Its
 * devoluções of a MED nature are then booked against the charge (once each, by `rtrId`, whether
 * a callback or reconciliation reports them first: docs/decisions.md, "MED infractions").
 */
export const credit = (
  ctx: BankGateway.GatewayContext,
  pix: ReceivedPix
): Effect.Effect<BankGateway.ChargePaidOutcome, Store.StoreError> =>
  pix.txid === undefined
    ? Effect.succeed("ignored" as const)
    : Effect.tap(
        ctx.paymentReceived({
          txid: pix.txid,
          endToEndId: pix.endToEndId,
          amount: pix.amount,
          ...(pix.paidAt === undefined ? {} : { paidAt: pix.paidAt })
        }),
        () => (pix.medReturns.length === 0 ? Effect.void : medReturns(ctx, pix.txid as string, pix))
      )

/** Books a PIX's MED devoluções against its charge; one the engine refuses is logged. */
const medReturns = (ctx: BankGateway.GatewayContext, txid: string, pix: ReceivedPix) =>
  Effect.gen(function* () {
    const charge = yield* ctx.findByTxid(txid)
    const med = ctx.infractions
    if (Option.isNone(charge) || med === undefined) {
      yield* Effect.logWarning("A MED devolução could not be booked: no charge or no infractions store").pipe(
        Effect.annotateLogs({ endToEndId: pix.endToEndId })
      )
      return
    }
    for (const r of pix.medReturns) {
      const booked = yield* med.returned({
        mode: charge.value.mode,
        returnId: r.returnId,
        transactionId: charge.value.id,
        nature: r.nature,
        amount: r.amount,
        ...(r.returnedAt === undefined ? {} : { returnedAt: r.returnedAt }),
        conclude: true
      })
      if (!booked)
        yield* Effect.logWarning("A MED devolução was not booked (more than the charge received?)").pipe(
          Effect.annotateLogs({ endToEndId: pix.endToEndId, returnId: r.returnId })
        )
    }
  })

/** One PIX of a callback (`{ "pix": [...] }`): confirmed with the PSP, then credited. */
export const received = (
  setup: Setup,
  item: Record<string, unknown>,
  ctx: BankGateway.GatewayContext
): Effect.Effect<void, BankGateway.GatewayFailure | Store.StoreError> =>
  Effect.gen(function* () {
    const e2e = str(item.endToEndId)
    if (e2e === undefined) return
    const confirmed = yield* Effect.mapError(confirm(setup, e2e), (e) =>
      e._tag === "PspError" ? failure("Confirming a PIX")(e) : e
    )
    if (Option.isNone(confirmed)) {
      yield* Effect.logWarning("A callback named a PIX the PSP does not know; ignored").pipe(
        Effect.annotateLogs({ endToEndId: e2e })
      )
      return
    }
    yield* credit(ctx, confirmed.value)
  })
