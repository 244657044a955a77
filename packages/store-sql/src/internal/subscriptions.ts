/**
 * Subscriptions and their cycles (migration 0023), each operation one atomic unit. The debtor's
 * name and CPF/CNPJ are personal data: kept sealed in `debtor` (migration 0028) with a keyed
 * hash of the document for erasure (`debtor_hash`), never in the clear `body`.
 */
import { PersonalData, type Recurrence, type Store, type SubscriptionStore } from "@pixgate/core"
import { Data, Effect } from "effect"
import { statusOf } from "./idempotency.js"
import { toEvent } from "./rows.js"
import { atomic, first, isTransient, query, type Sql, single, toStoreError, transaction } from "./sql.js"
import type { Vault } from "./vault.js"

type Row = { readonly [column: string]: unknown }

const cycleOf = (r: Row): Recurrence.Cycle => JSON.parse(String(r.body)) as Recurrence.Cycle

/** The insert found its id or `idRec` taken: the unit rolls back (its key's answer with it). */
class Taken extends Data.TaggedError("Taken") {}

/** What the subscription operations share: the client, the vault and the row codecs. */
const subscriptionContext = (sql: Sql, vault: Vault) => {
  const sealDebtor = (d: PersonalData.Debtor) => vault.seal("subscriptions.debtor", JSON.stringify(d))
  const subscriptionOf = (r: Row): Recurrence.Subscription => {
    const body = JSON.parse(String(r.body)) as Recurrence.Subscription
    // A row without `debtor` keeps the debtor in its body (written around the store).
    if (typeof r.debtor !== "string") return body
    const debtor = JSON.parse(vault.open("subscriptions.debtor", r.debtor)) as PersonalData.Debtor
    return PersonalData.withDebtor(body, debtor)
  }
  const columns = sql.literal("body, debtor")
  const insert = (s: Recurrence.Subscription) => {
    const debtor = PersonalData.debtorOf(s)
    const document = PersonalData.debtorDocument(debtor)
    return sql`INSERT INTO subscriptions ${sql.insert({
      id: s.id,
      merchant_id: s.merchantId,
      mode: s.mode,
      id_rec: s.idRec,
      status: s.status,
      next_at: s.nextAt,
      version: s.version,
      created_at: s.createdAt,
      body: JSON.stringify(PersonalData.withoutDebtor(s)),
      debtor: sealDebtor(debtor),
      debtor_hash: document === null ? null : vault.lookup(document)
    })} ON CONFLICT DO NOTHING RETURNING id`
  }
  const finish = (claim: Store.IdempotentResult) =>
    sql`UPDATE idempotency_keys SET status = ${statusOf(claim.outcome)},
        body = ${vault.seal("idempotency_keys.body", claim.body)}
      WHERE merchant_id = ${claim.scope.merchantId} AND mode = ${claim.scope.mode}
        AND idempotency_key = ${claim.scope.key} AND status IS NULL
      RETURNING idempotency_key`
  return { sql, vault, sealDebtor, subscriptionOf, columns, insert, finish }
}

type Context = ReturnType<typeof subscriptionContext>

/** Subscriptions stored (with their idempotency key's answer) and replaced. */
const subscriptionWrites = ({ sql, insert, finish }: Context) =>
  ({
    insertSubscription: (s, claim) =>
      claim === undefined
        ? single(insert(s)).pipe(Effect.map((rows) => (rows.length > 0 ? "created" : "exists")))
        : transaction(sql)(
            Effect.gen(function* () {
              // The key first: of two requests under it, the second waits on its row, then finds
              // it finished and stores nothing.
              if ((yield* finish(claim)).length === 0) return "conflict" as const
              if ((yield* insert(s)).length === 0) return yield* Effect.fail(new Taken())
              return "created" as const
            })
          ).pipe(
            Effect.retry({ times: 3, while: (e) => e._tag !== "Taken" && isTransient(e) }),
            Effect.catchTag("Taken", () => Effect.succeed("exists" as const)),
            Effect.mapError(toStoreError)
          ),
    // The debtor is written once, with the subscription: a change never brings an erased one back.
    replaceSubscription: (next) =>
      single(
        sql`UPDATE subscriptions SET id_rec = ${next.idRec}, status = ${next.status}, next_at = ${next.nextAt},
          version = ${next.version}, body = ${JSON.stringify(PersonalData.withoutDebtor(next))}
        WHERE id = ${next.id} AND version = ${next.version - 1}
          ${
            next.idRec === null
              ? sql``
              : sql`AND NOT EXISTS (SELECT 1 FROM subscriptions o WHERE o.id_rec = ${next.idRec} AND o.id <> ${next.id})`
          }
        RETURNING id`.pipe(Effect.map((rows) => rows.length > 0))
      )
  }) satisfies Partial<SubscriptionStore.SubscriptionStoreShape>

