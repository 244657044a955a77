/**
 * Sign-in throttling: failed attempts counted per account and per client address in a sliding
 * window; past the limit, sign-in is refused (429) until the window moves on. In memory, per
 * process: enough to make guessing slow; several instances each keep their own counts.
 */

/** Limits of the throttle. */
export interface ThrottleOptions {
  /** Failures allowed per account in the window (default 5). */
  readonly perAccount?: number
  /** Failures allowed per address in the window (default 20). */
  readonly perAddress?: number
  /** The window in ms (default 15 minutes). */
  readonly windowMs?: number
}

/** A sliding-window failure counter. */
export class Throttle {
  private readonly failures = new Map<string, Array<number>>()
  private readonly perAccount: number
  private readonly perAddress: number
  private readonly windowMs: number

  constructor(options: ThrottleOptions = {}) {
    this.perAccount = options.perAccount ?? 5
    this.perAddress = options.perAddress ?? 20
    this.windowMs = options.windowMs ?? 15 * 60_000
  }

  private recent(key: string, now: number): Array<number> {
    const list = (this.failures.get(key) ?? []).filter((t) => t > now - this.windowMs)
    if (list.length === 0) this.failures.delete(key)
    else this.failures.set(key, list)
    return list
  }

  /** Whether another attempt may be made now. */
  allowed(account: string, address: string, now: number): boolean {
    return (
      this.recent(`a:${account}`, now).length < this.perAccount &&
      this.recent(`i:${address}`, now).length < this.perAddress
    )
  }

  /** Counts a failed attempt. */
  fail(account: string, address: string, now: number): void {
    // Many distinct accounts or addresses: drop the ones whose window has passed.
    if (this.failures.size > 10_000) for (const key of [...this.failures.keys()]) this.recent(key, now)
    for (const key of [`a:${account}`, `i:${address}`])
      this.failures.set(key, [...this.recent(key, now), now])
  }

  /** Forgets the account's failures after a successful sign-in. */
  succeed(account: string): void {
    this.failures.delete(`a:${account}`)
  }
}
