/**
 * Durable jobs: claimed with a lease, so several engine instances never run one job at once.
 * `due_at` is when a job can next be claimed (its run time, or its lease's end while leased),
 * so claiming and "when is the next job due" each read one index range.
 */
import type { Domain, Store } from "@pixgate/core"
import { Effect, Option } from "effect"
import type { Coalescer } from "./coalesce.js"
import { int, intOrNull, query, type Sql, single } from "./sql.js"
import type { WriteOp, WriteResult } from "./units.js"

type Ops = "claimDueJobs" | "nextJobAt" | "finishJob" | "retryJob"

/** A lane's jobs, written as the partial indexes of migration 0002 are, so they are used. */
const inLane = (lane: Domain.JobLane) =>
  lane === "webhooks" ? "kind = 'webhook.attempt'" : "kind <> 'webhook.attempt'"

const toClaimed = (r: { readonly [column: string]: unknown }): Store.ClaimedJob => ({
  id: String(r.id) as Domain.JobId,
  kind: String(r.kind) as Domain.JobKind,
  ref: String(r.ref),
  runAt: int(r.run_at),
  leaseUntil: int(r.lease_until)
})

const earliestFirst = (a: Store.ClaimedJob, b: Store.ClaimedJob) =>
  a.runAt - b.runAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

/** The job operations over one client and its write batcher. */
export const jobs = (
  sql: Sql,
  writes: Coalescer<WriteOp, WriteResult, Store.StoreError>
): Pick<Store.StoreShape, Ops> => {
  // Postgres: lock the due rows, skipping rows another claimer holds, and lease them in the same
  // statement. SQLite has one writer at a time, so a plain UPDATE ... RETURNING is enough.
  const claim = (now: number, limit: number, leaseUntil: number, lane: Domain.JobLane) =>
    sql.onDialectOrElse({
      pg: () => sql`WITH claimed AS (
          SELECT id FROM jobs WHERE ${sql.literal(inLane(lane))} AND due_at <= ${now}
          ORDER BY due_at, id LIMIT ${limit}
          FOR UPDATE SKIP LOCKED
        )
        UPDATE jobs SET lease_until = ${leaseUntil}, due_at = ${leaseUntil}
        FROM claimed WHERE jobs.id = claimed.id
        RETURNING jobs.id, jobs.kind, jobs.ref, jobs.run_at, jobs.lease_until`,
      orElse: () => sql`UPDATE jobs SET lease_until = ${leaseUntil}, due_at = ${leaseUntil}
        WHERE id IN (SELECT id FROM jobs WHERE ${sql.literal(inLane(lane))} AND due_at <= ${now}
          ORDER BY due_at, id LIMIT ${limit})
        RETURNING id, kind, ref, run_at, lease_until`
    })

  return {
    claimDueJobs: (now, limit, leaseUntil, lane) =>
      limit <= 0
        ? Effect.succeed([])
        : single(query(claim(now, limit, leaseUntil, lane), toClaimed)).pipe(
            Effect.map((rows) => [...rows].sort(earliestFirst))
          ),
    nextJobAt: (lane) =>
      single(
        query(sql`SELECT MIN(due_at) AS at FROM jobs WHERE ${sql.literal(inLane(lane))}`, (r) =>
          intOrNull(r.at)
        )
      ).pipe(Effect.map((rows) => Option.fromNullable(rows[0] ?? null))),
    finishJob: (id) => Effect.asVoid(writes.submit({ _tag: "FinishJob", id })),
    retryJob: (id, runAt) => Effect.asVoid(writes.submit({ _tag: "RetryJob", id, runAt }))
  }
}
