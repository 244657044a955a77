/**
 * Erasure of personal data (LGPD; docs/operations.md, "Retention and erasure"): a payer's name,
 * CPF/CNPJ and PIX key on every transaction of theirs, and their name and CPF/CNPJ as the debtor
 * of every subscription, on request (`pixgate erase payer`, the
 * admin API), and everyone's past the retention period. The marker `PersonalData.erased` takes
 * their place; amounts, ids, statuses and the ledger stay exactly as they were.
 */
import { Context, Duration, Effect, Either, Layer, Option } from "effect"
import * as Errors from "../contract/Errors.js"
import * as Document from "../domain/Document.js"
import { PersonalDataStore } from "../ports/Store.js"
import { SubscriptionStore } from "../ports/SubscriptionStore.js"

/** How many transactions, and subscriptions (their debtor), an erasure changed. */
export interface Erased {
  readonly transactions: number
  readonly subscriptions: number
}

/** Transactions erased per unit by `eraseOlderThan`: each unit stays short, however much is due. */
export const retentionChunk = 500

/** The erasure operations. */
export interface ErasureShape {
  /**
   * Erases the payer (or payout recipient) with this CPF or CNPJ, formatted or not, in every
   * merchant and mode. An invalid document is a 422 (`invalid_client_doc`); erasing again
   * answers 0.
   */
  readonly erasePayer: (
    document: string
  ) => Effect.Effect<Erased, Errors.ValidationError | Errors.StorageUnavailable>
  /** Erases the personal data of every transaction created more than `age` ago, in short units. */
  readonly eraseOlderThan: (age: Duration.DurationInput) => Effect.Effect<Erased, Errors.StorageUnavailable>
}

/** Builds the service. */
export const make = Effect.gen(function* () {
  const store = yield* PersonalDataStore
  // The subscriptions' debtors, where the store keeps subscriptions.
  const subscriptionStore = yield* Effect.serviceOption(SubscriptionStore)
  const eraseDebtor = (document: string) =>
    Option.match(subscriptionStore, {
      onNone: () => Effect.succeed(0),
      onSome: (subs) => subs.eraseDebtor(document)
    })
  const erasePayer = (document: string) =>
    Either.match(Document.parse(document), {
      onLeft: (reason) =>
        Effect.fail(
          Errors.validation(
            "invalid_client_doc",
            "document",
            `document must be a valid CPF or CNPJ (${reason})`
          )
        ),
      onRight: (doc) =>
        Effect.zip(store.erasePayer(doc.value), eraseDebtor(doc.value)).pipe(
          Effect.map(([transactions, subscriptions]) => ({ transactions, subscriptions })),
          Effect.catchTag("StoreError", (e) => Effect.fail(Errors.unavailable(e)))
        )
    })
  const eraseOlderThan = (age: Duration.DurationInput) =>
    Effect.gen(function* () {
      const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
      const before = now - Duration.toMillis(Duration.decode(age))
      let transactions = 0
      for (;;) {
        const n = yield* store.erasePersonalDataBefore(before, retentionChunk)
        transactions += n
        if (n < retentionChunk) return { transactions, subscriptions: 0 }
      }
    }).pipe(Effect.catchTag("StoreError", (e) => Effect.fail(Errors.unavailable(e))))
  return { erasePayer, eraseOlderThan } satisfies ErasureShape
})

/** The erasure service. */
export class Erasure extends Context.Tag("@pixgate/core/Erasure")<Erasure, ErasureShape>() {}

/** The service over the store's `PersonalDataStore`. */
export const layer = Layer.effect(Erasure, make)
