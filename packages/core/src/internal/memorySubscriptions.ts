/** Subscriptions and their cycles in memory (MemoryStore), each operation atomic. */
import { Effect, Option } from "effect"
import type { Cycle, Subscription } from "../domain/Recurrence.js"
import { StoreError } from "../ports/Store.js"
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

/** What the subscription operations share: the subscriptions and cycles, and their keys. */
const subscriptionTables = () => {
  const subscriptions = new Map<string, Subscription>()
  const cycles = new Map<string, Cycle>()
  const cycleKey = (c: Pick<Cycle, "subscriptionId" | "sequence">) => `${c.subscriptionId}#${c.sequence}`
  const cycleKeys = new Set<string>()
  return { subscriptions, cycles, cycleKey, cycleKeys }
}

type SubscriptionTables = ReturnType<typeof subscriptionTables>

/** Subscriptions stored, read, replaced, and those due; cycles stored and read. */
const subscriptionRows = ({ subscriptions, cycles, cycleKey, cycleKeys }: SubscriptionTables) =>
  ({
    insertSubscription: (s) =>
      atomic(() => {
        if (subscriptions.has(s.id)) return false
        if (s.idRec !== null && [...subscriptions.values()].some((o) => o.idRec === s.idRec)) return false
        subscriptions.set(s.id, structuredClone(s))
        return true
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
        subscriptions.set(next.id, structuredClone(next))
        return true
      }),
    dueSubscriptions: (now, limit) =>
      atomic(() => due(subscriptions.values(), now, limit).map((s) => structuredClone(s))),
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
      )
  }) satisfies Partial<SubscriptionStoreShape>

/** Cycles replaced, and those due. */
const cycleRows = ({ cycles }: SubscriptionTables) =>
  ({
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

/** Empty tables of subscriptions and cycles. */
export const subscriptionOps = (): SubscriptionStoreShape => {
  const c = subscriptionTables()
  return {
    ...subscriptionRows(c),
    ...cycleRows(c)
  }
}
