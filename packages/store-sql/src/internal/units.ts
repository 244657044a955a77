/**
 * The batched write units: inserts of transactions (with their guard and idempotency key),
 * status transitions, and the worker's job and webhook-attempt records. A batch runs in one
 * database transaction with the outcome of every unit exactly what it would be had the units
 * run one after another, in submission order:
 *
 * 1. the merchant balance rows any unit moves are locked, in key order (Postgres
 *    `FOR UPDATE`; SQLite has a single writer), and read;
 * 2. transitions apply with one `UPDATE ... FROM (VALUES ...)`, each only if still in `from`;
 * 3. guards are decided in order against the locked balances minus what earlier units of the
 *    batch took, so no interleaving can overdraw, and insufficient units write nothing;
 * 4. idempotency keys are finished with their units' answers: a key no longer started
 *    (another request took it over) makes its unit a conflict, and the batch runs again
 *    without it, so no other unit's guard counted its money;
 * 5. everything is written (writes.ts), the guarded balances checked against the decisions.
 *
 * Units that touch the same transaction, key or job run in successive rounds of the batch.
 * A batch that fails is run again one unit at a time, so one bad unit fails alone.
 *
 * Batches at once (`writeConcurrency` > 1) are partitioned by `partitionOf`:
 * no merchant, transaction, key or job is in two running batches, so they lock disjoint balance
 * and count rows. The platform accounts (`platform:fees`, ...) have no balance row (their balance
 * is the sum of their postings), so no shared row serialises them. Should Postgres still report
 * a deadlock or a serialization failure (a statement of its own, or COMMIT answered with a
 * rollback), the batch was rolled back and runs again whole; a COMMIT whose outcome is unknown
 * is never run again (every unit of the batch answers the unknown outcome).
 */
import type { Domain } from "@pixgate/core"
import { Store } from "@pixgate/core"
import { Data, Effect, Exit, Option } from "effect"
import * as Bulk from "./bulk.js"
import * as Coalesce from "./coalesce.js"
import { statusOf } from "./idempotency.js"
import type { ledger } from "./ledger.js"
import { toTransaction } from "./rows.js"
import { transaction as inTransaction, isTransient, query, type Sql, toStoreError } from "./sql.js"
import type { Vault } from "./vault.js"
import {
  balanceKey,
  isMerchantAccount,
  type Scheduled,
  type Sealed,
  type Writes,
  type writer
} from "./writes.js"

/** A write the store batches. */
export type WriteOp =
  | { readonly _tag: "Insert"; readonly input: Store.NewTransactions; readonly sealed?: Sealed }
  | { readonly _tag: "Advance"; readonly input: Store.Advance }
  | { readonly _tag: "FinishJob"; readonly id: Domain.JobId }
  | { readonly _tag: "RetryJob"; readonly id: Domain.JobId; readonly runAt: number }
  | { readonly _tag: "Attempt"; readonly record: Store.AttemptRecord }

/** The outcome of a write: an insert's, a transition's, or nothing. */
export type WriteResult =
  | "created"
  | "insufficient"
  | "conflict"
  | Option.Option<Domain.Transaction>
  | undefined

/** Units whose idempotency key was taken over: the batch runs again without them. */
class KeysTaken extends Data.TaggedError("KeysTaken")<{ readonly units: ReadonlyArray<number> }> {}

/** Most units in one batch: keeps every multi-row statement well under both drivers' parameter limits. */
const maxBatch = 256

interface Unit {
  readonly index: number
  readonly op: WriteOp
}

/** The text of an idempotency scope, the same for a scope and for its row. */
const scopeKey = (s: { readonly merchantId: string; readonly mode: string; readonly key: string }) =>
  `key ${s.merchantId} ${s.mode} ${s.key}`

