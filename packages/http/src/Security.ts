/**
 * Who may call: merchants with an `x-api-key` (then rate limited per key), or operators with the
 * admin token as `Authorization: Bearer <token>` (compared in constant time).
 */
import { type Auth, Engine, Errors, Sha256 } from "@pixgate/core"
import { Context, Effect, Redacted } from "effect"
import { RateLimiter } from "./RateLimit.js"
import * as Respond from "./Respond.js"
import type * as Route from "./Route.js"

/** The public API's header. */
export const apiKeyHeader = "x-api-key"

/** A merchant's API key (401 when missing, malformed, unknown or revoked), then the rate limit. */
export const apiKey: Route.Security<Auth.Caller, Engine.Engine | RateLimiter> = {
  // Both services read from the context in one step, then two effects: this runs on every
  // authenticated request.
  check: (request) =>
    Effect.contextWithEffect((context: Context.Context<Engine.Engine | RateLimiter>) => {
      const limiter = Context.get(context, RateLimiter)
      return Effect.flatMap(
        Context.get(context, Engine.Engine).auth.authenticate(request.header(apiKeyHeader)),
        (caller) =>
          Effect.flatMap(limiter.take(caller.keyId), (wait) =>
            wait > 0 ? Effect.fail(Respond.rateLimited(wait)) : Effect.succeed(caller)
          )
      )
    })
}

const unauthorized = () =>
  new Respond.Refusal({
    error: Errors.unauthorized(),
    headers: { "www-authenticate": 'Bearer realm="pixgate-admin"' }
  })

/** The admin token as a bearer token. */
export const adminToken = (token: Redacted.Redacted<string>): Route.Security<undefined, never> => {
  // Digests of equal length, compared whole: neither the token's length nor where it differs
  // shows in the time taken.
  const expected = Sha256.digest(Redacted.value(token))
  return {
    check: (request) =>
      Effect.gen(function* () {
        const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(request.header("authorization") ?? "")
        if (match === null) return yield* Effect.fail(unauthorized())
        if (!Sha256.equalBytes(Sha256.digest(match[1]), expected)) return yield* Effect.fail(unauthorized())
        return undefined
      })
  }
}
