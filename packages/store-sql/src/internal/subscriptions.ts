/** Subscriptions and their cycles (migration 0023), each operation one atomic unit. */
import type { Recurrence, SubscriptionStore } from "@pixgate/core"
import { Effect } from "effect"
import { first, query, type Sql, single } from "./sql.js"

type Row = { readonly [column: string]: unknown }

const subscriptionOf = (r: Row): Recurrence.Subscription =>
  JSON.parse(String(r.body)) as Recurrence.Subscription
const cycleOf = (r: Row): Recurrence.Cycle => JSON.parse(String(r.body)) as Recurrence.Cycle

/** What the subscription operations share: the client. */
const subscriptionContext = (sql: Sql) => {
  return { sql }
}

type SubscriptionContext = ReturnType<typeof subscriptionContext>

/** Subscriptions stored, read, replaced, and those due. */
const subscriptionRows = ({ sql }: SubscriptionContext) =>
  ({
    insertSubscription: (s) =>
      single(
        sql`INSERT INTO subscriptions ${sql.insert({
          id: s.id,
          merchant_id: s.merchantId,
          mode: s.mode,
          id_rec: s.idRec,
          status: s.status,
          next_at: s.nextAt,
          version: s.version,
          created_at: s.createdAt,
          body: JSON.stringify(s)
        })} ON CONFLICT DO NOTHING RETURNING id`
      ).pipe(Effect.map((rows) => rows.length > 0)),
    getSubscription: (id) =>
      single(
        Effect.map(query(sql<Row>`SELECT body FROM subscriptions WHERE id = ${id}`, subscriptionOf), first)
      ),
    findSubscriptionByIdRec: (idRec) =>
      single(
        Effect.map(
          query(sql<Row>`SELECT body FROM subscriptions WHERE id_rec = ${idRec}`, subscriptionOf),
          first
        )
      ),
    listSubscriptions: (page) =>
      single(
        query(
          sql<Row>`SELECT body FROM subscriptions
            WHERE merchant_id = ${page.merchantId} AND mode = ${page.mode}
            ${page.status === undefined ? sql`` : sql`AND status = ${page.status}`}
            ${page.before === undefined ? sql`` : sql`AND id < ${page.before}`}
            ORDER BY id DESC LIMIT ${page.limit}`,
          subscriptionOf
        )
      ),
    replaceSubscription: (next) =>
      single(
        sql`UPDATE subscriptions SET id_rec = ${next.idRec}, status = ${next.status}, next_at = ${next.nextAt},
            version = ${next.version}, body = ${JSON.stringify(next)}
          WHERE id = ${next.id} AND version = ${next.version - 1}
            ${
              next.idRec === null
                ? sql``
                : sql`AND NOT EXISTS (SELECT 1 FROM subscriptions o WHERE o.id_rec = ${next.idRec} AND o.id <> ${next.id})`
            }
          RETURNING id`.pipe(Effect.map((rows) => rows.length > 0))
      ),
    dueSubscriptions: (now, limit) =>
      single(
        query(
          sql<Row>`SELECT body FROM subscriptions WHERE next_at IS NOT NULL AND next_at <= ${now}
            ORDER BY next_at LIMIT ${limit}`,
          subscriptionOf
        )
      )
  }) satisfies Partial<SubscriptionStore.SubscriptionStoreShape>

/** A subscription's cycles stored, read, replaced, and those due. */
const cycleRows = ({ sql }: SubscriptionContext) =>
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

/** The subscriptions' operations over one client. */
export const subscriptions = (sql: Sql): SubscriptionStore.SubscriptionStoreShape => {
  const c = subscriptionContext(sql)
  return {
    ...subscriptionRows(c),
    ...cycleRows(c)
  }
}
