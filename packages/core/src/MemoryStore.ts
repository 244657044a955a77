/**
 * The storage port in memory, for tests and experiments. Each operation runs its whole body
 * synchronously inside one effect, so in a single JS thread it is atomic by construction: no
 * other fiber can interleave, and every constraint is checked before the first write. Records
 * are stored as frozen copies, so callers can neither change the store's state nor be changed by it.
 */
import { Effect, Layer, Option } from "effect"
import type {
  Account,
  ApiKey,
  Chargeback,
  DeliveryAttempt,
  Event,
  Job,
  JournalEntry,
  Merchant,
  Mode,
  Transaction,
  WebhookDelivery,
  WebhookEndpoint
} from "./Domain.js"
import { availableAccount, heldAccount } from "./Domain.js"
import * as Ids from "./Ids.js"
import type { Cents } from "./Money.js"
import type { ClaimedJob, Effects, LedgerCheck, StoreShape } from "./Store.js"
import { Store, StoreError } from "./Store.js"

interface JobRow {
  readonly job: Job
  readonly leaseUntil: number | null
}

interface IdempotencyRow {
  readonly fingerprint: string
  readonly expiresAt: number
  readonly result: { readonly status: number; readonly body: string } | null
}

const deepFreeze = <A>(value: A): A => {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const v of Object.values(value)) deepFreeze(v)
  }
  return value
}

/** A frozen deep copy: what the store keeps and hands out. */
const own = <A>(value: A): A => deepFreeze(structuredClone(value))

const compareIds = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)
const newestFirst = (a: { createdAt: number; id: string }, b: { createdAt: number; id: string }) =>
  b.createdAt - a.createdAt || compareIds(b.id, a.id)
const oldestFirst = (a: { createdAt: number; id: string }, b: { createdAt: number; id: string }) =>
  a.createdAt - b.createdAt || compareIds(a.id, b.id)

const isMerchantAccount = (account: Account): boolean => account.startsWith("merchant:")
const accountKey = (mode: Mode, account: Account): string => `${mode} ${account}`
const endpointKey = (merchantId: string, mode: Mode): string => `${mode} ${merchantId}`

