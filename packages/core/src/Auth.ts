/**
 * API-key authentication: a raw `x-api-key` becomes the merchant and mode it acts for. Only the
 * key's SHA-256 is stored and looked up, so the lookup's timing does not depend on how much of a
 * guessed key is right; the key itself is never logged.
 */
import { Effect, Option } from "effect"
import type { ApiKeyId, Merchant, Mode } from "./Domain.js"
import { type PixgateError, unauthorized, unavailable } from "./Errors.js"
import * as Ids from "./Ids.js"
import { MerchantStore } from "./Store.js"

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
  readonly authenticate: (rawKey: string | undefined) => Effect.Effect<Caller, PixgateError>
}

/** How stale an API key's recorded last use may be. */
export const lastUsedPrecisionMs = 60_000

/** Builds the service over the merchants' store (keys and their owners). */
export const make = Effect.gen(function* () {
  const store = yield* MerchantStore
  const authenticate = (rawKey: string | undefined) =>
    Effect.gen(function* () {
      const mode = rawKey === undefined ? undefined : Ids.apiKeyMode(rawKey)
      if (rawKey === undefined || mode === undefined) return yield* Effect.fail(unauthorized())
      const found = yield* store.findKeyOwner(Ids.hashApiKey(rawKey))
      if (Option.isNone(found)) return yield* Effect.fail(unauthorized())
      const { key, merchant } = found.value
      if (key.revokedAt !== null || key.mode !== mode) return yield* Effect.fail(unauthorized())
      // "Last used" for the panel, to the minute: one write per key per minute at most.
      const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
      if ((key.lastUsedAt ?? Number.NEGATIVE_INFINITY) <= now - lastUsedPrecisionMs) {
        yield* Effect.ignore(store.touchApiKey(key.id, now, lastUsedPrecisionMs))
      }
      return { merchant, mode, keyId: key.id } satisfies Caller
    }).pipe(Effect.catchTag("StoreError", (e) => Effect.fail(unavailable(e))))
  return { authenticate } satisfies AuthShape
})
