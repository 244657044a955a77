/**
 * Durable jobs: claimed with a lease, so several engine instances never run one job at once.
 * `due_at` is when a job can next be claimed (its run time, or its lease's end while leased),
 * so claiming and "when is the next job due" each read one index range.
 */
import type { Statement } from "@effect/sql"
import { Domain, type Store } from "@pixgate/core"
import { Effect, Option } from "effect"
import type { Coalescer } from "./coalesce.js"
import { checkedId } from "./rows.js"
import { int, intOrNull, query, type Sql, single } from "./sql.js"
import type { WriteOp, WriteResult } from "./units.js"

type Ops = "claimDueJobs" | "claimEndpointJobs" | "nextJobAt" | "finishJob" | "retryJob"

/** A lane's jobs, written as the partial indexes of migration 0002 are, so they are used. */
const inLane = (lane: Domain.JobLane) =>
  lane === "webhooks" ? "kind = 'webhook.attempt'" : "kind <> 'webhook.attempt'"

const toClaimed = (r: { readonly [column: string]: unknown }): Store.ClaimedJob => ({
  id: checkedId(Domain.isJobId, r.id),
  kind: String(r.kind) as Domain.JobKind,
  ref: String(r.ref),
  runAt: int(r.run_at),
  leaseUntil: int(r.lease_until)
})

const earliestFirst = (a: Store.ClaimedJob, b: Store.ClaimedJob) =>
  a.runAt - b.runAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

// Postgres: lock the due rows, skipping rows another claimer holds, and lease them in the same
// statement. SQLite has one writer at a time, so a plain UPDATE ... RETURNING is enough.
const claim = (sql: Sql, now: number, limit: number, leaseUntil: number, lane: Domain.JobLane) =>
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

// The fair claim of webhook attempts: each endpoint (fairness key) gets at most its share
// (smaller while failing) minus its attempts leased now, earliest first within it; then the
// earliest of all those up to `limit`. Both read the per-endpoint index of migration 0005.
// Postgres walks the endpoints with a recursive skip scan and takes each one's due attempts
// with a LATERAL subquery (FOR UPDATE SKIP LOCKED, as above); SQLite, with one writer, ranks
// the due attempts per endpoint with a window function.
const inFlight = (sql: Sql, now: number, key: Statement.Fragment) =>
  sql`(SELECT count(*) FROM jobs r WHERE r.kind = 'webhook.attempt' AND r.fairness_key = ${key}
    AND r.due_at > ${now} AND r.lease_until > ${now})`
const share = (sql: Sql, fairness: Store.JobFairness) =>
  sql`(CASE WHEN h.failing_since IS NULL THEN CAST(${fairness.perEndpoint} AS BIGINT)
    ELSE CAST(${fairness.failingPerEndpoint} AS BIGINT) END)`
