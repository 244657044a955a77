/**
 * A PIX the engine recorded but did not credit (after its charge expired, of another amount)
 * goes back to its payer: `apipix.pix.return` asks `GET /pix/{e2eid}/devolucao/{id}` first (an
 * earlier run may have asked already) and `PUT`s the devolução only when the bank has none, with
 * an id derived from the charge, so a retry asks for the same one. Once the bank says
 * `DEVOLVIDO` the charge becomes `refunded`; a refusal is logged for the merchant to act on.
 */
import { type BankGateway, Domain, Jobs, Money, type Store } from "@pixgate/core"
import { Clock, Effect, type Either, Option } from "effect"
import type { PspError, PspResponse } from "./Call.js"
import type { Setup } from "./Setup.js"
import { alphanumeric, codeOf, describe, record, str } from "./Wire.js"

/** The devolução id of a returned PIX: derived from its charge, so a retry asks for the same one. */
export const devolucaoId = (chargeId: string): string => `D${alphanumeric(chargeId)}`

type Answer = Either.Either<PspResponse, PspError>

/** The bank's devolução of the PIX: asked first, requested only when the bank has none. */
const askOrReturn = (setup: Setup, path: string, amount: Money.Cents) =>
  Effect.gen(function* () {
    const asked = yield* Effect.either(setup.psp.call({ method: "GET", path }))
    if (asked._tag === "Left" || asked.right.status !== 404) return asked
    return yield* Effect.either(
      setup.psp.call({ method: "PUT", path, body: { valor: Money.formatReais(amount) } })
    )
  })

/** Logs an answer that settles nothing: the bank's refusal of the request, or no answer yet. */
const logPending = (charge: Domain.Transaction, res: Answer) => {
  if (res._tag === "Right" && res.right.status === 429)
    return Effect.logWarning("The PSP refused a PIX's return for now (429, rate limited); asking again").pipe(
      Effect.annotateLogs({ transactionId: charge.id, bankReason: describe(res.right) })
    )
  if (res._tag === "Right" && res.right.status >= 400 && res.right.status < 500 && res.right.status !== 404)
    // A refusal of the request (problem+json): asked again, with the bank's words in the log.
    return Effect.logError("The PSP refused a PIX's return; asking again").pipe(
      Effect.annotateLogs({
        transactionId: charge.id,
        endToEndId: charge.endToEndId,
        bankCode: codeOf(res.right),
        bankReason: describe(res.right)
      })
    )
  if (res._tag === "Left" || res.right.status >= 500)
    return Effect.logWarning("A PIX's return has no answer yet; asking again").pipe(
      Effect.annotateLogs({
        transactionId: charge.id,
        reason: res._tag === "Left" ? res.left.message : describe(res.right)
      })
    )
  return Effect.void
}

/** Returns a PIX the engine recorded but did not credit (`apipix.pix.return`). */
export const run = (setup: Setup) => (j: Store.ClaimedJob, ctx: BankGateway.GatewayContext) =>
  Effect.gen(function* () {
    const found = yield* Domain.findById(Domain.TransactionId, j.ref, ctx.getTransaction)
    const now = yield* Clock.currentTimeMillis
    if (
      Option.isNone(found) ||
      found.value.status !== "failed" ||
      found.value.endToEndId === null ||
      found.value.receivedAmount === null
    ) {
      return yield* ctx.finishJob(j.id)
    }
    const charge = found.value
    const path = `${setup.pix}/pix/${encodeURIComponent(found.value.endToEndId)}/devolucao/${devolucaoId(charge.id)}`
    const res = yield* askOrReturn(setup, path, found.value.receivedAmount)
    const body = res._tag === "Right" && res.right.status < 300 ? record(res.right.body) : {}
    if (body.status === "DEVOLVIDO") {
      yield* Effect.logInfo("A PIX not credited went back to its payer").pipe(
        Effect.annotateLogs({ transactionId: charge.id, endToEndId: charge.endToEndId })
      )
      // As the current job: the charge's change completes this job in its unit.
      const applied = yield* Effect.provideService(ctx.paymentReturned(charge.id), Jobs.CurrentJob, j.id)
      return applied ? undefined : yield* ctx.finishJob(j.id)
    }
    if (body.status === "NAO_REALIZADO") {
      yield* Effect.logError("The PSP refused to return a PIX; the merchant must act").pipe(
        Effect.annotateLogs({
          transactionId: charge.id,
          endToEndId: charge.endToEndId,
          bankReason: str(body.motivo) ?? str(record(body.erro).motivo),
          bankCode: str(record(body.erro).codigo)
        })
      )
      return yield* ctx.finishJob(j.id)
    }
    yield* logPending(charge, res)
    return yield* ctx.retryJob(j.id, now + setup.pollDelay)
  })
