/**
 * One PSP connection: OAuth2 client credentials (`POST /oauth/token`, Basic auth, scopes), the
 * token cached and renewed before it expires and on a 401, one renewal at a time; every call
 * over the HttpClient it is given (the Node layer presents the mTLS client certificate on it).
 * Calls answer the PSP's status and JSON body, or fail with a `PspError` that says whether the
 * outcome is unknown (time-out, reset, refused token) or the PSP answered.
 *
 * Every call has one deadline (`timeoutMs`) on the whole exchange: the token it needs, the
 * request, the answer and reading its body. A read (`GET`) answered 429 is asked again after the
 * PSP's `Retry-After` when that still fits in the deadline; any other call's 429 is its answer.
 */
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { Clock, Data, Duration, Effect, Option, Redacted, SynchronizedRef } from "effect"
import { retryAfterMs } from "./Problem.js"
import * as PspMetrics from "./PspMetrics.js"
import { type ApiPixSettings, defaults } from "./Settings.js"

/** A call that did not get an answer worth reading: its outcome is unknown. */
export class PspError extends Data.TaggedError("PspError")<{
  readonly reason: "timeout" | "transport" | "token"
  readonly message: string
  readonly cause?: unknown
}> {}

/** An answer of the PSP. */
export interface PspResponse {
  readonly status: number
  readonly body: unknown
  /** The wait a 429 or 503 asked for (`Retry-After`, ms), when it named one. */
  readonly retryAfterMs?: number
}

/** A call: method, path (with query), JSON body. */
export interface PspCall {
  readonly method: "GET" | "PUT" | "POST" | "PATCH" | "DELETE"
  readonly path: string
  readonly body?: unknown
  readonly query?: Readonly<Record<string, string>>
}

interface Token {
  readonly value: Redacted.Redacted<string>
  /** Renew from this moment on (expiry minus the margin). */
  readonly renewAt: number
}

/** The connection's operations. */
export interface PspClient {
  readonly call: (call: PspCall) => Effect.Effect<PspResponse, PspError>
  /** Tokens issued so far (for logs and tests). */
  readonly tokensIssued: () => number
}

const parse = (text: string): unknown => {
  if (text.length === 0) return null
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/** A transport error's message with what Node said underneath (reset, refused, connect time-out). */
const withCause = (message: string, cause: unknown): string =>
  cause instanceof Error && cause.message.length > 0 ? `${message}: ${cause.message}` : message

/** A client over the HttpClient in context (the Node layer adds mTLS to it). */
export const make = (settings: ApiPixSettings): Effect.Effect<PspClient, never, HttpClient.HttpClient> =>
  Effect.gen(function* () {
    const http = yield* HttpClient.HttpClient
    const base = settings.baseUrl.replace(/\/+$/, "")
    const timeout = Duration.millis(settings.timeoutMs ?? defaults.timeoutMs)
    const margin = settings.tokenMarginMs ?? defaults.tokenMarginMs
    const token = yield* SynchronizedRef.make(Option.none<Token>())
    let issued = 0

    const deadline = <A, E>(effect: Effect.Effect<A, E>) =>
      effect.pipe(
        // Interruptible even inside an uninterruptible caller (a charge's creation): the time-out
        // must be able to cut the exchange, and the cut aborts the request.
        Effect.interruptible,
        Effect.timeoutFail({
          duration: timeout,
          onTimeout: () =>
            new PspError({ reason: "timeout", message: `No answer within ${Duration.format(timeout)}` })
        })
      )

    const send = (request: HttpClientRequest.HttpClientRequest) =>
      http.execute(request).pipe(
        Effect.flatMap((res) =>
          Effect.map(res.text, (text): PspResponse => {
            const wait = retryAfterMs(res.headers["retry-after"], Date.now())
            return {
              status: res.status,
              body: parse(text),
              ...(wait === undefined ? {} : { retryAfterMs: wait })
            }
          })
        ),
        Effect.scoped,
        Effect.catchTags({
          RequestError: (e) =>
            Effect.fail(
              new PspError({ reason: "transport", message: withCause(e.message, e.cause), cause: e })
            ),
          ResponseError: (e) =>
            Effect.fail(
              new PspError({ reason: "transport", message: withCause(e.message, e.cause), cause: e })
            )
        }),
        // A call the client could not even make (a TLS setting Node refuses when it connects) is
        // the gateway's failure, a 502, never a defect: its outcome counts as unknown.
        Effect.catchAllDefect((defect) =>
          Effect.fail(
            new PspError({
              reason: "transport",
              message: `The call could not be made: ${defect instanceof Error ? defect.message : String(defect)}`,
              cause: defect
            })
          )
        )
      )

    const issue = Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      const res = yield* send(
        HttpClientRequest.post(`${base}/oauth/token`).pipe(
          HttpClientRequest.basicAuth(settings.clientId, settings.clientSecret),
          // RFC 6749 4.4: a form body.
          HttpClientRequest.bodyUrlParams({
            grant_type: "client_credentials",
            scope: (settings.scopes.length > 0 ? settings.scopes : defaults.scopes).join(" ")
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

    // The lock of the ref makes one renewal at a time: concurrent callers wait for it.
    const current = SynchronizedRef.modifyEffect(token, (held) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Option.isSome(held) && now < held.value.renewAt
          ? Effect.succeed([held.value, held] as const)
          : Effect.map(issue, (fresh) => [fresh, Option.some(fresh)] as const)
      )
    )
    // Drops the token a 401 refused, unless another caller already renewed it.
    const refused = (stale: Token) =>
      SynchronizedRef.update(token, (held) =>
        Option.isSome(held) && held.value === stale ? Option.none() : held
      )

    const request = (call: PspCall, bearer: Token) => {
      const url = new URL(`${base}${call.path}`)
      for (const [k, v] of Object.entries(call.query ?? {})) url.searchParams.set(k, v)
      const req = HttpClientRequest.make(call.method)(url.toString()).pipe(
        HttpClientRequest.bearerToken(bearer.value)
      )
      return send(call.body === undefined ? req : HttpClientRequest.bodyUnsafeJson(req, call.body))
    }

    const once = (c: PspCall): Effect.Effect<PspResponse, PspError> =>
      Effect.gen(function* () {
        const bearer = yield* current
        const res = yield* request(c, bearer)
        if (res.status !== 401) return res
        // The token expired or was revoked early: renew once and try again.
        yield* refused(bearer)
        return yield* request(c, yield* current)
      })

    const call = (c: PspCall): Effect.Effect<PspResponse, PspError> =>
      Effect.gen(function* () {
        const start = yield* Clock.currentTimeMillis
        for (;;) {
          const res = yield* once(c)
          if (res.status !== 429 || c.method !== "GET" || res.retryAfterMs === undefined) return res
          // A read the PSP throttled: asked again after its Retry-After, if that fits the deadline.
          const now = yield* Clock.currentTimeMillis
          if (now + res.retryAfterMs >= start + Duration.toMillis(timeout)) return res
          yield* Effect.logInfo("The PSP throttled a read; asking again after its Retry-After").pipe(
            Effect.annotateLogs({ path: c.path, retryAfterMs: res.retryAfterMs })
          )
          yield* Effect.sleep(Duration.millis(res.retryAfterMs))
        }
      }).pipe(deadline)

    return { call: yield* PspMetrics.instrument(call), tokensIssued: () => issued }
  })
