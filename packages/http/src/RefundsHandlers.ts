/**
 * The handlers of `RefundsApi`: one admin operation each (`engine.admin.createRefund`,
 * `listRefunds`). A refund needs its Idempotency-Key (it names the refund): without one the
 * request is refused before the engine is asked.
 */
import { Engine, Errors } from "@pixgate/core"
import { Effect } from "effect"
import type { GroupHandlers } from "./EndpointHandlers.js"
import type { AdminRefundsGroup } from "./RefundsApi.js"

/** The engine's admin operations. */
const withAdmin = <A, E>(f: (admin: Engine.EngineShape["admin"]) => Effect.Effect<A, E>) =>
  Effect.flatMap(Engine.Engine, (engine) => f(engine.admin))

/** By endpoint name. */
export const handlers: GroupHandlers<typeof AdminRefundsGroup> = {
  createRefund: ({ path, payload, headers }) => {
    const key = headers["idempotency-key"]
    return key === undefined
      ? Effect.fail(
          Errors.validation(
            "invalid_idempotency_key",
            "Idempotency-Key",
            "Idempotency-Key is required: it names the refund, so a retry never refunds twice"
          )
        )
      : withAdmin((a) => a.createRefund(path.merchantId, path.transactionId, payload, key))
  },
  listRefunds: ({ path }) => withAdmin((a) => a.listRefunds(path.merchantId, path.transactionId))
}
