/**
 * MED infractions and their returns in memory (MemoryStore), over the store's own tables so a
 * unit's infraction, entries and effects are written together (each operation synchronous, so
 * atomic in one JS thread).
 */
import { Effect, Option } from "effect"
import type { Transaction, TransactionId } from "../domain/Domain.js"
import { availableAccount } from "../domain/Domain.js"
import type { Infraction, InfractionReturn } from "../domain/Infractions.js"
import * as Money from "../domain/Money.js"
import type { InfractionStoreShape } from "../ports/InfractionStore.js"
import type { Effects } from "../ports/Store.js"
import { StoreError } from "../ports/Store.js"
import { compareIds, own, type Tables } from "./memoryTables.js"

const atomic = <A>(body: () => A): Effect.Effect<A, StoreError> =>
  Effect.try({
    try: body,
    catch: (cause) =>
      new StoreError({ message: cause instanceof Error ? cause.message : String(cause), cause })
  })

const paid = (tx: Transaction | undefined): tx is Transaction =>
  tx !== undefined && tx.type === "deposit" && (tx.status === "completed" || tx.status === "refunded")

/** What the infractions' operations share: the store's tables, its recorder, the infractions' own tables. */
const infractionTables = (
  t: Tables,
  record: (effects: Effects) => void,
  completedRefunds: (id: TransactionId) => number
) => {
  const infractions = new Map<string, Infraction>()
  const byBankId = new Map<string, string>()
  const returns = new Map<string, InfractionReturn>()
  const bankKey = (mode: string, id: string) => `${mode} ${id}`
  const returnedOf = (id: TransactionId) => {
    let sum = 0
    for (const r of returns.values()) if (r.transactionId === id) sum += r.amount
    return sum
  }
  const assertEffects = (effects: Effects, entries: ReadonlyArray<unknown>) => {
    t.assertWritable(null, effects)
    t.assertNew(
      "journal entry",
      t.entries,
      entries.flatMap((e) => (e === null ? [] : [(e as { id: string }).id]))
    )
  }
  return { t, record, completedRefunds, infractions, byBankId, returns, bankKey, returnedOf, assertEffects }
}

type InfractionTables = ReturnType<typeof infractionTables>

/** Infractions opened and changed. */
const infractionChanges = ({ t, record, infractions, byBankId, bankKey, assertEffects }: InfractionTables) =>
  ({
    openInfraction: (input) =>
      atomic(() => {
        const { infraction } = input
        const known = byBankId.get(bankKey(infraction.mode, infraction.bankId))
        if (known !== undefined) {
          const existing = infractions.get(known)
          if (existing !== undefined) return { _tag: "Exists", infraction: existing } as const
        }
        const charge = t.transactions.get(infraction.transactionId)
        if (!paid(charge) || charge.merchantId !== infraction.merchantId || charge.mode !== infraction.mode)
          return { _tag: "NotFound" } as const
        t.assertNew("infraction", infractions, [infraction.id])
        const available = t.accountBalance(infraction.mode, availableAccount(infraction.merchantId))
        const blocked = Money.Cents(Math.max(0, Math.min(input.block, available)))
        const opened: Infraction = own({ ...infraction, blockedAmount: blocked })
        const entry = input.entry(opened)
        const effects = input.effects(opened, charge)
        assertEffects(effects, [entry])
        infractions.set(opened.id, opened)
        byBankId.set(bankKey(opened.mode, opened.bankId), opened.id)
        t.post(entry)
        record(effects)
        return { _tag: "Opened", infraction: opened } as const
      }),
    changeInfraction: (input) =>
      atomic(() => {
        const current = infractions.get(input.id)
        if (current === undefined || !input.from.includes(current.status)) return Option.none()
        const charge = t.transactions.get(current.transactionId)
        if (charge === undefined) return Option.none()
        const released = input.release ? current.blockedAmount : Money.zero
        const updated: Infraction = own({
          ...current,
          status: input.to,
          ...(input.answer === undefined ? {} : { answer: input.answer }),
          blockedAmount: Money.sub(current.blockedAmount, released),
          updatedAt: input.at
        })
        const entry = released > 0 ? input.entry(current, released) : null
        const effects = input.effects(updated, charge)
        assertEffects(effects, [entry])
        infractions.set(updated.id, updated)
        t.post(entry)
        record(effects)
        return Option.some(updated)
      })
  }) satisfies Partial<InfractionStoreShape>

