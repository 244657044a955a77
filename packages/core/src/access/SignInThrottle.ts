/**
 * Sign-in throttling shared by every instance through the store's counters (fixed windows of
 * `windowMs`). It slows guessing without letting an outsider lock an owner out:
 *
 * - per (account, address): after the 3rd and 4th failure in a window the answer waits (1 s,
 *   2 s); from the 5th, sign-in of that account from that address is refused until the window
 *   ends. The owner signing in from another address is not affected.
 * - per address, whatever the account: from the 20th failure in a window, that address may not
 *   sign in at all until the window ends (one machine guessing many accounts).
 * - per account, whatever the address: failures are counted and only slow answers (2 s past 20
 *   in a window), never refuse them, so no one can lock an account by failing on purpose.
 *
 * A success clears the (account, address) counter.
 */
import { Effect } from "effect"
import { PanelStore, type StoreError } from "../ports/Store.js"

/** The limits (defaults above). */
export interface Limits {
  readonly windowMs: number
  /** Failures of one account from one address before answers slow down. */
  readonly pairSlowAfter: number
  /** Failures of one account from one address before it is refused. */
  readonly pairRefuseAt: number
  /** Failures from one address, any account, before it is refused. */
  readonly addressRefuseAt: number
  /** Failures of one account, any address, before answers slow down. */
  readonly accountSlowAfter: number
  /** The longest wait added to an answer. */
  readonly maxDelayMs: number
}

/** The default limits. */
export const defaults: Limits = {
  windowMs: 15 * 60_000,
  pairSlowAfter: 2,
  pairRefuseAt: 5,
  addressRefuseAt: 20,
  accountSlowAfter: 20,
  maxDelayMs: 8_000
}

/** What to do with an attempt: go ahead after `delayMs`, or refuse it. */
export type Decision =
  | { readonly _tag: "Allowed"; readonly delayMs: number }
  | { readonly _tag: "Refused"; readonly retryAfterSeconds: number }

/** The throttle's key of a client's address: "unknown" when the host could not tell it. */
export const addressKey = (address: string | null): string => address ?? "unknown"

const keys = (account: string, address: string) => ({
  pair: `signin:pair:${account}|${address}`,
  address: `signin:addr:${address}`,
  account: `signin:acct:${account}`
})

/** The decision for an attempt, from the counters (nothing is counted). */
export const decide = (
  counts: { readonly pair: number; readonly address: number; readonly account: number },
  limits: Limits = defaults
): Decision => {
  if (counts.pair >= limits.pairRefuseAt || counts.address >= limits.addressRefuseAt)
    return { _tag: "Refused", retryAfterSeconds: Math.ceil(limits.windowMs / 1000) }
  const pairDelay =
    counts.pair > limits.pairSlowAfter ? 1000 * 2 ** (counts.pair - limits.pairSlowAfter - 1) : 0
  const accountDelay = counts.account > limits.accountSlowAfter ? 2000 : 0
  return { _tag: "Allowed", delayMs: Math.min(limits.maxDelayMs, Math.max(pairDelay, accountDelay)) }
}

/** The decision for a sign-in of `account` (lower-cased e-mail) from `address`. */
export const check = (
  account: string,
  address: string,
  limits: Limits = defaults
): Effect.Effect<Decision, StoreError, PanelStore> =>
  Effect.gen(function* () {
    const store = yield* PanelStore
    const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
    const k = keys(account, address)
    const [pair, byAddress, byAccount] = yield* Effect.all([
      store.peekThrottle(k.pair, now, limits.windowMs),
      store.peekThrottle(k.address, now, limits.windowMs),
      store.peekThrottle(k.account, now, limits.windowMs)
    ])
    return decide({ pair, address: byAddress, account: byAccount }, limits)
  })

/** Counts a failed sign-in. */
export const failed = (
  account: string,
  address: string,
  limits: Limits = defaults
): Effect.Effect<void, StoreError, PanelStore> =>
  Effect.gen(function* () {
    const store = yield* PanelStore
    const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
    const k = keys(account, address)
    yield* store.hitThrottle(k.pair, now, limits.windowMs)
    yield* store.hitThrottle(k.address, now, limits.windowMs)
    yield* store.hitThrottle(k.account, now, limits.windowMs)
  })

/** Forgets the failures of `account` from `address` after a success. */
export const succeeded = (account: string, address: string): Effect.Effect<void, StoreError, PanelStore> =>
  Effect.flatMap(PanelStore, (s) => s.clearThrottle(keys(account, address).pair))
