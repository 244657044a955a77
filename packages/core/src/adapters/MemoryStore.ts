/**
 * The storage port in memory, for tests and experiments. Each operation runs its whole body
 * synchronously inside one effect, so in a single JS thread it is atomic by construction: no
 * other fiber can interleave, and every constraint is checked before the first write. Records
 * are stored as frozen copies, so callers can neither change the store's state nor be changed by it.
 */
import { Context, Effect, Either, Layer, Option } from "effect"
import type {
  Chargeback,
  JobId,
  Refund,
  Transaction,
  TransactionId,
  WebhookEndpoint
} from "../domain/Domain.js"
import { availableAccount, type Event, fairnessKey, healthy, heldAccount, laneOf } from "../domain/Domain.js"
import type * as Money from "../domain/Money.js"
import * as PersonalData from "../domain/PersonalData.js"
import { adminTokenOps } from "../internal/memoryAdminTokens.js"
import { infractionOps } from "../internal/memoryInfractions.js"
import { mailOps } from "../internal/memoryMail.js"
import { merchantGatewayOps } from "../internal/memoryMerchantGateways.js"
import { panelOps, teamOpsKey } from "../internal/memoryPanel.js"
import { paymentLinkOps } from "../internal/memoryPaymentLinks.js"
import { personalDataOps } from "../internal/memoryPersonalData.js"
import { refundOps } from "../internal/memoryRefunds.js"
import { subscriptionOps } from "../internal/memorySubscriptions.js"
import { compareIds, endpointKey, newestFirst, oldestFirst, own, Tables } from "../internal/memoryTables.js"
import { recordEventKey, webhookOpsOver } from "../internal/memoryWebhookOps.js"
import { AdminTokenStore } from "../ports/AdminTokenStore.js"
import { InfractionStore, type InfractionStoreShape } from "../ports/InfractionStore.js"
import { MailStore } from "../ports/MailStore.js"
import { MerchantGatewayStore } from "../ports/MerchantGatewayStore.js"
import { PaymentLinkStore } from "../ports/PaymentLinkStore.js"
import { RefundStore, type RefundStoreShape } from "../ports/RefundStore.js"
import type {
  AccountMovement,
  Advance,
  ClaimedJob,
  Effects,
  IdempotencyScope,
  StoreShape
} from "../ports/Store.js"
import { advanceEffects, context, JobWatchers, Store, StoreError, type Stores } from "../ports/Store.js"
import { SubscriptionStore, type SubscriptionStoreShape } from "../ports/SubscriptionStore.js"
import { TeamStore, type TeamStoreShape } from "../ports/TeamStore.js"
import { WebhookOpsStore } from "../ports/WebhookOpsStore.js"

const storeErrorOf = (cause: unknown): StoreError =>
  new StoreError({ message: cause instanceof Error ? cause.message : String(cause), cause })

const atomic = <A>(body: () => A): Effect.Effect<A, StoreError> =>
  Effect.try({ try: body, catch: storeErrorOf })

const found = <A>(value: A | undefined): Option.Option<A> => Option.fromNullable(value)

const idempotencyKey = (s: IdempotencyScope): string => JSON.stringify([s.merchantId, s.mode, s.key])

/** The tables and helpers every group of operations shares. */
interface Memory {
  readonly t: Tables
  /** What a charge's refunds add up to, of the given statuses. */
  readonly refundedOf: (
    transactionId: TransactionId,
    statuses: ReadonlyArray<Refund["status"]>
  ) => Money.Cents
  readonly watchers: JobWatchers
  /** Records effects and tells the worker about the jobs stored (the unit has "committed"). */
  readonly record: (effects: Effects) => void
  readonly retry: (id: JobId, runAt: number) => void
}

