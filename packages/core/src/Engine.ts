/**
 * The engine: the embedder's one object over the engine's services, each its own tag and layer
 * (`Charges.Charges`, `Payouts.Payouts`, ... `Admin.Admin`), wired over a `Store` and the bank
 * gateways, plus the job worker that runs timers (webhook attempts, expiry, the gateways' own
 * jobs). One layer gives a platform a running engine: `Engine.layer({ config, liveGateway })`
 * over a store and a WebhookTransport; `EngineOptions.services` swaps one service's layer.
 */
import { Context, Effect, Either, Layer, Option } from "effect"
import * as Notifications from "./access/Notifications.js"
import * as Sandbox from "./adapters/Sandbox.js"
import { idDecoder, TransactionId } from "./domain/Domain.js"
import { CurrentJob, JobRunner } from "./jobs/Jobs.js"
import * as MailJob from "./jobs/MailJob.js"
import * as Worker from "./jobs/Worker.js"
import {
  type BankCallback,
  type BankGatewayShape,
  type Capabilities,
  capabilitiesOf,
  type GatewayContext,
  GatewayFailure,
  Gateways,
  type JobBatchRun,
  type JobChargePayment,
  type JobRun,
  type JobSettlement,
  LiveGateway
} from "./ports/BankGateway.js"
import type * as GatewayPlugin from "./ports/GatewayPlugin.js"
import * as HostResolver from "./ports/HostResolver.js"
import { MerchantGatewayStore } from "./ports/MerchantGatewayStore.js"
import type { RecurringGatewayContext } from "./ports/RecurringGateway.js"
import {
  type ClaimedJob,
  type FocusedStores,
  fromFull,
  JobStore,
  LedgerStore,
  ReadStore,
  type Store,
  type StoreError
} from "./ports/Store.js"
import type { WebhookTransport } from "./ports/WebhookTransport.js"
import * as Config from "./runtime/Config.js"
import * as Metrics from "./runtime/Metrics.js"
import * as Telemetry from "./runtime/Telemetry.js"
import * as Admin from "./services/Admin.js"
import * as AdminTokens from "./services/AdminTokens.js"
import * as Auth from "./services/Auth.js"
import * as BankEvents from "./services/BankEvents.js"
import * as Chargebacks from "./services/Chargebacks.js"
import * as Charges from "./services/Charges.js"
import * as Erasure from "./services/Erasure.js"
import * as EventFeed from "./services/EventFeed.js"
import * as GatewayRouting from "./services/GatewayRouting.js"
import * as Health from "./services/Health.js"
import * as Idempotency from "./services/Idempotency.js"
import * as Infractions from "./services/Infractions.js"
import * as Instrumented from "./services/Instrumented.js"
import * as MerchantGateways from "./services/MerchantGateways.js"
import * as Payments from "./services/Payments.js"
import * as Payouts from "./services/Payouts.js"
import * as Refunds from "./services/Refunds.js"
import * as Subscriptions from "./services/Subscriptions.js"
import * as Transactions from "./services/Transactions.js"
import * as WebhookOps from "./webhooks/WebhookOps.js"
import * as Webhooks from "./webhooks/Webhooks.js"

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
  readonly infractions: Infractions.InfractionsShape
  /** Refunds (devoluções) of completed charges: `refunds.create`, `refunds.list`. */
  readonly refunds: Refunds.RefundsShape
  readonly admin: Admin.AdminShape
  /** Erasure of payers' personal data, on request and past the retention period. */
  readonly erasure: Erasure.ErasureShape
  /** The admin API's named, scoped tokens and its audit log. */
  readonly adminTokens: AdminTokens.AdminTokensShape
  /** A merchant's events of one mode as they are made, signed as deliveries are (the API's event stream). */
  readonly events: EventFeed.EventFeedShape
  /** Subscriptions (Pix Automático): journeys, cycles, retries, cancellations (docs/recurring.md). */
  readonly subscriptions: Subscriptions.SubscriptionsShape
  /** Webhook operations: resend failed deliveries since a time, endpoint health, enable a disabled endpoint. */
  readonly webhookOps: WebhookOps.WebhookOpsShape
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
  /**
   * What the live gateway can do (`BankGateway.capabilitiesOf`), when there is one: what a
   * refusal of a capability the bank lacks reads.
   */
  readonly liveCapabilities: Option.Option<Capabilities>
  /** The live gateways and each merchant's (a gateway per merchant). */
  readonly merchantGateways: MerchantGateways.MerchantGatewaysShape
}

