/**
 * The shape of the metrics that leave the process, set on the way out of `@effect/opentelemetry`
 * (whose bridge names every metric's unit `1` unless a series carries a `unit` label, and
 * exports Effect's own runtime metrics beside ours): a metric in seconds (its name ends in
 * `_seconds`) has the unit `s`, and Effect's `effect_*` fiber metrics (milliseconds, no help
 * text) are left out. The same rules apply to the Prometheus scrape (a wrapped producer) and to
 * OTLP pushes (a wrapped serialization, which also adds the latency exemplars it has).
 */
import { Metrics, OtlpSerialization, Resource } from "@effect/opentelemetry"
import type { CollectionResult, MetricData, MetricProducer, MetricReader } from "@opentelemetry/sdk-metrics"
import { Exemplars } from "@pixgate/core"
import { Effect, Layer } from "effect"

/** Whether a metric is exported: everything but Effect's own runtime metrics. */
export const exported = (name: string): boolean => !name.startsWith("effect_")

/** The unit of a metric by its name: `s` for seconds, else `1` (counts, ratios, flags). */
export const unitOf = (name: string): string => (name.endsWith("_seconds") ? "s" : "1")

const shapeData = (data: MetricData): MetricData => ({
  ...data,
  descriptor: { ...data.descriptor, unit: unitOf(data.descriptor.name) }
})

const shapeCollection = (result: CollectionResult): CollectionResult => ({
  ...result,
  resourceMetrics: {
    ...result.resourceMetrics,
    scopeMetrics: result.resourceMetrics.scopeMetrics.map((scope) => ({
      ...scope,
      metrics: scope.metrics.filter((m) => exported(m.descriptor.name)).map(shapeData)
    }))
  }
})

/** `inner`'s collections, shaped. */
export const producer = (inner: MetricProducer): MetricProducer => ({
  collect: (options) => inner.collect(options).then(shapeCollection)
})

/** The engine's metrics, shaped, read by `reader` (e.g. the Prometheus exporter) for the layer's life. */
export const readerLayer = (reader: MetricReader, serviceName: string): Layer.Layer<never> =>
  Layer.scopedDiscard(
    Effect.flatMap(Metrics.makeProducer, (made) => Metrics.registerProducer(producer(made), () => reader))
  ).pipe(Layer.provide(Resource.layer({ serviceName })))

/** An OTLP histogram point, in what is read here. */
interface OtlpPoint {
  readonly attributes?: ReadonlyArray<{
    readonly key: string
    readonly value: { readonly stringValue?: string }
  }>
  readonly exemplars?: ReadonlyArray<unknown>
}

/** An OTLP metric as `@effect/opentelemetry` builds it, in what is shaped here. */
interface OtlpMetric {
  readonly name: string
  readonly unit?: string
  readonly histogram?: { readonly dataPoints: ReadonlyArray<OtlpPoint> }
}

/** `point` with its series' latest exemplar (OTLP/JSON: ids in hex), when there is one. */
const withExemplar = (name: string, point: OtlpPoint): OtlpPoint => {
  const labels = (point.attributes ?? []).map((a) => [a.key, a.value.stringValue ?? ""] as const)
  const found = Exemplars.find(Exemplars.keyOf(name, labels))
  return found === undefined
    ? point
    : {
        ...point,
        exemplars: [
          {
            timeUnixNano: String(BigInt(found.timeMs) * 1_000_000n),
            asDouble: found.value,
            traceId: found.traceId,
            spanId: found.spanId,
            filteredAttributes: []
          }
        ]
      }
}

/** An OTLP metrics export request. */
interface OtlpMetrics {
  readonly resourceMetrics: ReadonlyArray<{
    readonly scopeMetrics: ReadonlyArray<{ readonly metrics: ReadonlyArray<OtlpMetric> }>
  }>
}

const isOtlpMetrics = (data: unknown): data is OtlpMetrics =>
  typeof data === "object" &&
  data !== null &&
  "resourceMetrics" in data &&
  Array.isArray(data.resourceMetrics)

const shapeOtlpMetric = (metric: OtlpMetric, exemplars: boolean): OtlpMetric => ({
  ...metric,
  unit: unitOf(metric.name),
  ...(metric.histogram === undefined
    ? {}
    : {
        histogram: {
          ...metric.histogram,
          dataPoints: exemplars
            ? metric.histogram.dataPoints.map((point) => withExemplar(metric.name, point))
            : metric.histogram.dataPoints
        }
      })
})

/** An OTLP metrics body, shaped; `exemplars` adds the latest exemplar of each histogram series. */
export const shapeOtlp = (data: unknown, exemplars: boolean): unknown =>
  isOtlpMetrics(data)
    ? {
        ...data,
        resourceMetrics: data.resourceMetrics.map((resource) => ({
          ...resource,
          scopeMetrics: resource.scopeMetrics.map((scope) => ({
            ...scope,
            metrics: scope.metrics.filter((m) => exported(m.name)).map((m) => shapeOtlpMetric(m, exemplars))
          }))
        }))
      }
    : data

/**
 * `serialization` with its metrics shaped. Exemplars go with OTLP/JSON only: the protobuf
 * encoder of `@effect/opentelemetry` has no exemplar field, and drops them.
 */
export const serializationLayer = (json: boolean): Layer.Layer<OtlpSerialization.OtlpSerialization> => {
  const base = json ? OtlpSerialization.layerJson : OtlpSerialization.layerProtobuf
  return Layer.effect(
    OtlpSerialization.OtlpSerialization,
    Effect.map(OtlpSerialization.OtlpSerialization, (inner) => ({
      ...inner,
      metrics: (data: unknown) => inner.metrics(shapeOtlp(data, json))
    }))
  ).pipe(Layer.provide(base))
}
