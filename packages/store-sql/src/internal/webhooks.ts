/** Events and the webhook log: deliveries, their attempts, redelivery. */
import type { Domain, Store } from "@pixgate/core"
import { Ids } from "@pixgate/core"
import { Effect, Option } from "effect"
import type { Coalescer } from "./coalesce.js"
import {
  attemptJobRow,
  deliveryRow,
  toAttempt,
  toDelivery,
  toEndpoint,
  toEvent,
  toJoinedEvent
} from "./rows.js"
import { atomic, first, query, type Sql, single } from "./sql.js"
import type { WriteOp, WriteResult } from "./units.js"

type Ops = "listEvents" | "getEvent" | "recordAttempt" | "redeliver" | "listDeliveries"

/** The event and webhook operations over one client, its write batcher and the job watchers. */
export const webhooks = (
  sql: Sql,
  writes: Coalescer<WriteOp, WriteResult, Store.StoreError>,
  watchers: Store.JobWatchers
): Pick<Store.StoreShape, Ops> => {
  const deliveryWithEvent = sql`SELECT d.*, e.type AS event_type, e.data AS event_data,
      e.created_at AS event_created_at
    FROM webhook_deliveries d JOIN events e ON e.id = d.event_id`

  const redeliver = (eventId: Domain.EventId, now: number) =>
    Effect.gen(function* () {
      const event = first(yield* query(sql`SELECT * FROM events WHERE id = ${eventId}`, toEvent))
      if (Option.isNone(event)) return Option.none()
      const { merchantId, mode } = event.value
      const endpoint = first(
        yield* query(
          sql`SELECT * FROM webhook_endpoints WHERE merchant_id = ${merchantId} AND mode = ${mode}`,
          toEndpoint
        )
      )
      if (Option.isNone(endpoint)) return Option.none()
      const delivery: Domain.WebhookDelivery = {
        id: Ids.newId("dlv", now) as Domain.DeliveryId,
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
      yield* sql`INSERT INTO jobs ${sql.insert(attemptJobRow(delivery.id, now))}`
      return Option.some(delivery)
    })

  return {
    listEvents: (merchantId, mode) =>
      single(
        query(
          sql`SELECT * FROM events WHERE merchant_id = ${merchantId} AND mode = ${mode} ORDER BY created_at, id`,
          toEvent
        )
      ),
    getEvent: (id) =>
      single(query(sql`SELECT * FROM events WHERE id = ${id}`, toEvent)).pipe(Effect.map(first)),

    recordAttempt: (record) => Effect.asVoid(writes.submit({ _tag: "Attempt", record })),

    redeliver: (eventId, now) =>
      atomic(sql)(redeliver(eventId, now)).pipe(
        Effect.tap((delivery) => {
          if (Option.isSome(delivery)) watchers.notify("webhooks", now)
        })
      ),

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
            (r) => ({ delivery: toDelivery(r), event: toJoinedEvent(r) })
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
          return page.map(({ delivery, event }) => ({
            delivery,
            event,
            attempts: attempts.filter((a) => a.deliveryId === delivery.id)
          }))
        })
      )
  }
}
