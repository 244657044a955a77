/**
 * One Asaas connection: every call with the headers Asaas requires (`access_token`,
 * `User-Agent`, `Content-Type`) over the HttpClient it is given, answering the status and the
 * JSON body, or failing with an `AsaasError` when no answer worth reading came (its outcome is
 * unknown). Every call has one deadline (`timeoutMs`) on the whole exchange; a read (`GET`)
 * answered 429 is asked again after the wait Asaas names (`Retry-After`, else `RateLimit-Reset`)
 * when that still fits in the deadline; any other call's 429 is its answer.
 */
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { Clock, Data, Duration, Effect, Redacted } from "effect"
import * as Metrics from "./Metrics.js"
import type { Resolved } from "./Settings.js"
import { retryAfterMs } from "./Wire.js"

/** A call that did not get an answer worth reading: its outcome is unknown. */
export class AsaasError extends Data.TaggedError("AsaasError")<{
  readonly reason: "timeout" | "transport"
  readonly message: string
  readonly cause?: unknown
}> {}

/** An answer of Asaas. */
export interface AsaasResponse {
  readonly status: number
  readonly body: unknown
  /** The wait a 429 asked for (ms), when it named one. */
  readonly retryAfterMs?: number
}

/** A call: method, path under the base URL (`/payments`), query, JSON body. */
export interface AsaasCall {
  readonly method: "GET" | "POST" | "DELETE"
  readonly path: string
  readonly query?: Readonly<Record<string, string>>
  readonly body?: unknown
}

/** The connection's one operation. */
export interface AsaasClient {
  readonly call: (call: AsaasCall) => Effect.Effect<AsaasResponse, AsaasError>
}

const parse = (text: string): unknown => {
  if (text.length === 0) return null
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

const transport = (message: string, cause: unknown) =>
  new AsaasError({
    reason: "transport",
    message: cause instanceof Error && cause.message.length > 0 ? `${message}: ${cause.message}` : message,
    cause
  })

/** A client over the HttpClient in context. */
export const make = (settings: Resolved): Effect.Effect<AsaasClient, never, HttpClient.HttpClient> =>
  Effect.gen(function* () {
    const http = yield* HttpClient.HttpClient
    const timeout = Duration.millis(settings.timeoutMs)

    const once = (c: AsaasCall) => {
      const url = new URL(`${settings.baseUrl}${c.path}`)
      for (const [k, v] of Object.entries(c.query ?? {})) url.searchParams.set(k, v)
      const request = HttpClientRequest.make(c.method)(url.toString()).pipe(
        HttpClientRequest.setHeaders({
          access_token: Redacted.value(settings.apiKey),
          "user-agent": settings.userAgent,
          accept: "application/json"
        })
      )
      return http
        .execute(c.body === undefined ? request : HttpClientRequest.bodyUnsafeJson(request, c.body))
        .pipe(
          Effect.flatMap((res) =>
            Effect.map(res.text, (text): AsaasResponse => {
              const wait = retryAfterMs(res.headers["retry-after"], res.headers["ratelimit-reset"])
              return {
                status: res.status,
                body: parse(text),
                ...(wait === undefined ? {} : { retryAfterMs: wait })
              }
            })
          ),
          Effect.scoped,
          Effect.catchTags({
            RequestError: (e) => Effect.fail(transport(e.message, e.cause)),
            ResponseError: (e) => Effect.fail(transport(e.message, e.cause))
          }),
          // A call the client could not even make is the gateway's failure (a 502), never a defect.
          Effect.catchAllDefect((defect) => Effect.fail(transport("The call could not be made", defect)))
        )
    }

    const call = (c: AsaasCall): Effect.Effect<AsaasResponse, AsaasError> =>
      Effect.gen(function* () {
        const start = yield* Clock.currentTimeMillis
        for (;;) {
          const res = yield* once(c)
          if (res.status !== 429 || c.method !== "GET" || res.retryAfterMs === undefined) return res
          const now = yield* Clock.currentTimeMillis
          if (now + res.retryAfterMs >= start + Duration.toMillis(timeout)) return res
          yield* Effect.logInfo("Asaas throttled a read; asking again after the wait it named").pipe(
            Effect.annotateLogs({ path: c.path, retryAfterMs: res.retryAfterMs })
          )
          yield* Effect.sleep(Duration.millis(res.retryAfterMs))
        }
      }).pipe(
        // Interruptible even inside an uninterruptible caller (a charge's creation), so the
        // deadline can cut a silent Asaas.
        Effect.interruptible,
        Effect.timeoutFail({
          duration: timeout,
          onTimeout: () =>
            new AsaasError({ reason: "timeout", message: `No answer within ${Duration.format(timeout)}` })
        })
      )

    return { call: yield* Metrics.instrument(call) }
  })