/** The merchants and their API keys. */
const accountOps = ({ t }: Memory) =>
  ({
    createMerchant: (merchant) =>
      atomic(() => {
        t.assertNew("merchant", t.merchants, [merchant.id])
        t.merchants.set(merchant.id, own(merchant))
        t.credentialsVersion++
      }),
    getMerchant: (id) => atomic(() => found(t.merchants.get(id))),
    setFeePlan: (id, feePlan) =>
      atomic(() => {
        const merchant = t.merchants.get(id)
        if (merchant === undefined) return false
        t.merchants.set(id, own({ ...merchant, feePlan }))
        t.credentialsVersion++
        return true
      }),
    insertApiKey: (key) =>
      atomic(() => {
        t.assertNew("api key", t.apiKeys, [key.id])
        t.assertNew("api key hash", t.keyHashes, [key.hash])
        t.apiKeys.set(key.id, own(key))
        t.keyHashes.set(key.hash, key.id)
        t.credentialsVersion++
      }),
    findKeyOwner: (hash) =>
      atomic(() =>
        found(t.keyHashes.get(hash)).pipe(
          Option.flatMap((id) => found(t.apiKeys.get(id))),
          Option.flatMap((key) =>
            Option.map(found(t.merchants.get(key.merchantId)), (merchant) => ({ key, merchant }))
          )
        )
      ),
    credentialsVersion: () => atomic(() => t.credentialsVersion),
    revokeApiKey: (id, at) =>
      atomic(() => {
        const key = t.apiKeys.get(id)
        if (key === undefined || key.revokedAt !== null) return false
        t.apiKeys.set(id, own({ ...key, revokedAt: at }))
        t.credentialsVersion++
        return true
      }),
    listMerchants: () => atomic(() => [...t.merchants.values()].sort(newestFirst)),
    listApiKeys: (merchantId) =>
      atomic(() => [...t.apiKeys.values()].filter((k) => k.merchantId === merchantId).sort(newestFirst))
  }) satisfies Partial<StoreShape>

/** The merchants' webhook endpoints and their signing keys. */
const endpointOps = ({ t }: Memory) =>
  ({
    setWebhookEndpoint: (input) =>
      atomic(() => {
        const key = endpointKey(input.merchantId, input.mode)
        const old = t.endpoints.get(key)
        const endpoint: WebhookEndpoint = own(
          old === undefined
            ? { ...input, previousSigningKey: null, previousKeyExpiresAt: null }
            : {
                ...old,
                url: input.url,
                secret: input.secret,
                secretHeader: input.secretHeader,
                updatedAt: input.updatedAt
              }
        )
        t.endpoints.set(key, endpoint)
        return endpoint
      }),
    rotateSigningKey: ({ merchantId, mode, signingKey, previousUntil, at }) =>
      atomic(() => {
        const key = endpointKey(merchantId, mode)
        const old = t.endpoints.get(key)
        if (old === undefined) return Option.none()
        const endpoint: WebhookEndpoint = own({
          ...old,
          signingKey,
          previousSigningKey: previousUntil === null ? null : old.signingKey,
          previousKeyExpiresAt: previousUntil,
          updatedAt: at
        })
        t.endpoints.set(key, endpoint)
        return Option.some(endpoint)
      }),
    getWebhookEndpoint: (merchantId, mode) =>
      atomic(() => found(t.endpoints.get(endpointKey(merchantId, mode))))
  }) satisfies Partial<StoreShape>

/**
 * One transition, only if the transaction is still in `from` (`advance`'s body, and each of
 * `advanceEach`'s): every check before the first write, so one that throws writes nothing.
 */
const advanceOne = (t: Tables, record: Memory["record"], input: Advance): Option.Option<Transaction> => {
  const current = t.transactions.get(input.id)
  if (current === undefined || current.status !== input.from) return Option.none()
  if (input.type !== undefined && current.type !== input.type) return Option.none()
  if (input.unpaid === true && current.paidAt !== null) return Option.none()
  const updated: Transaction = own({
    ...current,
    status: input.to,
    updatedAt: input.at,
    ...(input.endToEndId === undefined ? {} : { endToEndId: input.endToEndId }),
    ...(input.paidAt === undefined ? {} : { paidAt: input.paidAt }),
    ...(input.failureReason === undefined ? {} : { failureReason: input.failureReason }),
    ...(input.receivedAmount === undefined ? {} : { receivedAmount: input.receivedAmount }),
    ...(input.netAmount === undefined ? {} : { netAmount: input.netAmount })
  })
  const effects = advanceEffects(input, updated)
  t.assertWritable(input.entry, effects)
  t.transactions.set(updated.id, updated)
  t.post(input.entry)
  record(effects)
  return Option.some(updated)
}

