/**
 * Per-API-key rate limit: a token bucket per key (docs/decisions.md default: 50 requests/s, burst
 * 100). Keys are identified by their public key id, never by the secret key. On a store that
 * offers shared buckets (`RateLimitStore`: Postgres), every instance draws from the same bucket
 * in the database, timed by the database's clock; otherwise (SQLite, memory, or `shared: false`)
 * the bucket is kept in this process's memory and timed by the Effect Clock.
 */
import { RateLimitStore } from "@pixgate/core"
import { Clock, Context, Duration, Effect, Layer, Option } from "effect"

/** Bucket size and refill rate. */
export interface RateLimitOptions {
  /** Tokens added per second (sustained requests per second). */
  readonly requestsPerSecond: number
  /** Largest bucket: requests allowed in one burst. */
  readonly burst: number
  /**
   * Use the store's shared buckets when it offers them (Postgres: one limit for all instances
   * on the database). `false` keeps the bucket in this process: N instances then allow N times
   * the limit. Default `true`.
   */
  readonly shared?: boolean
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

/** How long after a failed shared take this instance keeps to its own bucket. */
export const fallbackPeriod = Duration.seconds(5)

/**
 * A limiter over the store's shared buckets. When a take fails (the store's takes fail rather
 * than wait long: Postgres's after 2 s), it fails open to `local` (an in-process bucket of the
 * same size) for `fallbackPeriod`, with one warning: the limiter alone never turns a request
 * into a 5xx, and keys stay limited, per instance, while the database is away.
 */
export const sharedBucket = (
  store: RateLimitStore.RateLimitStoreShape,
  options: RateLimitOptions,
  local: RateLimiterShape = tokenBucket(options)
): RateLimiterShape => {
  const bucket = { requestsPerSecond: options.requestsPerSecond, burst: options.burst }
  const fallbackMillis = Duration.toMillis(fallbackPeriod)
  let localUntil = 0
  return {
    take: (key) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        now < localUntil
          ? local.take(key)
          : store.take(key, bucket).pipe(
              Effect.catchAll((error) =>
                Effect.flatMap(Clock.currentTimeMillis, (failedAt) => {
                  // One warning per period, however many takes were waiting when it began.
                  const first = failedAt >= localUntil
                  localUntil = Math.max(localUntil, failedAt + fallbackMillis)
                  return Effect.zipRight(
                    first
                      ? Effect.logWarning(
                          `Shared rate limit unavailable (${error.message}); each key is limited in this process for ${Duration.format(fallbackPeriod)}`
                        )
                      : Effect.void,
                    local.take(key)
                  )
                })
              )
            )
      )
  }
}

/** No limit at all. */
export const unlimited: RateLimiterShape = { take: () => Effect.succeed(0) }

/**
 * A token bucket limiter layer, or no limit with `false`. It uses the shared buckets of a store
 * in its context that offers them (`PgStore.layer`), unless `shared: false`; otherwise an
 * in-process bucket.
 */
export const layer = (options: RateLimitOptions | false = defaults): Layer.Layer<RateLimiter> =>
  Layer.effect(
    RateLimiter,
    options === false
      ? Effect.succeed(unlimited)
      : Effect.map(Effect.serviceOption(RateLimitStore.RateLimitStore), (store) => {
          const local = tokenBucket(options)
          return Option.isSome(store) && options.shared !== false
            ? sharedBucket(store.value, options, local)
            : local
        })
  )
