/** Merchant panel records: merchants, fee plans, API keys, webhook endpoints (point reads: reads.ts). */
import { Store } from "@pixgate/core"
import { Effect } from "effect"
import { apiKeyRow, merchantRow, toApiKey, toEndpoint, toMerchant } from "./rows.js"
import { first, query, type Sql, single } from "./sql.js"
import type { Vault } from "./vault.js"

type Ops =
  | "createMerchant"
  | "setFeePlan"
  | "insertApiKey"
  | "revokeApiKey"
  | "listApiKeys"
  | "listMerchants"
  | "setWebhookEndpoint"
  | "rotateSigningKey"
  | "getWebhookEndpoint"

/** The merchant panel operations over one client; endpoint secrets and signing keys are sealed. */
export const merchants = (sql: Sql, vault: Vault): Pick<Store.StoreShape, Ops> => ({
  createMerchant: (merchant) =>
    single(Effect.asVoid(sql`INSERT INTO merchants ${sql.insert(merchantRow(merchant))}`)),
  setFeePlan: (id, plan) =>
    single(sql`UPDATE merchants SET fee_plan = ${JSON.stringify(plan)} WHERE id = ${id} RETURNING id`).pipe(
      Effect.map((rows) => rows.length > 0)
    ),
  insertApiKey: (key) => single(Effect.asVoid(sql`INSERT INTO api_keys ${sql.insert(apiKeyRow(key))}`)),
  revokeApiKey: (id, at) =>
    single(
      sql`UPDATE api_keys SET revoked_at = ${at} WHERE id = ${id} AND revoked_at IS NULL RETURNING id`
    ).pipe(Effect.map((rows) => rows.length > 0)),
  listMerchants: () =>
    single(query(sql`SELECT * FROM merchants ORDER BY created_at DESC, id DESC`, toMerchant)),
  listApiKeys: (merchantId) =>
    single(
      query(
        sql`SELECT * FROM api_keys WHERE merchant_id = ${merchantId} ORDER BY created_at DESC, id DESC`,
        toApiKey
      )
    ),
  // An existing endpoint keeps its signing keys: only URL, secret and secret header change.
  setWebhookEndpoint: (e) =>
    single(
      query(
        sql`INSERT INTO webhook_endpoints ${sql.insert({
          merchant_id: e.merchantId,
          mode: e.mode,
          url: e.url,
          secret: vault.seal("webhook_endpoints.secret", e.secret),
          secret_header: e.secretHeader ? 1 : 0,
          updated_at: e.updatedAt,
          signing_key: vault.seal("webhook_endpoints.signing_key", e.signingKey)
        })}
      ON CONFLICT (merchant_id, mode)
      DO UPDATE SET url = excluded.url, secret = excluded.secret,
        secret_header = excluded.secret_header, updated_at = excluded.updated_at
      RETURNING *`,
        toEndpoint(vault)
      )
    ).pipe(
      Effect.flatMap((rows) =>
        rows[0] === undefined
          ? Effect.fail(new Store.StoreError({ message: "The webhook endpoint was not stored" }))
          : Effect.succeed(rows[0])
      )
    ),
  rotateSigningKey: ({ merchantId, mode, signingKey, previousUntil, at }) =>
    single(
      query(
        sql`UPDATE webhook_endpoints SET signing_key = ${vault.seal("webhook_endpoints.signing_key", signingKey)},
          previous_signing_key = ${previousUntil === null ? null : sql`signing_key`},
          previous_key_expires_at = ${previousUntil}, updated_at = ${at}
        WHERE merchant_id = ${merchantId} AND mode = ${mode}
        RETURNING *`,
        toEndpoint(vault)
      )
    ).pipe(Effect.map(first)),
  getWebhookEndpoint: (merchantId, mode) =>
    single(
      query(
        sql`SELECT * FROM webhook_endpoints WHERE merchant_id = ${merchantId} AND mode = ${mode}`,
        toEndpoint(vault)
      )
    ).pipe(Effect.map(first))
})
