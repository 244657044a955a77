/**
 * The engine's metrics, as Effect `Metric`s in the global registry: whatever exports that
 * registry (the standalone server's Prometheus `/metrics` and OTLP, through
 * `@effect/opentelemetry`) sees them; without an exporter an update is a few additions. Labels
 * are bounded sets only (mode, outcome, lane, job kind): never a merchant, an id or a URL, so
 * one merchant's traffic cannot grow the series without bound. docs/operations.md lists every
 * metric with the alert it deserves.
 */
import { Effect, Metric, MetricBoundaries, MetricLabel, Option } from "effect"
import { PixgateError } from "../contract/Errors.js"
import type { CoreJobKind, JobLane, Mode } from "../domain/Domain.js"
import type { LedgerCheck } from "../ports/Store.js"

/** Latency buckets in seconds: 5 ms to 30 s (webhook and bank time-outs sit at the top). */
export const latencyBuckets = MetricBoundaries.fromIterable([
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30
])

/** One step of the label cache: the labels of the values so far, and what follows each next value. */
interface LabelNode {
  readonly next: Map<string, LabelNode>
  tags: ReadonlyArray<MetricLabel.MetricLabel> | undefined
}

const labelRoots = new WeakMap<ReadonlyArray<string>, LabelNode>()

const child = (node: LabelNode, value: string): LabelNode => {
  const found = node.next.get(value)
  if (found !== undefined) return found
  const made: LabelNode = { next: new Map(), tags: undefined }
  node.next.set(value, made)
  return made
}

/**
 * The labels of `names[i] = values[i]`, one array per combination for the process's life:
 * Effect caches a metric's series by the identity of this array, so an update finds its series
 * without hashing. The cache is a tree per `names` array (give a constant) walked by value: a
 * few map lookups, no string building. Only for bounded values.
 */
export const labels = (
  names: ReadonlyArray<string>,
  values: ReadonlyArray<string>
): ReadonlyArray<MetricLabel.MetricLabel> => {
  let node = labelRoots.get(names)
  if (node === undefined) {
    node = { next: new Map(), tags: undefined }
    labelRoots.set(names, node)
  }
  for (const value of values) node = child(node, value)
  node.tags ??= names.map((name, i) => MetricLabel.make(name, values[i]))
  return node.tags
}

/** Charges by mode and outcome: `created`, `paid`, `expired`, or the refusal's error tag. */
export const charges = Metric.counter("pixgate_charges_total", {
  incremental: true,
  description: "Charges by mode and outcome (created, paid, expired, or the error tag of a refused create)"
})

/** Payouts by mode and outcome: `created`, `settled`, `failed`, or the refusal's error tag. */
export const payouts = Metric.counter("pixgate_payouts_total", {
  incremental: true,
  description: "Payouts by mode and outcome (created, settled, failed, or the error tag of a refused create)"
})

/** Payments between merchants by mode and outcome: `created` or the refusal's error tag. */
export const payments = Metric.counter("pixgate_payments_total", {
  incremental: true,
  description: "Payments between merchants by mode and outcome (created, or the error tag of a refusal)"
})

/** Webhook attempts by mode and outcome. */
export const webhookAttempts = Metric.counter("pixgate_webhook_attempts_total", {
  incremental: true,
  description: "Webhook attempts by mode and outcome (delivered, rejected, timeout, unreachable, no_endpoint)"
})

/** How long webhook attempts took, by mode and outcome. */
export const webhookAttemptDuration = Metric.histogram(
  "pixgate_webhook_attempt_duration_seconds",
  latencyBuckets,
  "Duration of webhook attempts in seconds, by mode and outcome"
)

/** Deliveries that reached a final state: delivered, or failed after the last attempt. */
export const webhookDeliveries = Metric.counter("pixgate_webhook_deliveries_finished_total", {
  incremental: true,
  description: "Webhook deliveries that reached a final state, by mode and status (delivered, failed)"
})

/** Endpoints that changed health: marked failing, or recovered. */
export const webhookEndpointTransitions = Metric.counter("pixgate_webhook_endpoint_transitions_total", {
  incremental: true,
  description: "Webhook endpoints marked failing or recovered, by mode and state"
})

