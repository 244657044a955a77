/**
 * The transactional outbox: events, their pending deliveries with the first attempt's job, and
 * the change's own jobs, written in the unit of the change. A fixed number of statements however
 * many events: one insert of events, one INSERT ... SELECT of deliveries (joined with the
 * merchants' endpoints, so events without an endpoint get none), one insert of jobs.
 */
import type { Domain, Store } from "@pixgate/core"
import { Ids } from "@pixgate/core"
import { Effect } from "effect"
import { eventRow, jobRow } from "./rows.js"
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

/** Writes what a change causes. */
export const recordEffects = (sql: Sql, effects: Store.Effects) =>
  Effect.gen(function* () {
    const jobs: Array<ReturnType<typeof jobRow>> = effects.jobs.map(jobRow)
    if (effects.events.length > 0) {
      yield* sql`INSERT INTO events ${sql.insert(effects.events.map(eventRow))}`
      const pairs = effects.events.map(
        (e) => sql`(CAST(${e.id} AS TEXT), CAST(${Ids.newId("dlv", e.createdAt)} AS TEXT))`
      )
      const deliveries = yield* sql`WITH pending (event_id, delivery_id) AS (VALUES ${sql.csv(pairs)})
        INSERT INTO webhook_deliveries
          (id, event_id, merchant_id, mode, url, status, attempts, created_at, updated_at)
        SELECT p.delivery_id, e.id, e.merchant_id, e.mode, w.url, 'pending', 0, e.created_at, e.created_at
        FROM pending p
        JOIN events e ON e.id = p.event_id
        JOIN webhook_endpoints w ON w.merchant_id = e.merchant_id AND w.mode = e.mode
        RETURNING id, event_id`
      const createdAt = new Map(effects.events.map((e) => [e.id as string, e.createdAt]))
      for (const d of deliveries)
        jobs.push(attemptJobRow(String(d.id), createdAt.get(String(d.event_id)) ?? 0))
    }
    if (jobs.length > 0) yield* sql`INSERT INTO jobs ${sql.insert(jobs)}`
  })
