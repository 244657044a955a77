/** Webhook operations (migration 0026): disabled endpoints, attempts for health, resends. */
import { Domain, Ids, WebhookOpsStore } from "@pixgate/core"
import { Effect, Option } from "effect"
import { attemptJobRow, eventRow } from "./rows.js"
import { atomic, first, int, intOrNull, query, type Sql, single } from "./sql.js"
import type { Vault } from "./vault.js"

type Row = { readonly [column: string]: unknown }

const modeOf = (v: unknown): Domain.Mode => {
  if (v !== "test" && v !== "live") throw new TypeError(`Unknown mode ${String(v)}`)
  return v
}

const scopeOf = (v: unknown): WebhookOpsStore.ResendScope => {
  if (v !== "all" && v !== "test" && v !== "live") throw new TypeError(`Unknown resend scope ${String(v)}`)
  return v
}

const toDisabled = (r: Row): WebhookOpsStore.DisabledEndpoint => ({
  merchantId: String(r.merchant_id) as Domain.MerchantId,
  mode: modeOf(r.mode),
  disabledAt: int(r.disabled_at),
  reason: String(r.reason)
})

const toResend = (r: Row): WebhookOpsStore.Resend => ({
  id: String(r.id),
  merchantId: String(r.merchant_id) as Domain.MerchantId,
  scope: scopeOf(r.scope),
  since: int(r.since_at),
  until: int(r.until_at),
  createdAt: int(r.created_at),
  queued: int(r.queued),
  queuedFirst: int(r.queued),
  lastDueAt: intOrNull(r.last_due_at),
  repeated: false
})

/** How far before `since` a delivery may have been made and still have an attempt after it. */
const attemptWindowMs = 24 * 60 * 60 * 1000

type ResendInput = Parameters<WebhookOpsStore.WebhookOpsStoreShape["resendFailed"]>[0]

/** The failed events of a resend's modes and period with no delivery that did not fail, oldest first. */
const failedEvents = (sql: Sql, input: ResendInput) =>
  query(
    sql<Row>`SELECT d.event_id, d.mode, MIN(d.created_at) AS first_at
      FROM webhook_deliveries d
      WHERE d.merchant_id = ${input.merchantId} AND ${sql.in("d.mode", input.modes)}
        AND d.status = 'failed' AND d.created_at >= ${input.since} AND d.created_at <= ${input.at}
        AND NOT EXISTS (SELECT 1 FROM webhook_deliveries o
          WHERE o.event_id = d.event_id AND o.status <> 'failed')
      GROUP BY d.event_id, d.mode
      ORDER BY first_at, d.event_id
      LIMIT ${Math.max(0, input.limit)}`,
    (r) => ({ eventId: String(r.event_id), mode: modeOf(r.mode) })
  )

/** The endpoints' URLs as they are now, by mode: a mode without an endpoint gets nothing. */
const resendUrls = (sql: Sql, input: ResendInput, picked: ReadonlyArray<{ readonly mode: Domain.Mode }>) =>
  Effect.gen(function* () {
    const urls = new Map<Domain.Mode, string>()
    for (const mode of new Set(picked.map((p) => p.mode))) {
      const rows = yield* query(
        sql<Row>`SELECT url FROM webhook_deliveries WHERE merchant_id = ${input.merchantId}
          AND mode = ${mode} ORDER BY created_at DESC, id DESC LIMIT 1`,
        (r) => String(r.url)
      )
      const endpoint = yield* query(
        sql<Row>`SELECT 1 AS one FROM webhook_endpoints WHERE merchant_id = ${input.merchantId} AND mode = ${mode}`,
        (r) => r.one
      )
      if (endpoint.length > 0 && rows[0] !== undefined) urls.set(mode, rows[0])
    }
    return urls
  })

