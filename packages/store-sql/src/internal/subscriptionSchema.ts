/**
 * Statements of migration 0023: subscriptions (Pix Automático recurrences) and their cycles.
 * Each row keeps its record as JSON (`body`) beside the columns it is found and ordered by; the
 * unique (subscription_id, sequence) is what keeps a cycle from ever being created twice.
 */
import { Domain } from "@pixgate/core"
import type { Dialect } from "./schema.js"

const quoted = (values: ReadonlyArray<string>) => values.map((v) => `'${v}'`).join(", ")

/** Migration 0023. */
export const subscriptions = (dialect: Dialect): ReadonlyArray<string> => {
  const text = dialect === "pg" ? 'TEXT COLLATE "C"' : "TEXT"
  return [
    `CREATE TABLE subscriptions (
    id ${text} PRIMARY KEY,
    merchant_id ${text} NOT NULL,
    mode ${text} NOT NULL CHECK (mode IN ('test', 'live')),
    id_rec ${text} UNIQUE,
    status ${text} NOT NULL CHECK (status IN ('CRIADA', 'APROVADA', 'REJEITADA', 'EXPIRADA', 'CANCELADA')),
    next_at BIGINT,
    version BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    body TEXT NOT NULL
  )`,
    "CREATE INDEX subscriptions_merchant ON subscriptions (merchant_id, mode, id)",
    "CREATE INDEX subscriptions_next_at ON subscriptions (next_at) WHERE next_at IS NOT NULL",
    `CREATE TABLE subscription_cycles (
    txid ${text} PRIMARY KEY,
    subscription_id ${text} NOT NULL REFERENCES subscriptions (id),
    sequence INTEGER NOT NULL CHECK (sequence >= 0),
    status ${text} NOT NULL CHECK (status IN ('CRIADA', 'ATIVA', 'CONCLUIDA', 'EXPIRADA', 'REJEITADA', 'CANCELADA')),
    next_at BIGINT,
    version BIGINT NOT NULL,
    body TEXT NOT NULL,
    UNIQUE (subscription_id, sequence)
  )`,
    "CREATE INDEX subscription_cycles_next_at ON subscription_cycles (next_at) WHERE next_at IS NOT NULL",
    // The events' type CHECK takes the subscription events (replaced as migrations 0012 and 0015 did).
    ...(dialect === "pg"
      ? [
          "ALTER TABLE events DROP CONSTRAINT IF EXISTS events_type_check",
          `ALTER TABLE events ADD CONSTRAINT events_type_check CHECK (type IN (${quoted(Domain.eventTypes)}))`
        ]
      : [
          `ALTER TABLE events ADD COLUMN type_next TEXT NOT NULL DEFAULT 'transaction.created'
    CHECK (type_next IN (${quoted(Domain.eventTypes)}))`,
          "UPDATE events SET type_next = type",
          "ALTER TABLE events DROP COLUMN type",
          "ALTER TABLE events RENAME COLUMN type_next TO type"
        ])
  ]
}

/**
 * Migration 0028: the debtor's name and CPF/CNPJ sealed (`subscriptions.debtor`) and the keyed
 * hash of the document (`debtor_hash`) erasure finds a payer's subscriptions by.
 */
export const sealedDebtors = (dialect: Dialect): ReadonlyArray<string> => {
  const text = dialect === "pg" ? 'TEXT COLLATE "C"' : "TEXT"
  return [
    "ALTER TABLE subscriptions ADD COLUMN debtor TEXT",
    `ALTER TABLE subscriptions ADD COLUMN debtor_hash ${text}`,
    "CREATE INDEX subscriptions_debtor_hash ON subscriptions (debtor_hash) WHERE debtor_hash IS NOT NULL"
  ]
}
