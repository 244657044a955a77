/**
 * What each role of a merchant's panel user may do: one pure table, read by the panel's server
 * side before every action (a forbidden action answers 403, whatever the page showed) and by its
 * navigation (a link the role cannot use is not shown).
 *
 * - owner: everything, including users' roles, the audit log and sessions of the merchant.
 * - finance: money out (payouts, refunds) and everything a viewer reads.
 * - developer: API keys and webhooks, sandbox charges, and everything a viewer reads.
 * - viewer: reads only (transactions, balances, charges, the webhook log).
 */
import type { PanelRole } from "./Domain.js"

export { isPanelRole, type PanelRole, panelRoles } from "./Domain.js"

/** The actions the panel distinguishes. */
export const actions = [
  /** Read transactions, balances, charges, the webhook log. */
  "read",
  /** Create a charge (money in). */
  "charge.create",
  /** Send a payout. */
  "payout.create",
  /** Refund a charge. */
  "refund.create",
  /** Create or revoke API keys. */
  "key.manage",
  /** Set, rotate or delete webhook endpoints; redeliver and test events. */
  "webhook.manage",
  /** Read the audit log and export it. */
  "audit.read",
  /** Change users' roles, revoke other users' sessions. */
  "users.manage"
] as const

/** One action of the panel. */
export type Action = (typeof actions)[number]

/** The permission table: the actions of each role. */
export const permissions: { readonly [R in PanelRole]: ReadonlySet<Action> } = {
  owner: new Set(actions),
  finance: new Set<Action>(["read", "charge.create", "payout.create", "refund.create"]),
  developer: new Set<Action>(["read", "charge.create", "key.manage", "webhook.manage"]),
  viewer: new Set<Action>(["read"])
}

/** Whether `role` may do `action`. */
export const can = (role: PanelRole, action: Action): boolean => permissions[role].has(action)

/**
 * The actions that move live money or hand out live access: in live mode they ask for the
 * second factor (unless the panel's `requireSecondFactor` is relaxed).
 */
export const needsSecondFactorLive: ReadonlySet<Action> = new Set<Action>([
  "payout.create",
  "refund.create",
  "key.manage",
  "webhook.manage"
])
