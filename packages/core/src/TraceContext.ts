/**
 * Trace context from a request into the webhooks it causes. A webhook attempt runs in the job
 * worker, not in the request, so the request's span is remembered by the transaction it
 * created, and every attempt of an event about that transaction runs as that span's child: its
 * `traceparent` header (W3C Trace Context) carries the request's trace id to the receiver. The
 * memory is this process's, bounded (the oldest links go first) and only written while a tracer
 * is enabled: an attempt run by another instance, after a restart or once the link was dropped
 * starts a trace of its own. See docs/decisions.md ("Metrics and traces").
 */
import { Effect, FiberRef, Option, Tracer } from "effect"

/** Most transactions whose request span is remembered. */
export const maxLinks = 10_000

interface Link {
  readonly traceId: string
  readonly spanId: string
  readonly sampled: boolean
}

const links = new Map<string, Link>()

/** The W3C `traceparent` header of a span. */
export const traceparent = (span: Link): string =>
  `00-${span.traceId}-${span.spanId}-${span.sampled ? "01" : "00"}`

/** Remembers the current span (when tracing is on) as the origin of `transactionId`'s webhooks. */
export const remember = (transactionId: string): Effect.Effect<void> =>
  Effect.flatMap(FiberRef.get(FiberRef.currentTracerEnabled), (enabled) =>
    enabled
      ? Effect.flatMap(Effect.currentParentSpan, (span) =>
          Effect.sync(() => {
            if (links.size >= maxLinks) links.delete(links.keys().next().value!)
            links.set(transactionId, { traceId: span.traceId, spanId: span.spanId, sampled: span.sampled })
          })
        ).pipe(Effect.ignore)
      : Effect.void
  )

/** The `traceparent` header of the current span, when a tracer is enabled; else no header. */
export const headers: Effect.Effect<Readonly<Record<string, string>>> = Effect.flatMap(
  FiberRef.get(FiberRef.currentTracerEnabled),
  (enabled) =>
    enabled
      ? Effect.map(Effect.option(Effect.currentSpan), (span) =>
          Option.isSome(span) ? { traceparent: traceparent(span.value) } : {}
        )
      : Effect.succeed({})
)

/** The remembered origin of a transaction's webhooks, as a parent span. */
export const originOf = (transactionId: unknown): Option.Option<Tracer.ExternalSpan> => {
  const link = typeof transactionId === "string" ? links.get(transactionId) : undefined
  return link === undefined ? Option.none() : Option.some(Tracer.externalSpan(link))
}
