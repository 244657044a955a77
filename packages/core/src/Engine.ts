/**
 * The engine: every service wired over a `Store` and the bank gateways, plus the job worker
 * that runs timers (webhook attempts, expiry, sandbox settlement). One layer gives a platform a
 * running engine: `Engine.layer({ config, liveGateway })` over a store and a WebhookTransport.
 */
import { Context, Effect, Layer, Option, type Schema } from "effect"
import * as Admin from "./Admin.js"
import * as Auth from "./Auth.js"
import * as BankEvents from "./BankEvents.js"
import {
  type BankCallback,
  type BankGatewayShape,
  type GatewayContext,
  GatewayFailure,
  Gateways,
  LiveGateway
} from "./BankGateway.js"
import * as Chargebacks from "./Chargebacks.js"
import * as Charges from "./Charges.js"
import * as Config from "./Config.js"
import { ChargebackId, findById, idDecoder, RefundId, TransactionId } from "./Domain.js"
import * as Health from "./Health.js"
import * as HostResolver from "./HostResolver.js"
import * as Idempotency from "./Idempotency.js"
import { CurrentJob, JobRunner } from "./Jobs.js"
import * as Metrics from "./Metrics.js"
import * as Payments from "./Payments.js"
import * as Payouts from "./Payouts.js"
import * as Refunds from "./Refunds.js"
import * as Sandbox from "./Sandbox.js"
import { type ClaimedJob, fromFull, JobStore, ReadStore, Store, type StoreError } from "./Store.js"
import * as Telemetry from "./Telemetry.js"
import * as Transactions from "./Transactions.js"
import * as Webhooks from "./Webhooks.js"
import type { WebhookTransport } from "./WebhookTransport.js"
import * as Worker from "./Worker.js"

/** Everything a transport or an embedding platform calls. */
export interface EngineShape {
  readonly config: Config.EngineConfigShape
  readonly auth: Auth.AuthShape
  readonly idempotency: Idempotency.IdempotencyShape
  readonly charges: Charges.ChargesShape
  readonly payouts: Payouts.PayoutsShape
  readonly payments: Payments.PaymentsShape
  readonly transactions: Transactions.TransactionsShape
  readonly bankEvents: BankEvents.BankEventsShape
  readonly chargebacks: Chargebacks.ChargebacksShape
  /** Refunds (devoluções) of completed charges: `refunds.create`, `refunds.list`. */
  readonly refunds: Refunds.RefundsShape
  readonly admin: Admin.AdminShape
  /**
   * A callback from the live bank (the HTTP transport's `/bank/callbacks/<secret>` route,
   * after checking the secret): handed to the live gateway, which confirms it with the bank
   * before acting. Fails when there is no live gateway or it could not be applied.
   */
  readonly bankCallback: (callback: BankCallback) => Effect.Effect<void, GatewayFailure | StoreError>
  /** Readiness (database ping, draining flag) for the transports' `/api/health/ready`. */
  readonly health: Health.HealthShape
  /**
   * Whether live mode has a bank gateway: without one, live charges, payouts and refunds fail
   * with `gateway_not_configured` (the panel says production is not enabled).
   */
  readonly liveEnabled: boolean
}

/** The engine's tag. */
export class Engine extends Context.Tag("@pixgate/core/Engine")<Engine, EngineShape>() {}

const make = Effect.gen(function* () {
  const config = yield* Config.EngineConfig
  const store = yield* Store
  const gateways = yield* Gateways
  yield* Metrics.preregister
  const span = yield* Telemetry.spans
  const payouts = Telemetry.payouts(yield* Payouts.make, span)
  const bankEvents = Telemetry.bankEvents(yield* BankEvents.make, span)
  const chargebacks = yield* Chargebacks.make
  const refunds = yield* Refunds.make
  const self: EngineShape = {
    config,
    auth: Telemetry.auth(yield* Auth.make, span),
    idempotency: yield* Idempotency.make,
    charges: Telemetry.charges(yield* Charges.make, span),
    payouts,
    payments: Telemetry.payments(yield* Payments.make, span),
    transactions: Telemetry.transactions(yield* Transactions.make, span),
    bankEvents,
    chargebacks,
    refunds,
    admin: yield* Admin.make({ payouts, bankEvents, chargebacks, refunds }),
    health: yield* Health.make,
    liveEnabled: Option.isSome(gateways.forMode("live")),
    bankCallback: (callback) =>
      Option.match(
        Option.flatMap(gateways.forMode("live"), (g) => Option.fromNullable(g.callback)),
        {
          onNone: () => Effect.fail(new GatewayFailure({ message: "No live gateway takes callbacks" })),
          onSome: (handle) => handle(callback, { engine, store })
        }
      )
  }
  const engine: EngineShape = self
  return self
})

/**
 * Routes each job kind to the service that knows what it means. A timer runs as the current
 * job: the change it causes completes the job in its own unit; when it changes nothing (the
 * transaction moved on), the job is finished here.
 */
