/**
 * The job worker: one loop per lane (webhook attempts, timers), each claiming due jobs of its
 * lane up to its own concurrency and running them through the `JobRunner`, so receivers that
 * hang cannot hold back settlements and expiries. A loop sleeps on the Effect Clock until the
 * next job of its lane is due (so the TestClock drives it exactly), a poll interval at most,
 * since other instances may add jobs; this instance's store wakes it when a commit stores an
 * earlier job, and a finished job wakes a lane that was full. A failing job is logged (at warning
 * with its next attempt's time; a defect at error) and left to its lease; the loop goes on.
 *
 * The webhook lane is shared fairly between endpoints (`Store.JobFairness`): a claim leases an
 * endpoint's attempts only up to its share (`webhookEndpointConcurrency`, or
 * `webhookFailingEndpointConcurrency` while it is failing) minus those it has in flight, so an
 * endpoint that hangs holds at most its share of slots and the rest keep flowing. While a claim
 * leaves due attempts behind for that reason, every finished job wakes the lane.
 *
 * Lanes that refill: when a webhook attempt ends, its fiber claims that endpoint's next due
 * attempts at once (`JobStore.claimEndpointJobs`, within the endpoint's limit counted across
 * instances), with no round, tick or poll in between. The limit adapts
 * (`EndpointConcurrency`): a healthy endpoint's grows toward `webhookEndpointMaxConcurrency`,
 * a failure or time-out halves it back toward its share, and one marked failing keeps its small
 * share. A refill never takes the lane's last free slots (`reserve`): those are for other
 * endpoints' shares, claimed by the lane's rounds, so a busy endpoint's growth never delays
 * another merchant's first attempt.
 *
 * Jobs of a kind the runner batches (`JobRunner.batchable`: the sandbox's payout settlements)
 * that one claim leases together run in one fiber (`JobRunner.runMany`: their changes in one
 * store operation); each still ends, fails and is retried on its own, as it would alone.
 *
 * Traced, the worker's own rounds (claims, polls, refills) make no span: an idle worker polls
 * several times a second. Each job it runs is one root span, `pixgate.job`, with the job's store
 * calls and its bank calls under it; jobs run together share one, with `pixgate.job_count`.
 */
import {
  Cause,
  Clock,
  type Context,
  Duration,
  Effect,
  Either,
  ExecutionStrategy,
  FiberRef,
  FiberSet,
  Layer,
  Option,
  Queue,
  Scope
} from "effect"
import { type JobId, type JobLane, jobLanes } from "../domain/Domain.js"
import {
  type ClaimedJob,
  fromFull,
  type JobFairness,
  JobStore,
  type Store,
  type StoreError
} from "../ports/Store.js"
import { EngineConfig } from "../runtime/Config.js"
import * as Telemetry from "../runtime/Telemetry.js"
import * as EndpointConcurrency from "./EndpointConcurrency.js"
import { type AttemptFeedback, JobRunner } from "./Jobs.js"
import * as WorkerMetrics from "./WorkerMetrics.js"

/** Worker options beyond the engine configuration. */
export interface WorkerOptions {
  /**
   * How long stopping waits for jobs in flight before interrupting them (an interrupted job
   * runs again after its lease). Default: `webhookTimeout` + 1 s, the longest webhook attempt.
   */
  readonly shutdownGrace?: Duration.DurationInput
}

/** One lane's loop state: what runs, when it sleeps until, and how to wake it. */
interface Lane {
  readonly name: JobLane
  readonly concurrency: number
  readonly running: Set<JobId>
  /** When the sleeping loop wakes up anyway; -Infinity while it works, so every poke counts. */
  wakeAt: number
  /** No round starts before this (the last round's start plus a tick), whatever wakes the loop. */
  notBefore: number
  readonly pokes: Queue.Queue<void>
  /** The claim's per-endpoint shares (the webhook lane only). */
  readonly fairness: JobFairness | undefined
  /** The last round left due jobs unclaimed (shares used up): a finished job wakes the lane. */
  capped: boolean
  /** Rounds failed in a row (the database gone): only the first is a warning. */
  failures: number
  /** Slots a refill has asked the store for and not yet filled (counted as taken). */
  refilling: number
}

/** Resumes after the I/O of this event-loop turn (real time, whatever the Clock). */
const nextTurn: Effect.Effect<void> = Effect.async<void>((resume) => {
  const handle = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(handle))
})

/**
 * A failure the worker retries by itself: a failed operation (the database gone for a moment) at
 * warning, with when it runs again; a defect (a bug, which a retry rarely cures) at error. The
 * cause goes on the line without its stack for failures: the message says what went wrong.
 */
