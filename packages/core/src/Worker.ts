/**
 * The job worker: claims due jobs, runs them through the `JobRunner` with bounded concurrency,
 * and sleeps on the Effect Clock until the next job is due (so the TestClock drives it exactly),
 * a poll interval at most, since other instances may add jobs. `Wakeup` and every finished job
 * wake it early. A failing job is logged and left to its lease; the loop goes on.
 */
import {
  Cause,
  Clock,
  Duration,
  Effect,
  ExecutionStrategy,
  FiberSet,
  Layer,
  Option,
  Queue,
  Scope
} from "effect"
import { EngineConfig } from "./Config.js"
import type { JobId } from "./Domain.js"
import { JobRunner, Wakeup } from "./Jobs.js"
import { type ClaimedJob, Store } from "./Store.js"

/** Worker options beyond the engine configuration. */
export interface WorkerOptions {
  /**
   * How long stopping waits for jobs in flight before interrupting them (an interrupted job
   * runs again after its lease). Default: `webhookTimeout` + 1 s, the longest webhook attempt.
   */
  readonly shutdownGrace?: Duration.DurationInput
}

/** The worker loop with options; interrupting it stops claiming and drains jobs in flight. */
export const runWith = (
  options: WorkerOptions = {}
): Effect.Effect<never, never, Store | JobRunner | Wakeup | EngineConfig> =>
  Effect.scoped(
    Effect.gen(function* () {
      const store = yield* Store
      const runner = yield* JobRunner
      const wakeup = yield* Wakeup
      const config = yield* EngineConfig
      const concurrency = Math.max(1, config.webhookConcurrency)
      const batchSize = Math.max(1, config.workerBatchSize)
      const lease = Duration.toMillis(config.jobLease)
      const poll = Duration.toMillis(config.workerPollInterval)
      const grace = options.shutdownGrace ?? Duration.sum(config.webhookTimeout, Duration.seconds(1))

      // Jobs live in their own scope, closed after the graceful wait below (finalizers run in
      // reverse order): stopping first waits up to `grace`, then interrupts what is left.
      const jobsScope = yield* Scope.fork(yield* Effect.scope, ExecutionStrategy.sequential)
      const fibers = yield* FiberSet.make<void>().pipe(Scope.extend(jobsScope))
      // Finalizers run uninterruptibly; the wait must be interruptible for the time-out to end it.
      yield* Effect.addFinalizer(() =>
        FiberSet.awaitEmpty(fibers).pipe(Effect.interruptible, Effect.timeout(grace), Effect.ignore)
      )

      const running = new Set<JobId>()
      const finished = yield* Queue.sliding<void>(1)

      const runJob = (job: ClaimedJob) =>
        runner.run(job).pipe(
          Effect.catchAllCause((cause) =>
            Cause.isInterruptedOnly(cause)
              ? Effect.void
              : Effect.logError("Job failed; it runs again when its lease ends", cause)
          ),
          Effect.annotateLogs({ jobId: job.id, jobKind: job.kind }),
          Effect.ensuring(Effect.sync(() => running.delete(job.id)).pipe(Effect.zipRight(finished.offer()))),
          Effect.asVoid
        )

      const idle = (ms: number) =>
        Effect.raceAll([Effect.sleep(ms), wakeup.await, Queue.take(finished)]).pipe(Effect.asVoid)

      const round = Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const free = concurrency - running.size
        if (free <= 0) return yield* idle(poll)
        const limit = Math.min(batchSize, free)
        const jobs = yield* store.claimDueJobs(now, limit, now + lease)
        for (const job of jobs) {
          if (running.has(job.id)) continue
          running.add(job.id)
          yield* FiberSet.run(fibers, runJob(job))
        }
        if (jobs.length === limit) return
        const next = yield* store.nextJobAt()
        const later = yield* Clock.currentTimeMillis
        // A job due at the claim yet not claimed belongs to another instance's race: poll.
        const wait = Option.match(next, {
          onNone: () => poll,
          onSome: (at) => (at <= now ? poll : Math.min(Math.max(0, at - later), poll))
        })
        if (wait > 0) yield* idle(wait)
      }).pipe(
        Effect.catchAllCause((cause) =>
          Cause.isInterruptedOnly(cause)
            ? Effect.interrupt
            : Effect.logError("Job worker round failed", cause).pipe(Effect.zipRight(Effect.sleep(poll)))
        )
      )

      return yield* Effect.forever(round)
    })
  )

/** The worker loop with default options. */
export const run: Effect.Effect<never, never, Store | JobRunner | Wakeup | EngineConfig> = runWith()

/** Runs the worker for the layer's lifetime; closing the scope stops it gracefully. */
export const layerWith = (
  options: WorkerOptions = {}
): Layer.Layer<never, never, Store | JobRunner | Wakeup | EngineConfig> =>
  Layer.scopedDiscard(Effect.forkScoped(runWith(options)))

/** `layerWith` with default options. */
export const layer: Layer.Layer<never, never, Store | JobRunner | Wakeup | EngineConfig> = layerWith()
