/**
 * The admin service's sandbox: top-ups and the bank's part played at once on test transactions
 * (a charge paid, a payout settled or failed, an infraction opened or resolved).
 */
import { Effect, Option } from "effect"
import type * as AdminViews from "../../contract/AdminViews.js"
import * as Errors from "../../contract/Errors.js"
import * as Requests from "../../contract/Requests.js"
import * as Views from "../../contract/Views.js"
import { type Chargeback, ChargebackId, findById, type Mode } from "../../domain/Domain.js"
import * as Ledger from "../../domain/Ledger.js"
import * as Money from "../../domain/Money.js"
import { LedgerStore, MerchantStore, ReadStore } from "../../ports/Store.js"
import { EngineConfig } from "../../runtime/Config.js"
import * as BankEvents from "../BankEvents.js"
import * as Chargebacks from "../Chargebacks.js"
import * as Payouts from "../Payouts.js"
import {
  type BalanceJson,
  badRequest,
  merchantOf,
  now,
  storeSafe,
  transactionOf,
  type View
} from "./Support.js"

/** Top-ups and the sandbox's bank actions. */
export interface SandboxAdmin {
  /** Adds sandbox money to a merchant's test balance. */
  readonly topUp: (
    merchantId: string,
    input: Requests.TopUp
  ) => Effect.Effect<
    BalanceJson & { readonly mode: "test" },
    Errors.ValidationError | Errors.NotFound | Errors.StorageUnavailable
  >
  /** Sandbox: the payer pays a test charge now. */
  readonly sandboxPayCharge: (
    transactionId: string,
    input?: Requests.SandboxPay
  ) => Effect.Effect<
    Views.TransactionJson,
    Errors.ValidationError | Errors.NotFound | Errors.Refused | Errors.StorageUnavailable
  >
  /** Sandbox: a test payout settles now. */
  readonly sandboxSettlePayout: (
    transactionId: string
  ) => Effect.Effect<Views.TransactionJson, Errors.NotFound | Errors.Refused | Errors.StorageUnavailable>
  /** Sandbox: a test payout fails now (`bank_rejected`). */
  readonly sandboxFailPayout: (
    transactionId: string
  ) => Effect.Effect<Views.TransactionJson, Errors.NotFound | Errors.Refused | Errors.StorageUnavailable>
  /** Sandbox: an infraction (MED) is opened over a completed test charge. */
  readonly sandboxOpenChargeback: (
    transactionId: string,
    input?: Requests.OpenChargeback
  ) => Effect.Effect<
    View<typeof AdminViews.Chargeback>,
    Errors.ValidationError | Errors.NotFound | Errors.Refused | Errors.StorageUnavailable
  >
  /** Sandbox: an open infraction is resolved for the payer (`accepted`) or the merchant. */
  readonly sandboxResolveChargeback: (
    chargebackId: string,
    outcome: "accepted" | "rejected"
  ) => Effect.Effect<
    View<typeof AdminViews.Chargeback>,
    Errors.NotFound | Errors.Refused | Errors.StorageUnavailable
  >
}

const refusal = (reason: Chargebacks.ChargebackRefusal): Errors.NotFound | Errors.Refused =>
  reason === "not_found"
    ? Errors.notFound("Transaction or chargeback")
    : new Errors.Refused({
        code: `chargeback_${reason}`,
        message: `Chargeback refused: ${reason.replaceAll("_", " ")}`
      })

const sandboxError = () =>
  new Errors.Refused({ code: "sandbox_only", message: "Sandbox actions apply to test mode only" })

const sandboxOnly = <T extends { readonly mode: Mode }>(t: T) =>
  t.mode === "test" ? Effect.succeed(t) : Effect.fail(sandboxError())

const refusalOf = (code: Errors.RefusedCode, message: string) => new Errors.Refused({ code, message })

const chargebackJson = (cb: Chargeback) => ({
  chargebackId: cb.id,
  transactionId: cb.transactionId,
  amount: Money.toReais(cb.amount),
  status: cb.status,
  reason: cb.reason,
  createdAt: Views.iso(cb.createdAt),
  updatedAt: Views.iso(cb.updatedAt)
})

/** What the operations use. */
const dependencies = Effect.gen(function* () {
  const reads = yield* ReadStore
  return {
    deps: {
      payouts: yield* Payouts.Payouts,
      bankEvents: yield* BankEvents.BankEvents,
      chargebacks: yield* Chargebacks.Chargebacks
    },
    ledger: yield* LedgerStore,
    reads,
    config: yield* EngineConfig,
    merchant: merchantOf(yield* MerchantStore),
    transaction: transactionOf(reads)
  }
})
type Deps = Effect.Effect.Success<typeof dependencies>

/** Adds sandbox money to a merchant's test balance. */
const topUp =
  ({ ledger, config, merchant }: Deps) =>
  (merchantId: string, input: Requests.TopUp) =>
    Effect.gen(function* () {
      const m = yield* merchant(merchantId)
      const cents = input.amount
      yield* Effect.mapError(Requests.checkAmount(cents, config.maxAmount), (e) =>
        badRequest("invalid_amount", "amount", e.message)
      )
      yield* ledger.postEntry(Ledger.sandboxTopUp(m.id, cents, yield* now))
      const b = yield* ledger.balance(m.id, "test")
      return {
        merchantId: m.id,
        mode: "test",
        available: Money.toReais(b.available),
        held: Money.toReais(b.held)
      } satisfies BalanceJson
    })

