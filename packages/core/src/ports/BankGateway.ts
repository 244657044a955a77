/**
 * The bank-gateway port: what the engine asks of the bank that holds the settlement account.
 * The bank's answers (charge paid, payout settled or failed, infractions) come back through
 * `BankEvents`. The sandbox implements it in-process; `@pixgate/gateway-apipix` implements it
 * over the Central Bank's API Pix standard, and a platform plugs its own bank in the same way.
 */
import { Context, Data, type Effect, type Either, type Option, type Scope } from "effect"
import type {
  ChargebackId,
  Job,
  JobId,
  MerchantId,
  Mode,
  Refund,
  RefundId,
  Transaction,
  TransactionId
} from "../domain/Domain.js"
import type { Answer, Infraction } from "../domain/Infractions.js"
import type { Cents } from "../domain/Money.js"
import type { GatewayInfractions } from "./InfractionStore.js"
import type { ClaimedJob, StoreError } from "./Store.js"

/**
 * The bank could not be reached or refused the request. `outcome: "unknown"` when the request
 * may have been carried out (a time-out, a lost connection, a 5xx): not a refusal, so what it
 * asked for is found out before anything else is done (see `Charges`).
 */
export class GatewayFailure extends Data.TaggedError("GatewayFailure")<{
  readonly message: string
  readonly cause?: unknown
  readonly outcome?: "unknown"
}> {}

/** Moments after which a gateway may want durable timers written in the same unit. */
export type GatewayMoment =
  | "charge.created"
  /**
   * Creating a charge had an unknown outcome: the bank may hold it although the client got a
   * 502. The gateway finds out, and withdraws it if no retry adopts it (`subject` is the draft).
   */
  | "charge.unknown"
  | "charge.completed"
  | "payout.created"
  | "chargeback.opened"
  /** A PIX was received but not credited (after expiry, wrong amount): the gateway returns it. */
  | "payment.returned"

/**
 * What the bank says about one send (a payout's PIX). Three outcomes, not two: `Rejected` is
 * definite (the payout fails and its money comes back); `Unknown` (a time-out, a reset, a 5xx)
 * is not a failure: the payout stays pending and its status is asked again, never re-sent blindly.
 */
export type SendStatus =
  /** The bank has no send with this payout's id: it was never received. */
  | { readonly _tag: "NotFound" }
  /** Accepted, not final yet. */
  | { readonly _tag: "Processing"; readonly endToEndId?: string }
  /** The money left: final. */
  | { readonly _tag: "Settled"; readonly endToEndId?: string }
  /**
   * Refused or returned by the bank: final, the payout fails. `reason` is the bank's words and
   * `code` its error code, when it gives one (both go to the logs, never to the merchant).
   */
  | { readonly _tag: "Rejected"; readonly reason: string; readonly code?: string }
  /** No answer worth acting on: ask again later. */
  | { readonly _tag: "Unknown"; readonly reason: string }

/**
 * Sending PIX (not standardised across banks). The engine runs each send as a durable
 * `payout.send` job written in the payout's own unit (the outbox): a run that may follow an
 * earlier one asks `status` first, so a send cut by a crash or a time-out is never made twice,
 * and calls `send` only on `NotFound`; the first attempt (the creation's inline run of the job
 * it has just written) calls `send` at once. A `Settled` answer to `send` is final: nothing is
 * asked after it. Both must be idempotent on the payout's id.
 */
export interface PixSender {
  readonly send: (payout: Transaction) => Effect.Effect<SendStatus>
  readonly status: (payout: Transaction) => Effect.Effect<SendStatus>
  /** How long to wait before asking again about a send not final yet (ms). */
  readonly pollDelay: number
  /**
   * How long a payout's creation waits for its first send (ms), so that the 201 can carry the
   * bank's end-to-end id. The attempt is the `payout.send` job itself, run after the payout's
   * commit while the creation holds the job (as a worker's lease would); past the budget the
   * 201 answers without the id and the attempt goes on. Absent or 0: the job alone sends.
   */
  readonly inlineBudget?: number
}

/**
 * Refunds (devoluções) of received PIX: API Pix `PUT /pix/{e2eid}/devolucao/{id}` and its `GET`,
 * both idempotent on the refund's bank id (`Refunds.bankRefundId`). The engine runs each refund
 * as a durable `refund.send` job written in the refund's own unit: it asks `status` first and
 * calls `send` only on `NotFound`, so an unknown outcome is asked about, never sent again
 * blindly. The statuses are a send's (`Settled.endToEndId` is the returned PIX's `rtrId`).
 */
