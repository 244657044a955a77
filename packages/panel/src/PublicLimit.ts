/**
 * The rate limit of the public payment pages, per client address (per the trusted proxies,
 * `trustProxy` / `PIXGATE_TRUST_PROXY`). It is the API's limiter by another key: a token bucket
 * in the store when the store shares its buckets between instances (`RateLimitStore`, Postgres;
 * what `@pixgate/http`'s `RateLimit` uses), else a token bucket in this process, and the same
 * fail-open rule (a store that cannot answer never turns a page into an error: this process's
 * bucket decides meanwhile). The panel cannot import `@pixgate/http` (that package embeds it),
 * hence the small bucket here.
 */
import { RateLimitStore } from "@pixgate/core"
import { Clock, Effect, Option } from "effect"

/** Bucket size and refill rate of one kind of request. */
export interface Bucket {
  readonly requestsPerSecond: number
  readonly burst: number
}

/**
 * Pages and the status route (a payer's page polls every 2-15 s): 2 per second, bursts of 60.
 * Charges made: one per 5 s sustained, bursts of 10, per address.
 */
export const buckets = {
  read: { requestsPerSecond: 2, burst: 60 },
  create: { requestsPerSecond: 0.2, burst: 10 }
} as const satisfies Record<string, Bucket>

interface Held {
  tokens: number
  at: number
}

/** An in-process token bucket per key: 0 when allowed, else seconds to wait (>= 1). */
export const local = () => {
  const held = new Map<string, Held>()
  return (key: string, bucket: Bucket): Effect.Effect<number> =>
    Effect.map(Clock.currentTimeMillis, (now) => {
      if (held.size > 10_000) {
        for (const [k, h] of held)
          if (h.tokens + (now - h.at) * (bucket.requestsPerSecond / 1000) >= bucket.burst) held.delete(k)
      }
      const h = held.get(key) ?? { tokens: bucket.burst, at: now }
      h.tokens = Math.min(
        bucket.burst,
        h.tokens + Math.max(0, now - h.at) * (bucket.requestsPerSecond / 1000)
      )
      h.at = Math.max(h.at, now)
      held.set(key, h)
      if (h.tokens >= 1) {
        h.tokens -= 1
        return 0
      }
      return RateLimitStore.retryAfterSeconds(h.tokens, bucket.requestsPerSecond)
    })
}

/** The limiter: `take(kind, address)` is 0 when allowed, else the seconds to wait. */
export const make = () => {
  const inProcess = local()
  return (kind: keyof typeof buckets, address: string): Effect.Effect<number> => {
    const key = `pay-${kind}:${address}`
    const bucket = buckets[kind]
    return Effect.flatMap(Effect.serviceOption(RateLimitStore.RateLimitStore), (shared) =>
      Option.isNone(shared)
        ? inProcess(key, bucket)
        : shared.value.take(key, bucket).pipe(Effect.catchAll(() => inProcess(key, bucket)))
    )
  }
}
