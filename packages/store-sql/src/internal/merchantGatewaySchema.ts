/**
 * Statements of migration 0025: each merchant's live gateway, an append-only history of
 * assignments by the gateway's name, each effective from a moment (`MerchantGatewayStore`).
 */
import type { Dialect } from "./schema.js"

/** Migration 0025. */
export const merchantGateways = (dialect: Dialect): ReadonlyArray<string> => {
  const text = dialect === "pg" ? 'TEXT COLLATE "C"' : "TEXT"
  return [
    `CREATE TABLE merchant_gateways (
    merchant_id ${text} NOT NULL REFERENCES merchants (id),
    effective_at BIGINT NOT NULL,
    gateway ${text} NOT NULL,
    assigned_at BIGINT NOT NULL,
    PRIMARY KEY (merchant_id, effective_at)
  )`
  ]
}
