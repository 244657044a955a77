/**
 * Who may call: merchants with an `x-api-key` (then rate limited per key), or operators with an
 * admin token as `Authorization: Bearer <token>`: a stored one (`pxa_...`, with its scope), or the
 * environment's (compared in constant time).
 */
import { AdminAccess, type AdminTokens, type Auth, Engine, Errors, Sha256 } from "@pixgate/core"
import { Context, Effect, Option, Redacted } from "effect"
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

const bearer = (authorization: string | undefined): string | undefined =>
  /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? "")?.[1]

/** `PIXGATE_ADMIN_TOKEN` (or an embedder's `admin.token`) as a caller: named `env`, full scope. */
export const environmentCaller: AdminTokens.AdminCaller = {
  name: AdminAccess.environmentTokenName,
  scope: "full",
  tokenId: null
}

/**
 * The admin caller an `Authorization: Bearer <token>` header names: the environment's token
 * (compared in constant time) or a live stored one, read from the store on every call, so a
 * revoked token is refused at once on every instance; none for anything else.
 */
export const adminCaller = (environmentToken: Redacted.Redacted<string> | undefined) => {
  // Digests of equal length, compared whole: neither the token's length nor where it differs
  // shows in the time taken.
  const expected =
    environmentToken === undefined ? undefined : Sha256.digest(Redacted.value(environmentToken))
  return (
    authorization: string | undefined
  ): Effect.Effect<Option.Option<AdminTokens.AdminCaller>, Errors.StorageUnavailable, Engine.Engine> => {
    const token = bearer(authorization)
    if (token === undefined) return Effect.succeedNone
    if (expected !== undefined && Sha256.equalBytes(Sha256.digest(token), expected))
      return Effect.succeedSome(environmentCaller)
    return Effect.flatMap(Engine.Engine, (engine) => engine.adminTokens.authenticate(token))
  }
}

/**
 * The admin API's caller: 401 for a missing, unknown or revoked token; 404, as if the API were not
 * there, while there is no environment token and no live stored token at all.
 */
export const admin = (
  environmentToken: Redacted.Redacted<string> | undefined
): Route.Security<AdminTokens.AdminCaller, Engine.Engine> => {
  const callerOf = adminCaller(environmentToken)
  const refused =
    environmentToken !== undefined
      ? Effect.fail(unauthorized())
      : Effect.flatMap(Engine.Engine, (engine) =>
          Effect.flatMap(engine.adminTokens.anyLive, (any) =>
            Effect.fail<Respond.Failure>(any ? unauthorized() : Respond.notFound())
          )
        )
  return {
    check: (request) =>
      Effect.flatMap(callerOf(request.header("authorization")), (caller) =>
        Option.isSome(caller) ? Effect.succeed(caller.value) : refused
      )
  }
}