/** Charges and payouts stored and moved on, with their postings and effects. */
const transactionWrites = ({ t, record }: Memory) =>
  ({
    insertTransactions: (input) =>
      atomic(() => {
        const { entry, guard } = input
        if (guard !== null) {
          const mode = entry?.mode ?? input.transactions[0]?.mode ?? "test"
          if (t.accountBalance(mode, guard.account) < guard.covers) return "insufficient" as const
        }
        const claim = input.idempotency
        const keyRow = claim === undefined ? undefined : t.idempotency.get(idempotencyKey(claim.scope))
        if (claim !== undefined && (keyRow === undefined || keyRow.result !== null))
          return "conflict" as const
        const rows = input.transactions
        t.assertNew(
          "transaction",
          t.transactions,
          rows.map((row) => row.id)
        )
        t.assertNew(
          "txid",
          t.txids,
          rows.flatMap((row) => (row.txid === null ? [] : [row.txid]))
        )
        t.assertWritable(entry, input.effects)
        for (const row of rows) {
          t.transactions.set(row.id, own(row))
          if (row.txid !== null) t.txids.set(row.txid, row.id)
        }
        t.post(entry)
        record(input.effects)
        if (claim !== undefined && keyRow !== undefined) {
          t.idempotency.set(idempotencyKey(claim.scope), {
            ...keyRow,
            result: { outcome: claim.outcome, body: claim.body }
          })
        }
        return "created" as const
      }),
    advance: (input) => atomic(() => advanceOne(t, record, input)),
    // Each transition its own unit, with `advance`'s body: one that throws writes nothing.
    advanceEach: (inputs) =>
      Effect.sync(() =>
        inputs.map((input) => {
          try {
            return Either.right(advanceOne(t, record, input))
          } catch (cause) {
            return Either.left(storeErrorOf(cause))
          }
        })
      )
  }) satisfies Partial<StoreShape>

/** Entries posted alone, and chargebacks opened and resolved. */
const chargebackWrites = ({ t, record }: Memory) =>
  ({
    postEntry: (entry) =>
      atomic(() => {
        t.assertWritable(entry, { events: [], jobs: [] })
        t.post(entry)
      }),
    openChargeback: (chargeback, entry, effects) =>
      atomic(() => {
        for (const cb of t.chargebacks.values()) {
          if (cb.transactionId === chargeback.transactionId && cb.status === "open") return false
        }
        t.assertNew("chargeback", t.chargebacks, [chargeback.id])
        t.assertWritable(entry, effects)
        t.chargebacks.set(chargeback.id, own(chargeback))
        t.post(entry)
        record(effects)
        return true
      }),
    resolveChargeback: (input) =>
      atomic(() => {
        const current = t.chargebacks.get(input.id)
        if (current === undefined || current.status !== "open") return Option.none()
        t.assertWritable(input.entry, input.effects)
        const updated: Chargeback = own({ ...current, status: input.status, updatedAt: input.at })
        t.chargebacks.set(updated.id, updated)
        const deposit = t.transactions.get(current.transactionId)
        if (input.refund && deposit !== undefined) {
          t.transactions.set(deposit.id, own({ ...deposit, status: "refunded", updatedAt: input.at }))
        }
        t.post(input.entry)
        record(input.effects)
        return Option.some(updated)
      })
  }) satisfies Partial<StoreShape>