export interface PixRefunder {
  readonly send: (refund: Refund, charge: Transaction) => Effect.Effect<SendStatus>
  readonly status: (refund: Refund, charge: Transaction) => Effect.Effect<SendStatus>
  /** How long to wait before asking again about a refund not final yet (ms). */
  readonly pollDelay: number
}

/**
 * What the bank said about a merchant's answer to a MED infraction (`InfractionDefence.send`).
 * `Sent`: the bank has it (sent now, or an earlier identical answer found by reading the
 * infraction back); `Refused`: definite (`deadline_passed`: after the bank's deadline;
 * `not_answerable`: concluded or answered otherwise at the bank; `invalid`: the bank refused its
 * content), `message` in the bank's words; `Unknown`: no answer worth acting on even after reading
 * the infraction back: nothing is recorded, and the same answer may be given again.
 */
export type DefenceOutcome =
  | { readonly _tag: "Sent" }
  | {
      readonly _tag: "Refused"
      readonly reason: "deadline_passed" | "not_answerable" | "invalid"
      readonly message: string
    }
  | { readonly _tag: "Unknown"; readonly reason: string }

/**
 * Forwards a merchant's answer to a MED infraction to the bank (Efí: `POST
 * /v2/gn/infracoes/{idInfracao}/defesa`), within the gateway's call deadline. An unknown outcome
 * of the call (a time-out, a reset, a 5xx) is never taken for a refusal: the gateway reads the
 * infraction back first and answers `Sent` when the bank holds the answer.
 */
export interface InfractionDefence {
  readonly send: (infraction: Infraction, answer: Answer) => Effect.Effect<DefenceOutcome>
}

/** A payer's PIX arrived for a charge. */
export interface ChargePaid {
  readonly txid: string
  /** The payer's PSP's end-to-end id; generated when absent (sandbox). */
  readonly endToEndId?: string
  readonly paidAt?: number
  /**
   * What the bank received (centavos); when absent (the sandbox's payer), what the charge asks
   * for: its amount, or a due-date charge's amount due on `paidAt`.
   */
  readonly amount?: Cents
  /**
   * The charge as the reporter has just read it, when it has (the sandbox's payer reads it by
   * id for its txid): it is not looked up again by `txid`. The change itself is still guarded
   * by the charge's status and `paidAt` as they are when it commits.
   */
  readonly charge?: Transaction
}

/** What became of a reported PIX. */
export type ChargePaidOutcome = "completed" | "returned" | "ignored"

/**
 * What a gateway's jobs, callbacks and start may do: tell the engine what the bank said, read
 * one transaction, and finish, retry or schedule its own jobs. Each report is idempotent and
 * answers whether it changed anything (a repeated or late report changes nothing). This is all
 * a gateway sees of the engine and its store.
 */
