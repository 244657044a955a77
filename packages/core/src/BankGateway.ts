/**
 * The bank-gateway port: what the engine asks of the bank that holds the settlement account.
 * The bank's answers (charge paid, payout settled or failed, infractions) come back through
 * `BankEvents`. The sandbox implements it in-process; a live API Pix adapter plugs in the same way.
 */
import { Context, Data, type Effect, type Option } from "effect"
import type { Job, Mode, Transaction } from "./Domain.js"

/** The bank could not be reached or refused the request. */
export class GatewayFailure extends Data.TaggedError("GatewayFailure")<{
  readonly message: string
  readonly cause?: unknown
}> {}

/** Moments after which a gateway may want durable timers written in the same unit. */
export type GatewayMoment = "charge.created" | "charge.completed" | "payout.created" | "chargeback.opened"

/** One bank gateway. */
export interface BankGatewayShape {
  /** Registers a charge; returns its location URL without scheme (BR Code field 26-25). */
  readonly createCharge: (charge: Transaction) => Effect.Effect<{ readonly location: string }, GatewayFailure>
  /** Sends a PIX for a payout; idempotent on the payout's id and endToEndId. */
  readonly sendPix: (payout: Transaction) => Effect.Effect<void, GatewayFailure>
  /** Timers to write with a change (the sandbox's settlement); a live gateway returns none. */
  readonly timers: (
    moment: GatewayMoment,
    subject: Transaction,
    ref: string,
    now: number
  ) => ReadonlyArray<Job>
}

/** The gateway of each mode: the sandbox for test keys, the configured bank for live keys. */
export class Gateways extends Context.Tag("@pixgate/core/Gateways")<
  Gateways,
  { readonly forMode: (mode: Mode) => Option.Option<BankGatewayShape> }
>() {}