/** Builds an empty store. */
export const make: Effect.Effect<StoreShape> = Effect.sync(() => {
  const merchants = new Map<string, Merchant>()
  const apiKeys = new Map<string, ApiKey>()
  const keyHashes = new Map<string, string>()
  const endpoints = new Map<string, WebhookEndpoint>()
  const transactions = new Map<string, Transaction>()
  const txids = new Map<string, string>()
  const entries = new Map<string, JournalEntry>()
  const balances = new Map<string, number>()
  const events = new Map<string, Event>()
  const chargebacks = new Map<string, Chargeback>()
  const idempotency = new Map<string, IdempotencyRow>()
  const jobs = new Map<string, JobRow>()
  const deliveries = new Map<string, WebhookDelivery>()
  const attempts = new Map<string, ReadonlyArray<DeliveryAttempt>>()

  const atomic = <A>(body: () => A): Effect.Effect<A, StoreError> =>
    Effect.try({
      try: body,
      catch: (cause) => new StoreError({ message: cause instanceof Error ? cause.message : String(cause), cause })
    })

  /** A unique-key violation, raised before anything is written. */
  const assertNew = (what: string, table: Map<string, unknown>, keys: Iterable<string>): void => {
    const seen = new Set<string>()
    for (const key of keys) {
      if (table.has(key) || seen.has(key)) throw new Error(`duplicate ${what}: ${key}`)
      seen.add(key)
    }
  }
  const assertEntry = (entry: JournalEntry | null): void => {
    if (entry !== null) assertNew("journal entry", entries, [entry.id])
  }
  const assertEffects = (effects: Effects): void => {
    assertNew("event", events, effects.events.map((e) => e.id))
    assertNew("job", jobs, effects.jobs.map((j) => j.id))
  }

  const cached = (mode: Mode, account: Account): Cents => (balances.get(accountKey(mode, account)) ?? 0) as Cents
  const posted = (mode: Mode, account: Account): Cents => {
    let total = 0
    for (const entry of entries.values()) {
      if (entry.mode !== mode) continue
      for (const p of entry.postings) if (p.account === account) total += p.amount
    }
    return total as Cents
  }
  const accountBalance = (mode: Mode, account: Account): Cents =>
    isMerchantAccount(account) ? cached(mode, account) : posted(mode, account)

  const post = (entry: JournalEntry | null): void => {
    if (entry === null) return
    entries.set(entry.id, own(entry))
    for (const p of entry.postings) {
      if (!isMerchantAccount(p.account)) continue
      const key = accountKey(entry.mode, p.account)
      balances.set(key, (balances.get(key) ?? 0) + p.amount)
    }
  }

  const schedule = (job: Job): void => {
    jobs.set(job.id, { job: own(job), leaseUntil: null })
  }
  const newDelivery = (event: Event, endpoint: WebhookEndpoint, at: number): WebhookDelivery => {
    const delivery: WebhookDelivery = own({
      id: Ids.newId("dlv", at) as WebhookDelivery["id"],
      eventId: event.id,
      merchantId: event.merchantId,
      mode: event.mode,
      url: endpoint.url,
      status: "pending",
      attempts: 0,
      createdAt: at,
      updatedAt: at
    })
    deliveries.set(delivery.id, delivery)
    attempts.set(delivery.id, [])
    schedule({ id: Ids.newId("job", at) as Job["id"], kind: "webhook.attempt", ref: delivery.id, runAt: at })
    return delivery
  }
  const record = (effects: Effects): void => {
    for (const event of effects.events) {
      events.set(event.id, own(event))
      const endpoint = endpoints.get(endpointKey(event.merchantId, event.mode))
      if (endpoint !== undefined) newDelivery(event, endpoint, event.createdAt)
    }
    for (const job of effects.jobs) schedule(job)
  }

  const retry = (id: string, runAt: number): void => {
    const row = jobs.get(id)
    if (row !== undefined) jobs.set(id, { job: own({ ...row.job, runAt }), leaseUntil: null })
  }

  const checkLedger = (mode: Mode): LedgerCheck => {
    const unbalancedEntries: Array<string> = []
    const sums = new Map<Account, number>()
    let total = 0
    let count = 0
    for (const entry of entries.values()) {
      if (entry.mode !== mode) continue
      count++
      let entryTotal = 0
      for (const p of entry.postings) {
        entryTotal += p.amount
        if (isMerchantAccount(p.account)) sums.set(p.account, (sums.get(p.account) ?? 0) + p.amount)
      }
      if (entryTotal !== 0) unbalancedEntries.push(entry.id)
      total += entryTotal
    }
    const accounts = new Set<Account>(sums.keys())
    for (const key of balances.keys()) {
      if (key.startsWith(`${mode} `)) accounts.add(key.slice(mode.length + 1) as Account)
    }
    const balanceMismatches = [...accounts]
      .map((account) => ({ mode, account, cached: cached(mode, account), posted: (sums.get(account) ?? 0) as Cents }))
      .filter((row) => row.cached !== row.posted)
    return { unbalancedEntries, balanceMismatches, total: total as Cents, entries: count }
  }

  const idempotencyKey = (s: { merchantId: string; mode: Mode; key: string }): string =>
    JSON.stringify([s.merchantId, s.mode, s.key])
  const found = <A>(value: A | undefined): Option.Option<A> => Option.fromNullable(value)

  return {
    createMerchant: (merchant) =>
      atomic(() => {
        assertNew("merchant", merchants, [merchant.id])
        merchants.set(merchant.id, own(merchant))
      }),
    getMerchant: (id) => atomic(() => found(merchants.get(id))),
    setFeePlan: (id, feePlan) =>
      atomic(() => {
        const merchant = merchants.get(id)
        if (merchant === undefined) return false
        merchants.set(id, own({ ...merchant, feePlan }))
        return true
      }),
    insertApiKey: (key) =>
      atomic(() => {
        assertNew("api key", apiKeys, [key.id])
        assertNew("api key hash", keyHashes, [key.hash])
        apiKeys.set(key.id, own(key))
        keyHashes.set(key.hash, key.id)
      }),
    findApiKey: (hash) => atomic(() => found(keyHashes.get(hash)).pipe(Option.flatMap((id) => found(apiKeys.get(id))))),
    revokeApiKey: (id, at) =>
      atomic(() => {
        const key = apiKeys.get(id)
        if (key === undefined || key.revokedAt !== null) return false
        apiKeys.set(id, own({ ...key, revokedAt: at }))
        return true
      }),
    listApiKeys: (merchantId) =>
      atomic(() => [...apiKeys.values()].filter((k) => k.merchantId === merchantId).sort(newestFirst)),
    setWebhookEndpoint: (endpoint) =>
      atomic(() => {
        endpoints.set(endpointKey(endpoint.merchantId, endpoint.mode), own(endpoint))
      }),
    getWebhookEndpoint: (merchantId, mode) => atomic(() => found(endpoints.get(endpointKey(merchantId, mode)))),

    insertTransactions: (input) =>
      atomic(() => {
        const { entry, guard } = input
        if (guard !== null) {
          const mode = entry?.mode ?? input.transactions[0]?.mode ?? "test"
          if (accountBalance(mode, guard.account) < guard.covers) return "insufficient" as const
        }
        assertNew("transaction", transactions, input.transactions.map((t) => t.id))
        assertNew("txid", txids, input.transactions.flatMap((t) => (t.txid === null ? [] : [t.txid])))
        assertEntry(entry)
        assertEffects(input.effects)
        for (const t of input.transactions) {
          transactions.set(t.id, own(t))
          if (t.txid !== null) txids.set(t.txid, t.id)
        }
        post(entry)
        record(input.effects)
        return "created" as const
      }),
    advance: (input) =>
      atomic(() => {
        const current = transactions.get(input.id)
        if (current === undefined || current.status !== input.from) return Option.none()
        assertEntry(input.entry)
        assertEffects(input.effects)
        const updated: Transaction = own({
          ...current,
          status: input.to,
          updatedAt: input.at,
          ...(input.endToEndId === undefined ? {} : { endToEndId: input.endToEndId }),
          ...(input.paidAt === undefined ? {} : { paidAt: input.paidAt }),
          ...(input.failureReason === undefined ? {} : { failureReason: input.failureReason })
        })
        transactions.set(updated.id, updated)
        post(input.entry)
        record(input.effects)
        return Option.some(updated)
      }),
    postEntry: (entry) =>
      atomic(() => {
        assertEntry(entry)
        post(entry)
      }),
    openChargeback: (chargeback, entry, effects) =>
      atomic(() => {
        for (const cb of chargebacks.values()) {
          if (cb.transactionId === chargeback.transactionId && cb.status === "open") return false
        }
        assertNew("chargeback", chargebacks, [chargeback.id])
        assertEntry(entry)
        assertEffects(effects)
        chargebacks.set(chargeback.id, own(chargeback))
        post(entry)
        record(effects)
        return true
      }),
    resolveChargeback: (input) =>
      atomic(() => {
        const current = chargebacks.get(input.id)
        if (current === undefined || current.status !== "open") return Option.none()
        assertEntry(input.entry)
        assertEffects(input.effects)
        const updated: Chargeback = own({ ...current, status: input.status, updatedAt: input.at })
        chargebacks.set(updated.id, updated)
        const deposit = transactions.get(current.transactionId)
        if (input.refund && deposit !== undefined) {
          transactions.set(deposit.id, own({ ...deposit, status: "refunded", updatedAt: input.at }))
        }
        post(input.entry)
        record(input.effects)
        return Option.some(updated)
      }),

    getTransaction: (id) => atomic(() => found(transactions.get(id))),
    findByTxid: (txid) => atomic(() => found(txids.get(txid)).pipe(Option.flatMap((id) => found(transactions.get(id))))),
    listTransactions: (q) =>
      atomic(() => {
        const rows = [...transactions.values()]
          .filter(
            (t) =>
              t.merchantId === q.merchantId &&
              t.mode === q.mode &&
              (q.type === undefined || t.type === q.type) &&
              (q.status === undefined || t.status === q.status) &&
              (q.from === undefined || t.createdAt >= q.from) &&
              (q.to === undefined || t.createdAt < q.to)
          )
          .sort(newestFirst)
        return { rows: rows.slice(q.offset, q.offset + q.limit), total: rows.length }
      }),
    getChargeback: (id) => atomic(() => found(chargebacks.get(id))),
    listChargebacks: (transactionId) =>
      atomic(() => [...chargebacks.values()].filter((cb) => cb.transactionId === transactionId).sort(oldestFirst)),
    balance: (merchantId, mode) =>
      atomic(() => ({
        available: cached(mode, availableAccount(merchantId)),
        held: cached(mode, heldAccount(merchantId))
      })),
    accountBalance: (mode, account) => atomic(() => accountBalance(mode, account)),
    checkLedger: (mode) => atomic(() => checkLedger(mode)),
    listEvents: (merchantId, mode) =>
      atomic(() => [...events.values()].filter((e) => e.merchantId === merchantId && e.mode === mode).sort(oldestFirst)),
    getEvent: (id) => atomic(() => found(events.get(id))),

    beginIdempotent: (scope, fingerprint, now, expiresAt) =>
      atomic(() => {
        const key = idempotencyKey(scope)
        const row = idempotency.get(key)
        if (row === undefined || row.expiresAt <= now) {
          idempotency.set(key, { fingerprint, expiresAt, result: null })
          return { _tag: "Started" } as const
        }
        if (row.fingerprint !== fingerprint) return { _tag: "Mismatch" } as const
        if (row.result === null) return { _tag: "InFlight" } as const
        return { _tag: "Replay", status: row.result.status, body: row.result.body } as const
      }),
    finishIdempotent: (scope, status, body) =>
      atomic(() => {
        const key = idempotencyKey(scope)
        const row = idempotency.get(key)
        if (row !== undefined) idempotency.set(key, { ...row, result: { status, body } })
      }),
    releaseIdempotent: (scope) =>
      atomic(() => {
        idempotency.delete(idempotencyKey(scope))
      }),

    claimDueJobs: (now, limit, leaseUntil) =>
      atomic(() => {
        const due = [...jobs.values()]
          .filter((row) => row.job.runAt <= now && (row.leaseUntil === null || row.leaseUntil <= now))
          .sort((a, b) => a.job.runAt - b.job.runAt || compareIds(a.job.id, b.job.id))
          .slice(0, Math.max(0, limit))
        return due.map((row): ClaimedJob => {
          jobs.set(row.job.id, { job: row.job, leaseUntil })
          return own({ ...row.job, leaseUntil })
        })
      }),
    nextJobAt: () =>
      atomic(() => {
        let next: number | undefined
        for (const row of jobs.values()) {
          const at = Math.max(row.job.runAt, row.leaseUntil ?? 0)
          if (next === undefined || at < next) next = at
        }
        return found(next)
      }),
    finishJob: (id) =>
      atomic(() => {
        jobs.delete(id)
      }),
    retryJob: (id, runAt) => atomic(() => retry(id, runAt)),
    getDelivery: (id) =>
      atomic(() => {
        const delivery = deliveries.get(id)
        const event = delivery === undefined ? undefined : events.get(delivery.eventId)
        if (delivery === undefined || event === undefined) return Option.none()
        const endpoint = endpoints.get(endpointKey(delivery.merchantId, delivery.mode))
        return Option.some({ delivery, event, secret: endpoint?.secret ?? null })
      }),
    recordAttempt: ({ jobId, attempt, status, retryAt }) =>
      atomic(() => {
        attempts.set(attempt.deliveryId, [...(attempts.get(attempt.deliveryId) ?? []), own(attempt)])
        const delivery = deliveries.get(attempt.deliveryId)
        if (delivery !== undefined) {
          deliveries.set(delivery.id, own({ ...delivery, attempts: attempt.attempt, status, updatedAt: attempt.at }))
        }
        if (status === "pending" && retryAt !== null) retry(jobId, retryAt)
        else jobs.delete(jobId)
      }),
    redeliver: (eventId, now) =>
      atomic(() => {
        const event = events.get(eventId)
        const endpoint = event === undefined ? undefined : endpoints.get(endpointKey(event.merchantId, event.mode))
        if (event === undefined || endpoint === undefined) return Option.none()
        return Option.some(newDelivery(event, endpoint, now))
      }),
    listDeliveries: (q) =>
      atomic(() =>
        [...deliveries.values()]
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
            const event = events.get(delivery.eventId)
            if (event === undefined) return []
            const log = [...(attempts.get(delivery.id) ?? [])].sort((a, b) => a.attempt - b.attempt || a.at - b.at)
            return [{ delivery, event, attempts: log }]
          })
      )
  }
})

/** The in-memory store as the `Store` service; each build is a fresh, empty store. */
export const layer: Layer.Layer<Store> = Layer.effect(Store, make)