/** Transactions, chargebacks and balances read. */
const transactionReads = ({ t }: Memory) =>
  ({
    // The process's own memory: reachable whenever the process answers.
    ping: Effect.void,
    getTransaction: (id) => atomic(() => found(t.transactions.get(id))),
    findByTxid: (txid) =>
      atomic(() => found(t.txids.get(txid)).pipe(Option.flatMap((id) => found(t.transactions.get(id))))),
    listTransactions: (q) =>
      atomic(() => {
        const rows = [...t.transactions.values()]
          .filter(
            (tx) =>
              tx.merchantId === q.merchantId &&
              tx.mode === q.mode &&
              (q.type === undefined || tx.type === q.type) &&
              (q.status === undefined || tx.status === q.status) &&
              (q.from === undefined || tx.createdAt >= q.from) &&
              (q.to === undefined || tx.createdAt < q.to) &&
              (q.before === undefined ||
                tx.createdAt < q.before.createdAt ||
                (tx.createdAt === q.before.createdAt && compareIds(tx.id, q.before.id) < 0)) &&
              (q.amount === undefined || tx.amount === q.amount) &&
              (q.endToEndId === undefined || tx.endToEndId === q.endToEndId) &&
              (q.document === undefined || tx.clientDocument === q.document)
          )
          .sort(newestFirst)
        return {
          rows: rows.slice(q.offset, q.offset + q.limit),
          total: q.countTotal === false ? 0 : rows.length
        }
      }),
    getChargeback: (id) => atomic(() => found(t.chargebacks.get(id))),
    listChargebacks: (transactionId) =>
      atomic(() =>
        [...t.chargebacks.values()].filter((cb) => cb.transactionId === transactionId).sort(oldestFirst)
      ),
    balance: (merchantId, mode) =>
      atomic(() => ({
        available: t.cached(mode, availableAccount(merchantId)),
        held: t.cached(mode, heldAccount(merchantId))
      })),
    accountBalance: (mode, account) => atomic(() => t.accountBalance(mode, account)),
    checkLedger: (mode) => atomic(() => t.checkLedger(mode))
  }) satisfies Partial<StoreShape>

/** An account's movements and balance, and the events. */
const ledgerReads = ({ t }: Memory) =>
  ({
    listAccountMovements: (q) =>
      atomic(() => {
        const out: Array<AccountMovement> = []
        for (const entry of t.entries.values()) {
          if (entry.mode !== q.mode) continue
          if (q.from !== undefined && entry.createdAt < q.from) continue
          if (q.to !== undefined && entry.createdAt >= q.to) continue
          entry.postings.forEach((p, seq) => {
            if (p.account !== q.account) return
            const after = q.after
            if (after !== undefined && (compareIds(entry.id, after.entryId) || seq - after.seq) <= 0) return
            const transaction =
              entry.transactionId === null ? undefined : t.transactions.get(entry.transactionId)
            out.push({
              entryId: entry.id,
              seq,
              kind: entry.kind,
              amount: p.amount,
              createdAt: entry.createdAt,
              transaction: transaction ?? null
            })
          })
        }
        return out
          .sort((a, b) => compareIds(a.entryId, b.entryId) || a.seq - b.seq)
          .slice(0, Math.max(0, q.limit))
      }),
    accountBalanceBefore: (mode, account, before) =>
      atomic(() => {
        let total = 0
        for (const entry of t.entries.values()) {
          if (entry.mode !== mode || entry.createdAt >= before) continue
          for (const p of entry.postings) if (p.account === account) total += p.amount
        }
        return total as Money.Cents
      }),
    listEvents: (merchantId, mode, since = 0) =>
      atomic(() =>
        [...t.events.values()]
          .filter((e) => e.merchantId === merchantId && e.mode === mode && e.createdAt >= since)
          .sort(oldestFirst)
      ),
    getEvent: (id) => atomic(() => found(t.events.get(id)))
  }) satisfies Partial<StoreShape>

/** Idempotency keys: begun, finished, released, held. */
const idempotencyOps = ({ t }: Memory) =>
  ({
    beginIdempotent: (scope, fingerprint, now, expiresAt, lockedUntil) =>
      atomic(() => {
        const key = idempotencyKey(scope)
        const row = t.idempotency.get(key)
        if (row === undefined || row.expiresAt <= now) {
          t.idempotency.set(key, { fingerprint, expiresAt, lockedUntil, result: null })
          return { _tag: "Started" } as const
        }
        if (row.fingerprint !== fingerprint) return { _tag: "Mismatch" } as const
        if (row.result === null && row.lockedUntil <= now) {
          t.idempotency.set(key, { ...row, lockedUntil })
          return row.held === undefined
            ? ({ _tag: "Started" } as const)
            : { _tag: "Started" as const, held: row.held }
        }
        if (row.result === null) return { _tag: "InFlight" } as const
        return { _tag: "Replay", outcome: row.result.outcome, body: row.result.body } as const
      }),
    finishIdempotent: (scope, outcome, body) =>
      atomic(() => {
        const key = idempotencyKey(scope)
        const row = t.idempotency.get(key)
        if (row !== undefined && row.result === null)
          t.idempotency.set(key, { ...row, result: { outcome, body } })
      }),
    releaseIdempotent: (scope) =>
      atomic(() => {
        t.idempotency.delete(idempotencyKey(scope))
      }),
    holdIdempotent: (scope, held, lockedUntil) =>
      atomic(() => {
        const key = idempotencyKey(scope)
        const row = t.idempotency.get(key)
        if (row !== undefined && row.result === null) t.idempotency.set(key, { ...row, held, lockedUntil })
      })
  }) satisfies Partial<StoreShape>

