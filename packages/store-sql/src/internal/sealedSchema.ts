/**
 * Migration 0017's schema: the wrapped data keys, and the columns lookups compare instead of the
 * sealed values (a keyed hash of the payer's document and of the PIX key, found by the panel's
 * search and by erasure) and that erasure finds an event's transaction by (its data is sealed).
 */
import type { Dialect } from "./schema.js"

/** Statements of migration 0017, before the values are sealed. */
export const sealedColumns = (dialect: Dialect): ReadonlyArray<string> => {
  const text = dialect === "pg" ? 'TEXT COLLATE "C"' : "TEXT"
  return [
    `CREATE TABLE data_keys (
    id ${text} NOT NULL,
    purpose ${text} NOT NULL CHECK (purpose IN ('data', 'lookup')),
    master_key_id ${text} NOT NULL,
    wrapped ${text} NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (id, master_key_id)
  )`,
    `ALTER TABLE transactions ADD COLUMN client_document_hash ${text}`,
    `ALTER TABLE transactions ADD COLUMN pix_key_hash ${text}`,
    `ALTER TABLE events ADD COLUMN transaction_id ${text}`,
    "CREATE INDEX transactions_document_hash ON transactions (client_document_hash) WHERE client_document_hash IS NOT NULL",
    "CREATE INDEX transactions_pix_key_hash ON transactions (pix_key_hash) WHERE pix_key_hash IS NOT NULL",
    // Retention reads the oldest rows first, across merchants.
    "CREATE INDEX transactions_created ON transactions (created_at)"
  ]
}
