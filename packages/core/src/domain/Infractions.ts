/**
 * MED infractions (Mecanismo Especial de Devolução), as the bank reports them against a PIX a
 * merchant received, and the devoluções the bank performs for them (pure values and rules).
 *
 * An infraction is opened by the payer's bank (fraud or an operational failure); the merchant's
 * bank may block the amount (bloqueio cautelar), the merchant answers (accepts or contests with
 * a justification) before a deadline, and the bank concludes: upheld (`accepted`: the money, or
 * what exists of it, is returned to the payer as a devolução of nature `MED_FRAUDE` or
 * `MED_OPERACIONAL`), `rejected` (the block is released) or `cancelled` by the payer's bank
 * (released). The ledger side is in `Ledger.ts` (`infraction.blocked`, `infraction.released`,
 * `infraction.returned`); docs/decisions.md ("MED infractions") holds the choices.
 */
import type { MerchantId, Mode, TransactionId } from "./Domain.js"
import * as Ids from "./Ids.js"
import type { Cents } from "./Money.js"

/** An infraction's id (`inf_...`). */
export type InfractionId = `inf_${string}`

const infractionIdPattern = /^inf_[0-9A-Za-z_]{1,100}$/

/** Whether `u` is an infraction id. */
export const isInfractionId = (u: unknown): u is InfractionId =>
  typeof u === "string" && infractionIdPattern.test(u)

/** A new infraction id. */
export const infractionId = (nowMs: number): InfractionId => Ids.newId("inf", nowMs) as InfractionId

/** What the payer's bank claims: a fraud, or an operational failure of a PSP. */
export const infractionTypes = ["fraud", "operational_failure"] as const
/** What the payer's bank claims. */
export type InfractionType = (typeof infractionTypes)[number]

/**
 * `open`: reported, waiting for the merchant's answer; `defended`: the merchant contested it, the
 * bank analyses; `accepted`: upheld (by the merchant or the bank), money returned as the bank
 * reports it; `rejected`: concluded for the merchant; `cancelled`: withdrawn by the payer's bank.
 */
export const infractionStatuses = ["open", "defended", "accepted", "rejected", "cancelled"] as const
/** An infraction's state. */
export type InfractionStatus = (typeof infractionStatuses)[number]

/** The states an answer may still be given in. */
export const answerable: ReadonlyArray<InfractionStatus> = ["open"]
/** The states before the bank's conclusion. */
export const pending: ReadonlyArray<InfractionStatus> = ["open", "defended"]
/** The bank's conclusions. */
export type Conclusion = "accepted" | "rejected" | "cancelled"

/** The nature of a devolução the bank performs for a MED (API Pix `natureza`). */
export const returnNatures = ["MED_FRAUDE", "MED_OPERACIONAL"] as const
/** The nature of a MED devolução. */
export type ReturnNature = (typeof returnNatures)[number]

/** The nature of the devolução an infraction of `type` leads to (FR01 fraud, BE08 operational). */
export const natureOf = (type: InfractionType): ReturnNature =>
  type === "fraud" ? "MED_FRAUDE" : "MED_OPERACIONAL"

/** The merchant's answer. */
export interface Answer {
  /** `accepted`: the merchant agrees the money goes back; `contested`: a defence. */
  readonly analysis: "accepted" | "contested"
  readonly justification: string
  readonly at: number
}

/** An infraction against a received PIX. */
export interface Infraction {
  readonly id: InfractionId
  readonly transactionId: TransactionId
  readonly merchantId: MerchantId
  readonly mode: Mode
  /** The bank's id of the infraction (Efí's `idInfracao`); unique per mode. */
  readonly bankId: string
  /** The PIX's endToEndId, as the bank names it. */
  readonly endToEndId: string | null
  readonly type: InfractionType
  readonly reason: string
  /** What the payer's bank claims back. */
  readonly amountClaimed: Cents
  /** What the ledger holds blocked for it now (`merchant:<id>:held`). */
  readonly blockedAmount: Cents
  /** What has been returned to the payer for it, every devolução summed. */
  readonly returnedAmount: Cents
  readonly status: InfractionStatus
  readonly answer: Answer | null
  /** When the bank opened it (its clock). */
  readonly openedAt: number
  /** The last moment the merchant may answer. */
  readonly deadline: number
  readonly createdAt: number
  readonly updatedAt: number
}

/**
 * A devolução the bank performed for a MED, booked once by its id (`rtrId`, unique per mode):
 * `fromBlocked` left the blocked account, `fromAvailable` the available balance (which may go
 * below zero: the shortfall, settled by the next credits).
 */
export interface InfractionReturn {
  /** The bank's id of the returned PIX (`rtrId`). */
  readonly id: string
  readonly mode: Mode
  readonly merchantId: MerchantId
  readonly transactionId: TransactionId
  /** The infraction it was matched to, when one is known. */
  readonly infractionId: InfractionId | null
  readonly nature: ReturnNature
  readonly amount: Cents
  readonly fromBlocked: Cents
  readonly fromAvailable: Cents
  /** When the bank says it returned the money. */
  readonly returnedAt: number
  readonly bookedAt: number
}

/** Whether a merchant may still answer at `now`. */
export const canAnswer = (infraction: Infraction, now: number): boolean =>
  answerable.includes(infraction.status) && now <= infraction.deadline

/** The default answer window: 7 days from opening (the bank's analysis period, MED rules). */
export const defaultAnswerWindow = 7 * 24 * 60 * 60 * 1000
