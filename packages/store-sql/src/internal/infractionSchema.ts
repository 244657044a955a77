/**
 * Statements of migration 0022: MED infractions (one per bank id and mode) and the devoluções
 * the bank performed for them (one per bank id `rtrId` and mode: the booking's idempotency).
 */
import type { Dialect } from "./schema.js"

/** Migration 0022. */
export const infractions = (dialect: Dialect): ReadonlyArray<string> => {
  const text = dialect === "pg" ? 'TEXT COLLATE "C"' : "TEXT"
  const mode = `mode ${text} NOT NULL CHECK (mode IN ('test', 'live'))`
  return [
    `CREATE TABLE infractions (
    id ${text} PRIMARY KEY,
    transaction_id ${text} NOT NULL REFERENCES transactions (id),
    merchant_id ${text} NOT NULL,
    ${mode},
    bank_id ${text} NOT NULL,
    end_to_end_id ${text},
    type ${text} NOT NULL CHECK (type IN ('fraud', 'operational_failure')),
    reason ${text} NOT NULL,
    amount_claimed BIGINT NOT NULL CHECK (amount_claimed > 0),
    blocked_amount BIGINT NOT NULL CHECK (blocked_amount >= 0),
    returned_amount BIGINT NOT NULL CHECK (returned_amount >= 0),
    status ${text} NOT NULL CHECK (status IN ('open', 'defended', 'accepted', 'rejected', 'cancelled')),
    answer_analysis ${text} CHECK (answer_analysis IN ('accepted', 'contested')),
    answer_justification ${text},
    answered_at BIGINT,
    opened_at BIGINT NOT NULL,
    deadline BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    UNIQUE (mode, bank_id)
  )`,
    "CREATE INDEX infractions_merchant ON infractions (merchant_id, mode, id)",
    "CREATE INDEX infractions_transaction ON infractions (transaction_id)",
    `CREATE TABLE infraction_returns (
    id ${text} NOT NULL,
    ${mode},
    merchant_id ${text} NOT NULL,
    transaction_id ${text} NOT NULL REFERENCES transactions (id),
    infraction_id ${text} REFERENCES infractions (id),
    nature ${text} NOT NULL CHECK (nature IN ('MED_FRAUDE', 'MED_OPERACIONAL')),
    amount BIGINT NOT NULL CHECK (amount > 0),
    from_blocked BIGINT NOT NULL CHECK (from_blocked >= 0),
    from_available BIGINT NOT NULL CHECK (from_available >= 0),
    returned_at BIGINT NOT NULL,
    booked_at BIGINT NOT NULL,
    PRIMARY KEY (mode, id)
  )`,
    "CREATE INDEX infraction_returns_transaction ON infraction_returns (transaction_id)"
  ]
}
