/**
 * Statements of migration 0026, webhook operations: endpoints disabled after failing for too
 * long (a row while disabled), and resends with the range each covered and the events it queued
 * (one row per event, so one resend never queues an event twice).
 */
import type { Dialect } from "./schema.js"

/** Migration 0026. */
export const webhookOps = (dialect: Dialect): ReadonlyArray<string> => {
  const text = dialect === "pg" ? 'TEXT COLLATE "C"' : "TEXT"
  return [
    `CREATE TABLE webhook_endpoints_disabled (
    merchant_id ${text} NOT NULL,
    mode ${text} NOT NULL CHECK (mode IN ('test', 'live')),
    disabled_at BIGINT NOT NULL,
    reason ${text} NOT NULL,
    PRIMARY KEY (merchant_id, mode)
  )`,
    `CREATE TABLE webhook_resends (
    id ${text} PRIMARY KEY,
    merchant_id ${text} NOT NULL,
    scope ${text} NOT NULL CHECK (scope IN ('all', 'test', 'live')),
    since_at BIGINT NOT NULL,
    until_at BIGINT NOT NULL,
    queued INTEGER NOT NULL CHECK (queued >= 0),
    last_due_at BIGINT,
    created_at BIGINT NOT NULL,
    UNIQUE (merchant_id, scope, since_at)
  )`,
    `CREATE TABLE webhook_resend_events (
    resend_id ${text} NOT NULL REFERENCES webhook_resends (id),
    event_id ${text} NOT NULL,
    delivery_id ${text} NOT NULL,
    PRIMARY KEY (resend_id, event_id)
  )`,
    "CREATE INDEX webhook_deliveries_failed ON webhook_deliveries (merchant_id, created_at) WHERE status = 'failed'"
  ]
}
