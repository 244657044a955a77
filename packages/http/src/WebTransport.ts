/**
 * The web transport (Deno, Bun, workers, Hono, Next.js route handlers): a `Request` as the
 * dispatcher's exchange, answered with a `Response`. A body is read with a running byte count
 * and the stream is cancelled once the limit is passed (413). A body the host already read
 * (handed over as the handler's `context.body`) is used instead of the spent stream, as the
 * Node transport uses `req.body`; `context.mountPath` is the prefix the host stripped.
 */
import { Errors } from "@pixgate/core"
import { Effect } from "effect"
import * as Body from "./Body.js"
import type * as Dispatch from "./Dispatch.js"
import type { RawBody } from "./Incoming.js"
import * as Respond from "./Respond.js"
import * as Router from "./Router.js"
import type { ApiError } from "./TransportErrors.js"

/** What the host told about a request: a body it already read (settled), its mount prefix. */
export interface Context {
  readonly body: Promise<{ readonly ok: true; readonly value: unknown } | { readonly ok: false }> | undefined
  readonly mountPath: string
}

const hasKey = (value: unknown, key: string): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && key in value

/**
 * The handler's second argument read defensively: hosts may pass something else there (Hono's
 * `mount` passes its `env` by default), so only `body` and a string `mountPath` count. A promised
 * body is settled at once, so a rejection is never left unhandled on routes that read no body.
 */
export const context = (given: unknown, defaultMountPath: string): Context => {
  const body = hasKey(given, "body") && given.body !== undefined ? given.body : undefined
  const mountPath =
    hasKey(given, "mountPath") && typeof given.mountPath === "string" ? given.mountPath : undefined
  return {
    body:
      body === undefined
        ? undefined
        : Promise.resolve(body).then(
            (value) => ({ ok: true as const, value }),
            () => ({ ok: false as const })
          ),
    mountPath: Router.normalizeBasePath(mountPath ?? defaultMountPath)
  }
}

const encoder = new TextEncoder()

/** A body the host already read, as bytes or text (other values re-serialized as JSON). */
const preparsed = (value: unknown, limit: number): Effect.Effect<RawBody, ApiError> => {
  let raw: RawBody
  if (value instanceof Uint8Array || typeof value === "string") raw = value
  else {
    try {
      raw = JSON.stringify(value) ?? ""
    } catch {
      return Effect.fail(Errors.invalidJson())
    }
  }
  const size = typeof raw === "string" ? encoder.encode(raw).length : raw.length
  return size > limit ? Effect.fail(Respond.payloadTooLarge()) : Effect.succeed(raw)
}

const given = (body: NonNullable<Context["body"]>, limit: number): Effect.Effect<RawBody, ApiError> =>
  Effect.flatMap(
    Effect.promise(() => body),
    (settled) => (settled.ok ? preparsed(settled.value, limit) : Effect.fail(Errors.invalidJson()))
  )

/** The stream's bytes, or undefined as soon as more than `limit` arrived. */
const collect = async (stream: ReadableStream<Uint8Array>, limit: number, signal: AbortSignal) => {
  const reader = stream.getReader()
  const stop = () => void reader.cancel().catch(() => {})
  signal.addEventListener("abort", stop, { once: true })
  const chunks: Array<Uint8Array> = []
  let size = 0
  for (let next = await reader.read(); !next.done; next = await reader.read()) {
    size += next.value.length
    if (size > limit) {
      stop()
      return undefined
    }
    chunks.push(next.value)
  }
  const bytes = new Uint8Array(size)
  let offset = 0
  for (const chunk of chunks) {
    bytes.set(chunk, offset)
    offset += chunk.length
  }
  return bytes
}

const read = (request: Request, limit: number): Effect.Effect<RawBody, ApiError> =>
  Effect.suspend(() => {
    const declared = request.headers.get("content-length") ?? undefined
    if (Body.declaredTooLarge(declared, limit)) return Effect.fail(Respond.payloadTooLarge())
    if (declared === "0") return Effect.succeed(new Uint8Array(0))
    const stream = request.body
    if (stream === null) return Effect.fail(Errors.invalidJson())
    return Effect.tryPromise({
      try: (signal) => collect(stream, limit, signal),
      catch: () => Errors.invalidJson()
    }).pipe(
      Effect.flatMap((bytes) =>
        bytes === undefined ? Effect.fail(Respond.payloadTooLarge()) : Effect.succeed(bytes)
      )
    )
  })

/** Drops the origin of an absolute URL: `http://host/api/health?x` -> `/api/health?x`. */
const pathAndQuery = (url: string): string => {
  if (url.startsWith("/")) return url
  const at = url.indexOf("/", url.indexOf("//") + 2)
  return at === -1 ? "/" : url.slice(at)
}

/** A web request, answered through `resolve`, its body limited to `limit` bytes. */
class WebExchange implements Dispatch.Exchange {
  readonly method: string
  readonly url: string
  readonly mountPath: string

  constructor(
    private readonly request: Request,
    private readonly limit: number,
    private readonly resolve: (response: Response) => void,
    private readonly host: Context
  ) {
    this.method = request.method.toUpperCase()
    this.url = pathAndQuery(request.url)
    this.mountPath = host.mountPath
  }

  header(name: string): string | undefined {
    return this.request.headers.get(name) ?? undefined
  }

  body(): Effect.Effect<RawBody, ApiError> {
    const body = this.host.body
    return body === undefined ? read(this.request, this.limit) : given(body, this.limit)
  }

  open(answer: Respond.Answer, requestId: string): Dispatch.Channel {
    const closers: Array<() => void> = []
    let open = true
    const close = () => {
      if (!open) return
      open = false
      for (const f of closers) f()
    }
    let controller: ReadableStreamDefaultController<Uint8Array> | undefined
    const body = new ReadableStream<Uint8Array>({
      start: (c) => {
        controller = c
      },
      cancel: close
    })
    const headers: Array<[string, string]> = Object.entries(answer.headers)
    headers.push(["x-request-id", requestId])
    this.resolve(new Response(this.method === "HEAD" ? null : body, { status: answer.status, headers }))
    return {
      write: (text) => {
        if (open) controller?.enqueue(encoder.encode(text))
      },
      end: () => {
        if (open) controller?.close()
        close()
      },
      onClose: (f) => {
        if (open) closers.push(f)
        else f()
      }
    }
  }

  send(answer: Respond.Answer, requestId: string): void {
    const bytes = typeof answer.body === "string" ? encoder.encode(answer.body) : answer.body
    const headers: Array<[string, string]> = Object.entries(answer.headers)
    headers.push(["content-length", String(bytes.length)], ["x-request-id", requestId])
    this.resolve(new Response(this.method === "HEAD" ? null : bytes, { status: answer.status, headers }))
  }
}

/** The exchange of a web request, whose Response goes to `resolve` (no body for HEAD). */
export const exchange = (
  request: Request,
  limit: number,
  resolve: (response: Response) => void,
  host: Context = { body: undefined, mountPath: "" }
): Dispatch.Exchange => new WebExchange(request, limit, resolve, host)
