/**
 * Several live gateways in one engine, a merchant's money at one of them (docs/decisions.md,
 * "A gateway per merchant"). `make` builds the engine's `Gateways`: a live transaction goes
 * through the gateway its merchant was assigned when the transaction was created
 * (`MerchantGatewayStore.gatewayAt`), the default one without an assignment. What a gateway
 * sees of the engine is fenced to its own merchants' transactions (`fenced`): a callback, a
 * poll or a reconciliation of one bank cannot complete, settle or fail another bank's charge or
 * payout. Bank callbacks reach the default gateway at `<base>/bank/callbacks/<secret>` and any
 * other at `<base>/bank/callbacks/<secret>/gateways/<name>` (`routeCallback`).
 */
import { Effect, Option } from "effect"
import * as Errors from "../contract/Errors.js"
import type { MerchantId, Mode, Transaction } from "../domain/Domain.js"
import {
  type BankCallback,
  type BankGatewayShape,
  type Capabilities,
  type ChargePaidOutcome,
  capabilitiesOf,
  type GatewayContext,
  type Gateways,
  type JobBatchRun,
  type JobRun,
  type NamedGateway
} from "../ports/BankGateway.js"
import { gatewayAt, type MerchantGatewayStoreShape } from "../ports/MerchantGatewayStore.js"
import type { StoreError } from "../ports/Store.js"

/** The engine's `Gateways` over the sandbox, the live gateways (default first) and the assignments. */
export const make = (
  sandbox: BankGatewayShape,
  live: ReadonlyArray<NamedGateway>,
  store: Option.Option<MerchantGatewayStoreShape>
): Gateways["Type"] => {
  const fallback = Option.fromNullable(live[0])
  const forMerchant = (
    merchantId: MerchantId,
    mode: Mode,
    at: number
  ): Effect.Effect<Option.Option<NamedGateway>, StoreError> => {
    if (mode === "test") return Effect.succeed(Option.some({ name: "sandbox", gateway: sandbox }))
    if (Option.isNone(store) || Option.isNone(fallback)) return Effect.succeed(fallback)
    return Effect.map(store.value.gatewayHistory(merchantId), (history) => {
      const name = gatewayAt(history, at)
      return name === undefined ? fallback : Option.fromNullable(live.find((g) => g.name === name))
    })
  }
  return {
    forMode: (mode) => (mode === "test" ? Option.some(sandbox) : Option.map(fallback, (g) => g.gateway)),
    live,
    forMerchant
  }
}

/** The gateway of an existing transaction: its merchant's at its creation. */
export const ofTransaction = (
  gateways: Gateways["Type"],
  tx: Pick<Transaction, "merchantId" | "mode" | "createdAt">
): Effect.Effect<Option.Option<BankGatewayShape>, StoreError> =>
  Effect.map(
    gateways.forMerchant(tx.merchantId, tx.mode, tx.createdAt),
    Option.map((g) => g.gateway)
  )

/** What each capability is called in a refusal. */
const capabilityWords: Record<keyof Capabilities, string> = {
  charges: "charges",
  dueDateCharges: "due-date charges",
  sends: "payouts",
  refunds: "refunds",
  reconciliation: "reconciliation",
  recurring: "recurring charges",
  infractions: "infractions"
}

/**
 * The gateway a new live operation of `merchantId` goes through (created at `at`), when it
 * offers `needs`: none configured is a 502 (`gateway_not_configured`); a gateway that lacks the
 * capability is a 422 `capability_unavailable` at `path`, before the bank is asked anything.
 */
export const gatewayFor = (
  gateways: Gateways["Type"],
  request: {
    readonly merchantId: MerchantId
    readonly mode: Mode
    readonly at: number
    readonly operation: "charge" | "payout" | "refund"
    readonly needs: keyof Capabilities
    readonly path: string
  }
): Effect.Effect<BankGatewayShape, Errors.GatewayUnavailable | Errors.ValidationError | StoreError> =>
  Effect.flatMap(
    gateways.forMerchant(request.merchantId, request.mode, request.at),
    (found): Effect.Effect<BankGatewayShape, Errors.GatewayUnavailable | Errors.ValidationError> => {
      if (Option.isNone(found))
        return Effect.fail(
          new Errors.GatewayUnavailable({ operation: request.operation, code: "gateway_not_configured" })
        )
      const { name, gateway } = found.value
      if (!capabilitiesOf(gateway)[request.needs])
        return Effect.fail(
          Errors.validation(
            "capability_unavailable",
            request.path,
            `this merchant's bank (${name}) offers no ${capabilityWords[request.needs]}`
          )
        )
      return Effect.succeed(gateway)
    }
  )

/**
 * `ctx` as gateway `name` may use it: reads answer only its merchants' transactions, and a
 * report about another gateway's transaction changes nothing (logged); batched settlements
 * and payments (`payoutsSettledAsJobs`, `chargesPaidAsJobs`) are not offered. With one live gateway, `ctx` itself.
 */
