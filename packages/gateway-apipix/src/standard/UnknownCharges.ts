/**
 * Charges whose creation had an unknown outcome (`charge.unknown`): the client got a 502, but the
 * bank may hold the cob. The client's retry with the same Idempotency-Key asks for the same txid
 * and adopts it; once the retry window has passed, this job (`apipix.cob.unknown`, ref = txid)
 * asks `GET /cob/{txid}` and withdraws a cob that is still `ATIVA` and that no charge adopted
 * (`PATCH /cob/{txid}`, status `REMOVIDA_PELO_USUARIO_RECEBEDOR`). Each finding is logged once.
 * A due-date charge's (`apipix.cobv.unknown`) does the same over `/cobv/{txid}`.
 */
import type { BankGateway, Store } from "@pixgate/core"
import { Clock, Effect, Option } from "effect"
import * as Problem from "./Problem.js"
import type { Setup } from "./Setup.js"
import { record } from "./Wire.js"

/** The job's runner over the gateway's setup. */
export const runner =
  (setup: Setup, resource: "cob" | "cobv" = "cob") =>
  (j: Store.ClaimedJob, ctx: BankGateway.GatewayContext): Effect.Effect<void, Store.StoreError> =>
    Effect.gen(function* () {
      const psp = setup.psp
      const txid = j.ref
      const path = `${setup.pix}/${resource}/${encodeURIComponent(txid)}`
      const later = Effect.flatMap(Clock.currentTimeMillis, (now) => ctx.retryJob(j.id, now + setup.interval))
      const adopted = Effect.map(ctx.findByTxid(txid), Option.isSome)
      const log = (message: string, fields: Record<string, unknown> = {}) =>
        Effect.logWarning(message).pipe(Effect.annotateLogs({ txid, ...fields }))
      if (yield* adopted) return yield* ctx.finishJob(j.id)
      const asked = yield* Effect.either(psp.call({ method: "GET", path }))
      if (asked._tag === "Left") {
        yield* log("An unknown charge could not be asked about; asked again later", {
          error: asked.left.message
        })
        return yield* later
      }
      const res = asked.right
      if (res.status === 404) {
        yield* Effect.logInfo("An unknown charge was never created at the bank").pipe(
          Effect.annotateLogs({ txid })
        )
        return yield* ctx.finishJob(j.id)
      }
      if (res.status !== 200) {
        yield* log(
          "An unknown charge could not be asked about; asked again later",
          Problem.fields(res.status, res.body)
        )
        return yield* later
      }
      const status = record(res.body).status
      if (status === "CONCLUIDA") {
        yield* Effect.logError(
          "A cob no charge adopted was paid at the bank; the PIX is in the settlement account, not credited"
        ).pipe(Effect.annotateLogs({ txid }))
        return yield* ctx.finishJob(j.id)
      }
      if (status !== "ATIVA") {
        yield* Effect.logInfo("An unknown charge is no longer active at the bank").pipe(
          Effect.annotateLogs({ txid, cobStatus: String(status) })
        )
        return yield* ctx.finishJob(j.id)
      }
      // Asked once more just before withdrawing: a retry may have adopted it meanwhile.
      if (yield* adopted) return yield* ctx.finishJob(j.id)
      const removed = yield* Effect.either(
        psp.call({ method: "PATCH", path, body: { status: "REMOVIDA_PELO_USUARIO_RECEBEDOR" } })
      )
      if (removed._tag === "Right" && removed.right.status === 200) {
        yield* log("A cob no charge adopted was withdrawn at the bank (REMOVIDA_PELO_USUARIO_RECEBEDOR)")
        return yield* ctx.finishJob(j.id)
      }
      yield* log(
        "A cob no charge adopted could not be withdrawn; tried again later",
        removed._tag === "Left"
          ? { error: removed.left.message }
          : Problem.fields(removed.right.status, removed.right.body)
      )
      return yield* later
    })
