/**
 * Sign-in throttling options of the panel, turned into the limits of `SignInThrottle` in
 * `@pixgate/core`: the counts live in the store, so every instance on one database shares them,
 * and an outsider failing on purpose slows only their own address (see that module).
 */
import { SignInThrottle } from "@pixgate/core"

/** Limits of the throttle. */
export interface ThrottleOptions {
  /** Failures of one account from one address before it is refused there (default 5). */
  readonly perAccount?: number
  /** Failures from one address, any account, before it is refused (default 20). */
  readonly perAddress?: number
  /** The window in ms (default 15 minutes). */
  readonly windowMs?: number
}

/** The store-backed throttle's limits for these options. */
export const limits = (options: ThrottleOptions = {}): SignInThrottle.Limits => ({
  ...SignInThrottle.defaults,
  ...(options.perAccount === undefined
    ? {}
    : {
        pairRefuseAt: options.perAccount,
        pairSlowAfter: Math.min(SignInThrottle.defaults.pairSlowAfter, options.perAccount)
      }),
  ...(options.perAddress === undefined ? {} : { addressRefuseAt: options.perAddress }),
  ...(options.windowMs === undefined ? {} : { windowMs: options.windowMs })
})