/** The engine's tag. */
export class Engine extends Context.Tag("@pixgate/core/Engine")<Engine, EngineShape>() {}

/** The engine's services, each its own tag: what `Engine.layer` provides besides `Engine`. */
export type Services =
  | Auth.Auth
  | Idempotency.Idempotency
  | Charges.Charges
  | Payouts.Payouts
  | Payments.Payments
  | Transactions.Transactions
  | BankEvents.BankEvents
  | Chargebacks.Chargebacks
  | Infractions.Infractions
  | Refunds.Refunds
  | Admin.Admin
  | AdminTokens.AdminTokens
  | Health.Health
  | Erasure.Erasure
  | EventFeed.EventFeed
  | Subscriptions.Subscriptions

/** What a service's layer may need: the focused store tags, the config, the gateways, webhooks. */
export type ServiceDependencies = FocusedStores | Config.EngineConfig | Gateways | Webhooks.Webhooks

/**
 * Layers that replace the engine's own, one per service (e.g. a fake `Transactions` in a
 * test): every other service, the façade and the worker use the replacement.
 */
export interface ServiceLayers {
  readonly auth?: Layer.Layer<Auth.Auth, never, ServiceDependencies>
  readonly idempotency?: Layer.Layer<Idempotency.Idempotency, never, ServiceDependencies>
  readonly charges?: Layer.Layer<Charges.Charges, never, ServiceDependencies>
  readonly payouts?: Layer.Layer<Payouts.Payouts, never, ServiceDependencies>
  readonly payments?: Layer.Layer<Payments.Payments, never, ServiceDependencies>
  readonly transactions?: Layer.Layer<Transactions.Transactions, never, ServiceDependencies>
  readonly bankEvents?: Layer.Layer<BankEvents.BankEvents, never, ServiceDependencies>
  readonly chargebacks?: Layer.Layer<Chargebacks.Chargebacks, never, ServiceDependencies>
  readonly refunds?: Layer.Layer<Refunds.Refunds, never, ServiceDependencies>
  readonly health?: Layer.Layer<Health.Health, never, ServiceDependencies>
  readonly erasure?: Layer.Layer<Erasure.Erasure, never, ServiceDependencies>
  readonly events?: Layer.Layer<EventFeed.EventFeed, never, ServiceDependencies>
  readonly admin?: Layer.Layer<
    Admin.Admin,
    never,
    ServiceDependencies | Payouts.Payouts | BankEvents.BankEvents | Chargebacks.Chargebacks | Refunds.Refunds
  >
}

/** A service's layer with its operations in spans (`Instrumented`), built where the tracer is known. */
const traced = <I, S, R>(
  tag: Context.Tag<I, S>,
  make: Effect.Effect<S, never, R>,
  wrap: (service: S, span: Telemetry.Span) => S
): Layer.Layer<I, never, R> =>
  Layer.effect(
    tag,
    Effect.flatMap(make, (service) => Effect.map(Telemetry.spans, (span) => wrap(service, span)))
  )

/** The engine's services, each over the dependencies its layer declares; `replace` swaps some. */
export const services = (replace: ServiceLayers = {}) => {
  const flows = Layer.mergeAll(
    replace.auth ?? traced(Auth.Auth, Auth.make, Instrumented.auth),
    replace.idempotency ?? Idempotency.layer,
    replace.charges ?? traced(Charges.Charges, Charges.make, Instrumented.charges),
    replace.payouts ?? traced(Payouts.Payouts, Payouts.make, Instrumented.payouts),
    replace.payments ?? traced(Payments.Payments, Payments.make, Instrumented.payments),
    replace.transactions ?? traced(Transactions.Transactions, Transactions.make, Instrumented.transactions),
    replace.bankEvents ?? traced(BankEvents.BankEvents, BankEvents.make, Instrumented.bankEvents),
    replace.chargebacks ?? Chargebacks.layer,
    Infractions.layer,
    replace.refunds ?? Refunds.layer,
    replace.health ?? Health.layer,
    replace.erasure ?? Erasure.layer,
    AdminTokens.layer,
    replace.events ?? EventFeed.layer
  )
  return (replace.admin ?? Admin.layer).pipe(
    Layer.provideMerge(Subscriptions.layer.pipe(Layer.provideMerge(flows)))
  )
}

