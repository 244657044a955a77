/** The memory store's erasure of personal data (`PersonalDataStoreShape`). */

import type { Effect } from "effect"
import type { Transaction } from "../domain/Domain.js"
import * as PersonalData from "../domain/PersonalData.js"
import type { PersonalDataStoreShape, StoreError } from "../ports/Store.js"
import { own, type Tables } from "./memoryTables.js"

/** Erases the transactions `which` selects, and the PIX key in their events; answers how many. */
const eraseWhere = (t: Tables, which: (tx: Transaction) => boolean, limit: number): number => {
  const erased = new Set<string>()
  for (const tx of t.transactions.values()) {
    if (erased.size >= limit) break
    if (!which(tx) || !PersonalData.holdsPersonalData(tx)) continue
    t.transactions.set(tx.id, own(PersonalData.eraseTransaction(tx)))
    erased.add(tx.id)
  }
  if (erased.size === 0) return 0
  for (const event of t.events.values()) {
    const data: object = event.data
    if ("transactionId" in data && typeof data.transactionId === "string" && erased.has(data.transactionId))
      t.events.set(event.id, own({ ...event, data: PersonalData.eraseEventData(event.data) }))
  }
  return erased.size
}

/** Erasure over the memory store's tables, each call one synchronous unit (`atomic`). */
export const personalDataOps = (
  t: Tables,
  atomic: <A>(body: () => A) => Effect.Effect<A, StoreError>
): PersonalDataStoreShape => ({
  erasePayer: (document) =>
    atomic(() =>
      eraseWhere(
        t,
        (tx) => tx.clientDocument === document || tx.pixKey === document,
        Number.POSITIVE_INFINITY
      )
    ),
  erasePersonalDataBefore: (before, limit) =>
    atomic(() => {
      for (const [key, row] of t.idempotency) if (row.expiresAt < before) t.idempotency.delete(key)
      return eraseWhere(t, (tx) => tx.createdAt < before, limit)
    })
})
