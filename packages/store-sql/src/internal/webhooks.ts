/** Events and the webhook log: deliveries, their attempts, redelivery. */
import type { Store } from "@pixgate/core"
import { Domain, Ids } from "@pixgate/core"
import { Effect, Option } from "effect"
import type { Coalescer } from "./coalesce.js"
import {
  attemptJobRow,
  deliveryRow,
  eventRow,
  toAttempt,
  toDelivery,
  toEndpoint,
  toEvent,
  toHealth,
  toJoinedEvent
} from "./rows.js"
import { atomic, first, int, intOrNull, query, type Sql, single } from "./sql.js"
import type { WriteOp, WriteResult } from "./units.js"
import type { Vault } from "./vault.js"

type Ops =
  | "listEvents"
  | "getEvent"
  | "recordAttempt"
  | "redeliver"
  | "listDeliveries"
  | "insertEvent"
  | "recordEndpointHealth"
  | "endpointBacklog"

/** What the webhook operations share: the client, the batched writes, the job watchers, and the queries over them. */
const webhookContext = (
  sql: Sql,
  writes: Coalescer<WriteOp, WriteResult, Store.StoreError>,
  watchers: Store.JobWatchers,
  vault: Vault
) => {
  const deliveryWithEvent = sql`SELECT d.*, e.type AS event_type, e.data AS event_data,
      e.created_at AS event_created_at
    FROM webhook_deliveries d JOIN events e ON e.id = d.event_id`
  const redeliver = (eventId: Domain.EventId, now: number) =>
    Effect.gen(function* () {
      const event = first(yield* query(sql`SELECT * FROM events WHERE id = ${eventId}`, toEvent(vault)))
      if (Option.isNone(event)) return Option.none()
      const { merchantId, mode } = event.value
      const endpoint = first(
        yield* query(
          sql`SELECT * FROM webhook_endpoints WHERE merchant_id = ${merchantId} AND mode = ${mode}`,
          toEndpoint(vault)
        )
      )
      if (Option.isNone(endpoint)) return Option.none()
      const delivery: Domain.WebhookDelivery = {
        id: Ids.deliveryId(now),
        eventId,
        merchantId,
        mode,
        url: endpoint.value.url,
        status: "pending",
        attempts: 0,
        createdAt: now,
        updatedAt: now
      }
      yield* sql`INSERT INTO webhook_deliveries ${sql.insert(deliveryRow(delivery))}`
      yield* sql`INSERT INTO jobs ${sql.insert(attemptJobRow(delivery.id, now, Domain.fairnessKey(merchantId, mode)))}`
      return Option.some(delivery)
    })
  const insertEvent = (event: Domain.Event) =>
    Effect.gen(function* () {
      const { merchantId, mode } = event
      const endpoint = first(
        yield* query(
          sql`SELECT * FROM webhook_endpoints WHERE merchant_id = ${merchantId} AND mode = ${mode}`,
          toEndpoint(vault)
        )
      )
      if (Option.isNone(endpoint)) return Option.none()
      const at = event.createdAt
      const delivery: Domain.WebhookDelivery = {
        id: Ids.deliveryId(at),
        eventId: event.id,
        merchantId,
        mode,
        url: endpoint.value.url,
        status: "pending",
        attempts: 0,
        createdAt: at,
        updatedAt: at
      }
      yield* sql`INSERT INTO events ${sql.insert(eventRow(vault, event))}`
      yield* sql`INSERT INTO webhook_deliveries ${sql.insert(deliveryRow(delivery))}`
      yield* sql`INSERT INTO jobs ${sql.insert(attemptJobRow(delivery.id, at, Domain.fairnessKey(merchantId, mode)))}`
      return Option.some(delivery)
    })
  return { sql, writes, watchers, vault, deliveryWithEvent, redeliver, insertEvent }
}

type WebhookContext = ReturnType<typeof webhookContext>

