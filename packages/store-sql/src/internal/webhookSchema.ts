/**
 * Migration 0019: whether an endpoint's deliveries carry its secret in `X-<Service>-Signature`
 * (1, the spec's scheme, for every endpoint stored before) or rely on the Standard Webhooks
 * signature alone (0).
 */
export const secretHeader: ReadonlyArray<string> = [
  "ALTER TABLE webhook_endpoints ADD COLUMN secret_header INTEGER NOT NULL DEFAULT 1"
]
