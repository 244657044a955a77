/**
 * The engine as a transport drives it, for tests written against request bodies: each body is
 * decoded with `Requests` (and the engine's maximum amount) before the typed service runs, and an
 * error is seen as its answer (the HTTP package's status, code, message, details).
 */

import { Status } from "@pixgate/http"
import { Effect, type Schema } from "effect"
import * as Errors from "../../src/contract/Errors.js"
import * as Requests from "../../src/contract/Requests.js"
import { Engine, type EngineShape } from "../../src/Engine.js"
import type { Caller } from "../../src/services/Auth.js"

/** The engine with its request-taking operations fed raw bodies, as the HTTP API feeds them. */
export const withRequests = (engine: EngineShape) => {
  const decode = <A, I>(schema: Schema.Schema<A, I>, input: unknown) =>
    Requests.decode(schema, engine.config)(input)
  return {
    ...engine,
    charges: {
      ...engine.charges,
      create: (caller: Caller, body: unknown) =>
        Effect.flatMap(decode(Requests.CreateCharge, body), (input) => engine.charges.create(caller, input))
    },
    payouts: {
      ...engine.payouts,
      create: (caller: Caller, body: unknown) =>
        Effect.flatMap(decode(Requests.CreatePayout, body), (input) => engine.payouts.create(caller, input))
    },
    transactions: {
      list: (caller: Caller, query: unknown) =>
        Effect.flatMap(decode(Requests.ListTransactionsRequest, query), (input) =>
          engine.transactions.list(caller, input)
        )
    },
    admin: {
      ...engine.admin,
      topUp: (merchantId: string, amount: unknown) =>
        Effect.flatMap(decode(Requests.TopUp, { amount }), (input) => engine.admin.topUp(merchantId, input))
    }
  }
}

/** `Engine`, fed raw request bodies (see `withRequests`). */
export const RequestEngine = Effect.map(Engine, withRequests)

/** An error as the HTTP API answers it: status, code, message, details, and the 503's extras. */
export const answer = (error: Errors.PixgateError) => ({
  status: Status.statusOf(error),
  code: error.code,
  message: error.message,
  details: "details" in error ? error.details : undefined,
  outcome: error._tag === "StorageUnavailable" ? error.outcome : undefined,
  retryAfter: error._tag === "StorageUnavailable" ? error.retryAfter : undefined,
  replayed: Errors.isReplayed(error),
  body: Errors.body(error)
})
