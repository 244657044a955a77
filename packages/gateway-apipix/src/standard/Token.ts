/**
 * The OAuth2 token of a PSP connection (client credentials, RFC 6749 4.4: Basic auth and a form
 * body, at the profile's token path): cached, renewed a margin before it expires and when a 401
 * refuses it, one renewal at a time (the lock of a `SynchronizedRef`: concurrent callers wait for
 * the renewal under way instead of each asking for a token).
 */
import { type HttpClientRequest, HttpClientRequest as Request } from "@effect/platform"
import { Clock, Effect, Option, Redacted, SynchronizedRef } from "effect"
import { type ApiPixSettings, defaults } from "../Settings.js"
import { PspError, type PspResponse } from "./Call.js"
import type { Connection } from "./Connection.js"

/** A token and when to renew it. */
export interface Token {
  readonly value: Redacted.Redacted<string>
  /** Renew from this moment on (expiry minus the margin). */
  readonly renewAt: number
}

/** The connection's token. */
export interface Cache {
  /** The token to use now: the held one, or a fresh one. */
  readonly current: Effect.Effect<Token, PspError>
  /** Drops a token a 401 refused, unless another caller already renewed it. */
  readonly refused: (stale: Token) => Effect.Effect<void>
  /** Tokens issued so far. */
  readonly issued: () => number
}

/** The token of the PSP `settings` reach, asked for through `send`. */
export const cache = (
  settings: ApiPixSettings,
  connection: Connection,
  send: (request: HttpClientRequest.HttpClientRequest) => Effect.Effect<PspResponse, PspError>
): Effect.Effect<Cache> =>
  Effect.gen(function* () {
    const base = settings.baseUrl.replace(/\/+$/, "")
    const url = /^https?:\/\//.test(connection.tokenPath)
      ? connection.tokenPath
      : `${base}${connection.tokenPath}`
    const margin = settings.tokenMarginMs ?? defaults.tokenMarginMs
    const held = yield* SynchronizedRef.make(Option.none<Token>())
    let issued = 0

    const issue = Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      const res = yield* send(
        Request.post(url).pipe(
          Request.basicAuth(settings.clientId, settings.clientSecret),
          Request.bodyUrlParams({
            grant_type: "client_credentials",
            scope: (settings.scopes.length > 0 ? settings.scopes : connection.scopes).join(" ")
          })
        )
      )
      const body = res.body as { access_token?: unknown; expires_in?: unknown } | null
      if (res.status !== 200 || typeof body?.access_token !== "string") {
        return yield* Effect.fail(
          new PspError({ reason: "token", message: `The PSP refused a token (HTTP ${res.status})` })
        )
      }
      issued++
      const lifetime = typeof body.expires_in === "number" ? body.expires_in * 1000 : 3_600_000
      return {
        value: Redacted.make(body.access_token),
        renewAt: now + Math.max(lifetime - margin, lifetime / 2)
      } satisfies Token
    })

    return {
      current: SynchronizedRef.modifyEffect(held, (token) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) =>
          Option.isSome(token) && now < token.value.renewAt
            ? Effect.succeed([token.value, token] as const)
            : Effect.map(issue, (fresh) => [fresh, Option.some(fresh)] as const)
        )
      ),
      refused: (stale) =>
        SynchronizedRef.update(held, (token) =>
          Option.isSome(token) && token.value === stale ? Option.none() : token
        ),
      issued: () => issued
    }
  })