export interface GatewayContext {
  /** A PIX arrived for a charge: credited, recorded to be returned, or already known. */
  readonly paymentReceived: (event: ChargePaid) => Effect.Effect<ChargePaidOutcome, StoreError>
  /**
   * Charges' PIX, each reported by its own job (`JobChargePayment`, the charge as the job read
   * it) and applied as that job's change (as `asJob` runs `paymentReceived`: the change
   * completes its job in its unit; a job whose PIX changed nothing is finished): the plain
   * completions in one store operation, each its own unit; any other PIX (late, of another
   * amount, known already) as `paymentReceived` alone. Answers, in order, each job's outcome:
   * done, or the failure of its own unit (the job is left to its lease). Present only where the
   * gateway may report on any charge (a fenced context has none: `paymentReceived` per job then).
   */
  readonly chargesPaidAsJobs?:
    | ((
        payments: ReadonlyArray<JobChargePayment>
      ) => Effect.Effect<ReadonlyArray<Either.Either<void, StoreError>>>)
    | undefined
  /** The devolução of a PIX that was not credited was accepted: the failed charge becomes `refunded`. */
  readonly paymentReturned: (id: TransactionId) => Effect.Effect<boolean, StoreError>
  /** A payout's PIX left the account: it completes. */
  readonly payoutSettled: (id: TransactionId, endToEndId?: string) => Effect.Effect<boolean, StoreError>
  /**
   * Payouts' PIX that left the account, each reported by its own job (`JobSettlement`) and
   * applied as that job's change (as `asJob` runs `payoutSettled`: the change completes its
   * job in its unit; a job whose payout had moved on is finished): all of them in one store
   * operation, each its own unit. Answers, in order, each job's outcome: done, or the failure
   * of its own unit (the job is left to its lease, as a single run's failure is). Present only
   * where the gateway may report on any payout (a fenced context has none: `payoutSettled` per
   * job then).
   */
  readonly payoutsSettledAsJobs?:
    | ((
        settlements: ReadonlyArray<JobSettlement>
      ) => Effect.Effect<ReadonlyArray<Either.Either<void, StoreError>>>)
    | undefined
  /** A payout's PIX was refused or returned: it fails and its money comes back. */
  readonly payoutFailed: (id: TransactionId, reason: string) => Effect.Effect<boolean, StoreError>
  /** A refund (devolução) the bank settled (`returnId`: the returned PIX's id). */
  readonly refundSettled: (id: RefundId, returnId?: string) => Effect.Effect<boolean, StoreError>
  /** A refund the bank refused: it fails and its amount comes back to the balance. */
  readonly refundFailed: (id: RefundId, reason: string) => Effect.Effect<boolean, StoreError>
  /** An infraction (MED) was opened over a completed charge; false when it could not be. */
  /** MED infractions and their devoluções (absent when the store keeps none: docs/decisions.md). */
  readonly infractions?: GatewayInfractions | undefined
  readonly chargebackOpened: (id: TransactionId) => Effect.Effect<boolean, StoreError>
  /** An infraction was resolved, for the payer (`accepted`) or the merchant (`rejected`). */
  readonly chargebackResolved: (
    id: ChargebackId,
    outcome: "accepted" | "rejected"
  ) => Effect.Effect<boolean, StoreError>
  /** One transaction by id. */
  readonly getTransaction: (id: TransactionId) => Effect.Effect<Option.Option<Transaction>, StoreError>
  /** One charge by the txid the bank knows it by. */
  readonly findByTxid: (txid: string) => Effect.Effect<Option.Option<Transaction>, StoreError>
  /** The job is done: it is removed. */
  readonly finishJob: (id: JobId) => Effect.Effect<void, StoreError>
  /** The job runs again at `runAt` (epoch ms). */
  readonly retryJob: (id: JobId, runAt: number) => Effect.Effect<void, StoreError>
  /** Writes a new job; fails when one with its id exists already. */
  readonly scheduleJob: (job: Job) => Effect.Effect<void, StoreError>
  /**
   * Runs a report as the job's own change: the change completes the job in its unit; when it
   * changes nothing (the transaction moved on), the job is finished here. A timer's usual body.
   */
  readonly asJob: (
    job: ClaimedJob,
    change: Effect.Effect<boolean, StoreError>
  ) => Effect.Effect<void, StoreError>
}

/** What runs one job kind of a gateway; it finishes or reschedules its job. */
export type JobRun = (job: ClaimedJob, ctx: GatewayContext) => Effect.Effect<void, StoreError>

/** A charge's PIX reported by its own job (`GatewayContext.chargesPaidAsJobs`). */
export interface JobChargePayment {
  readonly job: ClaimedJob
  readonly event: ChargePaid
}

/** A payout's settlement reported by its own job (`GatewayContext.payoutsSettledAsJobs`). */
export interface JobSettlement {
  readonly job: ClaimedJob
  readonly id: TransactionId
  readonly endToEndId?: string | undefined
}

/**
 * What runs many claimed jobs of one kind at once (`BankGatewayShape.jobBatches`): each job
 * ends as its `JobRun` would end it (finished, rescheduled, or failed and left to its lease),
 * and answers its own outcome, in order.
 */
export type JobBatchRun = (
  jobs: ReadonlyArray<ClaimedJob>,
  ctx: GatewayContext
) => Effect.Effect<ReadonlyArray<Either.Either<void, StoreError>>>

/** A bank callback as the HTTP transport received it, past its secret path segment. */
export interface BankCallback {
  /** The rest of the path after the secret (e.g. `/pix`), "" when none. */
  readonly path: string
  readonly body: unknown
  /**
   * A request header by its lower-case name, when the transport passes them: for a bank that
   * authenticates its callbacks with a header of its own (Asaas's `asaas-access-token`).
   */
  readonly header?: (name: string) => string | undefined
}

/**
 * What a gateway can do, declared by it, so the engine can refuse what a bank does not offer
 * with a clear answer of its own instead of the bank's error. Recurring charges (Pix Automático)
 * and infractions (MED) are named already; a gateway says `false` until it offers them.
 */
export interface Capabilities {
  /** Immediate charges (API Pix `cob`). */
  readonly charges: boolean
  /** Charges with a due date, fine, interest and discounts (API Pix `cobv`). */
  readonly dueDateCharges: boolean
  /** Payouts: PIX sent from the settlement account (`sender`). */
  readonly sends: boolean
  /** Merchants' refunds of received PIX, devoluções (`refunder`, or the gateway's own timers). */
  readonly refunds: boolean
  /** Finding PIX no callback reported, by reading what the account received. */
  readonly reconciliation: boolean
  /** Recurring charges (Pix Automático). */
  readonly recurring: boolean
  /** Infractions (MED) read from the bank. */
  readonly infractions: boolean
}

