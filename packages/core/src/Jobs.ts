/**
 * The one durable timer mechanism: every time-based behaviour is a row of the jobs table
 * (webhook attempts, charge expiry, sandbox settlement). The worker claims due jobs and hands
 * each to the `JobRunner`, which knows what every `JobKind` means.
 */
import { Context, Effect, Layer, Queue } from "effect"
import type { ClaimedJob, StoreError } from "./Store.js"

/** Runs one claimed job to its end: finishes, reschedules or leaves it to its lease. */
export class JobRunner extends Context.Tag("@pixgate/core/JobRunner")<
  JobRunner,
  { readonly run: (job: ClaimedJob) => Effect.Effect<void, StoreError> }
>() {}

/**
 * Wakes this instance's worker at once after a commit that created a job due now, so a
 * webhook's first attempt does not wait for the next poll. Other instances find it by polling.
 */
export class Wakeup extends Context.Tag("@pixgate/core/Wakeup")<
  Wakeup,
  {
    readonly signal: Effect.Effect<void>
    /** Waits for the next signal (signals that arrive meanwhile coalesce into one). */
    readonly await: Effect.Effect<void>
  }
>() {}

/** A Wakeup backed by a sliding queue of one. */
export const wakeupLayer: Layer.Layer<Wakeup> = Layer.effect(
  Wakeup,
  Effect.map(Queue.sliding<void>(1), (queue) => ({
    signal: Queue.offer(queue, undefined).pipe(Effect.asVoid),
    await: Queue.take(queue)
  }))
)