/** Events stored and delivered, attempts recorded, endpoints' health. */
const eventOps = ({ sql, writes, watchers, vault, redeliver, insertEvent }: WebhookContext) =>
  ({
    insertEvent: (event) =>
      atomic(sql)(insertEvent(event)).pipe(
        Effect.tap((delivery) => {
          if (Option.isSome(delivery)) watchers.notify("webhooks", event.createdAt)
        })
      ),
    listEvents: (merchantId, mode, since = 0) =>
      single(
        query(
          sql`SELECT * FROM events WHERE merchant_id = ${merchantId} AND mode = ${mode} AND created_at >= ${since} ORDER BY created_at, id`,
          toEvent(vault)
        )
      ),
    getEvent: (id) =>
      single(query(sql`SELECT * FROM events WHERE id = ${id}`, toEvent(vault))).pipe(Effect.map(first)),
    recordAttempt: (record) => Effect.asVoid(writes.submit({ _tag: "Attempt", record })),
    // One statement each way, so the row lock orders concurrent outcomes: exactly one failure
    // makes the count reach `failingAfter`, and exactly one success deletes a failing row.
    recordEndpointHealth: ({ merchantId, mode, ok, at, failingAfter }) => {
      const key = Domain.fairnessKey(merchantId, mode)
      return ok
        ? single(
            query(sql`DELETE FROM webhook_health WHERE fairness_key = ${key} RETURNING failing_since`, (r) =>
              intOrNull(r.failing_since)
            )
          ).pipe(Effect.map((rows) => (rows[0] == null ? "unchanged" : "recovered")))
        : single(
            query(
              sql`INSERT INTO webhook_health (fairness_key, consecutive_failures, failing_since)
                VALUES (${key}, 1, CAST(${failingAfter <= 1 ? at : null} AS BIGINT))
                ON CONFLICT (fairness_key) DO UPDATE SET
                  consecutive_failures = webhook_health.consecutive_failures + 1,
                  failing_since = COALESCE(webhook_health.failing_since,
                    CASE WHEN webhook_health.consecutive_failures + 1 >= CAST(${failingAfter} AS BIGINT)
                      THEN CAST(${at} AS BIGINT) END)
                RETURNING consecutive_failures`,
              (r) => int(r.consecutive_failures)
            )
          ).pipe(Effect.map((rows) => (rows[0] === failingAfter ? "failing" : "unchanged")))
    },
    endpointBacklog: (merchantId, mode, now) => {
      const key = Domain.fairnessKey(merchantId, mode)
      return single(
        query(
          sql`SELECT
              (SELECT count(*) FROM jobs WHERE kind = 'webhook.attempt' AND fairness_key = ${key}) AS pending,
              (SELECT count(*) FROM jobs WHERE kind = 'webhook.attempt' AND fairness_key = ${key}
                AND due_at > ${now} AND lease_until > ${now}) AS in_flight,
              h.consecutive_failures, h.failing_since
            FROM (SELECT 1 AS one) x LEFT JOIN webhook_health h ON h.fairness_key = ${key}`,
          (r) => ({ pending: int(r.pending), inFlight: int(r.in_flight), health: toHealth(r) })
        )
      ).pipe(Effect.map((rows) => rows[0] ?? { pending: 0, inFlight: 0, health: Domain.healthy }))
    },
    redeliver: (eventId, now) =>
      atomic(sql)(redeliver(eventId, now)).pipe(
        Effect.tap((delivery) => {
          if (Option.isSome(delivery)) watchers.notify("webhooks", now)
        })
      )
  }) satisfies Partial<Pick<Store.StoreShape, Ops>>

/** A merchant's deliveries, with their attempts and next attempt. */
const deliveryList = ({ sql, vault, deliveryWithEvent }: WebhookContext) =>
  ({
    listDeliveries: (q) =>
      atomic(sql)(
        Effect.gen(function* () {
          const where = sql.and([
            sql`d.merchant_id = ${q.merchantId}`,
            ...(q.mode === undefined ? [] : [sql`d.mode = ${q.mode}`]),
            ...(q.status === undefined ? [] : [sql`d.status = ${q.status}`]),
            ...(q.eventId === undefined ? [] : [sql`d.event_id = ${q.eventId}`])
          ])
          const page = yield* query(
            sql`${deliveryWithEvent} WHERE ${where}
              ORDER BY d.created_at DESC, d.id DESC LIMIT ${Math.max(0, q.limit)} OFFSET ${Math.max(0, q.offset)}`,
            (r) => ({ delivery: toDelivery(r), event: toJoinedEvent(vault)(r) })
          )
          if (page.length === 0) return []
          const attempts = yield* query(
            sql`SELECT * FROM delivery_attempts WHERE ${sql.in(
              "delivery_id",
              page.map((p) => p.delivery.id)
            )}
              ORDER BY attempt, at`,
            toAttempt
          )
          const pending = page.filter((p) => p.delivery.status === "pending").map((p) => p.delivery.id)
          const next =
            pending.length === 0
              ? []
              : yield* query(
                  sql`SELECT ref, MIN(run_at) AS run_at FROM jobs
                    WHERE kind = 'webhook.attempt' AND ${sql.in("ref", pending)} GROUP BY ref`,
                  (r) => [String(r.ref), int(r.run_at)] as const
                )
          const nextOf = new Map(next)
          return page.map(({ delivery, event }) => ({
            delivery,
            event,
            attempts: attempts.filter((a) => a.deliveryId === delivery.id),
            nextAttemptAt: nextOf.get(delivery.id) ?? null
          }))
        })
      )
  }) satisfies Partial<Pick<Store.StoreShape, Ops>>

/** The event and webhook operations over one client, its write batcher and the job watchers. */
export const webhooks = (
  sql: Sql,
  writes: Coalescer<WriteOp, WriteResult, Store.StoreError>,
  watchers: Store.JobWatchers,
  vault: Vault
): Pick<Store.StoreShape, Ops> => {
  const c = webhookContext(sql, writes, watchers, vault)
  return {
    ...eventOps(c),
    ...deliveryList(c)
  }
}
