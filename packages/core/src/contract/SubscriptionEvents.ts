/**
 * The events of subscriptions (Pix Automático): every change of a recurrence's status (and of
 * its push request, its payer's maximum) is `subscription.updated`; every change of a cycle
 * charge (created, attempt scheduled, paid, rejected, retried, expired, cancelled) is
 * `subscription.cycle.updated`. Each carries the whole record as the API shows it, so a merchant
 * needs no read after it; signed, delivered and retried like every event.
 */
import { Schema } from "effect"
import type { Event } from "../domain/Domain.js"
import * as Ids from "../domain/Ids.js"
import type * as R from "../domain/Recurrence.js"
import { cycleJson, subscriptionJson } from "./SubscriptionViews.js"
import { DateTime } from "./Views.js"

const exampleTime = "2026-01-02T03:04:05.000Z"
const RecStatus = Schema.Literal("CRIADA", "APROVADA", "REJEITADA", "EXPIRADA", "CANCELADA")
const CobRStatus = Schema.Literal("CRIADA", "ATIVA", "CONCLUIDA", "EXPIRADA", "REJEITADA", "CANCELADA")
/** A JSON object (the record as the API shows it), documented as such. */
const Record = Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
  jsonSchema: { type: "object", additionalProperties: true }
})

const envelope = <Name extends string, D extends Schema.Struct.Fields>(
  name: Name,
  identifier: string,
  summary: string,
  data: D
) =>
  Schema.Struct({
    id: Schema.String.annotations({
      description: "The event's id, the same on every retry: deduplicate on it"
    }),
    event: Schema.Literal(name),
    data: Schema.Struct(data),
    timestamp: DateTime
  }).annotations({ identifier, title: summary, description: summary })

/** The webhook bodies of the subscription events (the OpenAPI document's `webhooks`). */
export const subscriptionWebhooks = {
  "subscription.updated": envelope(
    "subscription.updated",
    "SubscriptionUpdatedEvent",
    "A subscription (Pix Automático recurrence) was created or changed status",
    {
      subscriptionId: Schema.String.annotations({ description: "The subscription's id (`sub_...`)" }),
      idRec: Schema.NullOr(Schema.String).annotations({ description: "The recurrence's id (29 characters)" }),
      status: RecStatus,
      subscription: Record.annotations({
        description: "The subscription as `GET /api/v1/subscriptions/{id}` shows it"
      })
    }
  ).annotations({
    examples: [
      {
        id: "evt_01JD8Z3Q7W5K2M9N4P6R8T0V30",
        event: "subscription.updated",
        data: {
          subscriptionId: "sub_01JD8Z3Q7W5K2M9N4P6R8T0V31",
          idRec: "RR1234567820260102abcdefghijk",
          status: "APROVADA",
          subscription: { id: "sub_01JD8Z3Q7W5K2M9N4P6R8T0V31", status: "APROVADA" }
        },
        timestamp: exampleTime
      }
    ]
  }),
  "subscription.cycle.updated": envelope(
    "subscription.cycle.updated",
    "SubscriptionCycleUpdatedEvent",
    "A subscription's cycle charge (API Pix cobr) was created or changed: an attempt, a payment, a rejection, a retry, its end",
    {
      subscriptionId: Schema.String.annotations({ description: "The subscription's id (`sub_...`)" }),
      idRec: Schema.String,
      txid: Schema.String,
      ciclo: Schema.Number.annotations({ description: "1 for the first cycle" }),
      status: CobRStatus,
      transactionId: Schema.String.annotations({
        description: "The charge transaction that books the cycle's money"
      }),
      cycle: Record.annotations({
        description: "The cycle as `GET /api/v1/subscriptions/{id}/cycles` lists it"
      })
    }
  ).annotations({
    examples: [
      {
        id: "evt_01JD8Z3Q7W5K2M9N4P6R8T0V32",
        event: "subscription.cycle.updated",
        data: {
          subscriptionId: "sub_01JD8Z3Q7W5K2M9N4P6R8T0V31",
          idRec: "RR1234567820260102abcdefghijk",
          txid: "pixgate01JD8Z3Q7W5K2M9N4P6R8T0V",
          ciclo: 1,
          status: "CONCLUIDA",
          transactionId: "tx_01JD8Z3Q7W5K2M9N4P6R8T0V33",
          cycle: { txid: "pixgate01JD8Z3Q7W5K2M9N4P6R8T0V", status: "CONCLUIDA" }
        },
        timestamp: exampleTime
      }
    ]
  })
} as const

/** `subscription.updated` for a subscription as it now is. */
export const subscriptionUpdated = (s: R.Subscription, now: number): Event => ({
  id: Ids.eventId(now),
  merchantId: s.merchantId,
  mode: s.mode,
  type: "subscription.updated",
  data: { subscriptionId: s.id, idRec: s.idRec, status: s.status, subscription: subscriptionJson(s) },
  createdAt: now
})

/** `subscription.cycle.updated` for a cycle as it now is. */
export const cycleUpdated = (c: R.Cycle, now: number): Event => ({
  id: Ids.eventId(now),
  merchantId: c.merchantId,
  mode: c.mode,
  type: "subscription.cycle.updated",
  data: {
    subscriptionId: c.subscriptionId,
    idRec: c.idRec,
    txid: c.txid,
    ciclo: c.sequence + 1,
    status: c.status,
    transactionId: c.transactionId,
    cycle: cycleJson(c)
  },
  createdAt: now
})
