/**
 * The tables of the in-memory store and the writes several operations share (posting an entry,
 * recording effects). Everything here is synchronous; MemoryStore runs it inside one effect.
 */
import type {
  Account,
  ApiKey,
  Chargeback,
  DeliveryAttempt,
  EndpointHealth,
  Event,
  Job,
  JournalEntry,
  Merchant,
  Mode,
  Transaction,
  WebhookDelivery,
  WebhookEndpoint
} from "../domain/Domain.js"
import * as Ids from "../domain/Ids.js"
import type { Cents } from "../domain/Money.js"
import type { Effects, IdempotentOutcome, LedgerCheck } from "../ports/Store.js"

/** A job and its lease. */
export interface JobRow {
  readonly job: Job
  readonly leaseUntil: number | null
}

/** A started idempotent request and, once finished, its result. */
export interface IdempotencyRow {
  readonly fingerprint: string
  readonly expiresAt: number
  readonly lockedUntil: number
  readonly result: { readonly outcome: IdempotentOutcome; readonly body: string } | null
  /** What an unfinished attempt kept for its retry (`holdIdempotent`). */
  readonly held?: string
}

const deepFreeze = <A>(value: A): A => {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const v of Object.values(value)) deepFreeze(v)
  }
  return value
}

/** A frozen deep copy: what the store keeps and hands out, so no caller can change its state. */
export const own = <A>(value: A): A => deepFreeze(structuredClone(value))

type Ordered = { readonly createdAt: number; readonly id: string }
/** Ids compared by code unit, as a database's binary collation does. */
export const compareIds = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)
/** `createdAt` desc, then `id` desc. */
export const newestFirst = (a: Ordered, b: Ordered): number =>
  b.createdAt - a.createdAt || compareIds(b.id, a.id)
/** `createdAt` asc, then `id` asc. */
export const oldestFirst = (a: Ordered, b: Ordered): number =>
  a.createdAt - b.createdAt || compareIds(a.id, b.id)

/** Only merchant accounts have a cached balance; platform accounts are summed from postings. */
const isMerchantAccount = (account: Account): boolean => account.startsWith("merchant:")
const accountKey = (mode: Mode, account: Account): string => `${mode} ${account}`
/** The key of a merchant's endpoint for one mode. */
export const endpointKey = (merchantId: string, mode: Mode): string => `${mode} ${merchantId}`

/** Every table of the store, and the shared writes. Constraint checks throw before any write. */
export class Tables {
  readonly merchants = new Map<string, Merchant>()
  readonly apiKeys = new Map<string, ApiKey>()
  readonly keyHashes = new Map<string, string>()
  /** Bumped by every change to a key or a merchant (`MerchantStore.credentialsVersion`). */
  credentialsVersion = 0
  readonly endpoints = new Map<string, WebhookEndpoint>()
  readonly transactions = new Map<string, Transaction>()
  readonly txids = new Map<string, string>()
  readonly entries = new Map<string, JournalEntry>()
  readonly balances = new Map<string, number>()
  readonly events = new Map<string, Event>()
  readonly chargebacks = new Map<string, Chargeback>()
  readonly idempotency = new Map<string, IdempotencyRow>()
  readonly jobs = new Map<string, JobRow>()
  readonly deliveries = new Map<string, WebhookDelivery>()
  readonly attempts = new Map<string, ReadonlyArray<DeliveryAttempt>>()
  /** Health of endpoints that failed lately, by `fairnessKey`. */
  readonly health = new Map<string, EndpointHealth>()

  /** A unique-key violation (also within `keys` themselves), raised before anything is written. */
  assertNew(what: string, table: Map<string, unknown>, keys: Iterable<string>): void {
    const seen = new Set<string>()
    for (const key of keys) {
      if (table.has(key) || seen.has(key)) throw new Error(`duplicate ${what}: ${key}`)
      seen.add(key)
    }
  }

  /** Checks that an entry and some effects can be written. */
  assertWritable(entry: JournalEntry | null, effects: Effects): void {
    if (entry !== null) this.assertNew("journal entry", this.entries, [entry.id])
    this.assertNew(
      "event",
      this.events,
      effects.events.map((e) => e.id)
    )
    this.assertNew(
      "job",
      this.jobs,
      effects.jobs.map((j) => j.id)
    )
  }

