/**
 * Statements of migration 0016: the admin tokens (by SHA-256 only; one live token per name, a
 * revoked one's name free again) and the admin audit log.
 */
import type { Dialect } from "./schema.js"

/** Migration 0016. */
export const adminTokens = (dialect: Dialect): ReadonlyArray<string> => {
  const text = dialect === "pg" ? 'TEXT COLLATE "C"' : "TEXT"
  return [
    `CREATE TABLE admin_tokens (
    id ${text} PRIMARY KEY,
    name ${text} NOT NULL,
    scope ${text} NOT NULL CHECK (scope IN ('read-only', 'operator', 'full', 'metrics')),
    token_hash ${text} NOT NULL UNIQUE,
    hint ${text} NOT NULL,
    created_at BIGINT NOT NULL,
    revoked_at BIGINT,
    last_used_at BIGINT
  )`,
    "CREATE UNIQUE INDEX admin_tokens_live_name ON admin_tokens (name) WHERE revoked_at IS NULL",
    `CREATE TABLE admin_audit (
    id ${text} PRIMARY KEY,
    at BIGINT NOT NULL,
    actor ${text} NOT NULL,
    token_id ${text} REFERENCES admin_tokens (id),
    operation ${text} NOT NULL,
    method ${text},
    path ${text},
    status INTEGER,
    object_id ${text}
  )`
  ]
}