/** A new delivery and its first attempt's job for each picked event with a URL; answers how many. */
const queueResend = (
  sql: Sql,
  input: ResendInput,
  picked: ReadonlyArray<{ readonly eventId: string; readonly mode: Domain.Mode }>,
  urls: ReadonlyMap<Domain.Mode, string>
) =>
  Effect.gen(function* () {
    let n = 0
    for (const p of picked) {
      const url = urls.get(p.mode)
      if (url === undefined) continue
      const runAt = input.at + n * input.intervalMs
      const id = Ids.deliveryId(input.at)
      yield* sql`INSERT INTO webhook_deliveries ${sql.insert({
        id,
        event_id: p.eventId,
        merchant_id: input.merchantId,
        mode: p.mode,
        url,
        status: "pending",
        attempts: 0,
        created_at: input.at,
        updated_at: input.at
      })}`
      yield* sql`INSERT INTO jobs ${sql.insert(attemptJobRow(id, runAt, Domain.fairnessKey(input.merchantId, p.mode)))}`
      yield* sql`INSERT INTO webhook_resend_events ${sql.insert({
        resend_id: input.id,
        event_id: p.eventId,
        delivery_id: id
      })}`
      n++
    }
    return n
  })

/** What the webhook operations share: the client, the vault and its one-transaction units. */
const webhookOpsContext = (sql: Sql, vault: Vault) => {
  const tx = atomic(sql)
  return { sql, vault, tx }
}

type WebhookOpsContext = ReturnType<typeof webhookOpsContext>

/** Endpoints disabled and enabled, and their recent attempts and last delivery. */
const endpointStates = ({ sql, vault, tx }: WebhookOpsContext) =>
  ({
    disableEndpoint: (e, event) =>
      tx(
        Effect.gen(function* () {
          const rows = yield* sql`INSERT INTO webhook_endpoints_disabled ${sql.insert({
            merchant_id: e.merchantId,
            mode: e.mode,
            disabled_at: e.disabledAt,
            reason: e.reason
          })} ON CONFLICT DO NOTHING RETURNING merchant_id`
          if (rows.length === 0) return false
          // The `webhook_endpoint.disabled` event, with no delivery: the endpoint cannot receive it.
          if (event !== undefined) yield* sql`INSERT INTO events ${sql.insert(eventRow(vault, event))}`
          return true
        })
      ),
    enableEndpoint: (merchantId, mode) =>
      tx(
        Effect.gen(function* () {
          const was = first(
            yield* query(
              sql<Row>`DELETE FROM webhook_endpoints_disabled
                WHERE merchant_id = ${merchantId} AND mode = ${mode} RETURNING *`,
              toDisabled
            )
          )
          if (Option.isSome(was))
            yield* sql`DELETE FROM webhook_health WHERE fairness_key = ${Domain.fairnessKey(merchantId, mode)}`
          return was
        })
      ),
    disabledEndpoints: (merchantId) =>
      single(
        query(
          sql<Row>`SELECT * FROM webhook_endpoints_disabled WHERE merchant_id = ${merchantId} ORDER BY mode`,
          toDisabled
        )
      ),
    recentAttempts: (merchantId, mode, since, limit) =>
      single(
        query(
          sql<Row>`SELECT a.delivery_id, d.event_id, a.at, a.status_code, a.duration_ms
            FROM webhook_deliveries d JOIN delivery_attempts a ON a.delivery_id = d.id
            WHERE d.merchant_id = ${merchantId} AND d.mode = ${mode}
              AND d.created_at >= ${since - attemptWindowMs} AND a.at >= ${since}
              AND (a.error IS NULL OR a.error <> ${WebhookOpsStore.heldError})
            ORDER BY a.at DESC LIMIT ${Math.max(0, limit)}`,
          (r) => ({
            deliveryId: String(r.delivery_id) as Domain.DeliveryId,
            eventId: String(r.event_id) as Domain.EventId,
            at: int(r.at),
            statusCode: intOrNull(r.status_code),
            durationMs: int(r.duration_ms)
          })
        )
      ),
    lastDeliveredAt: (merchantId, mode) =>
      single(
        query(
          sql<Row>`SELECT updated_at FROM webhook_deliveries
            WHERE merchant_id = ${merchantId} AND mode = ${mode} AND status = 'delivered'
            ORDER BY created_at DESC, id DESC LIMIT 1`,
          (r) => int(r.updated_at)
        )
      ).pipe(Effect.map((rows) => rows[0] ?? null))
  }) satisfies Partial<WebhookOpsStore.WebhookOpsStoreShape>

