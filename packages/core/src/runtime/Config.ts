/**
 * Engine configuration. Every field has the docs/decisions.md default, so `EngineConfig.make({})`
 * is a working engine; a platform overrides what it needs.
 */
import { Context, Duration, Layer } from "effect"
import * as Fees from "../domain/Fees.js"
import * as Money from "../domain/Money.js"

/** Everything an engine instance can be configured with. */
export interface EngineConfigShape {
  /** Names the webhook signature header (`X-<Name>-Signature`) and the User-Agent. */
  readonly serviceName: string
  /** Fee plan of new merchants. */
  readonly defaultFeePlan: Fees.FeePlan
  /** Largest amount of one charge or payout. */
  readonly maxAmount: Money.Cents
  /** Charge lifetime when the request gives no `expiresIn`. */
  readonly chargeExpiry: Duration.Duration
  /** ISPB inside every endToEndId the engine issues: the sandbox's only (live ids are the bank's). */
  readonly ispb: string
  /** Host (and path prefix) of the charges' location URLs inside dynamic BR Codes. */
  readonly pixLocationHost: string
  /** City printed in BR Codes when a merchant has none. */
  readonly defaultCity: string
  /** Delays before attempts 2..n after the previous attempt failed (spec: 1 s, 5 s, 30 s). */
  readonly webhookRetryDelays: ReadonlyArray<Duration.Duration>
  /** Time-out of one webhook attempt (spec: 10 s). */
  readonly webhookTimeout: Duration.Duration
  /**
   * Allows live-mode webhook URLs on loopback and private addresses (a local trial; off by
   * default). Link-local and cloud metadata addresses stay refused in every mode.
   */
  readonly allowPrivateWebhookUrls: boolean
  /**
   * Allows test-mode webhook URLs on loopback and private addresses (default on: a developer's
   * local receiver). A platform hosting many merchants turns it off, so no merchant can reach
   * its internal network through a test endpoint.
   */
  readonly allowPrivateTestWebhookUrls: boolean
  /**
   * Allows plain `http:` webhook URLs in live mode (refused by default: every delivery carries the
   * endpoint's secret). Test mode always allows them.
   */
  readonly allowInsecureLiveWebhooks: boolean
  /** Webhook attempts in flight at once per engine instance (the worker's webhook lane). */
  readonly webhookConcurrency: number
  /**
   * Attempts of one webhook endpoint (merchant and mode) in flight at once, across instances:
   * its share of the webhook lane, so a slow endpoint holds at most this many slots.
   */
  readonly webhookEndpointConcurrency: number
  /**
   * The most attempts of one healthy endpoint in flight at once per instance: while its attempts
   * succeed, its limit grows from `webhookEndpointConcurrency` toward this (a window of
   * successes adds a few), and a failure or time-out halves it, never below the share
   * (`EndpointConcurrency`). Growth never takes the lane's last `webhookEndpointConcurrency`
   * free slots (half the lane if smaller): those stay for other endpoints' shares. Equal to
   * `webhookEndpointConcurrency`, limits never grow.
   */
  readonly webhookEndpointMaxConcurrency: number
  /** The share of an endpoint marked failing (`webhookFailingAfter` failed attempts in a row). */
  readonly webhookFailingEndpointConcurrency: number
  /** Failed attempts in a row after which an endpoint is marked failing; a 200 clears the mark. */
  readonly webhookFailingAfter: number
  /**
   * How long an endpoint may stay failing (from when it was marked failing, with no 200 since)
   * before an attempt that fails again disables it: its deliveries are then held (logged, not
   * attempted) until it is enabled by hand. Default 5 days, as Svix does.
   */
  readonly webhookDisableAfter: Duration.Duration
  /** First attempts a resend of failed deliveries starts per second, at most (default 10). */
  readonly webhookResendRate: number
  /**
   * How often the job worker looks for subscriptions' work due (cycles to create, the sandbox
   * payer's answers, expiries); default 1 s.
   */
  readonly subscriptionTickInterval: Duration.Duration
  /** Most events one resend queues (default 10 000; a later resend takes the rest). */
  readonly webhookResendLimit: number
  /** Timers (settlements, expiries, chargebacks) run at once per engine instance (the timer lane). */
  readonly timerConcurrency: number
  /** How long idempotency keys are kept. */
  readonly idempotencyTtl: Duration.Duration
  /**
   * How long a started key answers 409 to repeats; after that a repeat takes the key over (its
   * first request died). The result is stored with the change itself, so a late first request
   * can never commit a second change.
   */
  readonly idempotencyLock: Duration.Duration
  /** The job worker's longest sleep when it knows of no due job (other instances may add some). */
  readonly workerPollInterval: Duration.Duration
  /** Jobs claimed per round. */
  readonly workerBatchSize: number
  /**
   * Jobs that come due within this much of a round wait for the next round: a busy engine runs
   * fewer, larger claim rounds, and a job may start up to this late.
   */
  readonly workerTick: Duration.Duration
  /** A claimed job's lease: after it lapses (a crashed instance) another instance may run it. */
  readonly jobLease: Duration.Duration
  /** Longest wait of the readiness probe's database check before it reports `timeout`. */
  readonly readinessTimeout: Duration.Duration
}

/** The engine configuration's tag. */
export class EngineConfig extends Context.Tag("@pixgate/core/EngineConfig")<
  EngineConfig,
  EngineConfigShape
>() {}

/** docs/decisions.md defaults. */
export const defaults: EngineConfigShape = {
  serviceName: "Pixgate",
  defaultFeePlan: Fees.defaultPlan,
  maxAmount: Money.defaultMaximum,
  chargeExpiry: Duration.seconds(3600),
  ispb: "99999999",
  pixLocationHost: "pix.pixgate.dev",
  defaultCity: "SAO PAULO",
  webhookRetryDelays: [Duration.seconds(1), Duration.seconds(5), Duration.seconds(30)],
  webhookTimeout: Duration.seconds(10),
  allowPrivateWebhookUrls: false,
  allowPrivateTestWebhookUrls: true,
  allowInsecureLiveWebhooks: false,
  webhookConcurrency: 64,
  webhookEndpointConcurrency: 16,
  webhookEndpointMaxConcurrency: 48,
  webhookFailingEndpointConcurrency: 2,
  webhookFailingAfter: 5,
  webhookDisableAfter: Duration.days(5),
  webhookResendRate: 10,
  subscriptionTickInterval: Duration.seconds(1),
  webhookResendLimit: 10_000,
  timerConcurrency: 256,
  idempotencyTtl: Duration.hours(24),
  idempotencyLock: Duration.seconds(10),
  workerPollInterval: Duration.millis(250),
  workerBatchSize: 100,
  workerTick: Duration.millis(5),
  jobLease: Duration.seconds(60),
  readinessTimeout: Duration.seconds(2)
}

/** Defaults overridden by `overrides`. */
export const make = (overrides: Partial<EngineConfigShape> = {}): EngineConfigShape => ({
  ...defaults,
  ...overrides
})

/** A layer providing the configuration. */
export const layer = (overrides: Partial<EngineConfigShape> = {}): Layer.Layer<EngineConfig> =>
  Layer.succeed(EngineConfig, make(overrides))