/** One bank gateway. */
export interface BankGatewayShape {
  /**
   * What it can do. A gateway that does not say is taken for what its shape offers
   * (`capabilitiesOf`); a plugin's gateway carries the plugin's declaration.
   */
  readonly capabilities?: Capabilities
  /**
   * Registers a charge; returns its location URL without scheme (BR Code field 26-25), and
   * the bank's own BR Code ("copia e cola") when the bank issues one, used as is.
   */
  readonly createCharge: (
    charge: Transaction
  ) => Effect.Effect<{ readonly location: string; readonly brCode?: string }, GatewayFailure>
  /** Sends payouts' PIX through durable jobs; without one, payouts wait for `timers` only (sandbox). */
  readonly sender?: PixSender
  /**
   * Forwards merchants' answers to MED infractions to the bank; without one, an answer is only
   * recorded (the sandbox, a plugin that reads infractions but takes no defence).
   */
  readonly infractionDefence?: InfractionDefence
  /** Refunds received PIX (devoluções); without one, live refunds are refused (the sandbox settles its own). */
  readonly refunder?: PixRefunder
  /**
   * Timers to write with a new refund, for a gateway that settles its own refunds (the
   * sandbox); without it, a refund is sent through a `refund.send` job and the `refunder`.
   */
  readonly refundTimers?: (refund: Refund, now: number) => ReadonlyArray<Job>
  /** Timers to write with a change (the sandbox's settlement, a gateway's refund of a PIX). */
  readonly timers: (
    moment: GatewayMoment,
    subject: Transaction,
    ref: string,
    now: number
  ) => ReadonlyArray<Job>
  /**
   * The gateway's own job kinds (polls, reconciliation, refunds), run by the engine's worker.
   * A runner finishes or reschedules its job (`ctx.finishJob` / `ctx.retryJob` / `ctx.asJob`).
   */
  readonly jobs?: Readonly<Record<string, JobRun>>
  /**
   * Job kinds of `jobs` that may also run many at once: the worker hands a claim's jobs of
   * such a kind to one run (one fiber, one store operation) instead of one each. Each kind here
   * must be in `jobs`, which still runs a lone job of it.
   */
  readonly jobBatches?: Readonly<Record<string, JobBatchRun>>
  /** Runs once the engine's worker starts (e.g. schedules the first reconciliation), for its scope. */
  readonly start?: (ctx: GatewayContext) => Effect.Effect<void, never, Scope.Scope>
  /** Handles a callback from the bank; fails when it could not be applied (the bank retries). */
  readonly callback?: (
    callback: BankCallback,
    ctx: GatewayContext
  ) => Effect.Effect<void, GatewayFailure | StoreError>
}

/**
 * A gateway's capabilities: its own declaration, else what its shape offers (charges of both
 * kinds, sends with a `sender`, refunds with a `refunder` or refund timers; nothing else).
 */
export const capabilitiesOf = (gateway: BankGatewayShape): Capabilities =>
  gateway.capabilities ?? {
    charges: true,
    dueDateCharges: true,
    sends: gateway.sender !== undefined,
    refunds: gateway.refunder !== undefined || gateway.refundTimers !== undefined,
    reconciliation: false,
    recurring: false,
    infractions: false
  }

/**
 * The live bank gateway, when provided as a service (e.g. `@pixgate/gateway-apipix`'s layer):
 * `Engine.layer` uses it for live keys unless `EngineOptions.liveGateway` names one.
 */
export class LiveGateway extends Context.Tag("@pixgate/core/LiveGateway")<LiveGateway, BankGatewayShape>() {}

/** A live gateway with the name merchants are assigned to it by (its plugin's name). */
export interface NamedGateway {
  readonly name: string
  readonly gateway: BankGatewayShape
}

/**
 * The gateway of each mode: the sandbox for test keys, the configured bank for live keys; with
 * several live gateways, each merchant's (`MerchantGatewayStore`): a transaction goes through
 * the gateway its merchant was assigned when it was created.
 */
export class Gateways extends Context.Tag("@pixgate/core/Gateways")<
  Gateways,
  {
    /** The mode's default gateway (the live one merchants without an assignment use). */
    readonly forMode: (mode: Mode) => Option.Option<BankGatewayShape>
    /** Every live gateway, the default first. */
    readonly live: ReadonlyArray<NamedGateway>
    /**
     * The gateway of `merchantId`'s transaction of `mode` created at `at` (a new one: now):
     * none when live mode has no gateway, or the merchant's is no longer configured.
     */
    readonly forMerchant: (
      merchantId: MerchantId,
      mode: Mode,
      at: number
    ) => Effect.Effect<Option.Option<NamedGateway>, StoreError>
  }
>() {}