/**
 * Jobs' changes applied together (`outcomes`, in order: whether each changed anything, or the
 * failure of its own unit): a job whose change changed nothing is finished, as `asJob` finishes
 * it (those finishes submitted together, so they share a write batch); a failed unit leaves its
 * job to its lease.
 */
const finishUnchanged = (
  jobs: Context.Tag.Service<typeof JobStore>,
  ran: ReadonlyArray<{ readonly job: ClaimedJob }>,
  outcomes: ReadonlyArray<Either.Either<boolean, StoreError>>
): Effect.Effect<ReadonlyArray<Either.Either<void, StoreError>>> => {
  const answers: Array<Either.Either<void, StoreError>> = outcomes.map((o) => Either.map(o, () => undefined))
  // Only the jobs whose changes changed nothing need a write of their own (usually none): no
  // fiber per job.
  const moved = outcomes.flatMap((o, i) => (Either.isRight(o) && !o.right ? [i] : []))
  if (moved.length === 0) return Effect.succeed(answers)
  return Effect.map(
    Effect.forEach(
      moved,
      (i) => {
        const job = ran[i]?.job
        return job === undefined ? Effect.succeed(Either.void) : Effect.either(jobs.finishJob(job.id))
      },
      { concurrency: "unbounded" }
    ),
    (finished) => {
      for (const [n, i] of moved.entries()) answers[i] = finished[n] ?? Either.void
      return answers
    }
  )
}

/** Payouts' settlements as their jobs' changes, in one store operation (`Payouts.settleEach`). */
const settledAsJobs = (
  payouts: Payouts.PayoutsShape,
  jobs: Context.Tag.Service<typeof JobStore>,
  settlements: ReadonlyArray<JobSettlement>
): Effect.Effect<ReadonlyArray<Either.Either<void, StoreError>>> =>
  Effect.flatMap(
    payouts.settleEach(settlements.map((s) => ({ id: s.id, endToEndId: s.endToEndId, completes: s.job.id }))),
    (outcomes) => finishUnchanged(jobs, settlements, outcomes)
  )

/**
 * Charges' PIX as their jobs' changes, their completions in one store operation
 * (`BankEvents.pixReceivedEach`): a job counts as changing its charge only when the charge
 * completed, as the sandbox's single timer counts it.
 */
const paidAsJobs = (
  bankEvents: BankEvents.BankEventsShape,
  jobs: Context.Tag.Service<typeof JobStore>,
  payments: ReadonlyArray<JobChargePayment>
): Effect.Effect<ReadonlyArray<Either.Either<void, StoreError>>> =>
  Effect.flatMap(
    bankEvents.pixReceivedEach(payments.map((p) => ({ event: p.event, completes: p.job.id }))),
    (outcomes) =>
      finishUnchanged(
        jobs,
        payments,
        outcomes.map((o) => Either.map(o, (outcome) => outcome === "completed"))
      )
  )

/**
 * What a gateway's jobs, callbacks and start may do (`GatewayContext`), over the services that
 * apply a bank's reports and the store's job and transaction reads.
 */
export const gatewayContext: Effect.Effect<
  RecurringGatewayContext,
  never,
  | Subscriptions.Subscriptions
  | BankEvents.BankEvents
  | Payouts.Payouts
  | Refunds.Refunds
  | Chargebacks.Chargebacks
  | Infractions.Infractions
  | ReadStore
  | JobStore
  | LedgerStore
