/**
 * Statements of migration 0027: the events' type CHECK takes the webhook endpoint events
 * (`webhook_endpoint.disabled`, `webhook_endpoint.enabled`), replaced from `Domain.eventTypes` as
 * migration 0023 did for the subscription events.
 */
import { Domain } from "@pixgate/core"
import type { Dialect } from "./schema.js"

const quoted = (values: ReadonlyArray<string>) => values.map((v) => `'${v}'`).join(", ")

/** Migration 0027. */
export const endpointEvents = (dialect: Dialect): ReadonlyArray<string> =>
  dialect === "pg"
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
      ]
