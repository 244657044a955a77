/**
 * Which traces are exported: OpenTelemetry's standard samplers (`OTEL_TRACES_SAMPLER`, with
 * `OTEL_TRACES_SAMPLER_ARG` for the ratio), over any Effect tracer. `@effect/opentelemetry`'s
 * OTLP tracer exports every span it makes; a span this sampler drops is still made by Effect
 * (so trace context still flows, marked not sampled) but never reaches the exporter, and a
 * parent-based sampler drops its children too, so a trace is exported whole or not at all.
 */
import { randomBytes } from "node:crypto"
import { Option, Tracer } from "effect"

/** The standard sampler names. */
export const names = [
  "always_on",
  "always_off",
  "traceidratio",
  "parentbased_always_on",
  "parentbased_always_off",
  "parentbased_traceidratio"
] as const

/** A standard sampler's name. */
export type SamplerName = (typeof names)[number]

/** A sampler: its name and, for the ratio samplers, the share of traces kept (0 to 1). */
export interface Sampling {
  readonly sampler: SamplerName
  readonly ratio: number
}

/** OpenTelemetry's default: keep a remote parent's decision, sample every new trace. */
export const defaults: Sampling = { sampler: "parentbased_always_on", ratio: 1 }

/**
 * Whether `traceId` falls within `ratio`, by OpenTelemetry JS's `TraceIdRatioBasedSampler` rule
 * (the id's 32-bit words XOR-ed, against the ratio of 2^32 - 1), so services that share a trace
 * and a ratio agree on it.
 */
export const inRatio = (traceId: string, ratio: number): boolean => {
  if (ratio >= 1) return true
  if (ratio <= 0) return false
  let accumulated = 0
  for (let at = 0; at < traceId.length; at += 8)
    accumulated = (accumulated ^ Number.parseInt(traceId.slice(at, at + 8), 16)) >>> 0
  return accumulated < Math.floor(ratio * 0xffffffff)
}

const SpanProto = {
  _tag: "Span" as const,
  sampled: false,
  end() {},
  attribute() {},
  event() {},
  addLinks() {}
}

/** A span that is never exported: it only carries its trace's context, marked not sampled. */
const unsampled = (
  name: string,
  parent: Option.Option<Tracer.AnySpan>,
  context: Tracer.Span["context"],
  links: ReadonlyArray<Tracer.SpanLink>,
  startTime: bigint,
  kind: Tracer.SpanKind,
  traceId: string
): Tracer.Span => ({
  ...SpanProto,
  name,
  parent,
  context,
  links,
  kind,
  traceId,
  spanId: randomBytes(8).toString("hex"),
  status: { _tag: "Started", startTime },
  attributes: new Map()
})

/** `inner` behind `sampling`: spans of traces it drops are made but never exported. */
export const tracer = (inner: Tracer.Tracer, sampling: Sampling): Tracer.Tracer => {
  const parentBased = sampling.sampler.startsWith("parentbased_")
  const root = sampling.sampler.replace("parentbased_", "")
  return Tracer.make({
    span(name, parent, context, links, startTime, kind, options) {
      const drop = (traceId: string) => unsampled(name, parent, context, links, startTime, kind, traceId)
      if (parentBased && Option.isSome(parent))
        return parent.value.sampled
          ? inner.span(name, parent, context, links, startTime, kind, options)
          : drop(parent.value.traceId)
      if (root === "always_off")
        return drop(Option.isSome(parent) ? parent.value.traceId : randomBytes(16).toString("hex"))
      const made = inner.span(name, parent, context, links, startTime, kind, options)
      return root === "always_on" || inRatio(made.traceId, sampling.ratio) ? made : drop(made.traceId)
    },
    context: (f, fiber) => inner.context(f, fiber)
  })
}
