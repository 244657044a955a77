/** Durable jobs: claimed with a lease, so several engine instances never run one job at once. */
import type { Domain, Store } from "@pixgate/core"
import { Effect, Option } from "effect"
import { int, intOrNull, query, type Sql, single } from "./sql.js"

type Ops = "claimDueJobs" | "nextJobAt" | "finishJob" | "retryJob"

const toClaimed = (r: { readonly [column: string]: unknown }): Store.ClaimedJob => ({
  id: String(r.id) as Domain.JobId,
  kind: String(r.kind) as Domain.JobKind,
  ref: String(r.ref),
  runAt: int(r.run_at),
  leaseUntil: int(r.lease_until)
})

const earliestFirst = (a: Store.ClaimedJob, b: Store.ClaimedJob) =>
  a.runAt - b.runAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

/** The job operations over one client. */
export const jobs = (sql: Sql): Pick<Store.StoreShape, Ops> => {
  const due = (now: number) => sql`run_at <= ${now} AND (lease_until IS NULL OR lease_until <= ${now})`

  // Postgres: lock the due rows, skipping rows another claimer holds, and lease them in the same
  // statement. SQLite has one writer at a time, so a plain UPDATE ... RETURNING is enough.
  const claim = (now: number, limit: number, leaseUntil: number) =>
    sql.onDialectOrElse({
      pg: () => sql`WITH claimed AS (
          SELECT id FROM jobs WHERE ${due(now)}
          ORDER BY run_at, id LIMIT ${limit}
          FOR UPDATE SKIP LOCKED
        )
        UPDATE jobs SET lease_until = ${leaseUntil} FROM claimed WHERE jobs.id = claimed.id
        RETURNING jobs.id, jobs.kind, jobs.ref, jobs.run_at, jobs.lease_until`,
      orElse: () => sql`UPDATE jobs SET lease_until = ${leaseUntil}
        WHERE id IN (SELECT id FROM jobs WHERE ${due(now)} ORDER BY run_at, id LIMIT ${limit})
        RETURNING id, kind, ref, run_at, lease_until`
    })

  return {
    claimDueJobs: (now, limit, leaseUntil) =>
      limit <= 0
        ? Effect.succeed([])
        : single(query(claim(now, limit, leaseUntil), toClaimed)).pipe(
            Effect.map((rows) => [...rows].sort(earliestFirst))
          ),
    nextJobAt: () =>
      single(
        query(
          sql`SELECT MIN(CASE WHEN lease_until > run_at THEN lease_until ELSE run_at END) AS at FROM jobs`,
          (r) => intOrNull(r.at)
        )
      ).pipe(Effect.map((rows) => Option.fromNullable(rows[0] ?? null))),
    finishJob: (id) => single(Effect.asVoid(sql`DELETE FROM jobs WHERE id = ${id}`)),
    retryJob: (id, runAt) =>
      single(Effect.asVoid(sql`UPDATE jobs SET run_at = ${runAt}, lease_until = NULL WHERE id = ${id}`))
  }
}