/** A MED return booked against its charge, and infractions read. */
const returnBooking = ({
  t,
  record,
  completedRefunds,
  infractions,
  returns,
  bankKey,
  returnedOf,
  assertEffects
}: InfractionTables) =>
  ({
    bookReturn: (input) =>
      atomic(() => {
        const existing = returns.get(bankKey(input.mode, input.id))
        if (existing !== undefined) return { _tag: "Exists", booked: existing } as const
        const charge = t.transactions.get(input.transactionId)
        if (!paid(charge) || charge.mode !== input.mode) return { _tag: "NotFound" } as const
        let infraction: Infraction | undefined
        if (input.infractionId !== null) {
          infraction = infractions.get(input.infractionId)
          if (infraction === undefined || infraction.transactionId !== charge.id)
            return { _tag: "NotFound" } as const
        } else {
          infraction = [...infractions.values()]
            .filter(
              (i) => i.transactionId === charge.id && i.status !== "rejected" && i.status !== "cancelled"
            )
            .sort((a, b) => compareIds(b.id, a.id))[0]
        }
        const received = charge.receivedAmount ?? charge.amount
        const before = returnedOf(charge.id) + completedRefunds(charge.id)
        if (before + input.amount > received)
          return { _tag: "Exceeds", returnable: Money.Cents(Math.max(0, received - before)) } as const
        const fromBlocked = Money.Cents(Math.min(input.amount, infraction?.blockedAmount ?? 0))
        const booked: InfractionReturn = own({
          id: input.id,
          mode: input.mode,
          merchantId: charge.merchantId,
          transactionId: charge.id,
          infractionId: infraction?.id ?? null,
          nature: input.nature,
          amount: input.amount,
          fromBlocked,
          fromAvailable: Money.sub(input.amount, fromBlocked),
          returnedAt: input.returnedAt,
          bookedAt: input.at
        })
        let updated: Infraction | null = null
        let released = Money.zero
        if (infraction !== undefined) {
          const left = Money.sub(infraction.blockedAmount, fromBlocked)
          released = input.conclude ? left : Money.zero
          const concluded = input.conclude && infraction.status !== "accepted"
          updated = own({
            ...infraction,
            status: concluded ? "accepted" : infraction.status,
            blockedAmount: Money.sub(left, released),
            returnedAmount: Money.add(infraction.returnedAmount, input.amount),
            updatedAt: input.at
          })
        }
        const full = before + input.amount >= received
        const after: Transaction =
          full && charge.status === "completed"
            ? own({ ...charge, status: "refunded", updatedAt: input.at })
            : charge
        const entries = input.entries(booked, updated, released)
        const effects = input.effects(booked, updated, after)
        assertEffects(effects, entries)
        returns.set(bankKey(booked.mode, booked.id), booked)
        if (updated !== null) infractions.set(updated.id, updated)
        if (after !== charge) t.transactions.set(after.id, after)
        for (const e of entries) t.post(e)
        record(effects)
        return { _tag: "Booked", booked, infraction: updated, charge: after } as const
      }),
    getInfraction: (id) => atomic(() => Option.fromNullable(infractions.get(id)))
  }) satisfies Partial<InfractionStoreShape>

/** Infractions and returns found and listed. */
const infractionReads = ({ infractions, byBankId, returns, bankKey }: InfractionTables) =>
  ({
    findInfractionByBankId: (mode, bankId) =>
      atomic(() =>
        Option.fromNullable(byBankId.get(bankKey(mode, bankId))).pipe(
          Option.flatMap((id) => Option.fromNullable(infractions.get(id)))
        )
      ),
    listInfractions: (q) =>
      atomic(() =>
        [...infractions.values()]
          .filter(
            (i) =>
              i.merchantId === q.merchantId &&
              i.mode === q.mode &&
              (q.statuses === undefined || q.statuses.includes(i.status))
          )
          .sort((a, b) => compareIds(b.id, a.id))
          .slice(0, q.limit)
      ),
    listInfractionReturns: (transactionId) =>
      atomic(() =>
        [...returns.values()]
          .filter((r) => r.transactionId === transactionId)
          .sort((a, b) => a.bookedAt - b.bookedAt || compareIds(a.id, b.id))
      )
  }) satisfies Partial<InfractionStoreShape>

/**
 * The operations over the store's tables; `record` writes effects (and tells the worker),
 * `completedRefunds` sums a charge's completed refunds.
 */
export const infractionOps = (
  t: Tables,
  record: (effects: Effects) => void,
  completedRefunds: (id: TransactionId) => number
): InfractionStoreShape => {
  const c = infractionTables(t, record, completedRefunds)
  return {
    ...infractionChanges(c),
    ...returnBooking(c),
    ...infractionReads(c)
  }
}
