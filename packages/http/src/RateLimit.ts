/**
 * Per-API-key rate limit: a token bucket per key (docs/decisions.md default: 50 requests/s, burst
 * 100), kept in this process's memory and timed by the Effect Clock. Keys are identified by
 * their public key id, never by the secret key.
 */
import { Clock, Context, Effect, Layer } from "effect"

/** Bucket size and refill rate. */
export interface RateLimitOptions {
  /** Tokens added per second (sustained requests per second). */
  readonly requestsPerSecond: number
  /** Largest bucket: requests allowed in one burst. */
  readonly burst: number
}

/** docs/decisions.md default. */
export const defaults: RateLimitOptions = { requestsPerSecond: 50, burst: 100 }

/** Takes a token for a key: 0 when allowed, else the seconds to wait before retrying (>= 1). */
export interface RateLimiterShape {
  readonly take: (key: string) => Effect.Effect<number>
}

/** The rate limiter of the public API. */
export class RateLimiter extends Context.Tag("@pixgate/http/RateLimiter")<RateLimiter, RateLimiterShape>() {}

interface Bucket {
  tokens: number
  at: number
}

/** Buckets kept before idle (full) ones are swept. */
const sweepAbove = 10_000

/** A token bucket limiter. */
export const tokenBucket = (options: RateLimitOptions = defaults): RateLimiterShape => {
  if (!(options.requestsPerSecond > 0 && options.burst >= 1)) {
    throw new RangeError("rate limit needs requestsPerSecond > 0 and burst >= 1")
  }
  const rate = options.requestsPerSecond / 1000
  const burst = options.burst
  const buckets = new Map<string, Bucket>()
  // A clock that steps back (NTP) adds nothing rather than taking tokens away.
  const refill = (bucket: Bucket, now: number) =>
    Math.min(burst, bucket.tokens + Math.max(0, now - bucket.at) * rate)
  const sweep = (now: number) => {
    for (const [key, bucket] of buckets) if (refill(bucket, now) >= burst) buckets.delete(key)
  }
  return {
    take: (key) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        if (buckets.size > sweepAbove) sweep(now)
        const bucket = buckets.get(key) ?? { tokens: burst, at: now }
        bucket.tokens = refill(bucket, now)
        bucket.at = Math.max(bucket.at, now)
        buckets.set(key, bucket)
        if (bucket.tokens >= 1) {
          bucket.tokens -= 1
          return 0
        }
        return Math.max(1, Math.ceil((1 - bucket.tokens) / rate / 1000))
      })
  }
}

/** No limit at all. */
export const unlimited: RateLimiterShape = { take: () => Effect.succeed(0) }

/** A token bucket limiter layer, or no limit with `false`. */
export const layer = (options: RateLimitOptions | false = defaults): Layer.Layer<RateLimiter> =>
  Layer.sync(RateLimiter, () => (options === false ? unlimited : tokenBucket(options)))
