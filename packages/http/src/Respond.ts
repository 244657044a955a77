/**
 * Every HTTP answer Pixgate gives: JSON bodies, the error body of docs/decisions.md `{ error, code,
 * details? }`, and the transport's own errors (404, 405, 410, 413, 429, 500) with their headers;
 * every 503 carries `Retry-After`.
 */
import { Errors } from "@pixgate/core"
import { Data, type Stream } from "effect"
import { statusOf } from "./Status.js"
import * as TransportErrors from "./TransportErrors.js"

/** A successful answer of a route: status, JSON body and extra headers. */
export interface Reply {
  readonly status: number
  readonly body: unknown
  readonly headers?: Readonly<Record<string, string>>
}

/**
 * An answer ready for any transport: status, headers (lower-case names) and body, text or bytes
 * (already encoded, as the docs renderer's compressed bundle). The transport adds
 * `content-length` and `x-request-id`.
 */
export class Answer {
  constructor(
    readonly status: number,
    readonly headers: Readonly<Record<string, string>>,
    readonly body: string | Uint8Array<ArrayBuffer>
  ) {}
}

/**
 * An answer written as it is made (Server-Sent Events): the status and headers at once, then
 * each text of `chunks` as it comes, until the stream ends or the client goes away (which
 * interrupts it). Everything the stream needs is already provided to it.
 */
export class Streamed extends Answer {
  constructor(
    status: number,
    headers: Readonly<Record<string, string>>,
    readonly chunks: Stream.Stream<string>
  ) {
    super(status, headers, "")
  }
}

/** A refusal that needs headers besides its error body (Allow, Retry-After). */
export class Refusal extends Data.TaggedError("Refusal")<{
  readonly error: TransportErrors.ApiError
  readonly headers: Readonly<Record<string, string>>
}> {}

/** What a route may fail with. */
export type Failure = TransportErrors.ApiError | Refusal

/** Header set on idempotent replays (docs/decisions.md). */
export const replayedHeader = "Idempotent-Replayed"

const jsonType = "application/json; charset=utf-8"
// The headers of most JSON answers, shared: answers never change their headers.
const jsonHeaders = { "cache-control": "no-store", "content-type": jsonType }

/** A JSON answer, `Cache-Control: no-store`. */
export const json = (status: number, body: unknown, headers?: Readonly<Record<string, string>>): Answer => {
  let all: Record<string, string> = jsonHeaders
  for (const name in headers) {
    if (all === jsonHeaders) all = { "cache-control": "no-store" }
    all[name.toLowerCase()] = headers[name]
  }
  if (all !== jsonHeaders) all["content-type"] = jsonType
  return new Answer(status, all, JSON.stringify(body) ?? "")
}

/** An HTML page. */
export const html = (page: string): Answer => new Answer(200, { "content-type": "text/html" }, page)

/** A route's reply as an answer. */
export const reply = (r: Reply): Answer => json(r.status, r.body, r.headers)

/**
 * The error body of a failure, with `Idempotent-Replayed: true` on replayed errors and
 * `Retry-After` on 503 (the error's own wait, else 1 s).
 */
export const failure = (f: Failure): Answer => {
  const error = f._tag === "Refusal" ? f.error : f
  let headers = f._tag === "Refusal" ? f.headers : {}
  if (error._tag === "StorageUnavailable" && !("retry-after" in headers))
    headers = { ...headers, "retry-after": String(Math.max(1, Math.ceil(error.retryAfter ?? 1))) }
  return json(
    statusOf(error),
    Errors.body(error),
    Errors.isReplayed(error) ? { ...headers, [replayedHeader]: "true" } : headers
  )
}

/**
 * Whether a route's failure refuses the request as it stands (a 4xx): a span that ends with one
 * is not an error span (`SpanHygiene`).
 */
export const isRefusal = (failure: unknown): boolean => {
  const error = failure instanceof Refusal ? failure.error : failure
  return TransportErrors.isApiError(error) && statusOf(error) < 500
}

/** 404 `Not found`. */
export const notFound = (): Errors.NotFound => new Errors.NotFound()

/** 405 with the methods the path allows. */
export const methodNotAllowed = (allowed: ReadonlyArray<string>): Refusal =>
  new Refusal({
    error: new TransportErrors.MethodNotAllowed({ allowed }),
    headers: { allow: allowed.join(", ") }
  })

/** 410 for the paths removed in 2.0.0. */
export const endpointRemoved = (): TransportErrors.Gone => new TransportErrors.Gone()

/** 413 for bodies above the configured limit. */
export const payloadTooLarge = (): TransportErrors.PayloadTooLarge => new TransportErrors.PayloadTooLarge()

/** 429 with `Retry-After` in whole seconds (at least 1). */
export const rateLimited = (retryAfterSeconds: number): Refusal =>
  new Refusal({
    error: new TransportErrors.RateLimited({ retryAfter: retryAfterSeconds }),
    headers: { "retry-after": String(Math.max(1, Math.ceil(retryAfterSeconds))) }
  })

/** 500: a bug on our side, never the input's fault. */
export const internal = (): Errors.Internal => new Errors.Internal()
