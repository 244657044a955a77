/**
 * What the job worker adds to the metrics (`Metrics`), sampled where the worker already is: the
 * jobs it claims (per kind, with how late), how they end, and per lane the jobs in flight,
 * whether endpoints' shares left due attempts behind, and the age of the oldest due job (from
 * the `nextJobAt` read each round makes anyway: no extra store query).
 */
import { Effect, Option } from "effect"
import type { JobLane } from "../domain/Domain.js"
import type { ClaimedJob } from "../ports/Store.js"
import * as Metrics from "../runtime/Metrics.js"

const { kind: kindNames, lane: laneNames } = Metrics.labelNames

/** Counts claimed jobs and how long after their due time they were claimed. */
export const claimed = (jobs: ReadonlyArray<ClaimedJob>, now: number): Effect.Effect<void> =>
  jobs.length === 0
    ? Effect.void
    : Effect.sync(() => {
        for (const job of jobs) {
          const tags = Metrics.labels(kindNames, [job.kind])
          Metrics.jobsClaimed.unsafeUpdate(1, tags)
          Metrics.jobLag.unsafeUpdate(Math.max(0, now - job.runAt) / 1000, tags)
        }
      })

/** Records how long a job ran (from its claim), whatever its end. */
export const ran = (job: ClaimedJob, durationMs: number): void =>
  Metrics.jobDuration.unsafeUpdate(durationMs / 1000, Metrics.labels(kindNames, [job.kind]))

/** Counts a job that failed (it runs again after its lease). */
export const failed = (job: ClaimedJob): void =>
  Metrics.jobFailures.unsafeUpdate(1, Metrics.labels(kindNames, [job.kind]))

/** The jobs a lane runs now. */
export const inFlight = (lane: JobLane, running: number): void =>
  Metrics.jobsInFlight.unsafeUpdate(running, Metrics.labels(laneNames, [lane]))

/** A lane's state after a round: left due jobs behind or not, and its oldest due job's age. */
export const laneState = (
  lane: JobLane,
  capped: boolean,
  next: Option.Option<number>,
  now: number
): Effect.Effect<void> =>
  Effect.sync(() => {
    const tags = Metrics.labels(laneNames, [lane])
    Metrics.laneBacklogged.unsafeUpdate(capped ? 1 : 0, tags)
    const age = Option.isSome(next) && next.value <= now ? (now - next.value) / 1000 : 0
    Metrics.oldestDueAge.unsafeUpdate(age, tags)
  })
