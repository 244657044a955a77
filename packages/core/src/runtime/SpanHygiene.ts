/**
 * What a span may carry, whatever tracer exports it: `tracer(inner)` passes every span on to
 * `inner` with
 * - no stack trace and no file path: `code.stacktrace` (Effect adds it to a span that fails) is
 *   dropped, and a failure reaches the exporter as its message alone, without the frames or the
 *   source locations of the error's stack;
 * - refusals not marked as errors: a span that ends in a refusal of the request (a 4xx: an
 *   unknown key, a validation error, a missing resource) ends as a success, with the refusal's
 *   code in `pixgate.refusal.code`; only a server-side failure (the store, the bank, a bug) is
 *   an error span;
 * - no secret: every text attribute, event and message masked (`Redaction.mask`), a URL shown by
 *   its origin (`url.full`; `url.path` and `url.query` dropped: a webhook receiver's token may
 *   sit there) and the headers that carry credentials or webhook secrets redacted.
 */
import { Cause, Effect, Exit, FiberId, Layer, Option, Tracer } from "effect"
import * as Errors from "../contract/Errors.js"
import * as Redaction from "../domain/Redaction.js"

/** What the hygiene needs to know of the errors spans end with. */
export interface HygieneOptions {
  /**
   * Whether a failure is a refusal of the request (a 4xx) rather than a server-side failure.
   * Default: an engine error that is not server-side (`Errors.isServerSide`).
   */
  readonly isRefusal?: (error: unknown) => boolean
}

/** The default: an engine error that is not server-side. */
export const isEngineRefusal = (error: unknown): boolean =>
  Errors.isPixgateError(error) && !Errors.isServerSide(error)

// An absolute file path or file URL, with an optional `:line:column` (a stack frame's location).
const filePath =
  /(?:file:\/\/)?(?:\/[\w.@+~-]+)+\.(?:[cm]?[jt]sx?|json|node)(?::\d+){0,2}|node:internal[^\s)]*/g

/** A text as a span may hold it: secrets masked, file paths removed. */
export const cleanText = (text: string): string =>
  Redaction.mask(text.includes("/") || text.includes("node:") ? text.replace(filePath, "[path]") : text)

// Request and response headers whose values are credentials or a webhook secret.
const secretHeader =
  /^http\.(?:request|response)\.header\.(?:authorization|proxy-authorization|cookie|set-cookie|x-api-key|.*signature.*)$/i

/** An attribute as a span may hold it; undefined to drop it. */
export const cleanAttribute = (key: string, value: unknown): unknown => {
  if (key === "code.stacktrace" || key === "url.path" || key === "url.query" || key === "url.fragment")
    return undefined
  if (key === "url.full" || key === "http.url")
    return typeof value === "string" ? Redaction.originOf(value) : undefined
  if (secretHeader.test(key)) return Redaction.placeholder
  if (typeof value === "string") return cleanText(value)
  if (Array.isArray(value)) return value.map((v) => (typeof v === "string" ? cleanText(v) : v))
  return value
}

const cleanAttributes = (attributes: Record<string, unknown> | undefined) => {
  if (attributes === undefined) return undefined
  const out: Record<string, unknown> = {}
  for (const key in attributes) {
    const value = cleanAttribute(key, attributes[key])
    if (value !== undefined) out[key] = value
  }
  return out
}

/** A failure as an exporter may see it: its kind and message, no stack, no location. */
class SpanFailure extends Error {
  constructor(name: string, message: string) {
    super(message)
    this.name = name
    this.stack = `${name}: ${message}`
  }
}

const describe = (error: unknown): SpanFailure => {
  if (typeof error === "object" && error !== null) {
    const tag = "_tag" in error && typeof error._tag === "string" ? error._tag : undefined
    const name = tag ?? (error instanceof Error ? error.name : "Error")
    const message = "message" in error && typeof error.message === "string" ? error.message : ""
    return new SpanFailure(cleanText(name), cleanText(message))
  }
  return new SpanFailure("Error", cleanText(String(error)))
}