/** Jobs running now, per worker lane. */
export const jobsInFlight = Metric.gauge("pixgate_worker_jobs_in_flight", {
  description: "Jobs running in this instance, per worker lane (webhooks, timers)"
})

/** 1 while a lane leaves due jobs unclaimed because their endpoints used up their shares. */
export const laneBacklogged = Metric.gauge("pixgate_worker_lane_backlogged", {
  description:
    "1 while the lane's last claim left due jobs behind (endpoints at their concurrency share), else 0"
})

/** How long the oldest due job of a lane has been waiting, seen at the lane's last round. */
export const oldestDueAge = Metric.gauge("pixgate_worker_oldest_due_job_age_seconds", {
  description: "Age in seconds of the lane's oldest due job not yet claimed (0 when none is due)"
})

/** Jobs claimed, per kind. */
export const jobsClaimed = Metric.counter("pixgate_worker_jobs_claimed_total", {
  incremental: true,
  description: "Jobs claimed by this instance, per kind"
})

/** How late a job was claimed: the claim's time minus its due time, per kind. */
export const jobLag = Metric.histogram(
  "pixgate_worker_job_lag_seconds",
  latencyBuckets,
  "Seconds between a job's due time and its claim, per kind"
)

/** How long a job ran, per kind. */
export const jobDuration = Metric.histogram(
  "pixgate_worker_job_duration_seconds",
  latencyBuckets,
  "Seconds a job ran, per kind"
)

/** Jobs that failed (they run again after their lease), per kind. */
export const jobFailures = Metric.counter("pixgate_worker_job_failures_total", {
  incremental: true,
  description: "Jobs that failed and wait for their lease to run again, per kind"
})

/** 1 when the last ledger check of the mode found no discrepancy, 0 when it found some. */
export const ledgerCheckOk = Metric.gauge("pixgate_ledger_check_ok", {
  description:
    "1 when the last ledger check of the mode found every entry balanced and every balance equal to its postings"
})

/** What the last ledger check of the mode found wrong: unbalanced entries plus balance mismatches. */
export const ledgerCheckProblems = Metric.gauge("pixgate_ledger_check_problems", {
  description: "Unbalanced entries plus balance mismatches found by the last ledger check of the mode"
})

/** When the last ledger check of the mode ran (Unix seconds). */
export const ledgerCheckTimestamp = Metric.gauge("pixgate_ledger_check_timestamp_seconds", {
  description: "Unix time in seconds of the last ledger check of the mode"
})

/** 1 when the readiness check named by `check` (`database`, `instance`) passed at the last probe, else 0. */
export const readinessOk = Metric.gauge("pixgate_readiness_ok", {
  description:
    "1 when the readiness check (database: answers a ping in time; instance: not draining) passed at the last probe, else 0"
})

/** The label names of the engine's metrics (constants: `labels` caches by their identity). */
export const labelNames = {
  modeOutcome: ["mode", "outcome"],
  modeStatus: ["mode", "status"],
  modeState: ["mode", "state"],
  mode: ["mode"],
  kind: ["kind"],
  lane: ["lane"],
  check: ["check"]
} as const

const modeOutcome = labelNames.modeOutcome

/** Adds one to `metric` for `mode` and `outcome`. */
export const count = (
  metric: Metric.Metric.Counter<number>,
  mode: Mode,
  outcome: string
): Effect.Effect<void> => Effect.sync(() => metric.unsafeUpdate(1, labels(modeOutcome, [mode, outcome])))

/**
 * `effect` counted in `metric` for `mode`: `created` when it succeeds, else the error's tag
 * (a bounded set: the engine's errors are tagged classes).
 */