> = Effect.gen(function* () {
  const bankEvents = yield* BankEvents.BankEvents
  const payouts = yield* Payouts.Payouts
  const refunds = yield* Refunds.Refunds
  const chargebacks = yield* Chargebacks.Chargebacks
  const reads = yield* ReadStore
  const jobs = yield* JobStore
  const ledger = yield* LedgerStore
  const subscriptions = yield* Subscriptions.Subscriptions
  return {
    recurring: subscriptions.reports,
    paymentReceived: bankEvents.pixReceived,
    paymentReturned: bankEvents.pixReturned,
    payoutSettled: payouts.settle,
    payoutsSettledAsJobs: (settlements) => settledAsJobs(payouts, jobs, settlements),
    chargesPaidAsJobs: (payments) => paidAsJobs(bankEvents, jobs, payments),
    payoutFailed: payouts.fail,
    refundSettled: refunds.settle,
    refundFailed: refunds.fail,
    chargebackOpened: (id) => Effect.map(chargebacks.open(id), (r) => r.ok),
    chargebackResolved: (id, outcome) => Effect.map(chargebacks.resolve(id, outcome), (r) => r.ok),
    infractions: Infractions.forGateway(yield* Infractions.Infractions),
    getTransaction: reads.getTransaction,
    findByTxid: reads.findByTxid,
    finishJob: jobs.finishJob,
    retryJob: jobs.retryJob,
    scheduleJob: (job) =>
      Effect.asVoid(
        ledger.insertTransactions({
          transactions: [],
          entry: null,
          guard: null,
          effects: { events: [], jobs: [job] }
        })
      ),
    // A timer's change runs as the current job; when it changes nothing, the job is finished here.
    asJob: (job, change) =>
      Effect.flatMap(Effect.provideService(change, CurrentJob, job.id), (applied) =>
        applied ? Effect.void : jobs.finishJob(job.id)
      )
  }
})

/** The façade: one object over the services, as embedders and transports call it. */
const make = Effect.gen(function* () {
  const gateways = yield* Gateways
  yield* Metrics.preregister
  const ctx = yield* gatewayContext
  const self: EngineShape = {
    config: yield* Config.EngineConfig,
    auth: yield* Auth.Auth,
    idempotency: yield* Idempotency.Idempotency,
    charges: yield* Charges.Charges,
    payouts: yield* Payouts.Payouts,
    payments: yield* Payments.Payments,
    transactions: yield* Transactions.Transactions,
    bankEvents: yield* BankEvents.BankEvents,
    chargebacks: yield* Chargebacks.Chargebacks,
    infractions: yield* Infractions.Infractions,
    refunds: yield* Refunds.Refunds,
    admin: yield* Admin.Admin,
    adminTokens: yield* AdminTokens.AdminTokens,
    health: yield* Health.Health,
    erasure: yield* Erasure.Erasure,
    events: yield* EventFeed.EventFeed,
    subscriptions: yield* Subscriptions.Subscriptions,
    webhookOps: yield* WebhookOps.make,
    liveEnabled: Option.isSome(gateways.forMode("live")),
    liveCapabilities: Option.map(gateways.forMode("live"), capabilitiesOf),
    merchantGateways: yield* MerchantGateways.make,
    bankCallback: (callback) =>
      Option.match(GatewayRouting.routeCallback(gateways, callback), {
        onNone: () => Effect.fail(new GatewayFailure({ message: "No live gateway takes callbacks" })),
        onSome: ({ gateway, callback: routed }) =>
          gateway.gateway.callback === undefined
            ? Effect.fail(new GatewayFailure({ message: `The ${gateway.name} gateway takes no callbacks` }))
            : gateway.gateway.callback(routed, GatewayRouting.fenced(gateways, gateway.name, ctx))
      })
  }
  return self
})

/** Runs claimed jobs of one kind at once. */
type BatchRun = (jobs: ReadonlyArray<ClaimedJob>) => ReturnType<JobBatchRun>

/**
 * The job kinds that run many at once, each by the gateway whose `jobs` runs it alone (`owner`:
 * whose single runner the kind's is), with that gateway's context (a live one's fenced).
 */
const batchRuns = (
  sandbox: BankGatewayShape | undefined,
  gateways: Gateways["Type"],
  ctx: GatewayContext,
  owner: (kind: string) => "engine" | "live" | "sandbox"
): Readonly<Record<string, BatchRun>> => {
  const sandboxJobs = sandbox?.jobs ?? {}
  const entries = [
    ...Object.entries(sandbox?.jobBatches ?? {})
      .filter(([kind]) => Object.hasOwn(sandboxJobs, kind) && owner(kind) === "sandbox")
      .map(([kind, runs]) => [kind, runs, ctx] as const),
    ...GatewayRouting.liveJobBatches(gateways, ctx).filter(([kind]) => owner(kind) === "live")
  ]
  return Object.fromEntries(
    entries.map(([kind, runs, context]): [string, BatchRun] => [kind, (jobs) => runs(jobs, context)])
  )
}

