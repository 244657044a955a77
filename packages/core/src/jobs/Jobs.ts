/**
 * The one durable timer mechanism: every time-based behaviour is a row of the jobs table
 * (webhook attempts, charge expiry, sandbox settlement). The worker claims due jobs and hands
 * each to the `JobRunner`, which knows what every `JobKind` means. A change a timer causes
 * completes the timer's job in its own unit (`CurrentJob`, `Effects.completes`).
 */
import { Context, Effect, type Either } from "effect"
import type { JobId } from "../domain/Domain.js"
import type { ClaimedJob, StoreError } from "../ports/Store.js"

/**
 * What a webhook attempt tells the worker: its endpoint (`Domain.fairnessKey`), whether it was
 * delivered, and when it started. The worker adapts the endpoint's concurrency to it
 * (`EndpointConcurrency`) and starts the endpoint's next due attempt at once.
 */
export interface AttemptFeedback {
  readonly endpoint: string
  readonly ok: boolean
  readonly startedAt: number
}

/**
 * Runs one claimed job to its end: finishes, reschedules or leaves it to its lease. A webhook
 * attempt answers with its `AttemptFeedback`; other jobs with nothing. Kinds it calls
 * `batchable` may also run many at once (`runMany`), each job ending as it would alone.
 */
export class JobRunner extends Context.Tag("@pixgate/core/JobRunner")<
  JobRunner,
  {
    // biome-ignore lint/suspicious/noConfusingVoidType: a runner of other jobs answers Effect<void>
    readonly run: (job: ClaimedJob) => Effect.Effect<AttemptFeedback | void, StoreError>
    /** Whether claimed jobs of `kind` may run many at once (`runMany`); absent: none may. */
    readonly batchable?: (kind: string) => boolean
    /**
     * Runs claimed jobs of one batchable kind at once (one fiber, one store operation for their
     * changes): each ends as `run` would end it, and answers its own outcome, in order.
     */
    readonly runMany?: (
      jobs: ReadonlyArray<ClaimedJob>
    ) => Effect.Effect<ReadonlyArray<Either.Either<void, StoreError>>>
  }
>() {}

/**
 * The job being run, provided by the runner: an operation that changes state on its behalf
 * completes it in the same unit (`completing`), so a committed change never runs twice.
 */
export class CurrentJob extends Context.Tag("@pixgate/core/Jobs/CurrentJob")<CurrentJob, JobId>() {}

/** `{ completes: [job] }` under a running job, `{}` otherwise: spread into a change's effects. */
export const completing: Effect.Effect<{ readonly completes?: ReadonlyArray<JobId> }> = Effect.map(
  Effect.serviceOption(CurrentJob),
  (job) => (job._tag === "Some" ? { completes: [job.value] } : {})
)