const runner = Layer.effect(
  JobRunner,
  Effect.gen(function* () {
    const engine = yield* Engine
    const webhooks = yield* Webhooks.Webhooks
    const store = yield* Store
    const reads = yield* ReadStore
    const jobs = yield* JobStore
    const gateways = yield* Gateways
    const ctx: GatewayContext = { engine, store }
    // A timer's change runs as the current job; when it changes nothing, the job is finished here.
    const timer = (job: ClaimedJob, change: Effect.Effect<boolean, StoreError>) =>
      Effect.flatMap(Effect.provideService(change, CurrentJob, job.id), (applied) =>
        applied ? Effect.void : jobs.finishJob(job.id)
      )
    // A job's ref names what it acts on; a ref of another kind or shape finds nothing to change.
    const on = <A, I>(
      job: ClaimedJob,
      id: Schema.Schema<A, I>,
      change: (ref: A) => Effect.Effect<boolean, StoreError>
    ) =>
      Option.match(idDecoder(id)(job.ref), {
        onNone: () => Effect.succeed(false),
        onSome: change
      })
    const run = (job: ClaimedJob): Effect.Effect<void, StoreError> => {
      switch (job.kind) {
        case "webhook.attempt":
          return webhooks.attempt(job)
        case "charge.expire":
          return timer(
            job,
            on(job, TransactionId, (id) => engine.charges.expire(id))
          )
        case "sandbox.charge.pay":
          return timer(
            job,
            Effect.flatMap(findById(TransactionId, job.ref, reads.getTransaction), (tx) =>
              Option.isSome(tx) && tx.value.txid !== null
                ? engine.bankEvents.chargePaid({ txid: tx.value.txid })
                : Effect.succeed(false)
            )
          )
        case "sandbox.payout.settle":
          return timer(
            job,
            on(job, TransactionId, (id) => engine.payouts.settle(id))
          )
        case "sandbox.payout.fail":
          return timer(
            job,
            on(job, TransactionId, (id) => engine.payouts.fail(id, "bank_rejected"))
          )
        case "sandbox.chargeback.open":
          return timer(
            job,
            on(job, TransactionId, (id) => Effect.map(engine.chargebacks.open(id), (r) => r.ok))
          )
        case "sandbox.chargeback.resolve":
          return timer(
            job,
            on(job, ChargebackId, (id) => Effect.map(engine.chargebacks.resolve(id, "accepted"), (r) => r.ok))
          )
        case "payout.send":
          return engine.payouts.send(job)
        case "refund.send":
          return engine.refunds.send(job)
        case "sandbox.refund.settle":
          return timer(
            job,
            on(job, RefundId, (id) => engine.refunds.settle(id))
          )
        case "sandbox.refund.fail":
          return timer(
            job,
            on(job, RefundId, (id) => engine.refunds.fail(id, "bank_rejected"))
          )
        default: {
          // A gateway's own kind (polls, reconciliation, refunds); unknown kinds wait for their lease.
          const own = Option.flatMap(gateways.forMode("live"), (g) => Option.fromNullable(g.jobs?.[job.kind]))
          return Option.isSome(own)
            ? own.value(job, ctx)
            : Effect.logWarning("No runner for this job kind; it runs again when its lease ends").pipe(
                Effect.annotateLogs({ jobId: job.id, jobKind: job.kind })
              )
        }
      }
    }

    return { run }
  })
)

/** How to build an engine. */
export interface EngineOptions {
  /** Overrides of the docs/decisions.md defaults. */
  readonly config?: Partial<Config.EngineConfigShape>
  /** The live bank gateway; without one, live charges and payouts answer 502. */
  readonly liveGateway?: BankGatewayShape
  /** Run the job worker in this process (default true). */
  readonly worker?: boolean
  /** The worker's options, e.g. how long stopping waits for running jobs (`shutdownGrace`). */
  readonly workerOptions?: Worker.WorkerOptions
  /** Resolves webhook hosts for the live-mode address check (default: IP literals only). */
  readonly hostResolver?: Layer.Layer<HostResolver.HostResolver>
}

/**
 * A running engine over a Store and a WebhookTransport (`WebhookTransport.fetch` anywhere,
 * `NodeWebhookTransport.layer` on Node). With `worker` (default) this
 * instance also claims and runs due jobs; several instances on one Postgres share them.
 */
export const layer = (
  options: EngineOptions = {}
): Layer.Layer<Engine | Config.EngineConfig, never, Store | WebhookTransport> => {
  const config = Config.layer(options.config)
  const gateways = Layer.effect(
    Gateways,
    Effect.gen(function* () {
      const cfg = yield* Config.EngineConfig
      const sandbox = Sandbox.make(cfg.pixLocationHost)
      const provided = yield* Effect.serviceOption(LiveGateway)
      const live = Option.orElse(Option.fromNullable(options.liveGateway), () => provided)
      return { forMode: (mode) => (mode === "test" ? Option.some(sandbox) : live) } satisfies Gateways["Type"]
    })
  )
  const support = Layer.mergeAll(gateways, Webhooks.layer).pipe(
    Layer.provideMerge(options.hostResolver ?? HostResolver.literalsOnly),
    Layer.provideMerge(config)
  )
  const engine = Layer.effect(Engine, make).pipe(Layer.provideMerge(support))
  // The live gateway's own start (its first reconciliation), with the worker that runs its jobs.
  const started = Layer.scopedDiscard(
    Effect.gen(function* () {
      const engine = yield* Engine
      const store = yield* Store
      const live = (yield* Gateways).forMode("live")
      if (Option.isSome(live) && live.value.start !== undefined) yield* live.value.start({ engine, store })
    })
  )
  const worker =
    options.worker === false
      ? Layer.empty
      : Layer.merge(Worker.layerWith(options.workerOptions).pipe(Layer.provide(runner)), started).pipe(
          Layer.provide(engine)
        )
  // The services yield the focused store tags, each read from the whole store given.
  return Layer.merge(engine, worker).pipe(Layer.provide(fromFull))
}