/** What a unit must not share with an earlier unit of the same round. */
const keysOf = (op: WriteOp): ReadonlyArray<string> => {
  switch (op._tag) {
    case "Insert":
      return op.input.idempotency === undefined ? [] : [scopeKey(op.input.idempotency.scope)]
    case "Advance":
      return [`tx ${op.input.id}`]
    case "FinishJob":
    case "RetryJob":
      return [`job ${op.id}`]
    case "Attempt":
      return [`job ${op.record.jobId}`, `dlv ${op.record.attempt.deliveryId}`]
  }
}

/** Splits units into rounds: a unit runs in a later round than every earlier one it shares a key with. */
const rounds = (units: ReadonlyArray<Unit>): ReadonlyArray<ReadonlyArray<Unit>> => {
  const out: Array<Array<Unit>> = []
  const lastRound = new Map<string, number>()
  for (const unit of units) {
    const keys = keysOf(unit.op)
    const round = keys.reduce((r, k) => Math.max(r, (lastRound.get(k) ?? -1) + 1), 0)
    for (const k of keys) lastRound.set(k, round)
    const members = out[round] ?? []
    members.push(unit)
    out[round] = members
  }
  return out
}

/** The merchant accounts a unit's guard or entry touches. */
const accountsOf = (op: WriteOp): ReadonlyArray<readonly [Domain.Mode, Domain.Account]> => {
  if (op._tag !== "Insert" && op._tag !== "Advance") return []
  const { entry } = op.input
  const out: Array<readonly [Domain.Mode, Domain.Account]> = []
  if (entry !== null)
    for (const p of entry.postings) if (isMerchantAccount(p.account)) out.push([entry.mode, p.account])
  if (op._tag === "Insert" && op.input.guard !== null && isMerchantAccount(op.input.guard.account))
    out.push([modeOf(op.input), op.input.guard.account])
  return out
}

const modeOf = (input: Store.NewTransactions): Domain.Mode =>
  input.entry?.mode ?? input.transactions[0]?.mode ?? "test"

/** The merchant an account of a balance row belongs to (`merchant:<id>:available`). */
const merchantOfAccount = (account: Domain.Account): string =>
  account.slice("merchant:".length, account.lastIndexOf(":"))

/**
 * What a unit must not share with a unit of another batch running at once: its merchants (their
 * balance rows and transaction counts) and its own rows (keysOf). Batches that overlap then
 * lock disjoint rows.
 */
const partitionOf = (op: WriteOp): ReadonlyArray<string> => {
  const merchants = new Set<string>(accountsOf(op).map(([, account]) => merchantOfAccount(account)))
  const keys = [...keysOf(op)]
  if (op._tag === "Insert") {
    const { guard, idempotency, transactions } = op.input
    for (const tx of transactions) merchants.add(tx.merchantId)
    if (idempotency !== undefined) merchants.add(idempotency.scope.merchantId)
    // A guard on an account without a balance row reads its postings unlocked: one batch at a time.
    if (guard !== null && !isMerchantAccount(guard.account))
      keys.push(`account ${balanceKey(modeOf(op.input), guard.account)}`)
  }
  return [...keys, ...[...merchants].map((m) => `merchant ${m}`)]
}