/** Subscriptions read: by id, by `idRec`, a merchant's page, those due. */
const subscriptionReads = ({ sql, subscriptionOf, columns }: Context) =>
  ({
    getSubscription: (id) =>
      single(
        Effect.map(
          query(sql<Row>`SELECT ${columns} FROM subscriptions WHERE id = ${id}`, subscriptionOf),
          first
        )
      ),
    findSubscriptionByIdRec: (idRec) =>
      single(
        Effect.map(
          query(sql<Row>`SELECT ${columns} FROM subscriptions WHERE id_rec = ${idRec}`, subscriptionOf),
          first
        )
      ),
    listSubscriptions: (page) =>
      single(
        query(
          sql<Row>`SELECT ${columns} FROM subscriptions
          WHERE merchant_id = ${page.merchantId} AND mode = ${page.mode}
          ${page.status === undefined ? sql`` : sql`AND status = ${page.status}`}
          ${page.before === undefined ? sql`` : sql`AND id < ${page.before}`}
          ORDER BY id DESC LIMIT ${page.limit}`,
          subscriptionOf
        )
      ),
    dueSubscriptions: (now, limit) =>
      single(
        query(
          sql<Row>`SELECT ${columns} FROM subscriptions WHERE next_at IS NOT NULL AND next_at <= ${now}
          ORDER BY next_at LIMIT ${limit}`,
          subscriptionOf
        )
      )
  }) satisfies Partial<SubscriptionStore.SubscriptionStoreShape>

/** A payer's debtor erased from their subscriptions and from those subscriptions' events. */
const debtorErasure = ({ sql, vault, sealDebtor }: Context) =>
  ({
    eraseDebtor: (document) =>
      atomic(sql)(
        Effect.gen(function* () {
          const rows = yield* query(
            sql<Row>`SELECT id, merchant_id, debtor FROM subscriptions WHERE debtor_hash = ${vault.lookup(document)}`,
            (r) => ({ id: String(r.id), merchantId: String(r.merchant_id), debtor: String(r.debtor) })
          )
          for (const row of rows) {
            const debtor = JSON.parse(vault.open("subscriptions.debtor", row.debtor)) as PersonalData.Debtor
            yield* sql`UPDATE subscriptions SET debtor = ${sealDebtor(PersonalData.eraseDebtor(debtor))},
              debtor_hash = NULL WHERE id = ${row.id}`
          }
          // The subscriptions' events repeat the debtor: sealed again without it.
          const ids = new Set(rows.map((r) => r.id))
          const merchants = [...new Set(rows.map((r) => r.merchantId))]
          if (merchants.length === 0) return 0
          const events = yield* query(
            sql`SELECT * FROM events WHERE type = 'subscription.updated' AND merchant_id IN ${sql.in(merchants)}`,
            toEvent(vault)
          )
          for (const event of events) {
            const data: object = event.data
            if (!("subscriptionId" in data) || !ids.has(String(data.subscriptionId))) continue
            const erased = PersonalData.eraseSubscriptionEventData(data)
            yield* sql`UPDATE events SET data = ${vault.seal("events.data", JSON.stringify(erased))}
            WHERE id = ${event.id}`
          }
          return rows.length
        })
      )
  }) satisfies Partial<SubscriptionStore.SubscriptionStoreShape>

/** A subscription's cycles stored, read, replaced, and those due. */
const cycleRows = ({ sql }: Context) =>
  ({
    insertCycle: (c) =>
      single(
        sql`INSERT INTO subscription_cycles ${sql.insert({
          txid: c.txid,
          subscription_id: c.subscriptionId,
          sequence: c.sequence,
          status: c.status,
          next_at: c.nextAt,
          version: c.version,
          body: JSON.stringify(c)
        })} ON CONFLICT DO NOTHING RETURNING txid`
      ).pipe(Effect.map((rows) => (rows.length > 0 ? ("created" as const) : ("exists" as const)))),
    getCycle: (txid) =>
      single(
        Effect.map(query(sql<Row>`SELECT body FROM subscription_cycles WHERE txid = ${txid}`, cycleOf), first)
      ),
    listCycles: (subscriptionId) =>
      single(
        query(
          sql<Row>`SELECT body FROM subscription_cycles WHERE subscription_id = ${subscriptionId} ORDER BY sequence`,
          cycleOf
        )
      ),
    replaceCycle: (next) =>
      single(
        sql`UPDATE subscription_cycles SET status = ${next.status}, next_at = ${next.nextAt},
          version = ${next.version}, body = ${JSON.stringify(next)}
        WHERE txid = ${next.txid} AND version = ${next.version - 1}
          AND subscription_id = ${next.subscriptionId} AND sequence = ${next.sequence}
        RETURNING txid`.pipe(Effect.map((rows) => rows.length > 0))
      ),
    dueCycles: (now, limit) =>
      single(
        query(
          sql<Row>`SELECT body FROM subscription_cycles WHERE next_at IS NOT NULL AND next_at <= ${now}
          ORDER BY next_at LIMIT ${limit}`,
          cycleOf
        )
      )
  }) satisfies Partial<SubscriptionStore.SubscriptionStoreShape>

/** The subscriptions' operations over one client; the debtor sealed with `vault`. */
export const subscriptions = (sql: Sql, vault: Vault): SubscriptionStore.SubscriptionStoreShape => {
  const c = subscriptionContext(sql, vault)
  return { ...subscriptionWrites(c), ...subscriptionReads(c), ...debtorErasure(c), ...cycleRows(c) }
}