const logRetried = (message: string, cause: Cause.Cause<unknown>, nextAttemptAt: number) => {
  const annotations = { nextAttemptAt: new Date(nextAttemptAt).toISOString() }
  const failure = Cause.failureOption(cause)
  return Option.isSome(failure) && !Cause.isDie(cause)
    ? Effect.logWarning(message, describe(failure.value)).pipe(Effect.annotateLogs(annotations))
    : Effect.logError(message, cause).pipe(Effect.annotateLogs(annotations))
}

/** An error's tag and message, e.g. `StoreError: Connection terminated unexpectedly`. */
const describe = (error: unknown): string => {
  if (typeof error !== "object" || error === null) return String(error)
  const tag = "_tag" in error ? String(error._tag) : error instanceof Error ? error.name : "Error"
  return "message" in error ? `${tag}: ${String(error.message)}` : tag
}

/** What the worker's loops share: the services, the settings, the lanes and the jobs' fibers. */
interface WorkerContext {
  readonly store: Context.Tag.Service<typeof JobStore>
  readonly runner: Context.Tag.Service<typeof JobRunner>
  readonly batchSize: number
  readonly lease: number
  readonly poll: number
  readonly tick: number
  readonly span: Telemetry.Span
  readonly traced: boolean
  readonly fibers: FiberSet.FiberSet<void>
  readonly lanes: Record<JobLane, Lane>
  readonly failingPerEndpoint: number
  readonly limits: EndpointConcurrency.Controller
  /** Free slots a refill leaves to the lane's rounds: an endpoint's share, or half the lane. */
  readonly reserve: number
  /** Endpoints whose refill runs now; `true` once another attempt of it ended meanwhile. */
  readonly refills: Map<string, boolean>
  /**
   * One fair claim at a time in this instance: each claim counts the endpoint's attempts in
   * flight, and two claims side by side (a round and a refill, on two Postgres connections)
   * would both count before either leased, together going over the endpoint's limit.
   */
  readonly fairClaims: Effect.Semaphore
}

/** A lane's loop state, sleeping on nothing yet. */
const makeLane = (name: JobLane, concurrency: number, fairness?: JobFairness): Effect.Effect<Lane> =>
  Effect.map(Queue.sliding<void>(1), (pokes) => ({
    name,
    concurrency: Math.max(1, concurrency),
    running: new Set<JobId>(),
    wakeAt: Number.NEGATIVE_INFINITY,
    notBefore: Number.NEGATIVE_INFINITY,
    pokes,
    fairness,
    capped: false,
    failures: 0,
    refilling: 0
  }))

/** Wakes the lane's loop if it sleeps past `at`. */
const poke = (l: Lane, at: number) => {
  if (at < l.wakeAt) Queue.unsafeOffer(l.pokes, undefined)
}

/**
 * Claimed jobs as they run: those of a kind the runner batches together (one group per kind),
 * every other job alone; in claim order.
 */
const groups = (
  runner: WorkerContext["runner"],
  jobs: ReadonlyArray<ClaimedJob>
): ReadonlyArray<ReadonlyArray<ClaimedJob>> => {
  const { batchable, runMany } = runner
  if (batchable === undefined || runMany === undefined) return jobs.map((job) => [job])
  const out: Array<Array<ClaimedJob>> = []
  const byKind = new Map<string, Array<ClaimedJob>>()
  for (const job of jobs) {
    if (!batchable(job.kind)) {
      out.push([job])
      continue
    }
    const group = byKind.get(job.kind)
    if (group !== undefined) group.push(job)
    else {
      const created = [job]
      byKind.set(job.kind, created)
      out.push(created)
    }
  }
  return out
}

/**
 * Starts a fiber for each claimed job the lane does not run already; jobs of a batchable kind
 * share one fiber (`runBatch`), a lone one runs as any job.
 */
const launch = (ctx: WorkerContext, l: Lane, jobs: ReadonlyArray<ClaimedJob>, now: number) =>
  Effect.gen(function* () {
    yield* WorkerMetrics.claimed(jobs, now)
    const fresh = jobs.filter((job) => !l.running.has(job.id))
    for (const job of fresh) l.running.add(job.id)
    for (const group of groups(ctx.runner, fresh)) {
      const [first] = group
      if (first === undefined) continue
      yield* FiberSet.run(
        ctx.fibers,
        group.length === 1 ? runJob(ctx, l, first, now) : runBatch(ctx, l, group, now)
      )
    }
    WorkerMetrics.inFlight(l.name, l.running.size)
  })

