/**
 * The one durable timer mechanism: every time-based behaviour is a row of the jobs table
 * (webhook attempts, charge expiry, sandbox settlement). The worker claims due jobs and hands
 * each to the `JobRunner`, which knows what every `JobKind` means. A change a timer causes
 * completes the timer's job in its own unit (`CurrentJob`, `Effects.completes`).
 */
import { Context, Effect } from "effect"
import type { JobId } from "./Domain.js"
import type { ClaimedJob, StoreError } from "./Store.js"

/** Runs one claimed job to its end: finishes, reschedules or leaves it to its lease. */
export class JobRunner extends Context.Tag("@pixgate/core/JobRunner")<
  JobRunner,
  { readonly run: (job: ClaimedJob) => Effect.Effect<void, StoreError> }
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
