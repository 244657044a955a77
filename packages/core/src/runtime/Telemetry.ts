/**
 * Spans when the runtime traces, nothing when it does not: the one switch the services, the job
 * worker and the webhook sender read where they are built.
 */
import { Effect, FiberRef, identity, type Tracer } from "effect"

/** Puts an effect in a span, or leaves it as it is. */
export type Span = (
  name: string,
  options?: Tracer.SpanOptions
) => <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>

const withSpan: Span = (name, options) => (self) => Effect.withSpan(self, name, options)
const without: Span = () => identity

/**
 * `Effect.withSpan` when the runtime traces, read once where a service is built; else nothing:
 * even a span nobody records costs an exit handler per call (a few microseconds).
 */
export const spans: Effect.Effect<Span> = Effect.map(FiberRef.get(FiberRef.currentTracerEnabled), (on) =>
  on ? withSpan : without
)
