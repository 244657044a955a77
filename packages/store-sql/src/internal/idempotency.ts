/** Idempotency keys per merchant, mode and key: the first request starts, repeats replay. */
import type { Store } from "@pixgate/core"
import { Effect } from "effect"
import { atomic, intOrNull, query, type Sql, single } from "./sql.js"
import type { Vault } from "./vault.js"

/**
 * The `status` column's encoding of a finished record's outcome, kept from the table's first
 * version so every stored row reads the same: 201 for an answer, 400 for a refusal (rows of
 * earlier versions may hold another refusal number, 400 or above). NULL while started. It is the
 * column's format only: the transport renders each outcome's status.
 */
export const statusOf = (outcome: Store.IdempotentOutcome): number => (outcome === "answered" ? 201 : 400)

/** The outcome a finished record's `status` column holds (`statusOf`). */
export const outcomeOf = (status: number): Store.IdempotentOutcome => (status >= 400 ? "refused" : "answered")

type Ops = "beginIdempotent" | "finishIdempotent" | "releaseIdempotent" | "holdIdempotent"

const started: Store.IdempotencyBegin = { _tag: "Started" }
const inFlight: Store.IdempotencyBegin = { _tag: "InFlight" }
const mismatch: Store.IdempotencyBegin = { _tag: "Mismatch" }

/** What the idempotency operations share: the client, the vault, a key's scope and its start. */
const idempotencyContext = (sql: Sql, vault: Vault) => {
  const scoped = (s: Store.IdempotencyScope) =>
    sql.and([sql`merchant_id = ${s.merchantId}`, sql`mode = ${s.mode}`, sql`idempotency_key = ${s.key}`])
  const begin = (
    scope: Store.IdempotencyScope,
    fingerprint: string,
    now: number,
    expiresAt: number,
    lockedUntil: number
  ) =>
    Effect.gen(function* () {
      // Claim the key in one statement: insert it, or take over an expired record. Of two
      // concurrent first requests the database lets exactly one insert; the other reads it.
      // A record deleted between the two statements (released) is claimed on the next turn.
      for (let turn = 0; turn < 3; turn++) {
        const claimed = yield* sql`INSERT INTO idempotency_keys ${sql.insert({
          merchant_id: scope.merchantId,
          mode: scope.mode,
          idempotency_key: scope.key,
          fingerprint,
          status: null,
          body: null,
          created_at: now,
          expires_at: expiresAt,
          locked_until: lockedUntil,
          held: null
        })}
          ON CONFLICT (merchant_id, mode, idempotency_key) DO UPDATE SET
            fingerprint = excluded.fingerprint, status = NULL, body = NULL,
            created_at = excluded.created_at, expires_at = excluded.expires_at,
            locked_until = excluded.locked_until,
            held = CASE WHEN idempotency_keys.expires_at <= ${now} THEN NULL ELSE idempotency_keys.held END
          WHERE idempotency_keys.expires_at <= ${now}
            OR (idempotency_keys.status IS NULL AND idempotency_keys.locked_until <= ${now}
                AND idempotency_keys.fingerprint = excluded.fingerprint)
          RETURNING idempotency_key, held`
        if (claimed.length > 0) {
          // A taken-over attempt hands on what it kept for its retry.
          const held = claimed[0].held
          return typeof held === "string"
            ? ({ _tag: "Started", held } satisfies Store.IdempotencyBegin)
            : started
        }
        const [record] = yield* query(
          sql`SELECT fingerprint, status, body FROM idempotency_keys WHERE ${scoped(scope)}`,
          (r) => ({ fingerprint: String(r.fingerprint), status: intOrNull(r.status), body: r.body })
        )
        if (record === undefined) continue
        if (record.fingerprint !== fingerprint) return mismatch
        if (record.status === null || typeof record.body !== "string") return inFlight
        return {
          _tag: "Replay",
          outcome: outcomeOf(record.status),
          body: vault.open("idempotency_keys.body", record.body)
        } satisfies Store.IdempotencyBegin
      }
      return inFlight
    })
  return { sql, vault, scoped, begin }
}

type IdempotencyContext = ReturnType<typeof idempotencyContext>

/** Idempotency keys begun, finished, released and held. */
const idempotencyKeys = ({ sql, vault, scoped, begin }: IdempotencyContext) =>
  ({
    beginIdempotent: (scope, fingerprint, now, expiresAt, lockedUntil) =>
      atomic(sql)(begin(scope, fingerprint, now, expiresAt, lockedUntil)),
    // Never replaces a stored answer: the one committed with a change stays what a retry sees.
    finishIdempotent: (scope, outcome, body) =>
      single(
        Effect.asVoid(
          sql`UPDATE idempotency_keys SET status = ${statusOf(outcome)}, body = ${vault.seal("idempotency_keys.body", body)}
            WHERE ${scoped(scope)} AND status IS NULL`
        )
      ),
    releaseIdempotent: (scope) =>
      single(Effect.asVoid(sql`DELETE FROM idempotency_keys WHERE ${scoped(scope)}`)),
    holdIdempotent: (scope, held, lockedUntil) =>
      single(
        Effect.asVoid(
          sql`UPDATE idempotency_keys SET held = ${held}, locked_until = ${lockedUntil}
            WHERE ${scoped(scope)} AND status IS NULL`
        )
      )
  }) satisfies Partial<Pick<Store.StoreShape, Ops>>

/** The idempotency operations over one client; stored answers are sealed (they repeat personal data). */
export const idempotency = (sql: Sql, vault: Vault) => {
  const c = idempotencyContext(sql, vault)
  return {
    ...idempotencyKeys(c)
  }
}
