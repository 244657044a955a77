/**
 * How a webhook attempt reaches the receiver: one POST, its status, and a bounded read of the
 * answer. Two implementations: `fromHttpClient` over any Effect `HttpClient` (portable, and
 * timed by the Effect Clock, so the TestClock drives it), and `NodeWebhookTransport` in
 * `@pixgate/core/node` over node:http with keep-alive agents (a fraction of the CPU per POST).
 */
import { FetchHttpClient, HttpClient, HttpClientRequest, type HttpClientResponse } from "@effect/platform"
import { Clock, Context, Effect, Layer, Stream } from "effect"

/** One POST of a webhook. */
export interface WebhookRequest {
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  /** JSON, sent as `application/json`. */
  readonly body: Uint8Array
  /** The status must arrive, and the answer be read, within this; then the attempt fails. */
  readonly timeoutMs: number
  /**
   * The receiver must be at a public address (live mode unless `allowPrivateWebhookUrls`; test
   * mode when `allowPrivateTestWebhookUrls` is off). Link-local and cloud metadata addresses are
   * refused either way.
   * The URL was checked when it was set; a transport that resolves the host itself (the Node
   * one) checks again every address it connects to, so a name that later resolves to a private
   * address (DNS rebinding) reaches nothing. `fromHttpClient` leaves this to the client.
   */
  readonly publicOnly?: boolean
}

/** What came of a POST: the status, or why there is none. */
export interface WebhookOutcome {
  readonly statusCode: number | null
  readonly error: string | null
}

/**
 * The error text of an attempt not made because the receiver's address is refused, the same
 * whether the engine found it before sending or the transport when connecting.
 */
export const refusedAddress = (reason: string): string => `Transport: EPRIVATEADDRESS: ${reason}`

/** Most answer bytes read (and discarded) so the connection can be reused. */
export const bodyReadLimit = 64 * 1024

/** How the error text of an attempt that timed out starts. */
export const timedOutPrefix = "Timed out after "

/** The error text of an attempt that timed out. */
export const timedOut = (timeoutMs: number): string => `${timedOutPrefix}${timeoutMs} ms`

/** Sends webhook POSTs; redirects are not followed, and no failure escapes as an error. */
export interface WebhookTransportShape {
  readonly post: (request: WebhookRequest) => Effect.Effect<WebhookOutcome>
}

/** The webhook transport's tag. */
export class WebhookTransport extends Context.Tag("@pixgate/core/WebhookTransport")<
  WebhookTransport,
  WebhookTransportShape
>() {}

/** An error and its causes, as one line. */
export const causeChain = (error: unknown): string => {
  const parts: Array<string> = []
  for (let e = error; e instanceof Error && parts.length < 4; e = e.cause) parts.push(e.message)
  return parts.join(": ").slice(0, 500)
}

const drain = (response: HttpClientResponse.HttpClientResponse) =>
  response.stream.pipe(
    Stream.runFoldWhile(
      0,
      (n) => n < bodyReadLimit,
      (n, chunk) => n + chunk.length
    )
  )

/** The transport over the `HttpClient` in context. */
export const fromHttpClient: Layer.Layer<WebhookTransport, never, HttpClient.HttpClient> = Layer.effect(
  WebhookTransport,
  Effect.map(HttpClient.HttpClient, (base) => {
    const client = base.pipe(HttpClient.withTracerPropagation(false), HttpClient.withScope)
    // Status on the headers within the time-out; then at most `bodyReadLimit` bytes of the body,
    // within what is left of it. Closing the scope aborts whatever the receiver still sends.
    const exchange = (request: HttpClientRequest.HttpClientRequest, timeoutMs: number) =>
      Effect.scoped(
        Effect.gen(function* () {
          const start = yield* Clock.currentTimeMillis
          const response = yield* client.execute(request).pipe(Effect.timeout(timeoutMs))
          const left = timeoutMs - ((yield* Clock.currentTimeMillis) - start)
          yield* drain(response).pipe(Effect.timeout(Math.max(0, left)), Effect.ignore)
          return response.status
        })
      ).pipe(Effect.provideService(FetchHttpClient.RequestInit, { redirect: "manual" }))
    return {
      post: ({ url, headers, body, timeoutMs }) =>
        exchange(
          HttpClientRequest.post(url).pipe(
            HttpClientRequest.setHeaders(headers),
            HttpClientRequest.bodyUint8Array(body, "application/json")
          ),
          timeoutMs
        ).pipe(
          Effect.map((statusCode): WebhookOutcome => ({ statusCode, error: null })),
          Effect.catchAll((e) =>
            Effect.succeed<WebhookOutcome>({
              statusCode: null,
              error:
                e._tag === "TimeoutException"
                  ? timedOut(timeoutMs)
                  : e._tag === "RequestError"
                    ? `${e.reason}: ${causeChain(e.cause) || e.message}`
                    : e.message
            })
          ),
          Effect.catchAllDefect((defect) =>
            Effect.succeed<WebhookOutcome>({ statusCode: null, error: causeChain(defect) || String(defect) })
          )
        )
    }
  })
)

/** The portable transport on the runtime's `fetch`. */
export const fetch: Layer.Layer<WebhookTransport> = fromHttpClient.pipe(Layer.provide(FetchHttpClient.layer))
