/**
 * MED infractions and the devoluções the bank performed for them (migration 0022). Each unit
 * locks in the writer's order: the merchant's balance rows (available, then held), then the
 * charge's row, then the infraction's; so a block decided on the available balance, concurrent
 * bookings of one return (the charge's lock queues them; the second finds the first) and
 * payouts of the same balance never cross. SQLite runs every unit alone (one connection).
 */

import type { Statement } from "@effect/sql"
import { Domain, type InfractionStore, type MedInfractions, Money, type Store } from "@pixgate/core"
import { Effect, Option } from "effect"
import { toTransaction } from "./rows.js"
import { atomic, first, int, intOrNull, query, type Sql, single } from "./sql.js"
import type { Vault } from "./vault.js"
import { balanceKey, type writer } from "./writes.js"

type Row = { readonly [column: string]: unknown }
type Infraction = MedInfractions.Infraction
type InfractionReturn = MedInfractions.InfractionReturn

const str = (v: unknown): string => String(v)
const strOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : String(v))
const cents = (v: unknown): Money.Cents => int(v) as Money.Cents

const idOf = (v: unknown): MedInfractions.InfractionId => {
  const s = str(v)
  if (!/^inf_[0-9A-Za-z_]{1,100}$/.test(s)) throw new TypeError(`Not an infraction id: ${s}`)
  return s as MedInfractions.InfractionId
}
const txId = (v: unknown): Domain.TransactionId => {
  if (!Domain.isTransactionId(v)) throw new TypeError(`Not a transaction id: ${String(v)}`)
  return v
}
const merchantId = (v: unknown): Domain.MerchantId => {
  if (!Domain.isMerchantId(v)) throw new TypeError(`Not a merchant id: ${String(v)}`)
  return v
}

const toInfraction = (r: Row): Infraction => ({
  id: idOf(r.id),
  transactionId: txId(r.transaction_id),
  merchantId: merchantId(r.merchant_id),
  mode: str(r.mode) as Domain.Mode,
  bankId: str(r.bank_id),
  endToEndId: strOrNull(r.end_to_end_id),
  type: str(r.type) as MedInfractions.InfractionType,
  reason: str(r.reason),
  amountClaimed: cents(r.amount_claimed),
  blockedAmount: cents(r.blocked_amount),
  returnedAmount: cents(r.returned_amount),
  status: str(r.status) as MedInfractions.InfractionStatus,
  answer:
    r.answer_analysis === null || r.answer_analysis === undefined
      ? null
      : {
          analysis: str(r.answer_analysis) as MedInfractions.Answer["analysis"],
          justification: str(r.answer_justification ?? ""),
          at: intOrNull(r.answered_at) ?? 0
        },
  openedAt: int(r.opened_at),
  deadline: int(r.deadline),
  createdAt: int(r.created_at),
  updatedAt: int(r.updated_at)
})

const infractionRow = (i: Infraction) => ({
  id: i.id,
  transaction_id: i.transactionId,
  merchant_id: i.merchantId,
  mode: i.mode,
  bank_id: i.bankId,
  end_to_end_id: i.endToEndId,
  type: i.type,
  reason: i.reason,
  amount_claimed: i.amountClaimed,
  blocked_amount: i.blockedAmount,
  returned_amount: i.returnedAmount,
  status: i.status,
  answer_analysis: i.answer?.analysis ?? null,
  answer_justification: i.answer?.justification ?? null,
  answered_at: i.answer?.at ?? null,
  opened_at: i.openedAt,
  deadline: i.deadline,
  created_at: i.createdAt,
  updated_at: i.updatedAt
})

const toReturn = (r: Row): InfractionReturn => ({
  id: str(r.id),
  mode: str(r.mode) as Domain.Mode,
  merchantId: merchantId(r.merchant_id),
  transactionId: txId(r.transaction_id),
  infractionId: r.infraction_id === null || r.infraction_id === undefined ? null : idOf(r.infraction_id),
  nature: str(r.nature) as MedInfractions.ReturnNature,
  amount: cents(r.amount),
  fromBlocked: cents(r.from_blocked),
  fromAvailable: cents(r.from_available),
  returnedAt: int(r.returned_at),
  bookedAt: int(r.booked_at)
})