/**
 * Claims the endpoint's next due attempts into the lane's free slots beyond the reserve, up to
 * its limit now; attempts of it that end meanwhile make it claim once more.
 */
const refill = (ctx: WorkerContext, l: Lane, endpoint: string): Effect.Effect<void> => {
  const { refills } = ctx
  if (refills.has(endpoint)) {
    refills.set(endpoint, true)
    return Effect.void
  }
  refills.set(endpoint, false)
  const once: Effect.Effect<void, StoreError> = Effect.gen(function* () {
    // The attempts of one written batch end together: the rest of this event-loop turn
    // joins them into this claim (one statement for many, not one each).
    yield* nextTurn
    refills.set(endpoint, false)
    const room = l.concurrency - l.running.size - l.refilling - ctx.reserve
    // No room: the lane's round claims, fairly between endpoints, when slots free.
    if (room <= 0) {
      if (l.capped) poke(l, Number.NEGATIVE_INFINITY)
      return
    }
    const now = yield* Clock.currentTimeMillis
    const fairness = { perEndpoint: ctx.limits.limitOf(endpoint), failingPerEndpoint: ctx.failingPerEndpoint }
    l.refilling += room
    const jobs = yield* ctx.fairClaims
      .withPermits(1)(ctx.store.claimEndpointJobs(now, endpoint, room, now + ctx.lease, fairness))
      .pipe(Effect.ensuring(Effect.sync(() => (l.refilling -= room))))
    yield* launch(ctx, l, jobs, now)
    if (refills.get(endpoint) === true && jobs.length > 0) return yield* once
  })
  return once.pipe(
    // The lane's rounds find what a failed refill left (the store gone for a moment).
    Effect.catchAllCause((cause) =>
      Cause.isInterruptedOnly(cause)
        ? Effect.void
        : Effect.logDebug(
            "Webhook lane refill failed; the lane's round claims instead",
            Cause.pretty(cause)
          ).pipe(Effect.zipRight(Effect.sync(() => poke(l, Number.NEGATIVE_INFINITY))))
    ),
    Effect.ensuring(Effect.sync(() => refills.delete(endpoint)))
  )
}

/**
 * After a webhook attempt: its endpoint's limit adapts, and only a lane whose last round left due
 * attempts behind refills (otherwise no endpoint has a backlog, and the rounds, woken by each
 * commit, start new attempts).
 */
const afterAttempt = (ctx: WorkerContext, l: Lane, feedback: AttemptFeedback) =>
  Effect.zipRight(
    ctx.limits.record(feedback.endpoint, feedback.ok, feedback.startedAt),
    l.capped ? refill(ctx, l, feedback.endpoint) : Effect.void
  )

/** A job that failed: logged (with when it runs again) and counted; it is left to its lease. */
const jobFailed = (job: ClaimedJob, cause: Cause.Cause<unknown>): Effect.Effect<void> =>
  logRetried("Job failed; it runs again when its lease ends", cause, job.leaseUntil).pipe(
    Effect.annotateLogs({ jobId: job.id, jobKind: job.kind }),
    Effect.zipRight(Effect.sync(() => WorkerMetrics.failed(job)))
  )

/** Jobs that ended, however: out of the lane, their time recorded; a lane that was full is woken. */
const ended = (l: Lane, jobs: ReadonlyArray<ClaimedJob>, start: number): Effect.Effect<void> =>
  Clock.clockWith((clock) =>
    Effect.sync(() => {
      const wasFull = l.running.size >= l.concurrency
      const now = clock.unsafeCurrentTimeMillis()
      for (const job of jobs) {
        l.running.delete(job.id)
        WorkerMetrics.ran(job, now - start)
      }
      WorkerMetrics.inFlight(l.name, l.running.size)
      if (wasFull) poke(l, Number.NEGATIVE_INFINITY)
    })
  )

/** A job other than a webhook attempt ended: a capped lane is woken (its slot may take an attempt). */
const wakeCapped = (l: Lane): Effect.Effect<void> =>
  Effect.sync(() => {
    if (l.capped) poke(l, Number.NEGATIVE_INFINITY)
  })

