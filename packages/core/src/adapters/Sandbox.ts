/**
 * The sandbox bank: test keys' charges are paid and payouts settle 2-3 s later, on the Effect
 * clock (deterministic under TestClock: the delay is derived from the transaction id).
 * Magic values (README): a payout to `fail@pixgate.test` fails; a charge of 6.66 is never paid
 * (it expires); a charge of 7.77 is paid, disputed 1 s later and refunded 2 s after that.
 * Refunds (devoluções) complete 2-3 s after their creation, but a refund of 6.66 fails (the
 * bank refuses it; its amount comes back to the balance).
 */
import { Effect, Either, Option, type Schema } from "effect"
import {
  ChargebackId,
  type CoreJobKind,
  idDecoder,
  type Job,
  type Refund,
  RefundId,
  type Transaction,
  TransactionId
} from "../domain/Domain.js"
import * as Ids from "../domain/Ids.js"
import type {
  BankGatewayShape,
  Capabilities,
  ChargePaid,
  GatewayContext,
  JobBatchRun,
  JobRun
} from "../ports/BankGateway.js"
import type { ClaimedJob, StoreError } from "../ports/Store.js"
import * as SandboxMed from "./SandboxMed.js"

/** The PIX key whose payouts the sandbox fails. */
export const failingPixKey = "fail@pixgate.test"
/** A charge of this amount (centavos) is never paid. */
export const unpaidAmount = 666
/** A charge of this amount (centavos) is paid, then charged back and refunded. */
export const chargebackAmount = 777

/** A refund of this amount (centavos) is refused by the sandbox's bank: it fails, its money returns. */
export const failingRefundAmount = 666

/** 2000-3000 ms, fixed per id (FNV-1a), so tests know the exact moment. */
export const settlementDelay = (id: string): number => {
  let hash = 0x811c9dc5
  for (let i = 0; i < id.length; i++) {
    hash ^= id.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193) >>> 0
  }
  return 2000 + (hash % 1001)
}

const job = (kind: CoreJobKind, ref: string, runAt: number): Job => ({
  id: Ids.jobId(runAt),
  kind,
  ref,
  runAt
})

/**
 * A sandbox timer: what the bank "says" when it fires, run as the job's own change (which
 * completes it); a ref of another kind or shape finds nothing to change and the job is finished.
 */
const timer =
  <A, I>(
    id: Schema.Schema<A, I>,
    says: (ref: A, ctx: GatewayContext) => Effect.Effect<boolean, StoreError>
  ): JobRun =>
  (job: ClaimedJob, ctx) =>
    ctx.asJob(
      job,
      Option.match(idDecoder(id)(job.ref), {
        onNone: () => Effect.succeed(false),
        onSome: (ref) => says(ref, ctx)
      })
    )

/** The sandbox bank's timers, registered like any gateway's jobs (`BankGatewayShape.jobs`). */
const coreJobs = {
  "sandbox.charge.pay": timer(TransactionId, (id, ctx) =>
    Effect.flatMap(ctx.getTransaction(id), (tx) =>
      Option.isSome(tx) && tx.value.txid !== null
        ? Effect.map(
            ctx.paymentReceived({ txid: tx.value.txid, charge: tx.value }),
            (outcome) => outcome === "completed"
          )
        : Effect.succeed(false)
    )
  ),
  "sandbox.payout.settle": timer(TransactionId, (id, ctx) => ctx.payoutSettled(id)),
  "sandbox.payout.fail": timer(TransactionId, (id, ctx) => ctx.payoutFailed(id, "bank_rejected")),
  "sandbox.chargeback.open": timer(TransactionId, (id, ctx) => ctx.chargebackOpened(id)),
  "sandbox.chargeback.resolve": timer(ChargebackId, (id, ctx) => ctx.chargebackResolved(id, "accepted")),
  "sandbox.refund.settle": timer(RefundId, (id, ctx) => ctx.refundSettled(id)),
  "sandbox.refund.fail": timer(RefundId, (id, ctx) => ctx.refundFailed(id, "bank_rejected"))
} satisfies Readonly<Record<Extract<CoreJobKind, `sandbox.${string}`>, JobRun>>

/**
 * Settlements a claim leased together: one store operation for all
 * (`GatewayContext.payoutsSettledAsJobs`), each job completed by its own payout's change, or
 * finished when its payout moved on or its ref names none. Without it (a fenced context), each
 * runs as its timer alone.
 */
const settleBatch: JobBatchRun = (jobs, ctx) => {
  const settleAll = ctx.payoutsSettledAsJobs
  const alone = coreJobs["sandbox.payout.settle"]
  if (settleAll === undefined)
    return Effect.forEach(jobs, (job) => Effect.either(alone(job, ctx)), { concurrency: "unbounded" })
  const refs = jobs.map((job) => idDecoder(TransactionId)(job.ref))
  const settlements = jobs.flatMap((job, i) => {
    const ref = refs[i]
    return ref !== undefined && Option.isSome(ref) ? [{ job, id: ref.value }] : []
  })
  const finishes = jobs.filter((_, i) => refs[i] === undefined || Option.isNone(refs[i]))
  // Every ref a payout's id (the usual claim): the settlements' answers are the jobs'.
  if (finishes.length === 0) return settleAll(settlements)
  return Effect.map(
    Effect.all(
      [
        settleAll(settlements),
        Effect.forEach(finishes, (job) => Effect.either(ctx.finishJob(job.id)), { concurrency: "unbounded" })
      ],
      { concurrency: "unbounded" }
    ),
    ([settled, finished]) => {
      const outcome = new Map<ClaimedJob, Either.Either<void, StoreError>>()
      for (const [i, { job }] of settlements.entries()) outcome.set(job, settled[i] ?? Either.void)
      for (const [i, job] of finishes.entries()) outcome.set(job, finished[i] ?? Either.void)
      return jobs.map((job) => outcome.get(job) ?? Either.void)
    }
  )
}

