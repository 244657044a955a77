/**
 * MED infractions and the devoluções the bank performs for them (migration 0022). Every
 * operation is one atomic unit that writes the infraction or the return, its journal entries and
 * its effects (events, jobs) together, deciding under the locks of the merchant's balances and
 * of the charge's row: a block takes only what the available balance has, a devolução is booked
 * once by the bank's id whatever reports it and how often.
 */
import { Context, type Effect, type Option } from "effect"
import type { JournalEntry, Mode, Transaction, TransactionId } from "../domain/Domain.js"
import type {
  Answer,
  Infraction,
  InfractionId,
  InfractionReturn,
  InfractionStatus
} from "../domain/Infractions.js"
import type { Cents } from "../domain/Money.js"
import type { Effects, StoreError } from "./Store.js"

/**
 * A new infraction. The unit checks the charge is a paid deposit (`completed` or `refunded`) of
 * the infraction's merchant and mode and that no infraction of the mode has its `bankId`
 * (`Exists`, with the one kept); then blocks `min(block, available)` (never below zero, never
 * money the balance does not have), stores the infraction with that `blockedAmount`, its entry
 * and effects.
 */
export interface OpenInfraction {
  readonly infraction: Infraction
  /** The most to block (0: no block). */
  readonly block: Cents
  /** The block's entry, given the infraction as stored (its `blockedAmount` decided); null when 0. */
  readonly entry: (opened: Infraction) => JournalEntry | null
  readonly effects: (opened: Infraction, charge: Transaction) => Effects
}

/** What `openInfraction` did. */
export type InfractionOpen =
  | { readonly _tag: "Opened"; readonly infraction: Infraction }
  | { readonly _tag: "Exists"; readonly infraction: Infraction }
  | { readonly _tag: "NotFound" }

/**
 * A state change, only from one of `from`. With `release`, what remains blocked goes back to the
 * available balance (`entry` of the amount) and `blockedAmount` becomes 0.
 */
export interface ChangeInfraction {
  readonly id: InfractionId
  readonly from: ReadonlyArray<InfractionStatus>
  readonly to: InfractionStatus
  readonly at: number
  readonly answer?: Answer
  readonly release: boolean
  readonly entry: (current: Infraction, released: Cents) => JournalEntry | null
  readonly effects: (updated: Infraction, charge: Transaction) => Effects
}

/**
 * A devolução the bank performed for a MED. Booked once per `(mode, id)`: a second report is
 * `Exists` and writes nothing. Matched to `infractionId`, or else to the charge's latest
 * infraction that is not rejected or cancelled, or to none (money from the available balance
 * only). Its amount leaves the infraction's block first and the available balance for the rest
 * (below zero if short). The unit refuses (`Exceeds`) a return that would take what the charge's
 * devoluções (completed refunds and MED returns) may no longer reach: more than it received.
 * With `conclude`, the infraction becomes `accepted` and what remains blocked is released.
 * The charge becomes `refunded` once its devoluções add up to what it received.
 */
export interface BookReturn {
  readonly mode: Mode
  readonly id: string
  readonly transactionId: TransactionId
  readonly infractionId: InfractionId | null
  readonly nature: InfractionReturn["nature"]
  readonly amount: Cents
  readonly returnedAt: number
  readonly at: number
  readonly conclude: boolean
  /** The entries: the return's, and the release's when there is one. */
  readonly entries: (
    booked: InfractionReturn,
    infraction: Infraction | null,
    released: Cents
  ) => ReadonlyArray<JournalEntry>
  readonly effects: (booked: InfractionReturn, infraction: Infraction | null, charge: Transaction) => Effects
}

/** What `bookReturn` did. */
export type ReturnBooking =
  | {
      readonly _tag: "Booked"
      readonly booked: InfractionReturn
      readonly infraction: Infraction | null
      readonly charge: Transaction
    }
  | { readonly _tag: "Exists"; readonly booked: InfractionReturn }
  | { readonly _tag: "NotFound" }
  | { readonly _tag: "Exceeds"; readonly returnable: Cents }

/** The infractions' operations, each one atomic unit. */
export interface InfractionStoreShape {
  readonly openInfraction: (input: OpenInfraction) => Effect.Effect<InfractionOpen, StoreError>
  /** A state change (`ChangeInfraction`); None when it is in none of `from`. */
  readonly changeInfraction: (input: ChangeInfraction) => Effect.Effect<Option.Option<Infraction>, StoreError>
  readonly bookReturn: (input: BookReturn) => Effect.Effect<ReturnBooking, StoreError>
  readonly getInfraction: (id: InfractionId) => Effect.Effect<Option.Option<Infraction>, StoreError>
  readonly findInfractionByBankId: (
    mode: Mode,
    bankId: string
  ) => Effect.Effect<Option.Option<Infraction>, StoreError>
  /** A merchant's infractions of one mode, newest first, optionally of some statuses. */
  readonly listInfractions: (query: {
    readonly merchantId: Transaction["merchantId"]
    readonly mode: Mode
    readonly statuses?: ReadonlyArray<InfractionStatus>
    readonly limit: number
  }) => Effect.Effect<ReadonlyArray<Infraction>, StoreError>
  /** The MED returns booked against a charge, oldest first. */
  readonly listInfractionReturns: (
    transactionId: TransactionId
  ) => Effect.Effect<ReadonlyArray<InfractionReturn>, StoreError>
}

/** An infraction as a bank reports it (`GatewayInfractions.opened`, `Infractions.open`). */
export interface InfractionReport {
  readonly transactionId: TransactionId
  /** The bank's id; a second report of it answers the infraction already kept. */
  readonly bankId: string
  readonly type: Infraction["type"]
  readonly reason: string
  /** What is claimed; the PIX's received amount when absent. */
  readonly amountClaimed?: Cents
  /** Whether the bank blocked the amount (bloqueio cautelar); default true. */
  readonly block?: boolean
  /** What the bank blocked, when less than the claim (the ledger blocks at most the available balance). */
  readonly blockAmount?: Cents
  readonly openedAt?: number
  readonly deadline?: number
}

/** A devolução of a MED nature as a bank reports it (a callback, a reconciliation, a timer). */
export interface ReturnReport {
  readonly mode: Mode
  /** The bank's id of the returned PIX (`rtrId`): the booking's key. */
  readonly returnId: string
  readonly transactionId: TransactionId
  readonly infractionId?: InfractionId
  readonly nature: InfractionReturn["nature"]
  readonly amount: Cents
  readonly returnedAt?: number
  /** The bank concluded the infraction with it (upheld): what stays blocked is released. */
  readonly conclude?: boolean
}

/**
 * What a bank gateway may tell the engine about MED infractions (`GatewayContext.infractions`,
 * absent when the store keeps none): each answers whether it applied (a repeat is `true` and
 * changes nothing).
 */
export interface GatewayInfractions {
  readonly opened: (report: InfractionReport) => Effect.Effect<Option.Option<Infraction>, StoreError>
  readonly concluded: (
    mode: Mode,
    bankId: string,
    outcome: "rejected" | "cancelled" | "accepted"
  ) => Effect.Effect<boolean, StoreError>
  readonly returned: (report: ReturnReport) => Effect.Effect<boolean, StoreError>
  readonly find: (mode: Mode, bankId: string) => Effect.Effect<Option.Option<Infraction>, StoreError>
}

/** MED infractions and their returns (`InfractionStoreShape`). */
export class InfractionStore extends Context.Tag("@pixgate/core/Store/InfractionStore")<
  InfractionStore,
  InfractionStoreShape
>() {}
