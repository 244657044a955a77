/**
 * Reconciliation: one `asaas.reconcile` job for every instance (`job_asaas_reconcile`, seeded at
 * start) pages the payments Asaas received over the last days of the window
 * (`GET /payments?status=RECEIVED&paymentDate[ge]=&paymentDate[le]=`: Asaas dates a payment by
 * its day) and credits each of the engine's charges that is still waiting for it: a webhook that
 * never came is found here. Charges the engine already settled cost no further call, so a run
 * costs one call per page plus one per payment it reports.
 */
import type { BankGateway, Store } from "@pixgate/core"
import { Domain, Ids } from "@pixgate/core"
import { Clock, Effect, Option } from "effect"
import type { AsaasClient } from "./Client.js"
import * as Payments from "./Payments.js"
import type { Resolved } from "./Settings.js"
import * as Wire from "./Wire.js"

/** The one reconciliation job's id: every instance seeds the same row, so there is one. */
export const jobId: Domain.JobId = Domain.JobId.make("job_asaas_reconcile")

/** At most this many pages of 100 payments are read per run. */
export const maxPages = 100

/** Findings of one run. */
export type Findings = {
  readonly received: number
  readonly credited: number
  readonly returned: number
  readonly pages: number
}

/** One run: reads the window's received payments, credits the missed ones, reschedules itself. */
export const run =
  (settings: Resolved, client: AsaasClient) =>
  (job: Store.ClaimedJob, ctx: BankGateway.GatewayContext): Effect.Effect<void, Store.StoreError> =>
    Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      const query = {
        status: "RECEIVED",
        "paymentDate[ge]": Wire.day(now - settings.reconcileWindowMs),
        "paymentDate[le]": Wire.day(now),
        limit: "100"
      }
      let received = 0
      let credited = 0
      let returned = 0
      let page = 0
      for (let more = true; more && page < maxPages; page++) {
        const res = yield* Effect.either(
          client.call({ method: "GET", path: "/payments", query: { ...query, offset: String(page * 100) } })
        )
        if (res._tag === "Left" || res.right.status !== 200) {
          yield* Effect.logWarning(
            "Reconciliation could not read received payments; it tries again next run"
          ).pipe(
            Effect.annotateLogs(
              res._tag === "Left"
                ? { reason: res.left.message }
                : Wire.fields(res.right.status, res.right.body)
            )
          )
          break
        }
        const list = Wire.list(res.right.body)
        more = list.hasMore
        for (const item of list.data) {
          const payment = Wire.payment(item)
          const txid = Option.getOrUndefined(Option.flatMapNullable(payment, (p) => p.externalReference))
          if (Option.isNone(payment) || txid === undefined || !Ids.isTxid(txid)) continue
          received++
          const outcome = yield* Payments.credit(client, ctx, payment.value).pipe(
            Effect.catchTag("GatewayFailure", () => Effect.succeed("ignored" as const))
          )
          if (outcome === "completed") credited++
          else if (outcome === "returned") returned++
        }
      }
      const findings: Findings = { received, credited, returned, pages: page }
      if (credited > 0 || returned > 0)
        yield* Effect.logWarning("Reconciliation found payments no webhook had reported").pipe(
          Effect.annotateLogs(findings)
        )
      else yield* Effect.logInfo("Reconciliation run").pipe(Effect.annotateLogs(findings))
      yield* ctx.retryJob(job.id, now + settings.reconcileIntervalMs)
    })