/** The statements of the units besides the writer's: zero balance rows, transitions, keys finished. */
const unitStatements = (sql: Sql) => {
  const zeroRows = Bulk.insert(
    sql,
    "balances",
    ["mode", "account", "amount"],
    "ON CONFLICT (mode, account) DO NOTHING"
  )
  const advanceStatement = Bulk.make(
    sql,
    11,
    (
      values
    ) => `WITH v(v_id, v_type, v_from, v_to, v_at, v_e2e, v_paid_at, v_reason, v_received, v_unpaid, v_net)
      AS (VALUES ${values})
      UPDATE transactions SET
        status = v.v_to,
        updated_at = v.v_at,
        end_to_end_id = COALESCE(v.v_e2e, transactions.end_to_end_id),
        paid_at = COALESCE(v.v_paid_at, transactions.paid_at),
        failure_reason = COALESCE(v.v_reason, transactions.failure_reason),
        received_amount = COALESCE(v.v_received, transactions.received_amount),
        net_amount = COALESCE(v.v_net, transactions.net_amount)
      FROM v WHERE transactions.id = v.v_id AND transactions.status = v.v_from
        AND (v.v_type IS NULL OR transactions.type = v.v_type)
        AND (v.v_unpaid = 0 OR transactions.paid_at IS NULL)
      RETURNING *`,
    ["TEXT", "TEXT", "TEXT", "TEXT", "BIGINT", "TEXT", "BIGINT", "TEXT", "BIGINT", "INTEGER", "BIGINT"]
  )
  const finishStatement = Bulk.make(
    sql,
    5,
    (values) => `WITH v(v_merchant, v_mode, v_key, v_status, v_body) AS (VALUES ${values})
      UPDATE idempotency_keys SET status = v.v_status, body = v.v_body
      FROM v WHERE idempotency_keys.merchant_id = v.v_merchant AND idempotency_keys.mode = v.v_mode
        AND idempotency_keys.idempotency_key = v.v_key AND idempotency_keys.status IS NULL
      RETURNING merchant_id, mode, idempotency_key`,
    ["TEXT", "TEXT", "TEXT", "INTEGER", "TEXT"]
  )
  return { zeroRows, advanceStatement, finishStatement }
}

/** What the units' steps share: the client, its journal and writer, the statements. */
interface Units {
  readonly sql: Sql
  readonly journal: ReturnType<typeof ledger>
  readonly write: ReturnType<typeof writer>
  readonly watchers: Store.JobWatchers
  readonly vault: Vault
  readonly statements: ReturnType<typeof unitStatements>
}

// A guard that covers nothing passes on a row that does not exist yet: create it first, so
// that it is locked and checked like any other.
const ensureRows = (c: Units, accounts: ReadonlyArray<readonly [Domain.Mode, Domain.Account]>) =>
  accounts.length === 0
    ? Effect.void
    : Effect.asVoid(c.statements.zeroRows.run(accounts.map(([m, a]) => [m, a, 0])))

const advanceAll = (c: Units, advances: ReadonlyArray<Store.Advance>) =>
  query(
    c.statements.advanceStatement.run(
      advances.map((a) => [
        a.id,
        a.type ?? null,
        a.from,
        a.to,
        a.at,
        a.endToEndId ?? null,
        a.paidAt ?? null,
        a.failureReason ?? null,
        a.receivedAmount ?? null,
        a.unpaid === true ? 1 : 0,
        a.netAmount ?? null
      ])
    ),
    toTransaction(c.vault)
  )

const finishKeys = (c: Units, results: ReadonlyArray<readonly [number, Store.IdempotentResult]>) =>
  Effect.flatMap(
    c.statements.finishStatement.run(
      results.map(([, r]) => [r.scope.merchantId, r.scope.mode, r.scope.key, statusOf(r.outcome), r.body])
    ),
    (rows) => {
      const done = new Set(
        rows.map((r) =>
          scopeKey({
            merchantId: String(r.merchant_id),
            mode: String(r.mode),
            key: String(r.idempotency_key)
          })
        )
      )
      const taken = results.filter(([, r]) => !done.has(scopeKey(r.scope))).map(([i]) => i)
      return taken.length === 0 ? Effect.void : Effect.fail(new KeysTaken({ units: taken }))
    }
  )

/** Step 1: the merchant balance rows the live units move, created if guarded at zero, locked and read. */
const lockLive = (c: Units, live: ReadonlyArray<Unit>) =>
  Effect.gen(function* () {
    yield* ensureRows(
      c,
      live.flatMap(({ op }) =>
        op._tag === "Insert" &&
        op.input.guard !== null &&
        op.input.guard.covers <= 0 &&
        isMerchantAccount(op.input.guard.account)
          ? [[modeOf(op.input), op.input.guard.account] as const]
          : []
      )
    )
    const keys = new Map<string, readonly [Domain.Mode, Domain.Account]>()
    for (const u of live)
      for (const [mode, account] of accountsOf(u.op)) keys.set(balanceKey(mode, account), [mode, account])
    return yield* c.write.lock([...keys.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, v]) => v))
  })