/** Runs one claimed job in its root span; a failure is logged and left to the job's lease. */
const runJob = (ctx: WorkerContext, l: Lane, job: ClaimedJob, start: number): Effect.Effect<void> =>
  ctx.runner.run(job).pipe(
    ctx.span("pixgate.job", { root: true, attributes: { "pixgate.job_kind": job.kind } }),
    Effect.withTracerEnabled(ctx.traced),
    Effect.catchAllCause((cause) =>
      Cause.isInterruptedOnly(cause) ? Effect.succeed(undefined) : Effect.as(jobFailed(job, cause), undefined)
    ),
    Effect.ensuring(ended(l, [job], start)),
    // An attempt refills its endpoint's slots itself; other jobs of a capped lane wake it.
    Effect.flatMap((feedback) =>
      feedback !== undefined && feedback !== null && l.fairness !== undefined
        ? afterAttempt(ctx, l, feedback)
        : wakeCapped(l)
    )
  )

/**
 * Runs claimed jobs of one batchable kind in one fiber and one root span (`pixgate.job`, with
 * `pixgate.job_count`): each job that failed is logged and left to its lease, as alone; a
 * failure of the whole run, every job of it.
 */
const runBatch = (
  ctx: WorkerContext,
  l: Lane,
  jobs: ReadonlyArray<ClaimedJob>,
  start: number
): Effect.Effect<void> =>
  Effect.suspend(() =>
    ctx.runner.runMany === undefined
      ? Effect.forEach(jobs, (job) => Effect.either(Effect.asVoid(ctx.runner.run(job))))
      : ctx.runner.runMany(jobs)
  ).pipe(
    ctx.span("pixgate.job", {
      root: true,
      attributes: { "pixgate.job_kind": jobs[0]?.kind ?? "", "pixgate.job_count": jobs.length }
    }),
    Effect.withTracerEnabled(ctx.traced),
    Effect.flatMap((outcomes) =>
      Effect.forEach(
        jobs,
        (job, i) => {
          const outcome = outcomes[i]
          return outcome !== undefined && Either.isLeft(outcome)
            ? jobFailed(job, Cause.fail(outcome.left))
            : Effect.void
        },
        { discard: true }
      )
    ),
    Effect.catchAllCause((cause) =>
      Cause.isInterruptedOnly(cause)
        ? Effect.void
        : Effect.forEach(jobs, (job) => jobFailed(job, cause), { discard: true })
    ),
    Effect.ensuring(ended(l, jobs, start)),
    Effect.zipRight(wakeCapped(l))
  )

/**
 * Sleeps until `until` or a poke, then (had the round claimed little) until `notBefore`, so a
 * steady stream of due jobs is claimed in rounds of many rather than one round each.
 */
const idle = (l: Lane, ms: number, until: number) =>
  Effect.suspend(() => {
    l.wakeAt = until
    return Effect.raceFirst(Effect.sleep(ms), Queue.take(l.pokes))
  }).pipe(
    Effect.ensuring(
      Effect.sync(() => {
        l.wakeAt = Number.NEGATIVE_INFINITY
      })
    ),
    Effect.zipRight(
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        now < l.notBefore ? Effect.sleep(l.notBefore - now) : Effect.void
      )
    )
  )

/** One round of a lane: claims due jobs into its free slots, starts them, sleeps until the next. */
const round = (ctx: WorkerContext, l: Lane) =>
  Effect.gen(function* () {
    const { store, poll } = ctx
    const now = yield* Clock.currentTimeMillis
    const free = l.concurrency - l.running.size - l.refilling
    if (free <= 0) {
      // Full: wait for slots to free, gathering those freed within a tick into one claim.
      l.notBefore = now + ctx.tick
      return yield* idle(l, poll, now + poll)
    }
    const limit = Math.min(ctx.batchSize, free)
    const claim = store.claimDueJobs(now, limit, now + ctx.lease, l.name, l.fairness)
    const jobs = yield* l.fairness === undefined ? claim : ctx.fairClaims.withPermits(1)(claim)
    if (l.failures > 0) {
      yield* Effect.logInfo("Job worker lane claims again").pipe(
        Effect.annotateLogs({ lane: l.name, failedRounds: l.failures })
      )
      l.failures = 0
    }
    l.capped = false
    yield* launch(ctx, l, jobs, now)
    if (jobs.length === limit) return
    l.notBefore = now + ctx.tick
    const next = yield* store.nextJobAt(l.name)
    const later = yield* Clock.currentTimeMillis
    // A job due at the claim yet not claimed is over its endpoint's share (a finished job
    // wakes the lane), or belongs to another instance's race: poll.
    l.capped = l.fairness !== undefined && Option.isSome(next) && next.value <= now
    yield* WorkerMetrics.laneState(l.name, l.capped, next, later)
    const wait = Option.match(next, {
      onNone: () => poll,
      onSome: (at) => (at <= now ? poll : Math.min(Math.max(0, at - later), poll))
    })
    if (wait > 0) yield* idle(l, wait, later + wait)
  }).pipe(
    Effect.catchAllCause((cause) =>
      Cause.isInterruptedOnly(cause)
        ? Effect.interrupt
        : Effect.flatMap(Clock.currentTimeMillis, (now) =>
            // One warning per outage, not one per poll: the rounds after it are debug lines.
            l.failures++ === 0
              ? logRetried("Job worker round failed; the lane claims again", cause, now + ctx.poll)
              : Effect.logDebug("Job worker round failed again", Cause.pretty(cause))
          ).pipe(Effect.zipRight(Effect.sleep(ctx.poll)), Effect.annotateLogs({ lane: l.name }))
    )
  )

