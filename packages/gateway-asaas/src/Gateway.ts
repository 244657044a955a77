/**
 * The Asaas gateway as the engine's `BankGatewayShape`, assembled from its parts: charges
 * (`Charges`), sends (`Sends`), refunds and returns (`Refunds`), webhooks (`Webhooks`), the
 * per-charge jobs (`ChargeJobs`) and reconciliation (`Reconcile`). Every rule of the engine
 * holds: an outcome the gateway cannot know is never taken for a failure, a webhook is read back
 * from Asaas before anything is credited or settled, and nothing is sent twice.
 */
import { type BankGateway, type Domain, Ids } from "@pixgate/core"
import { Clock, Effect } from "effect"
import * as ChargeJobs from "./ChargeJobs.js"
import * as Charges from "./Charges.js"
import type { AsaasClient } from "./Client.js"
import * as Reconcile from "./Reconcile.js"
import * as Refunds from "./Refunds.js"
import * as Sends from "./Sends.js"
import { type AsaasSettings, resolve } from "./Settings.js"
import * as Webhooks from "./Webhooks.js"

/** Job kinds this gateway registers. */
export const jobKinds = {
  check: "asaas.payment.check",
  unknown: "asaas.payment.unknown",
  return: "asaas.payment.return",
  reconcile: "asaas.reconcile"
} as const

/**
 * What the gateway can do through Asaas, for a plugin's declaration: no due-date charges (the
 * API Pix `cobv`), no recurring charges (Pix Automático), no infractions (MED).
 */
export const capabilities = {
  charges: true,
  dueDateCharges: false,
  sends: true,
  refunds: true,
  reconciliation: true,
  recurring: false,
  infractions: false
} as const

const job = (kind: string, ref: string, runAt: number): Domain.Job => ({
  id: Ids.jobId(runAt),
  kind,
  ref,
  runAt
})

/** The gateway over one Asaas client. */
export const make = (settings: AsaasSettings, client: AsaasClient): BankGateway.BankGatewayShape => {
  const resolved = resolve(settings)
  const interval = resolved.reconcileIntervalMs
  return {
    // Declared on the gateway itself too, so a bare layer (not the plugin) is refused the same way.
    capabilities,
    createCharge: Charges.create(resolved, client),
    sender: Sends.make(resolved, client),
    refunder: Refunds.refunder(resolved, client),
    timers: (moment, subject, ref, now) => {
      switch (moment) {
        case "charge.created":
          return [
            job(
              jobKinds.check,
              ref,
              now + Math.min(interval, Math.max(1000, (subject.expiresAt ?? now) - now))
            )
          ]
        case "charge.unknown":
          return subject.txid === null
            ? []
            : [job(jobKinds.unknown, subject.txid, now + resolved.unknownChargeWindowMs)]
        case "payment.returned":
          return [job(jobKinds.return, ref, now)]
        default:
          return []
      }
    },
    jobs: {
      [jobKinds.check]: ChargeJobs.check(resolved, client),
      [jobKinds.unknown]: ChargeJobs.unknown(resolved, client),
      [jobKinds.return]: Refunds.returnJob(resolved, client),
      [jobKinds.reconcile]: Reconcile.run(resolved, client)
    },
    start: (ctx) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        // One row for every instance: a second insert of the same id fails, and is ignored.
        ctx
          .scheduleJob({ id: Reconcile.jobId, kind: jobKinds.reconcile, ref: "asaas", runAt: now })
          .pipe(Effect.ignore)
      ),
    callback: Webhooks.callback(resolved, client)
  }
}