/** Step 2: the live units' transitions, each only if still in `from`. */
const advanceLive = (c: Units, live: ReadonlyArray<Unit>, w: Writes, results: Map<number, WriteResult>) =>
  Effect.gen(function* () {
    const advances = live.flatMap((u) => (u.op._tag === "Advance" ? [[u.index, u.op.input] as const] : []))
    if (advances.length > 0) {
      const moved = new Map(
        (yield* advanceAll(
          c,
          advances.map(([, a]) => a)
        )).map((tx) => [tx.id as string, tx])
      )
      for (const [index, a] of advances) {
        const tx = moved.get(a.id)
        results.set(index, Option.fromNullable(tx))
        if (tx === undefined) continue
        w.moved(tx, a.from)
        w.entry(a.entry)
        w.effects(Store.advanceEffects(a, tx))
      }
    }
  })

/**
 * Steps 3 and 4: the live units' inserts, guards decided in order, then their idempotency keys
 * finished; answers the balance keys guarded.
 */
const insertLive = (
  c: Units,
  live: ReadonlyArray<Unit>,
  w: Writes,
  results: Map<number, WriteResult>,
  locked: ReadonlyMap<string, number>
) =>
  Effect.gen(function* () {
    // Guards, in order: each sees the balance left by the units before it.
    const running = new Map(locked)
    const guarded = new Set<string>()
    const keysToFinish: Array<readonly [number, Store.IdempotentResult]> = []
    for (const u of live) {
      if (u.op._tag !== "Insert") continue
      const input = u.op.input
      if (input.guard !== null) {
        const key = balanceKey(modeOf(input), input.guard.account)
        if (!running.has(key) && !isMerchantAccount(input.guard.account))
          running.set(key, yield* c.journal.sumOf(modeOf(input), input.guard.account))
        if ((running.get(key) ?? 0) < input.guard.covers) {
          results.set(u.index, "insufficient")
          continue
        }
        guarded.add(key)
      }
      if (input.entry !== null)
        for (const p of input.entry.postings) {
          const key = balanceKey(input.entry.mode, p.account)
          if (isMerchantAccount(p.account) || running.has(key))
            running.set(key, (running.get(key) ?? 0) + p.amount)
        }
      w.insert(input.transactions, u.op.sealed?.transactions)
      w.entry(input.entry)
      w.effects(input.effects, u.op.sealed?.events)
      if (input.idempotency !== undefined) keysToFinish.push([u.index, input.idempotency])
      results.set(u.index, "created")
    }
    if (keysToFinish.length > 0) yield* finishKeys(c, keysToFinish)
    return guarded
  })

/** The live units' job and webhook-attempt records. */
const recordJobs = (live: ReadonlyArray<Unit>, w: Writes, results: Map<number, WriteResult>) => {
  for (const u of live) {
    if (u.op._tag === "FinishJob") w.finishedJobs.push(u.op.id)
    else if (u.op._tag === "RetryJob") w.retriedJobs.push({ id: u.op.id, runAt: u.op.runAt })
    else if (u.op._tag === "Attempt") w.attempt(u.op.record)
    else continue
    results.set(u.index, undefined)
  }
}

/** The balances the guarded rows that existed when locked must end at. */
const expectedOf = (guarded: ReadonlySet<string>, locked: ReadonlyMap<string, number>, w: Writes) => {
  // Guarded rows that existed when locked must end exactly where the decisions put them.
  const expected = new Map<string, number>()
  for (const key of guarded) {
    const before = locked.get(key)
    if (before !== undefined) expected.set(key, before + (w.deltas.get(key)?.amount ?? 0))
  }
  return expected
}

