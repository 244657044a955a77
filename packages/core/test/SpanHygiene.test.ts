/**
 * What reaches a tracer through `SpanHygiene.tracer`: a refusal ends its span as a success with
 * its code, a server-side failure or a defect as its message alone (no frames, no file path),
 * `code.stacktrace` never, secrets masked, URLs by origin, credential headers redacted.
 */
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Option, Tracer } from "effect"
import * as Errors from "../src/contract/Errors.js"
import * as Ids from "../src/domain/Ids.js"
import * as SpanHygiene from "../src/runtime/SpanHygiene.js"

/** A span as the inner tracer was told about it. */
interface Recorded {
  readonly name: string
  readonly attributes: Map<string, unknown>
  readonly events: Array<readonly [string, Record<string, unknown> | undefined]>
  exit?: Exit.Exit<unknown, unknown>
}

/** A tracer that records what it is told. */
const recorder = () => {
  const spans: Array<Recorded> = []
  const tracer = Tracer.make({
    span: (name, parent, context, links, startTime, kind) => {
      const recorded: Recorded = { name, attributes: new Map(), events: [] }
      spans.push(recorded)
      let status: Tracer.SpanStatus = { _tag: "Started", startTime }
      return {
        _tag: "Span",
        name,
        spanId: Ids.randomBase62(16),
        traceId: Ids.randomBase62(32),
        parent,
        context,
        get status() {
          return status
        },
        attributes: recorded.attributes,
        links,
        sampled: true,
        kind,
        end: (endTime, exit) => {
          recorded.exit = exit
          status = { _tag: "Ended", startTime, endTime, exit }
        },
        attribute: (key, value) => recorded.attributes.set(key, value),
        event: (eventName, _, attributes) => recorded.events.push([eventName, attributes]),
        addLinks: () => undefined
      }
    },
    context: (f) => f()
  })
  return { spans, tracer }
}

const traced = <A, E>(effect: Effect.Effect<A, E>) => {
  const { spans, tracer } = recorder()
  return Effect.map(
    Effect.exit(
      Effect.withSpan(effect, "op").pipe(
        Effect.withTracer(SpanHygiene.tracer(tracer)),
        Effect.withTracerEnabled(true)
      )
    ),
    () => spans
  )
}

const only = (spans: ReadonlyArray<Recorded>): Recorded => {
  expect(spans.length).toBe(1)
  return spans[0]
}

describe("SpanHygiene", () => {
  it.effect("ends a span refused with a 4xx as a success, with the refusal's code and no stack", () =>
    Effect.gen(function* () {
      const span = only(yield* traced(Effect.fail(Errors.unauthorized())))
      expect(span.exit !== undefined && Exit.isSuccess(span.exit)).toBe(true)
      expect(span.attributes.get("pixgate.refusal.code")).toBe("unauthorized")
      expect(span.attributes.has("code.stacktrace")).toBe(false)
    })
  )

  it.effect("keeps a server-side failure an error, as its message without frames or paths", () =>
    Effect.gen(function* () {
      const span = only(yield* traced(Effect.fail(Errors.unavailable())))
      const exit = span.exit
      expect(exit !== undefined && Exit.isFailure(exit)).toBe(true)
      if (exit === undefined || Exit.isSuccess(exit)) return
      const pretty = Cause.pretty(exit.cause, { renderErrorCause: true })
      expect(pretty).toBe("StorageUnavailable: Service temporarily unavailable")
      expect(span.attributes.has("code.stacktrace")).toBe(false)
    })
  )

  it.effect("turns a defect into its message, file paths and secrets removed", () =>
    Effect.gen(function* () {
      const key = Ids.newApiKey("live")
      const span = only(
        yield* traced(Effect.die(new Error(`Cannot read /srv/app/node_modules/x/index.js:12:5 with ${key}`)))
      )
      const exit = span.exit
      if (exit === undefined || Exit.isSuccess(exit)) return expect.unreachable("a failure")
      const pretty = Cause.pretty(exit.cause, { renderErrorCause: true })
      expect(pretty).toBe("Error: Cannot read [path] with sk_live_[redacted]")
    })
  )

  it.effect("masks secrets, cuts URLs to their origin and redacts credential headers", () =>
    Effect.gen(function* () {
      const key = Ids.newApiKey("test")
      const span = only(
        yield* traced(
          Effect.annotateCurrentSpan({
            "url.full": "https://shop.example/hooks/t0k3n?key=abc",
            "url.path": "/hooks/t0k3n",
            "url.query": "key=abc",
            "http.request.header.x-pixgate-signature": "the-webhook-secret",
            "http.request.header.authorization": "Bearer x",
            "http.request.header.content-type": "application/json",
            note: `sent ${key}`
          }).pipe(
            Effect.zipRight(Effect.logWarning(`key ${key}`).pipe(Effect.annotateLogs({ key }))),
            Effect.zipRight(Effect.fail(Errors.notFound("Merchant")))
          )
        )
      )
      expect(Object.fromEntries(span.attributes)).toEqual({
        "url.full": "https://shop.example",
        "http.request.header.x-pixgate-signature": "[redacted]",
        "http.request.header.authorization": "[redacted]",
        "http.request.header.content-type": "application/json",
        note: "sent sk_test_[redacted]",
        "pixgate.refusal.code": "not_found"
      })
      expect(JSON.stringify(span.events)).not.toContain(key.slice(8))
      expect(span.events.length).toBeGreaterThan(0)
    })
  )

  it.effect("gives the inner tracer its own spans as parents", () =>
    Effect.gen(function* () {
      const { spans, tracer } = recorder()
      const parents: Array<Option.Option<Tracer.AnySpan>> = []
      const watching = Tracer.make({
        span: (...args) => {
          parents.push(args[1])
          return tracer.span(...args)
        },
        context: (f) => f()
      })
      yield* Effect.withSpan(Effect.withSpan(Effect.void, "child"), "parent").pipe(
        Effect.withTracer(SpanHygiene.tracer(watching)),
        Effect.withTracerEnabled(true)
      )
      expect(spans.map((s) => s.name)).toEqual(["parent", "child"])
      const parent = parents[1]
      expect(Option.isSome(parent) && parent.value._tag === "Span" && parent.value.name).toBe("parent")
      expect(Option.isSome(parent) && parent.value.constructor.name).not.toBe("CleanSpan")
    })
  )
})