/** Failed deliveries resent, and how many endpoints are in each state. */
const resendOps = ({ sql, tx }: WebhookOpsContext) =>
  ({
    resendFailed: (input) =>
      tx(
        Effect.gen(function* () {
          const before = first(
            yield* query(
              sql<Row>`SELECT * FROM webhook_resends WHERE merchant_id = ${input.merchantId}
                AND scope = ${input.scope} AND since_at = ${input.since}`,
              toResend
            )
          )
          if (Option.isSome(before)) return { ...before.value, queued: 0, repeated: true }
          const picked = input.modes.length === 0 ? [] : yield* failedEvents(sql, input)
          const urls = yield* resendUrls(sql, input, picked)
          yield* sql`INSERT INTO webhook_resends ${sql.insert({
            id: input.id,
            merchant_id: input.merchantId,
            scope: input.scope,
            since_at: input.since,
            until_at: input.at,
            queued: 0,
            last_due_at: null,
            created_at: input.at
          })}`
          const n = yield* queueResend(sql, input, picked, urls)
          const lastDueAt = n === 0 ? null : input.at + (n - 1) * input.intervalMs
          yield* sql`UPDATE webhook_resends SET queued = ${n}, last_due_at = ${lastDueAt} WHERE id = ${input.id}`
          return {
            id: input.id,
            merchantId: input.merchantId,
            scope: input.scope,
            since: input.since,
            until: input.at,
            createdAt: input.at,
            queued: n,
            queuedFirst: n,
            lastDueAt,
            repeated: false
          } satisfies WebhookOpsStore.Resend
        })
      ),
    endpointStateCounts: () =>
      single(
        query(
          sql<Row>`SELECT e.mode,
              SUM(CASE WHEN x.merchant_id IS NOT NULL THEN 1 ELSE 0 END) AS disabled,
              SUM(CASE WHEN x.merchant_id IS NULL AND h.failing_since IS NOT NULL THEN 1 ELSE 0 END) AS failing,
              SUM(CASE WHEN x.merchant_id IS NULL AND h.failing_since IS NULL THEN 1 ELSE 0 END) AS healthy
            FROM webhook_endpoints e
            LEFT JOIN webhook_endpoints_disabled x ON x.merchant_id = e.merchant_id AND x.mode = e.mode
            LEFT JOIN webhook_health h ON h.fairness_key = e.merchant_id || ':' || e.mode
            GROUP BY e.mode`,
          (r) => ({
            mode: modeOf(r.mode),
            healthy: int(r.healthy ?? 0),
            failing: int(r.failing ?? 0),
            disabled: int(r.disabled ?? 0)
          })
        )
      ).pipe(
        Effect.map((rows) =>
          (["test", "live"] as const).map(
            (mode) => rows.find((r) => r.mode === mode) ?? { mode, healthy: 0, failing: 0, disabled: 0 }
          )
        )
      )
  }) satisfies Partial<WebhookOpsStore.WebhookOpsStoreShape>

/**
 * The webhook operations over one client. A resend's jobs are found by the workers' polls (within
 * `workerPollInterval`), like jobs other instances store.
 */
export const webhookOps = (sql: Sql, vault: Vault): WebhookOpsStore.WebhookOpsStoreShape => {
  const c = webhookOpsContext(sql, vault)
  return {
    ...endpointStates(c),
    ...resendOps(c)
  }
}