const returnRow = (r: InfractionReturn) => ({
  id: r.id,
  mode: r.mode,
  merchant_id: r.merchantId,
  transaction_id: r.transactionId,
  infraction_id: r.infractionId,
  nature: r.nature,
  amount: r.amount,
  from_blocked: r.fromBlocked,
  from_available: r.fromAvailable,
  returned_at: r.returnedAt,
  booked_at: r.bookedAt
})

const paid = (tx: Domain.Transaction): boolean =>
  tx.type === "deposit" && (tx.status === "completed" || tx.status === "refunded")

type BookInput = Parameters<InfractionStore.InfractionStoreShape["bookReturn"]>[0]

/** What a charge returned so far: its MED returns and its completed refunds. */
const returnedSoFar = (sql: Sql, chargeId: Domain.TransactionId) =>
  Effect.map(
    sql`SELECT
      (SELECT COALESCE(SUM(amount), 0) FROM infraction_returns WHERE transaction_id = ${chargeId}) AS med,
      (SELECT COALESCE(SUM(amount), 0) FROM refunds
        WHERE transaction_id = ${chargeId} AND status = 'completed') AS refunded`,
    ([sums]) => int(sums?.med ?? 0) + int(sums?.refunded ?? 0)
  )

/** The return booked: from the blocked amount first, the rest from the available balance. */
const returnOf = (
  input: BookInput,
  charge: Domain.Transaction,
  infraction: Infraction | undefined,
  fromBlocked: Money.Cents
): InfractionReturn => ({
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

/** The infraction after a return against it, and what it releases (what is left blocked, if concluded). */
const afterReturn = (infraction: Infraction, fromBlocked: Money.Cents, input: BookInput) => {
  const left = Money.sub(infraction.blockedAmount, fromBlocked)
  const released = input.conclude ? left : Money.zero
  const updated: Infraction = {
    ...infraction,
    status: input.conclude ? "accepted" : infraction.status,
    blockedAmount: Money.sub(left, released),
    returnedAmount: Money.add(infraction.returnedAmount, input.amount),
    updatedAt: input.at
  }
  return { updated, released }
}

/** What the infractions' operations share: the client, its writer, the job watchers, and the locking reads over them. */
const infractionContext = (
  sql: Sql,
  write: ReturnType<typeof writer>,
  watchers: Store.JobWatchers,
  vault: Vault
) => {
  const forUpdate = (select: Statement.Statement<Row>) =>
    sql.onDialectOrElse({ pg: () => sql`${select} FOR UPDATE`, orElse: () => select })
  const lockedCharge = (id: Domain.TransactionId) =>
    Effect.map(
      query(forUpdate(sql`SELECT * FROM transactions WHERE id = ${id}`), toTransaction(vault)),
      first
    )
  const lockedInfraction = (id: string) =>
    Effect.map(query(forUpdate(sql`SELECT * FROM infractions WHERE id = ${id}`), toInfraction), first)
  const accounts = (mode: Domain.Mode, merchant: Domain.MerchantId) =>
    [
      [mode, Domain.availableAccount(merchant)],
      [mode, Domain.heldAccount(merchant)]
    ] as const
  const notify = <A>(result: {
    readonly value: A
    readonly scheduled: ReadonlyArray<{ kind: string; runAt: number }>
  }) => {
    watchers.notifyJobs(result.scheduled)
    return result.value
  }
  const none = <A>(value: A) => ({ value, scheduled: [] })
  const updateInfraction = (i: Infraction) =>
    sql`UPDATE infractions SET status = ${i.status}, blocked_amount = ${i.blockedAmount},
      returned_amount = ${i.returnedAmount}, answer_analysis = ${i.answer?.analysis ?? null},
      answer_justification = ${i.answer?.justification ?? null}, answered_at = ${i.answer?.at ?? null},
      updated_at = ${i.updatedAt}
      WHERE id = ${i.id}`
  return {
    sql,
    write,
    watchers,
    vault,
    forUpdate,
    lockedCharge,
    lockedInfraction,
    accounts,
    notify,
    none,
    updateInfraction
  }
}

type InfractionContext = ReturnType<typeof infractionContext>

/** A new infraction, its amount blocked under the locks of the merchant's balances and of its charge. */
const openInfractionOp = ({ sql, write, lockedCharge, accounts, notify, none }: InfractionContext) =>
  ({
    openInfraction: (input) =>
      atomic(sql)(
        Effect.gen(function* () {
          const { infraction } = input
          const balances = yield* write.lock(accounts(infraction.mode, infraction.merchantId))
          const found = yield* lockedCharge(infraction.transactionId)
          const [existing] = yield* query(
            sql`SELECT * FROM infractions WHERE mode = ${infraction.mode} AND bank_id = ${infraction.bankId}`,
            toInfraction
          )
          if (existing !== undefined)
            return none<InfractionStore.InfractionOpen>({ _tag: "Exists", infraction: existing })
          if (
            Option.isNone(found) ||
            !paid(found.value) ||
            found.value.merchantId !== infraction.merchantId ||
            found.value.mode !== infraction.mode
          )
            return none<InfractionStore.InfractionOpen>({ _tag: "NotFound" })
          const availableKey = balanceKey(infraction.mode, Domain.availableAccount(infraction.merchantId))
          const heldKey = balanceKey(infraction.mode, Domain.heldAccount(infraction.merchantId))
          const available = balances.get(availableKey) ?? 0
          const blocked = Money.Cents(Math.max(0, Math.min(input.block, available)))
          const opened: Infraction = { ...infraction, blockedAmount: blocked }
          yield* sql`INSERT INTO infractions ${sql.insert(infractionRow(opened))}`
          const w = write.writes()
          w.entry(input.entry(opened))
          w.effects(input.effects(opened, found.value))
          const scheduled = yield* write.apply(w, {
            locked: true,
            expected:
              blocked > 0
                ? new Map([
                    [availableKey, available - blocked],
                    [heldKey, (balances.get(heldKey) ?? 0) + blocked]
                  ])
                : new Map()
          })
          return {
            value: { _tag: "Opened", infraction: opened } as InfractionStore.InfractionOpen,
            scheduled
          }
        })
      ).pipe(Effect.map(notify))
  }) satisfies Partial<InfractionStore.InfractionStoreShape>

/** Infractions changed, and read. */
const infractionChanges = ({
  sql,
  write,
  vault,
  lockedInfraction,
  accounts,
  notify,
  none,
  updateInfraction
}: InfractionContext) =>
  ({
    changeInfraction: (input) =>
      atomic(sql)(
        Effect.gen(function* () {
          const [peek] = yield* query(sql`SELECT * FROM infractions WHERE id = ${input.id}`, toInfraction)
          if (peek === undefined) return none(Option.none<Infraction>())
          if (input.release) yield* write.lock(accounts(peek.mode, peek.merchantId))
          const locked = yield* lockedInfraction(input.id)
          if (Option.isNone(locked) || !input.from.includes(locked.value.status))
            return none(Option.none<Infraction>())
          const current = locked.value
          const [charge] = yield* query(
            sql`SELECT * FROM transactions WHERE id = ${current.transactionId}`,
            toTransaction(vault)
          )
          if (charge === undefined) return none(Option.none<Infraction>())
          const released = input.release ? current.blockedAmount : Money.zero
          const updated: Infraction = {
            ...current,
            status: input.to,
            ...(input.answer === undefined ? {} : { answer: input.answer }),
            blockedAmount: Money.sub(current.blockedAmount, released),
            updatedAt: input.at
          }
          yield* updateInfraction(updated)
          const w = write.writes()
          w.entry(released > 0 ? input.entry(current, released) : null)
          w.effects(input.effects(updated, charge))
          const scheduled = yield* write.apply(w, { locked: input.release })
          return { value: Option.some(updated), scheduled }
        })
      ).pipe(Effect.map(notify)),
    getInfraction: (id) =>
      single(query(sql`SELECT * FROM infractions WHERE id = ${id}`, toInfraction)).pipe(Effect.map(first)),
    findInfractionByBankId: (mode, bankId) =>
      single(
        query(sql`SELECT * FROM infractions WHERE mode = ${mode} AND bank_id = ${bankId}`, toInfraction)
      ).pipe(Effect.map(first)),
    listInfractions: (q) =>
      single(
        query(
          q.statuses === undefined
            ? sql`SELECT * FROM infractions WHERE merchant_id = ${q.merchantId} AND mode = ${q.mode}
                ORDER BY id DESC LIMIT ${q.limit}`
            : q.statuses.length === 0
              ? sql`SELECT * FROM infractions WHERE 1 = 0`
              : sql`SELECT * FROM infractions WHERE merchant_id = ${q.merchantId} AND mode = ${q.mode}
                AND status IN ${sql.in(q.statuses)} ORDER BY id DESC LIMIT ${q.limit}`,
          toInfraction
        )
      ),
    listInfractionReturns: (transactionId) =>
      single(
        query(
          sql`SELECT * FROM infraction_returns WHERE transaction_id = ${transactionId} ORDER BY booked_at, id`,
          toReturn
        )
      )
  }) satisfies Partial<InfractionStore.InfractionStoreShape>

/** A MED return booked against its charge, and its infraction's blocked amount used or released. */
const bookReturnOp = ({
  sql,
  write,
  vault,
  forUpdate,
  lockedCharge,
  lockedInfraction,
  accounts,
  notify,
  none,
  updateInfraction
}: InfractionContext) =>
  ({
    bookReturn: (input) =>
      atomic(sql)(
        Effect.gen(function* () {
          type Booking = InfractionStore.ReturnBooking
          const [peek] = yield* query(
            sql`SELECT * FROM transactions WHERE id = ${input.transactionId}`,
            toTransaction(vault)
          )
          if (peek === undefined || peek.mode !== input.mode) return none<Booking>({ _tag: "NotFound" })
          yield* write.lock(accounts(peek.mode, peek.merchantId))
          const found = yield* lockedCharge(input.transactionId)
          // Concurrent bookings of one return queue on the charge's row; the second finds the first.
          const [existing] = yield* query(
            sql`SELECT * FROM infraction_returns WHERE mode = ${input.mode} AND id = ${input.id}`,
            toReturn
          )
          if (existing !== undefined) return none<Booking>({ _tag: "Exists", booked: existing })
          if (Option.isNone(found) || !paid(found.value)) return none<Booking>({ _tag: "NotFound" })
          const charge = found.value
          let infraction: Infraction | undefined
          if (input.infractionId !== null) {
            infraction = Option.getOrUndefined(yield* lockedInfraction(input.infractionId))
            if (infraction === undefined || infraction.transactionId !== charge.id)
              return none<Booking>({ _tag: "NotFound" })
          } else {
            const [latest] = yield* query(
              forUpdate(
                sql`SELECT * FROM infractions WHERE transaction_id = ${charge.id}
                  AND status NOT IN ('rejected', 'cancelled') ORDER BY id DESC LIMIT 1`
              ),
              toInfraction
            )
            infraction = latest
          }
          const before = yield* returnedSoFar(sql, charge.id)
          const received = charge.receivedAmount ?? charge.amount
          if (before + input.amount > received)
            return none<Booking>({ _tag: "Exceeds", returnable: Money.Cents(Math.max(0, received - before)) })
          const fromBlocked = Money.Cents(Math.min(input.amount, infraction?.blockedAmount ?? 0))
          const booked = returnOf(input, charge, infraction, fromBlocked)
          yield* sql`INSERT INTO infraction_returns ${sql.insert(returnRow(booked))}`
          const next = infraction === undefined ? undefined : afterReturn(infraction, fromBlocked, input)
          if (next !== undefined) yield* updateInfraction(next.updated)
          const updated = next?.updated ?? null
          const released = next?.released ?? Money.zero
          const w = write.writes()
          let after = charge
          if (before + input.amount >= received && charge.status === "completed") {
            yield* sql`UPDATE transactions SET status = 'refunded', updated_at = ${input.at} WHERE id = ${charge.id}`
            after = { ...charge, status: "refunded", updatedAt: input.at }
            w.moved(after, charge.status)
          }
          for (const e of input.entries(booked, updated, released)) w.entry(e)
          w.effects(input.effects(booked, updated, after))
          const scheduled = yield* write.apply(w, { locked: true })
          return {
            value: { _tag: "Booked", booked, infraction: updated, charge: after } as Booking,
            scheduled
          }
        })
      ).pipe(Effect.map(notify))
  }) satisfies Partial<InfractionStore.InfractionStoreShape>

/** The infractions' operations over one client, its writer, and the job watchers to tell. */
export const infractions = (
  sql: Sql,
  write: ReturnType<typeof writer>,
  watchers: Store.JobWatchers,
  vault: Vault
): InfractionStore.InfractionStoreShape => {
  const c = infractionContext(sql, write, watchers, vault)
  return {
    ...openInfractionOp(c),
    ...infractionChanges(c),
    ...bookReturnOp(c)
  }
}
