/**
 * A per-key token bucket kept by the store, so every engine instance on one database draws from
 * the same bucket (`@pixgate/store-pg` provides one; SQLite and memory do not). The HTTP
 * transport's limiter (`RateLimit.layer` of `@pixgate/http`) uses it when the store's layer
 * provides it, and its own in-process bucket otherwise.
 */
import { Context, type Effect } from "effect"
import type { StoreError } from "./Store.js"

/** Bucket size and refill rate (the same numbers as the in-process bucket's). */
export interface Bucket {
  /** Tokens added per second. */
  readonly requestsPerSecond: number
  /** Largest bucket: requests allowed in one burst. */
  readonly burst: number
}

/**
 * Takes a token for a key: 0 when allowed, else the seconds to wait before retrying (>= 1). It
 * answers within a short deadline or fails (the limiter then decides in its own process), since
 * every authenticated request waits for it.
 */
export interface RateLimitStoreShape {
  readonly take: (key: string, bucket: Bucket) => Effect.Effect<number, StoreError>
}

/** The shared token buckets of a store that offers them. */
export class RateLimitStore extends Context.Tag("@pixgate/core/RateLimitStore")<
  RateLimitStore,
  RateLimitStoreShape
>() {}

/** Seconds to wait for the next whole token, from a bucket's fractional tokens: >= 1. */
export const retryAfterSeconds = (tokens: number, requestsPerSecond: number): number =>
  Math.max(1, Math.ceil((1 - tokens) / requestsPerSecond))
