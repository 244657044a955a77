/**
 * Trace context from a request into the webhooks it causes. A webhook attempt runs in the job
 * worker, not in the request, so the request's span is remembered by the transaction it
 * created, and every attempt of an event about that transaction runs as that span's child: its
 * `traceparent` header (W3C Trace Context) carries the request's trace id to the receiver. The
 * memory is this process's, bounded (the oldest links go first) and only written while
 * `Propagation` is on: an attempt run by another instance, after a restart or once the link was
 * dropped starts a trace of its own. See docs/decisions.md ("Metrics and traces").
 */
import { Context, Effect, FiberRef, Option, Tracer } from "effect"

/**
 * Whether the engine carries trace context into webhooks: off unless the host exports traces
 * (`tracing` of `Pixgate.make` turns it on). Effect's default runtime has a tracer whose spans
 * go nowhere: a receiver should not get trace ids of a trace nobody can see.
 */
export class Propagation extends Context.Reference<Propagation>()("@pixgate/core/TraceContext/Propagation", {
  defaultValue: () => false
}) {}

/** Propagation and an enabled tracer: only then is anything remembered or sent. */
const propagating: Effect.Effect<boolean> = Effect.flatMap(Propagation, (on) =>
  on ? FiberRef.get(FiberRef.currentTracerEnabled) : Effect.succeed(false)
)

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

/** Remembers the current span (while propagating) as the origin of `transactionId`'s webhooks. */
export const remember = (transactionId: string): Effect.Effect<void> =>
  Effect.flatMap(propagating, (enabled) =>
    enabled
      ? Effect.flatMap(Effect.currentParentSpan, (span) =>
          Effect.sync(() => {
            if (links.size >= maxLinks)
              for (const oldest of links.keys()) {
                links.delete(oldest)
                break
              }
            links.set(transactionId, { traceId: span.traceId, spanId: span.spanId, sampled: span.sampled })
          })
        ).pipe(Effect.ignore)
      : Effect.void
  )

/** The `traceparent` header of the current span while propagating; else no header. */
export const headers: Effect.Effect<Readonly<Record<string, string>>> = Effect.flatMap(
  propagating,
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