const fairClaim = (sql: Sql, now: number, limit: number, leaseUntil: number, fairness: Store.JobFairness) =>
  sql.onDialectOrElse({
    pg: () => sql`WITH RECURSIVE keys(k) AS (
        (SELECT fairness_key FROM jobs WHERE kind = 'webhook.attempt' AND fairness_key IS NOT NULL
          ORDER BY fairness_key LIMIT 1)
        UNION ALL
        SELECT (SELECT j.fairness_key FROM jobs j
            WHERE j.kind = 'webhook.attempt' AND j.fairness_key > keys.k
            ORDER BY j.fairness_key LIMIT 1)
        FROM keys WHERE keys.k IS NOT NULL
      ),
      shares AS (
        SELECT keys.k, ${share(sql, fairness)} - ${inFlight(sql, now, sql`keys.k`)} AS n
        FROM keys LEFT JOIN webhook_health h ON h.fairness_key = keys.k
        WHERE keys.k IS NOT NULL
      ),
      claimed AS (
        SELECT c.id FROM shares CROSS JOIN LATERAL (
          SELECT j.id, j.due_at FROM jobs j
          WHERE j.kind = 'webhook.attempt' AND j.fairness_key = shares.k AND j.due_at <= ${now}
          ORDER BY j.due_at, j.id LIMIT GREATEST(shares.n, 0)
          FOR UPDATE SKIP LOCKED
        ) c
        ORDER BY c.due_at, c.id LIMIT ${limit}
      )
      UPDATE jobs SET lease_until = ${leaseUntil}, due_at = ${leaseUntil}
      FROM claimed WHERE jobs.id = claimed.id
      RETURNING jobs.id, jobs.kind, jobs.ref, jobs.run_at, jobs.lease_until`,
    // Each endpoint's share left is counted once (not once per due row, which made a round
    // cost the backlog times the attempts in flight), and an endpoint at its share is skipped
    // before its due attempts are ranked: a drain keeps its endpoint full, so the rounds it
    // runs meanwhile read one index entry per endpoint. Only an endpoint's first `limit` due
    // attempts are ranked (`last_at`): a later one could never be among the `limit` taken.
    orElse: () => sql`UPDATE jobs SET lease_until = ${leaseUntil}, due_at = ${leaseUntil}
      WHERE id IN (
        WITH RECURSIVE keys(k) AS (
          SELECT MIN(fairness_key) FROM jobs WHERE kind = 'webhook.attempt'
          UNION ALL
          SELECT (SELECT MIN(j.fairness_key) FROM jobs j
              WHERE j.kind = 'webhook.attempt' AND j.fairness_key > keys.k)
          FROM keys WHERE keys.k IS NOT NULL
        ),
        shares AS (
          SELECT keys.k, ${share(sql, fairness)} - ${inFlight(sql, now, sql`keys.k`)} AS n,
            (SELECT c.due_at FROM jobs c
              WHERE c.kind = 'webhook.attempt' AND c.fairness_key = keys.k AND c.due_at <= ${now}
              ORDER BY c.due_at, c.id LIMIT 1 OFFSET ${limit - 1}) AS last_at
          FROM keys LEFT JOIN webhook_health h ON h.fairness_key = keys.k
          WHERE keys.k IS NOT NULL
        )
        SELECT id FROM (
          SELECT j.id, j.due_at,
            ROW_NUMBER() OVER (PARTITION BY j.fairness_key ORDER BY j.due_at, j.id) AS rank, s.n
          FROM shares s JOIN jobs j
            ON j.kind = 'webhook.attempt' AND j.fairness_key = s.k AND j.due_at <= ${now}
            AND j.due_at <= COALESCE(s.last_at, ${now})
          WHERE s.n > 0
        ) WHERE rank <= n ORDER BY due_at, id LIMIT ${limit}
      )
      RETURNING id, kind, ref, run_at, lease_until`
  })

// One endpoint's due attempts (the worker's refill when one of its attempts ends): its share
// left, then its earliest due attempts up to that, one range of the per-endpoint index.
const endpointClaim = (
  sql: Sql,
  now: number,
  key: string,
  limit: number,
  leaseUntil: number,
  fairness: Store.JobFairness
) => {
  const left = sql`(SELECT ${share(sql, fairness)} - ${inFlight(sql, now, sql`${key}`)}
    FROM (SELECT 1 AS one) x LEFT JOIN webhook_health h ON h.fairness_key = ${key})`
  return sql.onDialectOrElse({
    pg: () => sql`WITH claimed AS (
        SELECT j.id FROM jobs j
        WHERE j.kind = 'webhook.attempt' AND j.fairness_key = ${key} AND j.due_at <= ${now}
        ORDER BY j.due_at, j.id LIMIT LEAST(${limit}, GREATEST(${left}, 0))
        FOR UPDATE SKIP LOCKED
      )
      UPDATE jobs SET lease_until = ${leaseUntil}, due_at = ${leaseUntil}
      FROM claimed WHERE jobs.id = claimed.id
      RETURNING jobs.id, jobs.kind, jobs.ref, jobs.run_at, jobs.lease_until`,
    orElse: () => sql`UPDATE jobs SET lease_until = ${leaseUntil}, due_at = ${leaseUntil}
      WHERE id IN (SELECT j.id FROM jobs j
        WHERE j.kind = 'webhook.attempt' AND j.fairness_key = ${key} AND j.due_at <= ${now}
        ORDER BY j.due_at, j.id LIMIT MIN(${limit}, MAX(${left}, 0)))
      RETURNING id, kind, ref, run_at, lease_until`
  })
}

/** The job operations over one client and its write batcher. */
export const jobs = (
  sql: Sql,
  writes: Coalescer<WriteOp, WriteResult, Store.StoreError>
): Pick<Store.StoreShape, Ops> => {
  return {
    claimEndpointJobs: (now, endpoint, limit, leaseUntil, fairness) =>
      limit <= 0
        ? Effect.succeed([])
        : single(query(endpointClaim(sql, now, endpoint, limit, leaseUntil, fairness), toClaimed)).pipe(
            Effect.map((rows) => [...rows].sort(earliestFirst))
          ),
    claimDueJobs: (now, limit, leaseUntil, lane, fairness) =>
      limit <= 0
        ? Effect.succeed([])
        : single(
            query(
              lane === "webhooks" && fairness !== undefined
                ? fairClaim(sql, now, limit, leaseUntil, fairness)
                : claim(sql, now, limit, leaseUntil, lane),
              toClaimed
            )
          ).pipe(Effect.map((rows) => [...rows].sort(earliestFirst))),
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