export const countCreate = <A, E extends { readonly _tag: string }, R>(
  metric: Metric.Metric.Counter<number>,
  mode: Mode,
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> =>
  Effect.tapBoth(effect, {
    onSuccess: () => count(metric, mode, "created"),
    onFailure: (error) => count(metric, mode, error._tag)
  })

/** Counts a transition that happened (a transaction came out of it), e.g. a charge paid. */
export const countChange = (
  metric: Metric.Metric.Counter<number>,
  outcome: string,
  changed: Option.Option<{ readonly mode: Mode }>
): Effect.Effect<void> => (Option.isSome(changed) ? count(metric, changed.value.mode, outcome) : Effect.void)

/** Records what a ledger check of `mode` found, and when. */
export const ledgerChecked = (mode: Mode, check: LedgerCheck): Effect.Effect<void> =>
  Effect.clockWith((clock) =>
    Effect.sync(() => {
      const tags = labels(labelNames.mode, [mode])
      const problems = check.unbalancedEntries.length + check.balanceMismatches.length
      ledgerCheckOk.unsafeUpdate(problems === 0 ? 1 : 0, tags)
      ledgerCheckProblems.unsafeUpdate(problems, tags)
      ledgerCheckTimestamp.unsafeUpdate(Math.floor(clock.unsafeCurrentTimeMillis() / 1000), tags)
    })
  )

/** Records what a readiness probe found, per check. */
export const readinessChecked = (database: boolean, instance: boolean): Effect.Effect<void> =>
  Effect.sync(() => {
    readinessOk.unsafeUpdate(database ? 1 : 0, labels(labelNames.check, ["database"]))
    readinessOk.unsafeUpdate(instance ? 1 : 0, labels(labelNames.check, ["instance"]))
  })

const coreJobKinds = [
  "webhook.attempt",
  "charge.expire",
  "payout.send",
  "sandbox.charge.pay",
  "sandbox.payout.settle",
  "sandbox.payout.fail",
  "sandbox.chargeback.open",
  "sandbox.chargeback.resolve"
] as const satisfies ReadonlyArray<CoreJobKind>

const modes = ["test", "live"] as const satisfies ReadonlyArray<Mode>
const lanes = ["webhooks", "timers"] as const satisfies ReadonlyArray<JobLane>

/** Every error tag a refused create can be counted under (the engine's tagged errors). */
const refusals: ReadonlyArray<string> = PixgateError.members.map((member) => member._tag)

/** The outcomes each money counter can take, a refusal's error tag included. */
const moneyOutcomes = [
  [charges, ["created", "paid", "expired", ...refusals]],
  [payouts, ["created", "settled", "failed", ...refusals]],
  [payments, ["created", ...refusals]]
] as const

/** The outcome classes of a webhook attempt (`WebhookMetrics.outcomeOf`, and `no_endpoint`). */
export const webhookOutcomes = ["delivered", "rejected", "timeout", "unreachable", "no_endpoint"] as const

/**
 * Zero series of every counter's outcomes (each mode, refusal tag, webhook outcome, delivery
 * end, endpoint change and core job kind) and of the lanes' gauges, so that `increase()` counts
 * the first event: a counter whose series appears at 1 has no earlier sample to count from, and
 * an absent series alerts on nothing. Histograms get their series with their first observation
 * (a quantile or ratio of nothing is no answer either way). Idempotent.
 */
export const preregister: Effect.Effect<void> = Effect.sync(() => {
  for (const mode of modes) {
    for (const [metric, outcomes] of moneyOutcomes)
      for (const outcome of outcomes) metric.unsafeUpdate(0, labels(modeOutcome, [mode, outcome]))
    for (const outcome of webhookOutcomes)
      webhookAttempts.unsafeUpdate(0, labels(modeOutcome, [mode, outcome]))
    for (const status of ["delivered", "failed"])
      webhookDeliveries.unsafeUpdate(0, labels(labelNames.modeStatus, [mode, status]))
    for (const state of ["failing", "recovered"])
      webhookEndpointTransitions.unsafeUpdate(0, labels(labelNames.modeState, [mode, state]))
  }
  for (const kind of coreJobKinds) {
    const tags = labels(labelNames.kind, [kind])
    jobsClaimed.unsafeUpdate(0, tags)
    jobFailures.unsafeUpdate(0, tags)
  }
  for (const lane of lanes) {
    const tags = labels(labelNames.lane, [lane])
    jobsInFlight.unsafeValue(tags)
    laneBacklogged.unsafeValue(tags)
    oldestDueAge.unsafeValue(tags)
  }
})