/** One round of a batch: its live units locked, moved, inserted, recorded, written. */
const round = (
  c: Units,
  batch: ReadonlyArray<Unit>,
  excluded: ReadonlySet<number>,
  results: Map<number, WriteResult>
) =>
  Effect.gen(function* () {
    const w = c.write.writes()
    const live = batch.filter((u) => !excluded.has(u.index))
    for (const u of batch) if (excluded.has(u.index)) results.set(u.index, "conflict")

    const locked = yield* lockLive(c, live)
    yield* advanceLive(c, live, w, results)
    const guarded = yield* insertLive(c, live, w, results, locked)
    recordJobs(live, w, results)
    return yield* c.write.apply(w, { expected: expectedOf(guarded, locked, w), locked: true })
  })

const transaction = (c: Units, units: ReadonlyArray<Unit>, excluded: ReadonlySet<number>) =>
  inTransaction(c.sql)(
    Effect.gen(function* () {
      const results = new Map<number, WriteResult>()
      const scheduled: Array<Scheduled> = []
      for (const batch of rounds(units)) scheduled.push(...(yield* round(c, batch, excluded, results)))
      return { results, scheduled }
    })
  ).pipe(Effect.retry({ times: 3, while: (e) => e._tag !== "KeysTaken" && isTransient(e) }))

/** Runs a batch; a unit whose key was taken over is a conflict, and the batch runs again without it. */
const run = (
  c: Units,
  ops: ReadonlyArray<WriteOp>
): Effect.Effect<ReadonlyArray<Exit.Exit<WriteResult, Store.StoreError>>> =>
  Effect.gen(function* () {
    const units = ops.map((op, index) => ({ index, op }))
    const excluded = new Set<number>()
    for (;;) {
      const outcome = yield* Effect.either(transaction(c, units, excluded))
      if (outcome._tag === "Right") {
        c.watchers.notifyJobs(outcome.right.scheduled)
        return ops.map((_, i) => Exit.succeed(outcome.right.results.get(i)))
      }
      const error = outcome.left
      if (error._tag === "KeysTaken") {
        for (const i of error.units) excluded.add(i)
        continue
      }
      // The batch may have committed (the connection died at COMMIT): running a unit again
      // could apply it twice, so every unit of the batch reports the unknown outcome.
      if (error._tag === "StoreError" && Store.isUnknownOutcome(error)) return ops.map(() => Exit.fail(error))
      if (ops.length === 1) return [Exit.fail(toStoreError(error))]
      // One unit broke the batch (a constraint, a bad row): find it by running each alone.
      return (yield* Effect.forEach(ops, (op, i) =>
        excluded.has(i) ? Effect.succeed([Exit.succeed<WriteResult>("conflict")]) : run(c, [op])
      )).flat()
    }
  }).pipe(
    Effect.catchAllDefect((defect) =>
      Effect.succeed(
        ops.map(() =>
          Exit.fail(
            // A defect may have struck anywhere, COMMIT included: what was kept is not known.
            new Store.StoreError({
              message: `Write failed: ${String(defect)}`,
              cause: defect,
              outcome: "unknown"
            })
          )
        )
      )
    )
  )

/** The batched writes over one client and its journal. */
export const units = (
  sql: Sql,
  journal: ReturnType<typeof ledger>,
  write: ReturnType<typeof writer>,
  watchers: Store.JobWatchers,
  concurrency: number,
  vault: Vault
) => {
  const c: Units = { sql, journal, write, watchers, vault, statements: unitStatements(sql) }
  return Coalesce.make({
    run: (ops: ReadonlyArray<WriteOp>) => run(c, ops),
    maxBatch,
    concurrency,
    ...(concurrency > 1 ? { keysOf: partitionOf } : {}),
    kind: "writes"
  })
}