/**
 * The jobs' fibers, in their own scope closed after the graceful wait (finalizers run in reverse
 * order): stopping first waits up to `grace`, then interrupts what is left.
 */
const jobFibers = (grace: Duration.DurationInput) =>
  Effect.gen(function* () {
    const jobsScope = yield* Scope.fork(yield* Effect.scope, ExecutionStrategy.sequential)
    const fibers = yield* FiberSet.make<void>().pipe(Scope.extend(jobsScope))
    // Finalizers run uninterruptibly; the wait must be interruptible for the time-out to end it.
    yield* Effect.addFinalizer(() =>
      FiberSet.awaitEmpty(fibers).pipe(Effect.interruptible, Effect.timeout(grace), Effect.ignore)
    )
    return fibers
  })

/** The worker's shared state over its services and configuration, its lanes watching the store. */
const workerContext = (options: WorkerOptions) =>
  Effect.gen(function* () {
    const store = yield* JobStore
    const config = yield* EngineConfig
    const grace = options.shutdownGrace ?? Duration.sum(config.webhookTimeout, Duration.seconds(1))
    const fibers = yield* jobFibers(grace)
    const perEndpoint = Math.max(1, config.webhookEndpointConcurrency)
    const failingPerEndpoint = Math.max(1, config.webhookFailingEndpointConcurrency)
    const lanes = {
      webhooks: yield* makeLane("webhooks", config.webhookConcurrency, { perEndpoint, failingPerEndpoint }),
      timers: yield* makeLane("timers", config.timerConcurrency)
    } satisfies Record<JobLane, Lane>
    yield* store.watchJobs((name, at) => poke(lanes[name], at))
    const ctx: WorkerContext = {
      store,
      runner: yield* JobRunner,
      batchSize: Math.max(1, config.workerBatchSize),
      lease: Duration.toMillis(config.jobLease),
      poll: Duration.toMillis(config.workerPollInterval),
      tick: Duration.toMillis(config.workerTick),
      span: yield* Telemetry.spans,
      traced: yield* FiberRef.get(FiberRef.currentTracerEnabled),
      fibers,
      lanes,
      failingPerEndpoint,
      limits: EndpointConcurrency.make({
        base: perEndpoint,
        ceiling: Math.min(config.webhookEndpointMaxConcurrency, lanes.webhooks.concurrency),
        step: EndpointConcurrency.increaseStep
      }),
      reserve: Math.min(perEndpoint, Math.floor(lanes.webhooks.concurrency / 2)),
      refills: new Map<string, boolean>(),
      fairClaims: yield* Effect.makeSemaphore(1)
    }
    return ctx
  })

/** The worker loops with options; interrupting them stops claiming and drains jobs in flight. */
export const runWith = (
  options: WorkerOptions = {}
): Effect.Effect<never, never, JobStore | JobRunner | EngineConfig> =>
  Effect.scoped(
    Effect.gen(function* () {
      const ctx = yield* workerContext(options)
      return yield* Effect.raceAll(jobLanes.map((name) => Effect.forever(round(ctx, ctx.lanes[name])))).pipe(
        Effect.withTracerEnabled(false)
      )
    })
  )

/** The worker loops with default options. */
export const run: Effect.Effect<never, never, JobStore | JobRunner | EngineConfig> = runWith()

/**
 * Runs the worker for the layer's lifetime over a whole Store (its jobs); closing the scope stops
 * it gracefully.
 */
export const layerWith = (
  options: WorkerOptions = {}
): Layer.Layer<never, never, Store | JobRunner | EngineConfig> =>
  Layer.scopedDiscard(Effect.forkScoped(runWith(options))).pipe(Layer.provide(fromFull))

/** `layerWith` with default options. */
export const layer: Layer.Layer<never, never, Store | JobRunner | EngineConfig> = layerWith()