  /** The cached balance of a merchant account (0 when it never moved). */
  cached(mode: Mode, account: Account): Cents {
    return (this.balances.get(accountKey(mode, account)) ?? 0) as Cents
  }

  /** An account's balance as the port reads it: the cache for merchants, postings for the rest. */
  accountBalance(mode: Mode, account: Account): Cents {
    if (isMerchantAccount(account)) return this.cached(mode, account)
    let total = 0
    for (const entry of this.entries.values()) {
      if (entry.mode !== mode) continue
      for (const p of entry.postings) if (p.account === account) total += p.amount
    }
    return total as Cents
  }

  /** Stores an entry and moves the cached merchant balances with it. */
  post(entry: JournalEntry | null): void {
    if (entry === null) return
    this.entries.set(entry.id, own(entry))
    for (const p of entry.postings) {
      if (!isMerchantAccount(p.account)) continue
      const key = accountKey(entry.mode, p.account)
      this.balances.set(key, (this.balances.get(key) ?? 0) + p.amount)
    }
  }

  /**
   * Stores events (each with a delivery where an endpoint exists) and jobs, and deletes the
   * jobs the change completes; answers the jobs stored (deliveries' first attempts included).
   */
  record(effects: Effects): ReadonlyArray<Job> {
    const stored: Array<Job> = []
    for (const event of effects.events) {
      this.events.set(event.id, own(event))
      const endpoint = this.endpoints.get(endpointKey(event.merchantId, event.mode))
      if (endpoint !== undefined) stored.push(this.deliver(event, endpoint, event.createdAt).job)
    }
    for (const job of effects.jobs) {
      this.jobs.set(job.id, { job: own(job), leaseUntil: null })
      stored.push(job)
    }
    for (const id of effects.completes ?? []) this.jobs.delete(id)
    return stored
  }

  /** A pending delivery of an event to an endpoint, with its first attempt job due at `at`. */
  deliver(event: Event, endpoint: WebhookEndpoint, at: number): { delivery: WebhookDelivery; job: Job } {
    const delivery: WebhookDelivery = own({
      id: Ids.deliveryId(at),
      eventId: event.id,
      merchantId: event.merchantId,
      mode: event.mode,
      url: endpoint.url,
      status: "pending",
      attempts: 0,
      createdAt: at,
      updatedAt: at
    })
    const job: Job = {
      id: Ids.jobId(at),
      kind: "webhook.attempt",
      ref: delivery.id,
      runAt: at
    }
    this.deliveries.set(delivery.id, delivery)
    this.attempts.set(delivery.id, [])
    this.jobs.set(job.id, { job: own(job), leaseUntil: null })
    return { delivery, job }
  }

  /** Sets a job's next run and ends its lease; answers the job as rescheduled. */
  retry(id: string, runAt: number): Job | undefined {
    const row = this.jobs.get(id)
    if (row === undefined) return undefined
    const job = own({ ...row.job, runAt })
    this.jobs.set(id, { job, leaseUntil: null })
    return job
  }

  /** The ledger's invariants for one mode, from the postings themselves. */
  checkLedger(mode: Mode): LedgerCheck {
    const unbalancedEntries: Array<string> = []
    const sums = new Map<Account, number>()
    let total = 0
    let entries = 0
    for (const entry of this.entries.values()) {
      if (entry.mode !== mode) continue
      entries++
      let entryTotal = 0
      for (const p of entry.postings) {
        entryTotal += p.amount
        if (isMerchantAccount(p.account)) sums.set(p.account, (sums.get(p.account) ?? 0) + p.amount)
      }
      if (entryTotal !== 0) unbalancedEntries.push(entry.id)
      total += entryTotal
    }
    const accounts = new Set<Account>(sums.keys())
    for (const key of this.balances.keys()) {
      if (key.startsWith(`${mode} `)) accounts.add(key.slice(mode.length + 1) as Account)
    }
    const balanceMismatches = [...accounts]
      .map((account) => ({
        mode,
        account,
        cached: this.cached(mode, account),
        posted: (sums.get(account) ?? 0) as Cents
      }))
      .filter((row) => row.cached !== row.posted)
    return { unbalancedEntries, balanceMismatches, total: total as Cents, entries }
  }
}
