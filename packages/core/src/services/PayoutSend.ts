/**
 * A payout's send: the `payout.send` job. A run that cannot know whether an earlier run reached
 * the bank asks the bank about the payout first, so a send cut by a crash or a time-out is never
 * made twice; only a send the bank does not know is made. A final answer (the send's own answer
 * included: a bank that answers `Settled` needs no second question) settles or fails the payout
 * (completing the job in that unit); an accepted send not final yet keeps the bank's end-to-end
 * id, when it gives one; anything else asks again.
 *
 * The same run serves the worker and a payout's creation, which tries the send inline while it
 * holds the job (`Payouts.create`): one code path, one job, never two sends. Only that inline
 * run is a first attempt (`Attempt.first`): it runs the job its own unit wrote a moment ago,
 * held past its run time, so no run before it can have sent anything and the question is
 * skipped. A worker's run always asks: it cannot tell a job never run from one whose run was
 * cut after its send reached the bank (a crash between the send and the commit).
 */
import { Effect, Option } from "effect"
import { findById, type Transaction, TransactionId } from "../domain/Domain.js"
import { CurrentJob } from "../jobs/Jobs.js"
import { Gateways, type PixSender, type SendStatus } from "../ports/BankGateway.js"
import {
  type ClaimedJob,
  JobStore,
  LedgerStore,
  noEffects,
  ReadStore,
  type StoreError
} from "../ports/Store.js"
import * as GatewayRouting from "./GatewayRouting.js"

/** What the run changes on a payout. */
export interface PayoutChanges {
  readonly settle: (id: TransactionId, endToEndId?: string) => Effect.Effect<boolean, StoreError>
  readonly fail: (id: TransactionId, reason: string) => Effect.Effect<boolean, StoreError>
}

/** The live sender of a payout, if its mode has one (the sandbox settles by its own timers). */
export const senderOf = (
  gateways: Gateways["Type"],
  payout: Pick<Transaction, "mode" | "merchantId" | "createdAt">
): Effect.Effect<Option.Option<PixSender>, StoreError> =>
  payout.mode === "test"
    ? Effect.succeed(Option.none())
    : Effect.map(GatewayRouting.ofTransaction(gateways, payout), (g) =>
        Option.flatMap(g, (gateway) => Option.fromNullable(gateway.sender))
      )

/**
 * What the caller knows about the run: `first` when no earlier run of the job can exist (the
 * creation's inline run of the job it has just written and still holds). Anything else asks.
 */
export interface Attempt {
  readonly first?: boolean
}

/** Builds the run of one claimed `payout.send` job. */
export const make = (changes: PayoutChanges) =>
  Effect.gen(function* () {
    const reads = yield* ReadStore
    const ledger = yield* LedgerStore
    const jobs = yield* JobStore
    const gateways = yield* Gateways

    // The change runs as the job: it completes the job in its unit; when it changes nothing
    // (the payout moved on), the job is finished here.
    const asJob = (job: ClaimedJob, change: Effect.Effect<boolean, StoreError>) =>
      Effect.flatMap(Effect.provideService(change, CurrentJob, job.id), (applied) =>
        applied ? Effect.void : jobs.finishJob(job.id)
      )

    // The bank's id of a send it accepted but has not settled: kept on the pending payout.
    const identify = (payout: Transaction, status: SendStatus, now: number) =>
      status._tag === "Processing" &&
      status.endToEndId !== undefined &&
      status.endToEndId !== payout.endToEndId
        ? ledger.advance({
            id: payout.id,
            type: "withdrawal",
            from: "pending",
            to: "pending",
            at: now,
            endToEndId: status.endToEndId,
            entry: null,
            effects: noEffects
          })
        : Effect.void

    return (job: ClaimedJob, attempt: Attempt = {}): Effect.Effect<void, StoreError> =>
      Effect.gen(function* () {
        const found = yield* findById(TransactionId, job.ref, reads.getTransaction)
        if (Option.isNone(found) || found.value.type !== "withdrawal" || found.value.status !== "pending") {
          return yield* jobs.finishJob(job.id)
        }
        const payout = found.value
        const sender = yield* senderOf(gateways, payout)
        const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
        if (Option.isNone(sender)) {
          yield* Effect.logWarning("No bank gateway sends this payout; asking again in a minute").pipe(
            Effect.annotateLogs({ transactionId: payout.id })
          )
          return yield* jobs.retryJob(job.id, now + 60_000)
        }
        const bank = sender.value
        // A first attempt has nothing to ask about; any other asks before it sends.
        let status: SendStatus = attempt.first === true ? { _tag: "NotFound" } : yield* bank.status(payout)
        const sent = status._tag === "NotFound"
        if (sent) status = yield* bank.send(payout)
        switch (status._tag) {
          case "Settled":
            return yield* asJob(job, changes.settle(payout.id, status.endToEndId))
          case "Rejected":
            yield* Effect.logWarning("The bank rejected a payout; its money returns").pipe(
              Effect.annotateLogs({
                transactionId: payout.id,
                bankReason: status.reason,
                bankCode: status.code
              })
            )
            return yield* asJob(job, changes.fail(payout.id, "bank_rejected"))
          case "Unknown":
            yield* (
              sent
                ? Effect.logWarning(
                    "A payout's send got no answer: it may have reached the bank, so its status is asked, never sent again blindly"
                  )
                : Effect.logWarning(
                    "The bank could not be asked about a payout's send; nothing was sent this time, asking again"
                  )
            ).pipe(Effect.annotateLogs({ transactionId: payout.id, reason: status.reason, sent }))
            return yield* jobs.retryJob(job.id, now + bank.pollDelay)
          default:
            yield* identify(payout, status, now)
            return yield* jobs.retryJob(job.id, now + bank.pollDelay)
        }
      })
  })
