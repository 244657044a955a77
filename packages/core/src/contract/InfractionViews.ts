/**
 * MED infractions as the admin API and the CLI show them, and the requests that list and answer
 * them (`GET /merchants/{merchantId}/infractions`, `POST .../infractions/{infractionId}/answer`,
 * `pixgate infraction list|answer`).
 */
import { Schema } from "effect"
import type * as Domain from "../domain/Infractions.js"
import { infractionStatuses } from "../domain/Infractions.js"
import * as Money from "../domain/Money.js"
import { FirstProblemOnlyId, problem, required } from "./requests/Problems.js"
import { DateTime, iso, Reais } from "./Views.js"

const exampleTime = "2026-01-02T03:04:05.000Z"

/** An infraction's state. */
export const Status = Schema.Literal(...infractionStatuses).annotations({
  description:
    "`open` (waiting for the merchant's answer), `defended` (contested; the bank analyses), `accepted` (upheld: " +
    "money returned to the payer as the bank reports it), `rejected` (for the merchant: block released), " +
    "`cancelled` (withdrawn by the payer's bank: block released)"
})

/** A devolução the bank performed for a MED. */
export const Return = Schema.Struct({
  returnId: Schema.String.annotations({ description: "The bank's id of the returned PIX (`rtrId`)" }),
  nature: Schema.Literal("MED_FRAUDE", "MED_OPERACIONAL"),
  amount: Reais,
  fromBlocked: Reais.annotations({ description: "Taken from the blocked amount" }),
  fromAvailable: Reais.annotations({
    description: "Taken from the available balance (which may go below zero: the next credits settle it)"
  }),
  returnedAt: DateTime
}).annotations({ identifier: "InfractionReturn" })

/** An infraction, as the admin API and the CLI show it. */
export const Infraction = Schema.Struct({
  infractionId: Schema.String.annotations({ description: "`inf_...`" }),
  transactionId: Schema.String.annotations({ description: "The charge the PIX paid (`tx_...`)" }),
  bankId: Schema.String.annotations({ description: "The bank's id of the infraction" }),
  endToEndId: Schema.NullOr(Schema.String),
  type: Schema.Literal("fraud", "operational_failure"),
  reason: Schema.String,
  status: Status,
  amountClaimed: Reais,
  blockedAmount: Reais.annotations({ description: "Held apart now: payouts cannot spend it" }),
  returnedAmount: Reais.annotations({ description: "Returned to the payer so far" }),
  answer: Schema.NullOr(
    Schema.Struct({
      analysis: Schema.Literal("accepted", "contested"),
      justification: Schema.String,
      at: DateTime
    })
  ),
  openedAt: DateTime,
  deadline: DateTime.annotations({ description: "The last moment to answer (accept or contest)" }),
  createdAt: DateTime,
  updatedAt: DateTime
}).annotations({
  identifier: "Infraction",
  description: "A MED infraction the bank reported against a PIX the merchant received",
  examples: [
    {
      infractionId: "inf_01JD8Z3Q7W5K2M9N4P6R8T0V2Z",
      transactionId: "tx_01JD8Z3Q7W5K2M9N4P6R8T0V2X",
      bankId: "91d65e98-97c0-4b0f-b577-73625da1f9fc",
      endToEndId: "E1234567820260102030400000000002",
      type: "fraud",
      reason: "Golpe do falso vendedor",
      status: "open",
      amountClaimed: 10.5,
      blockedAmount: 10.5,
      returnedAmount: 0,
      answer: null,
      openedAt: exampleTime,
      deadline: "2026-01-09T03:04:05.000Z",
      createdAt: exampleTime,
      updatedAt: exampleTime
    }
  ]
})

/** An infraction's JSON. */
export type InfractionJson = typeof Infraction.Type

/** A merchant's infractions, newest first. */
export const InfractionList = Schema.Struct({ data: Schema.Array(Infraction) }).annotations({
  identifier: "InfractionList"
})

/** An infraction as JSON. */
export const infractionJson = (i: Domain.Infraction): InfractionJson => ({
  infractionId: i.id,
  transactionId: i.transactionId,
  bankId: i.bankId,
  endToEndId: i.endToEndId,
  type: i.type,
  reason: i.reason,
  status: i.status,
  amountClaimed: Money.toReais(i.amountClaimed),
  blockedAmount: Money.toReais(i.blockedAmount),
  returnedAmount: Money.toReais(i.returnedAmount),
  answer:
    i.answer === null
      ? null
      : { analysis: i.answer.analysis, justification: i.answer.justification, at: iso(i.answer.at) },
  openedAt: iso(i.openedAt),
  deadline: iso(i.deadline),
  createdAt: iso(i.createdAt),
  updatedAt: iso(i.updatedAt)
})

/** A return as JSON. */
export const returnJson = (r: Domain.InfractionReturn): typeof Return.Type => ({
  returnId: r.id,
  nature: r.nature,
  amount: Money.toReais(r.amount),
  fromBlocked: Money.toReais(r.fromBlocked),
  fromAvailable: Money.toReais(r.fromAvailable),
  returnedAt: iso(r.returnedAt)
})

const invalid = (path: string, message: string) => problem("invalid_field", message, path)

/** The most characters of a justification (API Pix / Efí defence text). */
export const maxJustification = 2000

/** `GET /merchants/{merchantId}/infractions?mode=&status=`. */
export const ListQuery = Schema.Struct({
  mode: required(
    Schema.Literal("test", "live").annotations(invalid("mode", "mode must be one of: test, live")),
    invalid("mode", "mode must be one of: test, live")
  ),
  status: Schema.optional(
    Schema.Literal(...infractionStatuses).annotations(
      invalid("status", `status must be one of: ${infractionStatuses.join(", ")}`)
    )
  )
  // No identifier: a named query schema becomes a `$ref` the document does not expand into parameters.
}).annotations({ [FirstProblemOnlyId]: true })

/** `POST /merchants/{merchantId}/infractions/{infractionId}/answer`. */
export const Answer = Schema.Struct({
  analysis: required(
    Schema.Literal("accepted", "contested").annotations({
      ...invalid("analysis", "analysis must be one of: accepted, contested"),
      description:
        "`accepted`: the money goes back to the payer; `contested`: a defence (with a justification)"
    }),
    invalid("analysis", "analysis must be one of: accepted, contested")
  ),
  justification: required(
    Schema.String.annotations(
      invalid("justification", `justification must be a string of 1 to ${maxJustification} characters`)
    ).pipe(
      Schema.filter((s) => s.trim().length > 0 && s.length <= maxJustification && !s.includes("\u0000"), {
        ...invalid("justification", `justification must be a string of 1 to ${maxJustification} characters`)
      })
    ),
    invalid("justification", `justification must be a string of 1 to ${maxJustification} characters`)
  )
}).annotations({
  identifier: "AnswerInfractionRequest",
  [FirstProblemOnlyId]: true,
  examples: [
    { analysis: "contested", justification: "Produto entregue em 02/01, nota fiscal 1234 e rastreio anexos" }
  ]
})

/** A merchant's answer. */
export interface Answer extends Schema.Schema.Type<typeof Answer> {}
