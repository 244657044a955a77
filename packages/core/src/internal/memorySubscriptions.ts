/** Subscriptions and their cycles in memory (MemoryStore), each operation atomic. */
import { Effect, Option } from "effect"
import * as PersonalData from "../domain/PersonalData.js"
import type { Cycle, Subscription } from "../domain/Recurrence.js"
import { type IdempotentResult, StoreError } from "../ports/Store.js"
import type { SubscriptionStoreShape } from "../ports/SubscriptionStore.js"

const atomic = <A>(body: () => A): Effect.Effect<A, StoreError> =>
  Effect.try({
    try: body,
    catch: (cause) =>
      new StoreError({ message: cause instanceof Error ? cause.message : String(cause), cause })
  })

const due = <A extends { readonly nextAt: number | null }>(rows: Iterable<A>, now: number, limit: number) =>
  [...rows]
    .filter((r) => r.nextAt !== null && r.nextAt <= now)
    .sort((a, b) => (a.nextAt as number) - (b.nextAt as number))
    .slice(0, limit)

/** What of the memory store's other tables the subscriptions reach, in the same synchronous unit. */
export interface MemoryShared {
  /** Whether the idempotency key is still started (no answer stored yet). */
  readonly started: (claim: IdempotentResult) => boolean
  /** Stores the answer on the started key. */
  readonly finish: (claim: IdempotentResult) => void
  /** Erases the debtor in these subscriptions' events. */
  readonly eraseEvents: (subscriptionIds: ReadonlySet<string>) => void
}

/** Nothing shared: an insert with a claim answers `conflict`. */
const noKeys: MemoryShared = { started: () => false, finish: () => undefined, eraseEvents: () => undefined }

/** What the subscription operations share: the subscriptions and cycles, their keys, the store's. */
interface SubscriptionTables {
  readonly subscriptions: Map<string, Subscription>
  readonly cycles: Map<string, Cycle>
  readonly cycleKeys: Set<string>
  readonly keys: MemoryShared
}

const cycleKey = (c: Pick<Cycle, "subscriptionId" | "sequence">) => `${c.subscriptionId}#${c.sequence}`

/** Subscriptions stored (with their idempotency key), erased, read, replaced, and those due. */
const subscriptionRows = ({ subscriptions, keys }: SubscriptionTables) =>
  ({
    insertSubscription: (s, claim) =>
      atomic(() => {
        if (claim !== undefined && !keys.started(claim)) return "conflict" as const
        if (subscriptions.has(s.id)) return "exists" as const
        if (s.idRec !== null && [...subscriptions.values()].some((o) => o.idRec === s.idRec))
          return "exists" as const
        subscriptions.set(s.id, structuredClone(s))
        if (claim !== undefined) keys.finish(claim)
        return "created" as const
      }),
    eraseDebtor: (document) =>
      atomic(() => {
        const erased = new Set<string>()
        for (const s of subscriptions.values()) {
          const debtor = PersonalData.debtorOf(s)
          if (PersonalData.debtorDocument(debtor) !== document) continue
          subscriptions.set(s.id, PersonalData.withDebtor(s, PersonalData.eraseDebtor(debtor)))
          erased.add(s.id)
        }
        if (erased.size > 0) keys.eraseEvents(erased)
        return erased.size
      }),
    getSubscription: (id) =>
      atomic(() => Option.map(Option.fromNullable(subscriptions.get(id)), (s) => structuredClone(s))),
    findSubscriptionByIdRec: (idRec) =>
      atomic(() =>
        Option.map(Option.fromNullable([...subscriptions.values()].find((s) => s.idRec === idRec)), (s) =>
          structuredClone(s)
        )
      ),
    listSubscriptions: (page) =>
      atomic(() =>
        [...subscriptions.values()]
          .filter(
            (s) =>
              s.merchantId === page.merchantId &&
              s.mode === page.mode &&
              (page.status === undefined || s.status === page.status) &&
              (page.before === undefined || s.id < page.before)
          )
          .sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
          .slice(0, page.limit)
          .map((s) => structuredClone(s))
      ),
    replaceSubscription: (next) =>
      atomic(() => {
        const stored = subscriptions.get(next.id)
        if (stored === undefined || stored.version !== next.version - 1) return false
        if (
          next.idRec !== null &&
          [...subscriptions.values()].some((o) => o.id !== next.id && o.idRec === next.idRec)
        )
          return false
        // The debtor is written once, with the subscription: a change never brings an erased one back.
        subscriptions.set(
          next.id,
          structuredClone(PersonalData.withDebtor(next, PersonalData.debtorOf(stored)))
        )
        return true
      }),
    dueSubscriptions: (now, limit) =>
      atomic(() => due(subscriptions.values(), now, limit).map((s) => structuredClone(s)))
  }) satisfies Partial<SubscriptionStoreShape>

/** A subscription's cycles stored, read, replaced, and those due. */
const cycleRows = ({ cycles, cycleKeys }: SubscriptionTables) =>
  ({
    insertCycle: (c) =>
      atomic(() => {
        if (cycles.has(c.txid) || cycleKeys.has(cycleKey(c))) return "exists" as const
        cycles.set(c.txid, structuredClone(c))
        cycleKeys.add(cycleKey(c))
        return "created" as const
      }),
    getCycle: (txid) =>
      atomic(() => Option.map(Option.fromNullable(cycles.get(txid)), (c) => structuredClone(c))),
    listCycles: (subscriptionId) =>
      atomic(() =>
        [...cycles.values()]
          .filter((c) => c.subscriptionId === subscriptionId)
          .sort((a, b) => a.sequence - b.sequence)
          .map((c) => structuredClone(c))
      ),
    replaceCycle: (next) =>
      atomic(() => {
        const stored = cycles.get(next.txid)
        if (
          stored === undefined ||
          stored.version !== next.version - 1 ||
          stored.subscriptionId !== next.subscriptionId ||
          stored.sequence !== next.sequence
        )
          return false
        cycles.set(next.txid, structuredClone(next))
        return true
      }),
    dueCycles: (now, limit) => atomic(() => due(cycles.values(), now, limit).map((c) => structuredClone(c)))
  }) satisfies Partial<SubscriptionStoreShape>

/** Empty tables of subscriptions and cycles, over the store's idempotency keys. */
export const subscriptionOps = (keys: MemoryShared = noKeys): SubscriptionStoreShape => {
  const tables: SubscriptionTables = {
    subscriptions: new Map<string, Subscription>(),
    cycles: new Map<string, Cycle>(),
    cycleKeys: new Set<string>(),
    keys
  }
  return { ...subscriptionRows(tables), ...cycleRows(tables) }
}
