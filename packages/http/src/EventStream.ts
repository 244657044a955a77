/**
 * The event stream's answers (Server-Sent Events): the engine's event feed written as SSE
 * messages, a keep-alive comment while nothing happens, and the end of the stream when the
 * instance starts draining (the client reconnects elsewhere with `Last-Event-ID`). The contract
 * is `EventsApi.ts`; both routes are the transport's own behind their group's security.
 */
import { type Auth, Engine, type Errors, type EventFeed, Requests } from "@pixgate/core"
import { Duration, Effect, Ref, Schedule, Stream } from "effect"
import * as Respond from "./Respond.js"
import type * as Route from "./Route.js"

/** A comment line is sent after this long without an event, so proxies keep the connection. */
export const keepAlive = Duration.seconds(15)

/** How long a client waits before reconnecting (SSE `retry`). */
export const retryMs = 1000

const headers = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-store",
  // Proxies that buffer answers (nginx) pass this one through as it is written.
  "x-accel-buffering": "no"
}

/** One event as an SSE message: its id (for `Last-Event-ID`) and the item as JSON. */
const message = (item: EventFeed.FeedItem): string =>
  `id: ${item.id}\ndata: ${JSON.stringify({
    id: item.id,
    type: item.type,
    createdAt: new Date(item.createdAt).toISOString(),
    body: item.body,
    headers: item.headers
  })}\n\n`

/** Whether a route's principal is an API key's caller. */
const isCaller = (principal: unknown): principal is Auth.Caller =>
  typeof principal === "object" && principal !== null && "merchant" in principal && "mode" in principal

/** Ends once the instance starts draining. */
const draining = (engine: Engine.EngineShape) =>
  Effect.repeat(Ref.get(engine.health.draining), {
    until: (d) => d,
    schedule: Schedule.spaced(engine.events.pollInterval)
  })

/** The stream of a merchant's events of a mode, from `Last-Event-ID` on. */
const stream = (
  merchant: { readonly id: Auth.Caller["merchant"]["id"] },
  mode: "test" | "live",
  request: Route.Input<unknown>["request"]
) =>
  Effect.gen(function* () {
    const engine = yield* Engine.Engine
    const feed = yield* engine.events.follow({
      merchantId: merchant.id,
      mode,
      after: request.header("last-event-id")
    })
    const ready = `retry: ${retryMs}\nevent: ready\ndata: ${JSON.stringify({
      merchantId: merchant.id,
      mode,
      serviceName: engine.config.serviceName
    })}\n\n`
    const events = feed.pipe(
      Stream.map(message),
      // A store that stops answering ends the stream: the client resumes from its last event.
      Stream.catchAll(() => Stream.empty),
      Stream.merge(Stream.as(Stream.fromSchedule(Schedule.spaced(keepAlive)), ": keep-alive\n\n"), {
        haltStrategy: "left"
      }),
      Stream.interruptWhen(draining(engine))
    )
    return new Respond.Streamed(200, headers, Stream.concat(Stream.make(ready), events))
  })

/** A failure as its error answer (a transport route answers every outcome itself). */
const answered = <R>(effect: Effect.Effect<Respond.Answer, Errors.PixgateError, R>) =>
  Effect.catchAll(effect, (error) => Effect.succeed(Respond.failure(error)))

/** `GET /api/v1/events/stream`: the key's merchant, the key's mode. */
export const publicStream = (
  input: Route.Input<unknown>
): Effect.Effect<Respond.Answer, never, Engine.Engine> =>
  isCaller(input.principal)
    ? answered(stream(input.principal.merchant, input.principal.mode, input.request))
    : Effect.succeed(Respond.failure(Respond.internal()))

/** `GET /merchants/:merchantId/events/stream?mode=`: any merchant, the mode asked for. */
export const adminStream = (
  input: Route.Input<unknown>
): Effect.Effect<Respond.Answer, never, Engine.Engine> =>
  answered(
    Effect.gen(function* () {
      const engine = yield* Engine.Engine
      const { mode } = yield* Requests.decode(Requests.ModeParameter)({
        mode: input.query.get("mode") ?? undefined
      })
      const merchant = yield* engine.admin.getMerchant(input.params.merchantId ?? "")
      return yield* stream(merchant, mode, input.request)
    })
  )
