/**
 * Statements of migration 0021: the e-mail outbox, the panel users' notification choices, and an
 * index of sign-ins in the audit log (each user's last sign-in on the team page).
 */
import type { Dialect } from "./schema.js"

/** Migration 0021. */
export const mailAndTeam = (dialect: Dialect): ReadonlyArray<string> => {
  const text = dialect === "pg" ? 'TEXT COLLATE "C"' : "TEXT"
  return [
    `CREATE TABLE mail_outbox (
    id ${text} PRIMARY KEY,
    merchant_id ${text} REFERENCES merchants (id),
    kind ${text} NOT NULL,
    recipient ${text} NOT NULL,
    subject ${text} NOT NULL,
    body_text ${text} NOT NULL,
    body_html ${text} NOT NULL,
    status ${text} NOT NULL CHECK (status IN ('queued', 'sent', 'failed')),
    attempts INTEGER NOT NULL,
    last_error ${text},
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    sent_at BIGINT
  )`,
    "CREATE INDEX mail_outbox_merchant ON mail_outbox (merchant_id, id)",
    `CREATE TABLE panel_notification_prefs (
    user_id ${text} PRIMARY KEY REFERENCES panel_users (id),
    merchant_id ${text} NOT NULL REFERENCES merchants (id),
    pix_received_min BIGINT,
    payouts INTEGER NOT NULL,
    webhook_failing INTEGER NOT NULL,
    infractions INTEGER NOT NULL,
    updated_at BIGINT NOT NULL
  )`,
    "CREATE INDEX panel_notification_prefs_merchant ON panel_notification_prefs (merchant_id)",
    `CREATE INDEX panel_audit_signins ON panel_audit (merchant_id, user_id, at)
    WHERE action = 'signin.success'`
  ]
}