export const fenced = (gateways: Gateways["Type"], name: string, ctx: GatewayContext): GatewayContext => {
  if (gateways.live.length <= 1) return ctx
  const owns = (tx: Transaction) =>
    tx.mode === "test"
      ? Effect.succeed(false)
      : Effect.map(
          gateways.forMerchant(tx.merchantId, tx.mode, tx.createdAt),
          (g) => Option.isSome(g) && g.value.name === name
        )
  const refused = (tx: Transaction) =>
    Effect.logWarning("A gateway reported on another gateway's transaction; ignored").pipe(
      Effect.annotateLogs({ gateway: name, transactionId: tx.id })
    )
  const own = (found: Option.Option<Transaction>) =>
    Option.match(found, {
      onNone: () => Effect.succeed(Option.none<Transaction>()),
      onSome: (tx) => Effect.map(owns(tx), (yes) => (yes ? found : Option.none<Transaction>()))
    })
  const guarded =
    <A>(otherwise: A) =>
    (found: Option.Option<Transaction>, change: () => Effect.Effect<A, StoreError>) =>
      Option.match(found, {
        onNone: change,
        onSome: (tx) =>
          Effect.flatMap(owns(tx), (yes) => (yes ? change() : Effect.as(refused(tx), otherwise)))
      })
  return {
    ...ctx,
    // Batched settlements and payments check no owner: a fenced gateway's jobs run one by one,
    // each checked.
    payoutsSettledAsJobs: undefined,
    chargesPaidAsJobs: undefined,
    getTransaction: (id) => Effect.flatMap(ctx.getTransaction(id), own),
    findByTxid: (txid) => Effect.flatMap(ctx.findByTxid(txid), own),
    paymentReceived: (event) =>
      Effect.flatMap(
        event.charge === undefined ? ctx.findByTxid(event.txid) : Effect.succeed(Option.some(event.charge)),
        (found) => guarded<ChargePaidOutcome>("ignored")(found, () => ctx.paymentReceived(event))
      ),
    paymentReturned: (id) =>
      Effect.flatMap(ctx.getTransaction(id), (found) => guarded(false)(found, () => ctx.paymentReturned(id))),
    payoutSettled: (id, endToEndId) =>
      Effect.flatMap(ctx.getTransaction(id), (found) =>
        guarded(false)(found, () => ctx.payoutSettled(id, endToEndId))
      ),
    payoutFailed: (id, reason) =>
      Effect.flatMap(ctx.getTransaction(id), (found) =>
        guarded(false)(found, () => ctx.payoutFailed(id, reason))
      ),
    chargebackOpened: (id) =>
      Effect.flatMap(ctx.getTransaction(id), (found) => guarded(false)(found, () => ctx.chargebackOpened(id)))
  }
}

/**
 * Every live gateway's job kinds, each run with its gateway's fenced context; dies naming the
 * kind two gateways both register (their jobs could not be told apart).
 */
export const liveJobs = (
  gateways: Gateways["Type"],
  ctx: GatewayContext
): Readonly<Record<string, JobRun>> => {
  const kinds: Record<string, JobRun> = {}
  const owner: Record<string, string> = {}
  for (const { name, gateway } of gateways.live) {
    const own = fenced(gateways, name, ctx)
    for (const [kind, run] of Object.entries(gateway.jobs ?? {})) {
      if (Object.hasOwn(owner, kind))
        throw new Error(`The gateways ${owner[kind]} and ${name} both register the job kind ${kind}`)
      owner[kind] = name
      kinds[kind] = (job) => run(job, own)
    }
  }
  return kinds
}

/**
 * Every live gateway's batched job kinds (`BankGatewayShape.jobBatches`) that its own `jobs`
 * runs alone too, each with its gateway's fenced context: `[kind, run, context]`.
 */
export const liveJobBatches = (
  gateways: Gateways["Type"],
  ctx: GatewayContext
): ReadonlyArray<readonly [string, JobBatchRun, GatewayContext]> =>
  gateways.live.flatMap(({ name, gateway }) => {
    const own = fenced(gateways, name, ctx)
    const alone = gateway.jobs ?? {}
    return Object.entries(gateway.jobBatches ?? {}).flatMap(([kind, run]) =>
      Object.hasOwn(alone, kind) ? [[kind, run, own] as const] : []
    )
  })

const prefixed = /^\/gateways\/([a-z][a-z0-9-]{0,39})(\/.*)?$/

/**
 * The gateway a bank callback is for: `/gateways/<name>` (and the rest of the path) names a
 * live gateway other than the default; any other path is the default's.
 */
export const routeCallback = (
  gateways: Gateways["Type"],
  callback: BankCallback
): Option.Option<{ readonly gateway: NamedGateway; readonly callback: BankCallback }> => {
  const match = prefixed.exec(callback.path)
  const named = match === null ? undefined : gateways.live.find((g) => g.name === match[1])
  if (named !== undefined && match !== null)
    return Option.some({ gateway: named, callback: { ...callback, path: match[2] ?? "" } })
  return Option.map(Option.fromNullable(gateways.live[0]), (gateway) => ({ gateway, callback }))
}