const codeOf = (error: unknown): string | undefined => {
  if (typeof error !== "object" || error === null) return undefined
  if ("code" in error && typeof error.code === "string") return error.code
  return "error" in error ? codeOf(error.error) : undefined
}

/** The exit a span ends with, cleaned; a refusal becomes a success, its code returned. */
const cleanExit = (
  exit: Exit.Exit<unknown, unknown>,
  isRefusal: (error: unknown) => boolean
): { readonly exit: Exit.Exit<unknown, unknown>; readonly refusal?: string } => {
  if (Exit.isSuccess(exit)) return { exit }
  if (Cause.isInterruptedOnly(exit.cause)) return { exit: Exit.interrupt(FiberId.none) }
  const failures = [...Cause.failures(exit.cause)]
  const defects = [...Cause.defects(exit.cause)]
  if (defects.length === 0 && failures.length > 0 && failures.every(isRefusal))
    return { exit: Exit.void, refusal: failures.map(codeOf).find((c) => c !== undefined) ?? "refused" }
  const first = failures[0] ?? defects[0]
  return { exit: Exit.fail(describe(first)) }
}

/** A span passed on to the inner tracer's, cleaned on the way. */
class CleanSpan implements Tracer.Span {
  readonly _tag = "Span"
  constructor(
    readonly inner: Tracer.Span,
    private readonly isRefusal: (error: unknown) => boolean
  ) {}
  get name() {
    return this.inner.name
  }
  get spanId() {
    return this.inner.spanId
  }
  get traceId() {
    return this.inner.traceId
  }
  get parent() {
    return this.inner.parent
  }
  get context() {
    return this.inner.context
  }
  get status() {
    return this.inner.status
  }
  get attributes() {
    return this.inner.attributes
  }
  get links() {
    return this.inner.links
  }
  get sampled() {
    return this.inner.sampled
  }
  get kind() {
    return this.inner.kind
  }
  end(endTime: bigint, exit: Exit.Exit<unknown, unknown>): void {
    const cleaned = cleanExit(exit, this.isRefusal)
    if (cleaned.refusal !== undefined) this.inner.attribute("pixgate.refusal.code", cleaned.refusal)
    this.inner.end(endTime, cleaned.exit)
  }
  attribute(key: string, value: unknown): void {
    const cleaned = cleanAttribute(key, value)
    if (cleaned !== undefined) this.inner.attribute(key, cleaned)
  }
  event(name: string, startTime: bigint, attributes?: Record<string, unknown>): void {
    this.inner.event(cleanText(name), startTime, cleanAttributes(attributes))
  }
  addLinks(links: ReadonlyArray<Tracer.SpanLink>): void {
    this.inner.addLinks(links)
  }
}

const unwrap = (span: Tracer.AnySpan): Tracer.AnySpan => (span instanceof CleanSpan ? span.inner : span)

/** `inner`, its spans cleaned before they reach it. */
export const tracer = (inner: Tracer.Tracer, options: HygieneOptions = {}): Tracer.Tracer => {
  const isRefusal = options.isRefusal ?? isEngineRefusal
  return Tracer.make({
    span: (name, parent, context, links, startTime, kind, spanOptions) =>
      new CleanSpan(
        // The inner tracer sees its own spans as parents (a tracer may look into them).
        inner.span(cleanText(name), Option.map(parent, unwrap), context, links, startTime, kind, {
          ...spanOptions,
          attributes: cleanAttributes(spanOptions?.attributes)
        }),
        isRefusal
      ),
    context: (f, fiber) => inner.context(f, fiber)
  })
}

/** The tracer in place when this layer is built, replaced by its cleaned form (`tracer`). */
export const layer = (options: HygieneOptions = {}): Layer.Layer<never> =>
  Layer.unwrapEffect(Effect.map(Effect.tracer, (current) => Layer.setTracer(tracer(current, options))))