/** Due jobs claimed, each endpoint within its share. */
const claimOps = ({ t }: Memory) =>
  ({
    claimDueJobs: (now, limit, leaseUntil, lane, fairness) =>
      atomic(() => {
        const inLane = [...t.jobs.values()].filter((row) => laneOf(row.job.kind) === lane)
        const keyOf = (ref: string) => {
          const d = t.deliveries.get(ref)
          return d === undefined ? ref : fairnessKey(d.merchantId, d.mode)
        }
        // Each endpoint's share left: its share minus its attempts leased now.
        const left = new Map<string, number>()
        if (fairness !== undefined) {
          for (const row of inLane) {
            const key = keyOf(row.job.ref)
            if (!left.has(key))
              left.set(
                key,
                (t.health.get(key)?.failingSince ?? null) === null
                  ? fairness.perEndpoint
                  : fairness.failingPerEndpoint
              )
            if (row.leaseUntil !== null && row.leaseUntil > now) left.set(key, (left.get(key) ?? 0) - 1)
          }
        }
        const due = inLane
          .filter((row) => row.job.runAt <= now && (row.leaseUntil === null || row.leaseUntil <= now))
          .sort((a, b) => a.job.runAt - b.job.runAt || compareIds(a.job.id, b.job.id))
          .filter((row) => {
            if (fairness === undefined) return true
            const key = keyOf(row.job.ref)
            const n = left.get(key) ?? 0
            left.set(key, n - 1)
            return n > 0
          })
          .slice(0, Math.max(0, limit))
        return due.map((row): ClaimedJob => {
          t.jobs.set(row.job.id, { job: row.job, leaseUntil })
          return own({ ...row.job, leaseUntil })
        })
      }),
    claimEndpointJobs: (now, endpoint, limit, leaseUntil, fairness) =>
      atomic(() => {
        const mine = [...t.jobs.values()].filter((row) => {
          if (row.job.kind !== "webhook.attempt") return false
          const d = t.deliveries.get(row.job.ref)
          return d !== undefined && fairnessKey(d.merchantId, d.mode) === endpoint
        })
        const share =
          (t.health.get(endpoint)?.failingSince ?? null) === null
            ? fairness.perEndpoint
            : fairness.failingPerEndpoint
        const leased = mine.filter((row) => row.leaseUntil !== null && row.leaseUntil > now).length
        return mine
          .filter((row) => row.job.runAt <= now && (row.leaseUntil === null || row.leaseUntil <= now))
          .sort((a, b) => a.job.runAt - b.job.runAt || compareIds(a.job.id, b.job.id))
          .slice(0, Math.max(0, Math.min(limit, share - leased)))
          .map((row): ClaimedJob => {
            t.jobs.set(row.job.id, { job: row.job, leaseUntil })
            return own({ ...row.job, leaseUntil })
          })
      })
  }) satisfies Partial<StoreShape>

