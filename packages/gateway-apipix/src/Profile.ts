/**
 * A PSP profile: what one bank adds to the BCB standard, and how it fills what the standard
 * leaves open. The standard (charges, due-date charges, received PIX, devoluções, webhook
 * registration, reconciliation) is the same at every PSP; a profile says where the bank issues
 * tokens and with which scopes, where its API Pix lives, the headers or query parameters it
 * wants on every call, how it registers the callback when that differs, and brings its own
 * extensions: sends and MED infractions (no standard covers them).
 */
import type { BankGateway, Store } from "@pixgate/core"
import type { Effect } from "effect"
import * as Connection from "./standard/Connection.js"
import type { Setup } from "./standard/Setup.js"

/** A PSP's own send API, as the gateway uses it. */
export interface Sends {
  /** The engine's sender over the PSP's send API. */
  readonly sender: BankGateway.PixSender
  /**
   * One item of a callback (`{ "pix": [...] }`): true when it reports a send (and was handled:
   * its status asked of the PSP, the payout settled or failed), false for the standard to read
   * it as a received PIX.
   */
  readonly callbackItem: (
    item: Record<string, unknown>,
    ctx: BankGateway.GatewayContext
  ) => Effect.Effect<boolean, Store.StoreError>
}

/** A PSP's own MED infractions API, as the gateway uses it. */
export interface ProfileInfractions {
  /** Forwards a merchant's answer to the bank. */
  readonly defence: BankGateway.InfractionDefence
  /** The job kinds that read the infractions on a schedule. */
  readonly jobs: Readonly<Record<string, BankGateway.JobRun>>
  /** Seeds the schedule when the worker starts. */
  readonly start: (ctx: BankGateway.GatewayContext) => Effect.Effect<void>
}

/** One PSP's profile over the standard. */
export interface PspProfile extends Connection.Connection {
  /** The profile's name (`efi`). */
  readonly name: string
  /** Where the API Pix routes live under the base URL when the settings do not say (`/v2`). */
  readonly apiPixPath: string
  /** How the engine's callback URL is registered, when not the standard's `PUT /webhook/{chave}`. */
  readonly registerCallback?: (
    setup: Setup,
    url: string
  ) => Effect.Effect<Readonly<Record<string, string>>, BankGateway.GatewayFailure>
  /** The PSP's sends; without them the gateway sends no payouts. */
  readonly sends?: (setup: Setup) => Sends
  /** The PSP's MED infractions; without them the gateway reads none (capability `infractions: false`). */
  readonly infractions?: (setup: Setup) => ProfileInfractions
}

/** The standard alone: the BCB's token path and scopes, `/v2`, no extension. */
export const standard: PspProfile = { name: "apipix", ...Connection.standardConnection, apiPixPath: "/v2" }

/**
 * What a gateway over `profile` can do: the standard's part, and sends and infractions when the
 * profile has them.
 */
export const capabilities = (profile: PspProfile): BankGateway.Capabilities => ({
  charges: true,
  dueDateCharges: true,
  sends: profile.sends !== undefined,
  refunds: true,
  reconciliation: true,
  recurring: true,
  infractions: profile.infractions !== undefined
})
