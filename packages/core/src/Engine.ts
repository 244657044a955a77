/**
 * The engine: every service wired over a `Store` and the bank gateways, plus the job worker
 * that runs timers (webhook attempts, expiry, sandbox settlement). One layer gives a platform a
 * running engine: `Engine.layer({ config, liveGateway })` over a store and a WebhookTransport.
 */
import { Context, Effect, Layer, Option } from "effect"
import * as Admin from "./Admin.js"
import * as Auth from "./Auth.js"
import * as BankEvents from "./BankEvents.js"
import { type BankGatewayShape, Gateways } from "./BankGateway.js"
import * as Chargebacks from "./Chargebacks.js"
import * as Charges from "./Charges.js"
import * as Config from "./Config.js"
import type { ChargebackId, TransactionId } from "./Domain.js"
import * as HostResolver from "./HostResolver.js"
import * as Idempotency from "./Idempotency.js"
import { CurrentJob, JobRunner } from "./Jobs.js"
import * as Payments from "./Payments.js"
import * as Payouts from "./Payouts.js"
import * as Sandbox from "./Sandbox.js"
import { type ClaimedJob, Store, type StoreError } from "./Store.js"
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
  readonly admin: Admin.AdminShape
}

/** The engine's tag. */
export class Engine extends Context.Tag("@pixgate/core/Engine")<Engine, EngineShape>() {}

const make = Effect.gen(function* () {
  const config = yield* Config.EngineConfig
  const payouts = yield* Payouts.make
  const bankEvents = yield* BankEvents.make
  const chargebacks = yield* Chargebacks.make
  return {
    config,
    auth: yield* Auth.make,
    idempotency: yield* Idempotency.make,
    charges: yield* Charges.make,
    payouts,
    payments: yield* Payments.make,
    transactions: yield* Transactions.make,
    bankEvents,
    chargebacks,
    admin: yield* Admin.make({ payouts, bankEvents, chargebacks })
  } satisfies EngineShape
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
    // A timer's change runs as the current job; when it changes nothing, the job is finished here.
    const timer = (job: ClaimedJob, change: Effect.Effect<boolean, StoreError>) =>
      Effect.flatMap(Effect.provideService(change, CurrentJob, job.id), (applied) =>
        applied ? Effect.void : store.finishJob(job.id)
      )
    const run = (job: ClaimedJob): Effect.Effect<void, StoreError> => {
      switch (job.kind) {
        case "webhook.attempt":
          return webhooks.attempt(job)
        case "charge.expire":
          return timer(job, engine.charges.expire(job.ref as TransactionId))
        case "sandbox.charge.pay":
          return timer(
            job,
            Effect.flatMap(store.getTransaction(job.ref as TransactionId), (tx) =>
              Option.isSome(tx) && tx.value.txid !== null
                ? engine.bankEvents.chargePaid({ txid: tx.value.txid })
                : Effect.succeed(false)
            )
          )
        case "sandbox.payout.settle":
          return timer(job, engine.payouts.settle(job.ref as TransactionId))
        case "sandbox.payout.fail":
          return timer(job, engine.payouts.fail(job.ref as TransactionId, "bank_rejected"))
        case "sandbox.chargeback.open":
          return timer(
            job,
            Effect.map(engine.chargebacks.open(job.ref as TransactionId), (r) => r.ok)
          )
        case "sandbox.chargeback.resolve":
          return timer(
            job,
            Effect.map(engine.chargebacks.resolve(job.ref as ChargebackId, "accepted"), (r) => r.ok)
          )
      }
    }
    return { run }
  })
)

/** How to build an engine. */
export interface EngineOptions {
  /** Overrides of the DECISIONS.md defaults. */
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
    Effect.map(Config.EngineConfig, (cfg) => {
      const sandbox = Sandbox.make(cfg.pixLocationHost)
      const live = Option.fromNullable(options.liveGateway)
      return { forMode: (mode) => (mode === "test" ? Option.some(sandbox) : live) }
    })
  )
  const support = Layer.mergeAll(gateways, Webhooks.layer).pipe(
    Layer.provideMerge(options.hostResolver ?? HostResolver.literalsOnly),
    Layer.provideMerge(config)
  )
  const engine = Layer.effect(Engine, make).pipe(Layer.provideMerge(support))
  const worker =
    options.worker === false
      ? Layer.empty
      : Worker.layerWith(options.workerOptions).pipe(Layer.provide(runner), Layer.provide(engine))
  return Layer.merge(engine, worker)
}