/** The jobs' schedule, and a delivery's endpoint and its health. */
const jobOps = ({ t, watchers, retry }: Memory) =>
  ({
    nextJobAt: (lane) =>
      atomic(() => {
        let next: number | undefined
        for (const row of t.jobs.values()) {
          if (laneOf(row.job.kind) !== lane) continue
          const at = Math.max(row.job.runAt, row.leaseUntil ?? 0)
          if (next === undefined || at < next) next = at
        }
        return found(next)
      }),
    finishJob: (id) =>
      atomic(() => {
        t.jobs.delete(id)
      }),
    retryJob: (id, runAt) => atomic(() => retry(id, runAt)),
    watchJobs: watchers.watch,
    getDelivery: (id) =>
      atomic(() => {
        const delivery = t.deliveries.get(id)
        const event = delivery === undefined ? undefined : t.events.get(delivery.eventId)
        if (delivery === undefined || event === undefined) return Option.none()
        const endpoint = t.endpoints.get(endpointKey(delivery.merchantId, delivery.mode))
        const health = t.health.get(fairnessKey(delivery.merchantId, delivery.mode)) ?? healthy
        return Option.some({ delivery, event, endpoint: endpoint ?? null, health })
      }),
    recordEndpointHealth: ({ merchantId, mode, ok, at, failingAfter }) =>
      atomic(() => {
        const key = fairnessKey(merchantId, mode)
        const old = t.health.get(key) ?? healthy
        if (ok) {
          t.health.delete(key)
          return old.failingSince === null ? ("unchanged" as const) : ("recovered" as const)
        }
        const n = old.consecutiveFailures + 1
        const failingSince = old.failingSince ?? (n >= failingAfter ? at : null)
        t.health.set(key, own({ consecutiveFailures: n, failingSince }))
        return n === failingAfter ? ("failing" as const) : ("unchanged" as const)
      }),
    endpointBacklog: (merchantId, mode, now) =>
      atomic(() => {
        const key = fairnessKey(merchantId, mode)
        let pending = 0
        let inFlight = 0
        for (const row of t.jobs.values()) {
          if (row.job.kind !== "webhook.attempt") continue
          const d = t.deliveries.get(row.job.ref)
          if (d === undefined || fairnessKey(d.merchantId, d.mode) !== key) continue
          pending++
          if (row.leaseUntil !== null && row.leaseUntil > now) inFlight++
        }
        return { health: t.health.get(key) ?? healthy, pending, inFlight }
      })
  }) satisfies Partial<StoreShape>

/** Webhook deliveries: attempts recorded, events delivered and listed. */
const deliveryOps = ({ t, watchers, retry }: Memory) =>
  ({
    recordAttempt: ({ jobId, attempt, status, retryAt, url }) =>
      atomic(() => {
        t.attempts.set(attempt.deliveryId, [...(t.attempts.get(attempt.deliveryId) ?? []), own(attempt)])
        const delivery = t.deliveries.get(attempt.deliveryId)
        if (delivery !== undefined) {
          t.deliveries.set(
            delivery.id,
            own({
              ...delivery,
              attempts: attempt.attempt,
              status,
              updatedAt: attempt.at,
              url: url ?? delivery.url
            })
          )
        }
        if (status === "pending" && retryAt !== null) retry(jobId, retryAt)
        else t.jobs.delete(jobId)
      }),
    redeliver: (eventId, now) =>
      atomic(() => {
        const event = t.events.get(eventId)
        const endpoint =
          event === undefined ? undefined : t.endpoints.get(endpointKey(event.merchantId, event.mode))
        if (event === undefined || endpoint === undefined) return Option.none()
        const { delivery, job } = t.deliver(event, endpoint, now)
        watchers.notifyJobs([job])
        return Option.some(delivery)
      }),
    insertEvent: (event) =>
      atomic(() => {
        if (t.events.has(event.id)) throw new Error(`duplicate event ${event.id}`)
        const endpoint = t.endpoints.get(endpointKey(event.merchantId, event.mode))
        if (endpoint === undefined) return Option.none()
        t.events.set(event.id, own(event))
        const { delivery, job } = t.deliver(event, endpoint, event.createdAt)
        watchers.notifyJobs([job])
        return Option.some(delivery)
      }),
    listDeliveries: (q) =>
      atomic(() =>
        [...t.deliveries.values()]
          .filter(
            (d) =>
              d.merchantId === q.merchantId &&
              (q.mode === undefined || d.mode === q.mode) &&
              (q.status === undefined || d.status === q.status) &&
              (q.eventId === undefined || d.eventId === q.eventId)
          )
          .sort(newestFirst)
          .slice(q.offset, q.offset + q.limit)
          .flatMap((delivery) => {
            const event = t.events.get(delivery.eventId)
            if (event === undefined) return []
            const log = [...(t.attempts.get(delivery.id) ?? [])].sort(
              (a, b) => a.attempt - b.attempt || a.at - b.at
            )
            let nextAttemptAt: number | null = null
            if (delivery.status === "pending") {
              for (const row of t.jobs.values()) {
                if (row.job.kind === "webhook.attempt" && row.job.ref === delivery.id)
                  nextAttemptAt =
                    nextAttemptAt === null ? row.job.runAt : Math.min(nextAttemptAt, row.job.runAt)
              }
            }
            return [{ delivery, event, attempts: log, nextAttemptAt }]
          })
      )
  }) satisfies Partial<StoreShape>

