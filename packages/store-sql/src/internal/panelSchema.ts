/**
 * Statements of migration 0007: the merchant panel's users, one-time invites and sessions, and
 * each API key's last use. Tokens and session ids are stored as SHA-256 only; passwords as scrypt.
 */
import type { Dialect } from "./schema.js"

/** Migration 0007. */
export const panelUsers = (dialect: Dialect): ReadonlyArray<string> => {
  const text = dialect === "pg" ? 'TEXT COLLATE "C"' : "TEXT"
  return [
    "ALTER TABLE api_keys ADD COLUMN last_used_at BIGINT",
    `CREATE TABLE panel_users (
    id ${text} PRIMARY KEY,
    merchant_id ${text} NOT NULL REFERENCES merchants (id),
    email ${text} NOT NULL UNIQUE,
    password_hash ${text},
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
  )`,
    `CREATE TABLE panel_invites (
    token_hash ${text} PRIMARY KEY,
    user_id ${text} NOT NULL REFERENCES panel_users (id),
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    used_at BIGINT
  )`,
    `CREATE TABLE panel_sessions (
    id_hash ${text} PRIMARY KEY,
    user_id ${text} NOT NULL REFERENCES panel_users (id),
    merchant_id ${text} NOT NULL REFERENCES merchants (id),
    created_at BIGINT NOT NULL,
    last_seen_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    revoked_at BIGINT
  )`,
    "CREATE INDEX panel_sessions_user ON panel_sessions (user_id)"
  ]
}
