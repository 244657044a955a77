/**
 * One PSP connection: OAuth2 client credentials (`POST /oauth/token` by default, Basic auth,
 * scopes), the token cached and renewed before it expires and on a 401, one renewal at a time;
 * what a PSP leaves open in the standard (where tokens are issued, the scopes, headers and query
 * parameters it wants on every call) comes from its `Connection`; every call
 * over the HttpClient it is given (the Node layer presents the mTLS client certificate on it).
 * Calls answer the PSP's status and JSON body, or fail with a `PspError` that says whether the
 * outcome is unknown (time-out, reset, refused token) or the PSP answered.
 *
 * Every call has one deadline (`timeoutMs`) on the whole exchange: the token it needs, the
 * request, the answer and reading its body. A read (`GET`) answered 429 is asked again after the
 * PSP's `Retry-After` when that still fits in the deadline; any other call's 429 is its answer.
 */
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { Clock, Duration, Effect } from "effect"
import { type ApiPixSettings, defaults } from "../Settings.js"
import { type PspCall, PspError, type PspResponse } from "./Call.js"
import { type Connection, standardConnection } from "./Connection.js"
import { retryAfterMs } from "./Problem.js"
import * as PspMetrics from "./PspMetrics.js"
import * as Token from "./Token.js"

export { type PspCall, PspError, type PspResponse } from "./Call.js"
export { type Connection, standardConnection, standardScopes } from "./Connection.js"

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

/** One exchange over `http`: the PSP's status and body, or a `PspError` when no answer came. */
const exchange =
  (http: HttpClient.HttpClient) =>
  (request: HttpClientRequest.HttpClientRequest): Effect.Effect<PspResponse, PspError> =>
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
          Effect.fail(new PspError({ reason: "transport", message: withCause(e.message, e.cause), cause: e }))
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

/** `effect` within `timeout`, else a `PspError` time-out. */
const within =
  (timeout: Duration.Duration) =>
  <A, E>(effect: Effect.Effect<A, E>): Effect.Effect<A, E | PspError> =>
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

/** A client over the HttpClient in context (the Node layer adds mTLS to it). */
export const make = (
  settings: ApiPixSettings,
  connection: Connection = standardConnection
): Effect.Effect<PspClient, never, HttpClient.HttpClient> =>
  Effect.gen(function* () {
    const send = exchange(yield* HttpClient.HttpClient)
    const base = settings.baseUrl.replace(/\/+$/, "")
    const timeout = Duration.millis(settings.timeoutMs ?? defaults.timeoutMs)
    const tokens = yield* Token.cache(settings, connection, send)

    const request = (call: PspCall, bearer: Token.Token) => {
      const url = new URL(`${base}${call.path}`)
      for (const [k, v] of Object.entries({ ...connection.query, ...call.query })) url.searchParams.set(k, v)
      const req = HttpClientRequest.make(call.method)(url.toString()).pipe(
        HttpClientRequest.setHeaders(connection.headers ?? {}),
        HttpClientRequest.bearerToken(bearer.value)
      )
      return send(call.body === undefined ? req : HttpClientRequest.bodyUnsafeJson(req, call.body))
    }

    const once = (c: PspCall): Effect.Effect<PspResponse, PspError> =>
      Effect.gen(function* () {
        const bearer = yield* tokens.current
        const res = yield* request(c, bearer)
        if (res.status !== 401) return res
        // The token expired or was revoked early: renew once and try again.
        yield* tokens.refused(bearer)
        return yield* request(c, yield* tokens.current)
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
      }).pipe(within(timeout))

    return { call: yield* PspMetrics.instrument(call), tokensIssued: tokens.issued }
  })