/** Builds an empty store, with its MED infractions, refunds and subscriptions over the same tables. */
export const makeAll: Effect.Effect<{
  readonly store: StoreShape
  readonly infractions: InfractionStoreShape
  readonly refunds: RefundStoreShape
  readonly subscriptions: SubscriptionStoreShape
}> = Effect.sync(() => {
  const t = new Tables()
  const watchers = new JobWatchers()
  /** Records effects and tells the worker about the jobs stored (the unit has "committed"). */
  const record = (effects: Effects) => watchers.notifyJobs(t.record(effects))
  const refunds = refundOps(t, record)
  const refundedOf = refunds.refundedOf
  const retry = (id: JobId, runAt: number) => {
    const job = t.retry(id, runAt)
    if (job !== undefined) watchers.notifyJobs([job])
  }

  const m: Memory = { t, refundedOf, watchers, record, retry }
  const store: StoreShape = {
    ...panelOps(t.apiKeys),
    ...personalDataOps(t, atomic),
    ...{ [recordEventKey]: (event: Event) => atomic(() => void t.events.set(event.id, own(event))) },
    ...accountOps(m),
    ...endpointOps(m),
    ...transactionWrites(m),
    ...chargebackWrites(m),
    ...transactionReads(m),
    ...ledgerReads(m),
    ...idempotencyOps(m),
    ...claimOps(m),
    ...jobOps(m),
    ...deliveryOps(m)
  }
  return {
    store,
    infractions: infractionOps(t, record, (id) => refundedOf(id, ["completed"])),
    refunds: refunds.ops,
    subscriptions: subscriptionsOver(t)
  }
})

/** Subscriptions finish their idempotency key in the same synchronous unit as their insert. */
const subscriptionsOver = (t: Tables): SubscriptionStoreShape =>
  subscriptionOps({
    started: (claim) => t.idempotency.get(idempotencyKey(claim.scope))?.result === null,
    finish: (claim) => {
      const key = idempotencyKey(claim.scope)
      const row = t.idempotency.get(key)
      if (row !== undefined)
        t.idempotency.set(key, { ...row, result: { outcome: claim.outcome, body: claim.body } })
    },
    eraseEvents: (ids) => {
      for (const event of t.events.values()) {
        const data: object = event.data
        if (
          event.type === "subscription.updated" &&
          "subscriptionId" in data &&
          ids.has(String(data.subscriptionId))
        )
          t.events.set(event.id, own({ ...event, data: PersonalData.eraseSubscriptionEventData(event.data) }))
      }
    }
  })

/** Builds an empty store. */
export const make: Effect.Effect<StoreShape> = Effect.map(makeAll, (all) => all.store)

/**
 * The in-memory store as every store tag (`Stores`), its MED infractions (`InfractionStore`) and
 * its admin tokens (`AdminTokenStore`); each build is a fresh, empty store.
 */
export const layer: Layer.Layer<
  | Stores
  | InfractionStore
  | RefundStore
  | AdminTokenStore
  | MailStore
  | TeamStore
  | PaymentLinkStore
  | SubscriptionStore
  | MerchantGatewayStore
  | WebhookOpsStore
> = Layer.mergeAll(
  // The outbox's jobs and the team's operations live in this store's own tables.
  Layer.effect(MailStore, Effect.map(Store, mailOps)),
  Layer.effect(WebhookOpsStore, Effect.map(Store, webhookOpsOver)),
  Layer.effect(
    TeamStore,
    Effect.map(Store, (s) => (s as unknown as { readonly [teamOpsKey]: TeamStoreShape })[teamOpsKey])
  )
).pipe(
  Layer.provideMerge(
    Layer.mergeAll(
      Layer.effectContext(
        Effect.map(makeAll, (all) =>
          context(all.store).pipe(
            Context.add(InfractionStore, all.infractions),
            Context.add(RefundStore, all.refunds),
            Context.add(SubscriptionStore, all.subscriptions)
          )
        )
      ),
      Layer.sync(AdminTokenStore, adminTokenOps),
      Layer.sync(PaymentLinkStore, paymentLinkOps),
      Layer.sync(MerchantGatewayStore, merchantGatewayOps)
    )
  )
)