/**
 * Sandbox: the payer pays a test charge now, or on `paidAt` (a due-date charge then asks
 * for what its terms give on that day); `amount` sends another amount, which is recorded
 * and returned, not credited, as a live mismatched PIX is.
 */
const sandboxPayCharge =
  ({ reads, config, transaction, deps }: Deps) =>
  (transactionId: string, input: Requests.SandboxPay = {}) =>
    Effect.gen(function* () {
      const tx = yield* sandboxOnly(yield* transaction(transactionId))
      const paidAt = input.paidAt === undefined ? undefined : Requests.paidAtOf(input.paidAt)
      if (input.paidAt !== undefined && paidAt === undefined) {
        return yield* Effect.fail(
          badRequest("invalid_field", "paidAt", "paidAt must be a date YYYY-MM-DD or an ISO 8601 time")
        )
      }
      if (paidAt !== undefined && paidAt < tx.createdAt) {
        return yield* Effect.fail(
          badRequest("invalid_field", "paidAt", "paidAt must not be before the charge was created")
        )
      }
      if (input.amount !== undefined) {
        yield* Effect.mapError(Requests.checkAmount(input.amount, config.maxAmount), (e) =>
          badRequest("invalid_amount", "amount", e.message)
        )
      }
      const outcome =
        tx.txid === null
          ? "ignored"
          : yield* deps.bankEvents.pixReceived({
              txid: tx.txid,
              ...(paidAt === undefined ? {} : { paidAt }),
              ...(input.amount === undefined ? {} : { amount: input.amount })
            })
      if (outcome === "ignored") {
        return yield* Effect.fail(refusalOf("charge_not_pending", "Charge is not pending"))
      }
      return Views.transaction(Option.getOrThrow(yield* reads.getTransaction(tx.id)))
    })

/** Sandbox: the bank confirms a test payout now. */
const sandboxSettlePayout =
  ({ reads, transaction, deps }: Deps) =>
  (transactionId: string) =>
    Effect.gen(function* () {
      const tx = yield* sandboxOnly(yield* transaction(transactionId))
      if (!(yield* deps.payouts.settle(tx.id))) {
        return yield* Effect.fail(refusalOf("payout_not_pending", "Payout is not pending"))
      }
      return Views.transaction(Option.getOrThrow(yield* reads.getTransaction(tx.id)))
    })

/** Sandbox: the bank rejects a test payout now (money returned, no webhook). */
const sandboxFailPayout =
  ({ reads, transaction, deps }: Deps) =>
  (transactionId: string) =>
    Effect.gen(function* () {
      const tx = yield* sandboxOnly(yield* transaction(transactionId))
      if (!(yield* deps.payouts.fail(tx.id, "bank_rejected"))) {
        return yield* Effect.fail(refusalOf("payout_not_pending", "Payout is not pending"))
      }
      return Views.transaction(Option.getOrThrow(yield* reads.getTransaction(tx.id)))
    })

/** Sandbox: a payer disputes a completed test deposit. */
const sandboxOpenChargeback =
  ({ config, transaction, deps }: Deps) =>
  (transactionId: string, input: Requests.OpenChargeback = {}) =>
    Effect.gen(function* () {
      const tx = yield* sandboxOnly(yield* transaction(transactionId))
      const cents = input.amount
      if (cents !== undefined) {
        yield* Effect.mapError(Requests.checkAmount(cents, config.maxAmount), (e) =>
          badRequest("invalid_amount", "amount", e.message)
        )
      }
      const r = yield* deps.chargebacks.open(tx.id, cents === undefined ? {} : { amount: cents })
      if (!r.ok) return yield* Effect.fail(refusal(r.reason))
      return chargebackJson(r.value)
    })

/** Sandbox: resolves a test dispute for the payer (`accepted`) or the merchant (`rejected`). */
const sandboxResolveChargeback =
  ({ reads, deps }: Deps) =>
  (chargebackId: string, outcome: "accepted" | "rejected") =>
    Effect.gen(function* () {
      const found = yield* findById(ChargebackId, chargebackId, reads.getChargeback)
      if (Option.isNone(found)) return yield* Effect.fail(Errors.notFound("Chargeback"))
      if (found.value.mode !== "test") return yield* Effect.fail(sandboxError())
      const r = yield* deps.chargebacks.resolve(found.value.id, outcome)
      if (!r.ok) return yield* Effect.fail(refusal(r.reason))
      return chargebackJson(r.value)
    })

/** The sandbox's operations over the money-flow services they drive. */
export const make: Effect.Effect<
  SandboxAdmin,
  never,
  | MerchantStore
  | LedgerStore
  | ReadStore
  | EngineConfig
  | Payouts.Payouts
  | BankEvents.BankEvents
  | Chargebacks.Chargebacks
> = Effect.map(dependencies, (d) => ({
  topUp: storeSafe(topUp(d)),
  sandboxPayCharge: storeSafe(sandboxPayCharge(d)),
  sandboxSettlePayout: storeSafe(sandboxSettlePayout(d)),
  sandboxFailPayout: storeSafe(sandboxFailPayout(d)),
  sandboxOpenChargeback: storeSafe(sandboxOpenChargeback(d)),
  sandboxResolveChargeback: storeSafe(sandboxResolveChargeback(d))
}))
