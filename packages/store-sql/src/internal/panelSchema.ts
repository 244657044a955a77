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

/**
 * Migration 0014: access for real money. A role per panel user (users stored before are owners),
 * the address and browser of each session, TOTP second factors with the last accepted time step
 * (a code is accepted once), recovery codes as SHA-256 (each used once), the audit log, and the
 * sign-in throttle's counters in fixed windows shared by every instance.
 */
export const panelAccess = (dialect: Dialect): ReadonlyArray<string> => {
  const text = dialect === "pg" ? 'TEXT COLLATE "C"' : "TEXT"
  return [
    `ALTER TABLE panel_users ADD COLUMN role ${text} NOT NULL DEFAULT 'owner'
      CHECK (role IN ('owner', 'finance', 'developer', 'viewer'))`,
    `ALTER TABLE panel_sessions ADD COLUMN address ${text}`,
    `ALTER TABLE panel_sessions ADD COLUMN user_agent ${text}`,
    "ALTER TABLE panel_sessions ADD COLUMN second_factor_at BIGINT",
    `CREATE TABLE panel_totp (
    user_id ${text} PRIMARY KEY REFERENCES panel_users (id),
    secret ${text} NOT NULL,
    confirmed_at BIGINT,
    last_step BIGINT NOT NULL
  )`,
    `CREATE TABLE panel_recovery_codes (
    user_id ${text} NOT NULL REFERENCES panel_users (id),
    code_hash ${text} NOT NULL,
    used_at BIGINT,
    PRIMARY KEY (user_id, code_hash)
  )`,
    `CREATE TABLE panel_audit (
    id ${text} PRIMARY KEY,
    merchant_id ${text} NOT NULL REFERENCES merchants (id),
    at BIGINT NOT NULL,
    user_id ${text},
    actor ${text} NOT NULL,
    action ${text} NOT NULL,
    object_id ${text},
    address ${text},
    user_agent ${text},
    detail ${text}
  )`,
    "CREATE INDEX panel_audit_merchant ON panel_audit (merchant_id, id)",
    `CREATE TABLE panel_throttle (
    throttle_key ${text} PRIMARY KEY,
    window_start BIGINT NOT NULL,
    hits INTEGER NOT NULL
  )`,
    "CREATE INDEX panel_throttle_window ON panel_throttle (window_start)"
  ]
}
