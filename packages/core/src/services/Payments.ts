/**
 * Internal payments (`type: payment`): an instant transfer between two merchants of the same
 * engine and mode, with no bank involved. Each side gets its own completed transaction; the
 * debit is guarded like a payout's. Engine API only (the spec has no public endpoint for it).
 */
import { Context, Effect, Either, Layer, Option } from "effect"
import * as Errors from "../contract/Errors.js"
import * as Events from "../contract/Events.js"
import * as Views from "../contract/Views.js"
import { availableAccount, findById, MerchantId, newTransaction, type Transaction } from "../domain/Domain.js"
import * as Ids from "../domain/Ids.js"
import * as Ledger from "../domain/Ledger.js"
import * as Money from "../domain/Money.js"
import { LedgerStore, MerchantStore } from "../ports/Store.js"
import { EngineConfig } from "../runtime/Config.js"
import type { Caller } from "./Auth.js"

/** A request to pay another merchant. */
export interface PaymentRequest {
  readonly to: string
  readonly amount: unknown
  readonly description?: string
}

/** Payment operations. */
export interface PaymentsShape {
  /** Moves `amount` from the caller's available balance to another merchant's, at once. */
  readonly create: (
    caller: Caller,
    request: PaymentRequest
  ) => Effect.Effect<
    Views.TransactionJson,
    Errors.ValidationError | Errors.InsufficientBalance | Errors.StorageUnavailable
  >
}

/** Builds the service. */
export const make = Effect.gen(function* () {
  const store = yield* LedgerStore
  const merchants = yield* MerchantStore
  const config = yield* EngineConfig

  const create = (caller: Caller, request: PaymentRequest) =>
    Effect.gen(function* () {
      const amount = yield* Either.mapLeft(Money.fromReais(request.amount, config.maxAmount), (e) =>
        Errors.validation("invalid_amount", "amount", e.message)
      )
      const description = request.description ?? null
      if (description !== null && description.length > 140) {
        return yield* Effect.fail(
          Errors.validation(
            "invalid_description",
            "description",
            "description must be a string of at most 140 characters"
          )
        )
      }
      const receiver = yield* findById(MerchantId, request.to, merchants.getMerchant)
      if (Option.isNone(receiver) || receiver.value.id === caller.merchant.id) {
        return yield* Effect.fail(
          Errors.validation("invalid_recipient", "to", "to must be another merchant's id")
        )
      }
      const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
      const side = (merchantId: MerchantId, counterpartyId: MerchantId): Transaction =>
        newTransaction({
          id: Ids.transactionId(now),
          merchantId,
          mode: caller.mode,
          type: "payment",
          status: "completed",
          amount,
          description,
          paidAt: now,
          counterpartyId,
          createdAt: now
        })
      const sent = side(caller.merchant.id, receiver.value.id)
      const received = side(receiver.value.id, caller.merchant.id)
      const outcome = yield* store.insertTransactions({
        transactions: [sent, received],
        entry: Ledger.payment(sent, received, now),
        guard: { account: availableAccount(caller.merchant.id), covers: amount },
        effects: {
          events: [Events.transactionCreated(sent, now), Events.transactionCreated(received, now)],
          jobs: []
        }
      })
      if (outcome === "insufficient") return yield* Effect.fail(Errors.insufficientBalance())
      return Views.transaction(sent)
    }).pipe(Effect.catchTag("StoreError", (e) => Effect.fail(Errors.unavailable(e))))

  return { create } satisfies PaymentsShape
})

/** The internal payments service, for the services and transports that use it. */
export class Payments extends Context.Tag("@pixgate/core/Payments")<Payments, PaymentsShape>() {}

/** The service over its dependencies, as its layer declares them (without spans: `Engine.layer` adds them). */
export const layer = Layer.effect(Payments, make)
