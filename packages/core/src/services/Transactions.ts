/**
 * The merchant's transaction list: its own transactions of the key's mode only, newest first,
 * filtered and paginated exactly as docs/decisions.md says.
 */
import { Context, Effect, Layer } from "effect"
import * as Errors from "../contract/Errors.js"
import type { ListTransactions } from "../contract/Requests.js"
import * as Views from "../contract/Views.js"
import { ReadStore } from "../ports/Store.js"
import type { Caller } from "./Auth.js"

/** List operations. */
export interface TransactionsShape {
  /** A page of the caller's transactions (the spec's GET /api/v1/transactions; decode its query with `Requests.ListTransactionsRequest`). */
  readonly list: (
    caller: Caller,
    input: ListTransactions
  ) => Effect.Effect<Views.TransactionPageJson, Errors.StorageUnavailable>
}

/** Builds the service. */
export const make = Effect.gen(function* () {
  const store = yield* ReadStore
  const list = (caller: Caller, input: ListTransactions) =>
    Effect.gen(function* () {
      const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
      const { rows, total } = yield* store.listTransactions({
        merchantId: caller.merchant.id,
        mode: caller.mode,
        ...(input.type === undefined ? {} : { type: input.type }),
        ...(input.status === undefined ? {} : { status: input.status }),
        ...(input.from === undefined ? {} : { from: input.from }),
        ...(input.to === undefined ? {} : { to: input.to }),
        offset: (input.page - 1) * input.limit,
        limit: input.limit
      })
      return {
        data: rows.map((tx) => Views.transaction(tx, now)),
        total,
        page: input.page,
        limit: input.limit,
        pages: Math.ceil(total / input.limit)
      } satisfies Views.TransactionPageJson
    }).pipe(Effect.catchTag("StoreError", (e) => Effect.fail(Errors.unavailable(e))))
  return { list } satisfies TransactionsShape
})

/** The transaction reads service, for the services and transports that use it. */
export class Transactions extends Context.Tag("@pixgate/core/Transactions")<
  Transactions,
  TransactionsShape
>() {}

/** The service over its dependencies, as its layer declares them (without spans: `Engine.layer` adds them). */
export const layer = Layer.effect(Transactions, make)