/**
 * Routes each job kind to what runs it: the engine's own kinds (webhook attempts, charge
 * expiry, payout and refund sends) and every gateway's registered kinds (`BankGatewayShape.jobs`:
 * the sandbox's timers, a live gateway's polls and reconciliation), all by one table.
 */
const runner = Layer.effect(
  JobRunner,
  Effect.gen(function* () {
    const webhooks = yield* Webhooks.Webhooks
    const charges = yield* Charges.Charges
    const payouts = yield* Payouts.Payouts
    const refunds = yield* Refunds.Refunds
    const gateways = yield* Gateways
    const ctx = yield* gatewayContext
    const sandbox = Option.getOrUndefined(gateways.forMode("test"))
    const sandboxJobs = sandbox?.jobs ?? {}
    const own: Readonly<Record<string, JobRun>> = {
      "charge.expire": (job) =>
        ctx.asJob(
          job,
          Option.match(idDecoder(TransactionId)(job.ref), {
            onNone: () => Effect.succeed(false),
            onSome: charges.expire
          })
        ),
      "payout.send": payouts.send,
      "refund.send": refunds.send,
      "mail.send": yield* MailJob.make
    }
    const live = GatewayRouting.liveJobs(gateways, ctx)
    const kinds: Readonly<Record<string, JobRun>> = { ...sandboxJobs, ...live, ...own }
    const batches = batchRuns(sandbox, gateways, ctx, (kind) =>
      Object.hasOwn(own, kind) ? "engine" : Object.hasOwn(live, kind) ? "live" : "sandbox"
    )
    const batchable = (kind: string) => Object.hasOwn(batches, kind)
    const runMany = (jobs: ReadonlyArray<ClaimedJob>) => {
      const runs = jobs[0] !== undefined && batchable(jobs[0].kind) ? batches[jobs[0].kind] : undefined
      return runs !== undefined
        ? runs(jobs)
        : Effect.forEach(jobs, (job) => Effect.either(Effect.asVoid(run(job))), { concurrency: "unbounded" })
    }
    const run = (job: ClaimedJob) => {
      if (job.kind === "webhook.attempt") return webhooks.attempt(job)
      const runs = Object.hasOwn(kinds, job.kind) ? kinds[job.kind] : undefined
      // Unknown kinds wait for their lease (another instance, or a later version, may know them).
      return runs !== undefined
        ? runs(job, ctx)
        : Effect.logWarning("No runner for this job kind; it runs again when its lease ends").pipe(
            Effect.annotateLogs({ jobId: job.id, jobKind: job.kind })
          )
    }
    return { run, batchable, runMany }
  })
)

/** How to build an engine. */
export interface EngineOptions {
  /** Overrides of the docs/decisions.md defaults. */
  readonly config?: Partial<Config.EngineConfigShape>
  /** The live bank gateway; without one (nor `gateway`), live charges and payouts answer 502. */
  readonly liveGateway?: BankGatewayShape
  /**
   * The live bank gateway as a configured plugin (`GatewayPlugin.configure(plugin, settings)`):
   * its settings are checked when the layer is built, which then fails with a `SettingsError`.
   * `liveGateway`, when given too, is the one used.
   */
  readonly gateway?: GatewayPlugin.Configured
  /**
   * More live gateways besides the default one (`gateway`, `liveGateway` or a provided
   * `LiveGateway`), each a configured plugin: an operator assigns a merchant's live money to one
   * by its name (`merchantGateways.assign`). Their names must differ from each other and the
   * default's, and no two may register the same job kind.
   */
  readonly gateways?: ReadonlyArray<GatewayPlugin.Configured>
  /** The default live gateway's name when it is not given as `gateway` (default "default"). */
  readonly defaultGatewayName?: string
  /** Run the job worker in this process (default true). */
  readonly worker?: boolean
  /** The worker's options, e.g. how long stopping waits for running jobs (`shutdownGrace`). */
  readonly workerOptions?: Worker.WorkerOptions
  /** Resolves webhook hosts for the live-mode address check (default: IP literals only). */
  readonly hostResolver?: Layer.Layer<HostResolver.HostResolver>
  /** Replaces services' layers (e.g. a fake `Transactions` in a test); the others are the engine's own. */
  readonly services?: ServiceLayers
}

