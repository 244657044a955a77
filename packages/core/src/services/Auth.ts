/**
 * API-key authentication: a raw `x-api-key` becomes the merchant and mode it acts for. Only the
 * key's SHA-256 is stored and looked up, so the lookup's timing does not depend on how much of a
 * guessed key is right; the key itself is never logged. Keys that authenticated are cached in
 * the process, checked against the store's credentials version on every request (see `make`).
 */
import { Context, Effect, Layer, Option } from "effect"
import { type StorageUnavailable, type Unauthorized, unauthorized, unavailable } from "../contract/Errors.js"
import type { ApiKeyId, Merchant, Mode } from "../domain/Domain.js"
import * as Ids from "../domain/Ids.js"
import { MerchantStore } from "../ports/Store.js"

/**
 * Who is calling: the merchant, the key's mode, and the key's public id (`panel:<user>` for a
 * merchant panel session, which has no key): what the rate limiter counts by.
 */
export interface Caller {
  readonly merchant: Merchant
  readonly mode: Mode
  readonly keyId: ApiKeyId | `panel:${string}`
}

/** Auth operations. */
export interface AuthShape {
  /** Resolves a raw key; missing, malformed, unknown or revoked keys are 401 `Unauthorized`. */
  readonly authenticate: (
    rawKey: string | undefined
  ) => Effect.Effect<Caller, Unauthorized | StorageUnavailable>
}

/** How stale an API key's recorded last use may be. */
export const lastUsedPrecisionMs = 60_000

/** Most keys the authentication cache holds; beyond it the oldest entry goes. */
export const cachedKeys = 10_000

/** A key the cache serves: who it authenticates, and when its last use was last recorded. */
interface Cached {
  readonly caller: Caller
  readonly keyId: ApiKeyId
  touchedAt: number
}

/**
 * Builds the service over the merchants' store (keys and their owners).
 *
 * Authenticated keys are cached per process, by the raw key, so a request with a known key costs
 * no SHA-256 and no key lookup: only the store's `credentialsVersion`, one small read shared by
 * every request of a batch. The cache is emptied whenever that version moved, which any change
 * to a key or a merchant in any process does (a trigger on SQL stores), so a revoked key or a new
 * fee plan is seen on the very next request on every instance. Only keys that authenticated are
 * cached (unknown, malformed and revoked keys always go to the store, so guessing cannot fill
 * it), at most `cachedKeys`.
 */
export const make = Effect.gen(function* () {
  const store = yield* MerchantStore
  const cache = new Map<string, Cached>()
  // The version the cached entries were read at; an entry read under an older one is not kept.
  let cachedAt: number | undefined
  const remember = (rawKey: string, version: number, entry: Cached) => {
    if (version !== cachedAt) return
    if (cache.size >= cachedKeys)
      for (const oldest of cache.keys()) {
        cache.delete(oldest)
        break
      }
    cache.set(rawKey, entry)
  }
  const touch = (entry: Cached, now: number) => {
    // "Last used" for the panel, to the minute: one write per key per minute at most.
    if (entry.touchedAt > now - lastUsedPrecisionMs) return Effect.void
    entry.touchedAt = now
    return Effect.ignore(store.touchApiKey(entry.keyId, now, lastUsedPrecisionMs))
  }
  const lookup = (rawKey: string, mode: Mode, version: number) =>
    Effect.flatMap(store.findKeyOwner(Ids.hashApiKey(rawKey)), (found) => {
      if (Option.isNone(found)) return Effect.fail(unauthorized())
      const { key, merchant } = found.value
      if (key.revokedAt !== null || key.mode !== mode) return Effect.fail(unauthorized())
      const entry: Cached = {
        caller: { merchant, mode, keyId: key.id },
        keyId: key.id,
        touchedAt: key.lastUsedAt ?? Number.NEGATIVE_INFINITY
      }
      remember(rawKey, version, entry)
      return Effect.succeed(entry)
    })
  const authenticate = (
    rawKey: string | undefined
  ): Effect.Effect<Caller, Unauthorized | StorageUnavailable> => {
    const mode = rawKey === undefined ? undefined : Ids.apiKeyMode(rawKey)
    if (rawKey === undefined || mode === undefined) return Effect.fail(unauthorized())
    return store.credentialsVersion().pipe(
      Effect.flatMap((version) => {
        if (version !== cachedAt) {
          cache.clear()
          cachedAt = version
        }
        const hit = cache.get(rawKey)
        return hit === undefined ? lookup(rawKey, mode, version) : Effect.succeed(hit)
      }),
      Effect.flatMap((entry) =>
        Effect.clockWith((clock) =>
          Effect.as(
            Effect.flatMap(clock.currentTimeMillis, (now) => touch(entry, now)),
            entry.caller
          )
        )
      ),
      Effect.catchTag("StoreError", (e) => Effect.fail(unavailable(e)))
    )
  }
  return { authenticate } satisfies AuthShape
})

/** The API keys to callers service, for the services and transports that use it. */
export class Auth extends Context.Tag("@pixgate/core/Auth")<Auth, AuthShape>() {}

/** The service over its dependencies, as its layer declares them (without spans: `Engine.layer` adds them). */
export const layer = Layer.effect(Auth, make)
