/**
 * Statements of migration 0024: payment links (issue 38) and the charges they made. No personal
 * data here (a charge's payer stays, sealed, on its transaction); a link's description is the
 * merchant's own text.
 */
import type { Dialect } from "./schema.js"

/** Migration 0024. */
export const paymentLinks = (dialect: Dialect): ReadonlyArray<string> => {
  const text = dialect === "pg" ? 'TEXT COLLATE "C"' : "TEXT"
  return [
    `CREATE TABLE payment_links (
    id ${text} PRIMARY KEY,
    merchant_id ${text} NOT NULL,
    mode ${text} NOT NULL CHECK (mode IN ('test', 'live')),
    slug ${text} NOT NULL UNIQUE,
    description ${text} NOT NULL,
    amount BIGINT,
    min_amount BIGINT,
    max_amount BIGINT,
    expires_at BIGINT,
    max_uses INTEGER,
    uses INTEGER NOT NULL DEFAULT 0 CHECK (uses >= 0),
    active INTEGER NOT NULL DEFAULT 1,
    created_at BIGINT NOT NULL,
    deactivated_at BIGINT
  )`,
    "CREATE INDEX payment_links_by_merchant ON payment_links (merchant_id, mode, created_at)",
    `CREATE TABLE payment_link_charges (
    ref ${text} PRIMARY KEY,
    link_id ${text} NOT NULL REFERENCES payment_links (id),
    transaction_id ${text} NOT NULL UNIQUE,
    created_at BIGINT NOT NULL
  )`,
    "CREATE INDEX payment_link_charges_by_link ON payment_link_charges (link_id, created_at)"
  ]
}
