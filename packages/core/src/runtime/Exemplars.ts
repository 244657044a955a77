/**
 * Exemplars of the latency histograms: for each series, the latest observation made in a
 * sampled span, with that span's trace and span ids, so a slow bucket on a dashboard leads to a
 * trace of one such request. Only written while tracing (a span is given), one entry per series:
 * the series are bounded, so is this. An exporter that carries exemplars reads them here
 * (`find`); one that cannot simply never asks.
 */
import type { MetricLabel, Tracer } from "effect"

/** One traced observation. */
export interface Exemplar {
  /** The observed value, in the histogram's unit. */
  readonly value: number
  /** When it was observed, Unix milliseconds. */
  readonly timeMs: number
  readonly traceId: string
  readonly spanId: string
}

const latest = new Map<string, Exemplar>()
const keys = new Map<string, WeakMap<ReadonlyArray<MetricLabel.MetricLabel>, string>>()

/** The key of a series: the metric's name and its labels in their order. */
export const keyOf = (name: string, labels: ReadonlyArray<readonly [string, string]>): string =>
  `${name}{${labels.map(([key, value]) => `${key}=${JSON.stringify(value)}`).join(",")}}`

const keyOfTags = (name: string, tags: ReadonlyArray<MetricLabel.MetricLabel>): string => {
  let ofName = keys.get(name)
  if (ofName === undefined) {
    ofName = new WeakMap()
    keys.set(name, ofName)
  }
  const found = ofName.get(tags)
  if (found !== undefined) return found
  const made = keyOf(
    name,
    tags.map((tag) => [tag.key, tag.value] as const)
  )
  ofName.set(tags, made)
  return made
}

/**
 * Remembers `value` of the histogram `name` for `tags` (a constant array from `Metrics.labels`,
 * one histogram per array) as the series' exemplar, when `span` is a sampled span.
 */
export const record = (
  name: string,
  tags: ReadonlyArray<MetricLabel.MetricLabel>,
  value: number,
  timeMs: number,
  span: Tracer.AnySpan | undefined
): void => {
  if (span === undefined || !span.sampled) return
  latest.set(keyOfTags(name, tags), { value, timeMs, traceId: span.traceId, spanId: span.spanId })
}

/** The latest exemplar of a series, by its key (`keyOf`). */
export const find = (key: string): Exemplar | undefined => latest.get(key)
