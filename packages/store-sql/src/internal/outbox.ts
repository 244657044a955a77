/**
 * The transactional outbox: events, their pending deliveries with the first attempt's job, and
 * the change's own jobs, written in the unit of the change. Deliveries go to the endpoints the
 * events' merchants have for the events' modes (read once per batch); events without an
 * endpoint get none. A few statements however many events.
 */
import type { Domain, Store } from "@pixgate/core"
import { Ids } from "@pixgate/core"
import { Effect } from "effect"
import * as Bulk from "./bulk.js"
import { deliveryRow, eventRow, jobRow } from "./rows.js"
import type { Sql } from "./sql.js"

/** The row of a new `webhook.attempt` job for a delivery, due at `runAt`. */
export const attemptJobRow = (deliveryId: string, runAt: number): ReturnType<typeof jobRow> => ({
  id: Ids.newId("job", runAt) as Domain.JobId,
  kind: "webhook.attempt",
  ref: deliveryId,
  run_at: runAt,
  lease_until: null,
  due_at: runAt
})

const eventColumns = ["id", "merchant_id", "mode", "type", "data", "created_at"]
const deliveryColumns = [
  "id",
  "event_id",
  "merchant_id",
  "mode",
  "url",
  "status",
  "attempts",
  "created_at",
  "updated_at"
]
/** The columns of the jobs table. */
export const jobColumns = ["id", "kind", "ref", "run_at", "lease_until", "due_at"]

/** The outbox's statements over one client. */
export const outbox = (sql: Sql) => {
  const events = Bulk.insert(sql, "events", eventColumns)
  const deliveries = Bulk.insert(sql, "webhook_deliveries", deliveryColumns)
  const jobs = Bulk.insert(sql, "jobs", jobColumns)
  const endpoints = Bulk.make(
    sql,
    2,
    (values) =>
      `SELECT merchant_id, mode, url FROM webhook_endpoints WHERE (merchant_id, mode) IN (VALUES ${values})`,
    ["TEXT", "TEXT"]
  )

  /** Writes what one or more changes cause; answers the jobs stored (first attempts included). */
  const record = (effects: Store.Effects) =>
    Effect.gen(function* () {
      const jobRows = effects.jobs.map(jobRow)
      if (effects.events.length > 0) {
        yield* events.run(effects.events.map((e) => Bulk.valuesOf(eventRow(e), eventColumns)))
        const owners = new Map(
          effects.events.map((e) => [`${e.merchantId} ${e.mode}`, [e.merchantId, e.mode]])
        )
        const urls = new Map(
          (yield* endpoints.run([...owners.values()])).map((r) => [
            `${r.merchant_id} ${r.mode}`,
            String(r.url)
          ])
        )
        const deliveryRows: Array<ReadonlyArray<Bulk.Value>> = []
        for (const e of effects.events) {
          const url = urls.get(`${e.merchantId} ${e.mode}`)
          if (url === undefined) continue
          const delivery: Domain.WebhookDelivery = {
            id: Ids.newId("dlv", e.createdAt) as Domain.DeliveryId,
            eventId: e.id,
            merchantId: e.merchantId,
            mode: e.mode,
            url,
            status: "pending",
            attempts: 0,
            createdAt: e.createdAt,
            updatedAt: e.createdAt
          }
          deliveryRows.push(Bulk.valuesOf(deliveryRow(delivery), deliveryColumns))
          jobRows.push(attemptJobRow(delivery.id, e.createdAt))
        }
        if (deliveryRows.length > 0) yield* deliveries.run(deliveryRows)
      }
      if (jobRows.length > 0) yield* jobs.run(jobRows.map((j) => Bulk.valuesOf(j, jobColumns)))
      return jobRows.map((j) => ({ kind: j.kind, runAt: j.run_at }))
    })

  return { record }
}