/** The charge a `sandbox.charge.pay` job names, when it names one with a txid. */
const chargeToPay = (
  job: ClaimedJob,
  ctx: GatewayContext
): Effect.Effect<Option.Option<Transaction>, StoreError> =>
  Option.match(idDecoder(TransactionId)(job.ref), {
    onNone: () => Effect.succeed(Option.none()),
    onSome: (id) =>
      Effect.map(
        ctx.getTransaction(id),
        Option.filter((tx) => tx.txid !== null)
      )
  })

/**
 * Charge payments a claim leased together: each charge read (the reads concurrent), then their
 * completions in one store operation (`GatewayContext.chargesPaidAsJobs`), each job completed by
 * its own charge's change, or finished when its charge was paid meanwhile, expired, or its ref
 * names none. A read that fails leaves its job to its lease. Without it (a fenced context), each
 * runs as its timer alone.
 */
const payBatch: JobBatchRun = (jobs, ctx) => {
  const payAll = ctx.chargesPaidAsJobs
  const alone = coreJobs["sandbox.charge.pay"]
  if (payAll === undefined)
    return Effect.forEach(jobs, (job) => Effect.either(alone(job, ctx)), { concurrency: "unbounded" })
  return Effect.gen(function* () {
    const read = yield* Effect.forEach(jobs, (job) => Effect.either(chargeToPay(job, ctx)), {
      concurrency: "unbounded"
    })
    const outcome: Array<Either.Either<void, StoreError>> = jobs.map(() => Either.void)
    const payments: Array<{ readonly at: number; readonly job: ClaimedJob; readonly event: ChargePaid }> = []
    const finishes: Array<number> = []
    for (const [i, job] of jobs.entries()) {
      const found = read[i]
      if (found === undefined) continue
      if (Either.isLeft(found)) outcome[i] = Either.left(found.left)
      else if (Option.isSome(found.right) && found.right.value.txid !== null)
        payments.push({ at: i, job, event: { txid: found.right.value.txid, charge: found.right.value } })
      else finishes.push(i)
    }
    const [paid, finished] = yield* Effect.all(
      [
        payments.length === 0
          ? Effect.succeed([])
          : payAll(payments.map(({ job, event }) => ({ job, event }))),
        Effect.forEach(
          finishes,
          (i) => {
            const job = jobs[i]
            return job === undefined ? Effect.succeed(Either.void) : Effect.either(ctx.finishJob(job.id))
          },
          { concurrency: "unbounded" }
        )
      ],
      { concurrency: "unbounded" }
    )
    for (const [n, { at }] of payments.entries()) outcome[at] = paid[n] ?? Either.void
    for (const [n, i] of finishes.entries()) outcome[i] = finished[n] ?? Either.void
    return outcome
  })
}

/** Sandbox job kinds that may run many at once: the payouts' settlements and the charges' payments. */
export const jobBatches: Readonly<Record<string, JobBatchRun>> = {
  "sandbox.payout.settle": settleBatch,
  "sandbox.charge.pay": payBatch
}

/** The sandbox bank's timers, its MED infractions' (`SandboxMed`) included. */
export const jobs: typeof coreJobs & Readonly<Record<string, JobRun>> = { ...coreJobs, ...SandboxMed.jobs }

/** What the sandbox does: charges of both kinds, payouts, refunds and (simulated) infractions. */
export const capabilities: Capabilities = {
  charges: true,
  dueDateCharges: true,
  sends: true,
  refunds: true,
  reconciliation: false,
  recurring: false,
  infractions: true
}

/** The sandbox gateway for a location host (e.g. `pix.pixgate.dev`). */
export const make = (locationHost: string): BankGatewayShape => ({
  capabilities,
  jobs,
  jobBatches,
  refundTimers: (refund, now) => refundTimers(refund, now),
  createCharge: (tx) =>
    Effect.sync(() => ({
      location: `${locationHost}/v2/${tx.dueTerms === null ? "cob" : "cobv"}/${Ids.randomBase62(25).toLowerCase()}`
    })),
  timers: (moment, tx: Transaction, ref, now) => {
    switch (moment) {
      case "charge.created":
        return tx.amount === unpaidAmount
          ? []
          : [job("sandbox.charge.pay", ref, now + settlementDelay(tx.id))]
      case "charge.completed":
        return tx.amount === chargebackAmount
          ? [job("sandbox.chargeback.open", ref, now + 1000)]
          : SandboxMed.timersOnPaid(tx, now)
      case "chargeback.opened":
        return tx.amount === chargebackAmount ? [job("sandbox.chargeback.resolve", ref, now + 2000)] : []
      case "payment.returned":
      case "charge.unknown":
        return []
      case "payout.created":
        return [
          job(
            tx.pixKey === failingPixKey ? "sandbox.payout.fail" : "sandbox.payout.settle",
            ref,
            now + settlementDelay(tx.id)
          )
        ]
    }
  }
})

/** The sandbox bank's answer to a new refund: it completes (or fails, for 6.66) 2-3 s later. */
export const refundTimers = (refund: Refund, now: number): ReadonlyArray<Job> => [
  job(
    refund.amount === failingRefundAmount ? "sandbox.refund.fail" : "sandbox.refund.settle",
    refund.id,
    now + settlementDelay(refund.id)
  )
]