/**
 * A running engine over a Store and a WebhookTransport (`WebhookTransport.fetch` anywhere,
 * `NodeWebhookTransport.layer` on Node). With `worker` (default) this
 * instance also claims and runs due jobs; several instances on one Postgres share them.
 */
export function layer(
  options?: EngineOptions & { readonly gateway?: undefined; readonly gateways?: undefined }
): Layer.Layer<Engine | Services | Config.EngineConfig, never, Store | WebhookTransport>
/** The engine over a configured gateway plugin: building it fails when the plugin's settings cannot work. */
export function layer(
  options?: EngineOptions
): Layer.Layer<Engine | Services | Config.EngineConfig, GatewayPlugin.SettingsError, Store | WebhookTransport>
export function layer(
  options: EngineOptions = {}
): Layer.Layer<
  Engine | Services | Config.EngineConfig,
  GatewayPlugin.SettingsError,
  Store | WebhookTransport
> {
  const config = Config.layer(options.config)
  const gateways = Layer.scoped(
    Gateways,
    Effect.gen(function* () {
      const cfg = yield* Config.EngineConfig
      const sandbox = Sandbox.make(cfg.pixLocationHost)
      const provided = yield* Effect.serviceOption(LiveGateway)
      const live = Option.orElse(Option.fromNullable(options.liveGateway), () => provided)
      const defaultName = options.gateway?.name ?? options.defaultGatewayName ?? "default"
      const more: Array<{ readonly name: string; readonly gateway: BankGatewayShape }> = []
      for (const configured of options.gateways ?? []) {
        const built = yield* Layer.build(configured.layer)
        more.push({ name: configured.name, gateway: Context.get(built, LiveGateway) })
      }
      const named = [
        ...Option.match(live, { onNone: () => [], onSome: (gateway) => [{ name: defaultName, gateway }] }),
        ...more
      ]
      const names = named.map((g) => g.name)
      const twice = names.find((name, i) => names.indexOf(name) !== i)
      if (twice !== undefined) return yield* Effect.dieMessage(`Two live gateways are named ${twice}`)
      return GatewayRouting.make(sandbox, named, yield* Effect.serviceOption(MerchantGatewayStore))
    })
  )
  const support = Layer.mergeAll(gateways, Webhooks.layer).pipe(
    // The notifications hook (`Mail.Notifier`) the services and webhooks call after a change.
    Layer.provideMerge(Notifications.layer),
    Layer.provideMerge(options.hostResolver ?? HostResolver.literalsOnly),
    Layer.provideMerge(config)
  )
  const engine = Layer.effect(Engine, make).pipe(
    Layer.provideMerge(services(options.services)),
    Layer.provideMerge(support)
  )
  // The live gateway's own start (its first reconciliation), with the worker that runs its jobs.
  const started = Layer.scopedDiscard(
    Effect.gen(function* () {
      const gateways = yield* Gateways
      const ctx = yield* gatewayContext
      for (const { name, gateway } of gateways.live)
        if (gateway.start !== undefined) yield* gateway.start(GatewayRouting.fenced(gateways, name, ctx))
      yield* Effect.forkScoped(WebhookOps.gauges((yield* Engine).webhookOps))
    })
  )
  const worker =
    options.worker === false
      ? Layer.empty
      : Layer.mergeAll(
          Worker.layerWith(options.workerOptions).pipe(Layer.provide(runner)),
          started,
          Subscriptions.worker()
        ).pipe(Layer.provide(engine))
  // The services yield the focused store tags, each read from the whole store given.
  const built = Layer.merge(engine, worker).pipe(Layer.provide(fromFull))
  return options.gateway === undefined ? built : built.pipe(Layer.provide(options.gateway.layer))
}
