/**
 * The merchant panel's operations (the spec moved balance, keys and webhooks there): merchants,
 * API keys (shown once, stored hashed, revocable), the webhook endpoint of each mode, balances,
 * fee plans, the webhook log and redelivery, sandbox top-ups and sandbox actions. Used by the
 * CLI and the optional admin HTTP router; never exposed through the public API.
 */
import { Context, Effect, Layer } from "effect"
import * as MerchantsAdmin from "./admin/Merchants.js"
import * as RefundsAdmin from "./admin/Refunds.js"
import * as SandboxAdmin from "./admin/Sandbox.js"
import * as TeamAdmin from "./admin/Team.js"
import * as WebhooksAdmin from "./admin/Webhooks.js"

export type { BalanceJson, CreatedMerchant } from "./admin/Support.js"

/**
 * The admin service: what the CLI, the admin HTTP router and the panel call. Each operation's
 * error type lists only the `PixgateError` members it can fail with (storage failures become
 * `StorageUnavailable`). Each audience's operations live in their own module (`admin/`).
 */
export interface AdminShape
  extends MerchantsAdmin.MerchantsAdmin,
    WebhooksAdmin.WebhooksAdmin,
    TeamAdmin.TeamAdmin,
    SandboxAdmin.SandboxAdmin,
    RefundsAdmin.RefundsAdmin {}

/** Builds the service over the money-flow services it drives. */
export const make: Effect.Effect<
  AdminShape,
  never,
  | Effect.Effect.Context<typeof MerchantsAdmin.make>
  | Effect.Effect.Context<typeof WebhooksAdmin.make>
  | Effect.Effect.Context<typeof TeamAdmin.make>
  | Effect.Effect.Context<typeof SandboxAdmin.make>
  | Effect.Effect.Context<typeof RefundsAdmin.make>
> = Effect.map(
  Effect.all([MerchantsAdmin.make, WebhooksAdmin.make, TeamAdmin.make, SandboxAdmin.make, RefundsAdmin.make]),
  ([merchants, webhooks, team, sandbox, refunds]) => ({
    ...merchants,
    ...webhooks,
    ...team,
    ...sandbox,
    ...refunds
  })
)

/** The admin service, for the transports that serve the panel's operations. */
export class Admin extends Context.Tag("@pixgate/core/Admin")<Admin, AdminShape>() {}

/** The service over its dependencies, as its layer declares them. */
export const layer = Layer.effect(Admin, make)
