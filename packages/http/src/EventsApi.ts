/**
 * The event stream in the contract: `GET /api/v1/events/stream` (a merchant's key, the events of
 * its mode) and the admin API's `GET /merchants/{merchantId}/events/stream?mode=` (the admin
 * token), both Server-Sent Events. Their groups carry no security here: `PixgateApi` adds the
 * API key and the admin token, which it defines. The stream itself is `EventStream.ts`.
 */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { type Errors, Requests } from "@pixgate/core"
import { Schema } from "effect"
import * as ApiErrors from "./ApiErrors.js"

/** The errors a stream is refused with (before it starts): an unknown `Last-Event-ID`, a bad `mode`. */
export type StreamError = Errors.NotFound | Errors.ValidationError

/** What the stream sends, as the OpenAPI document describes it. */
const format =
  "Server-Sent Events (`text/event-stream`). First `retry: 1000` and an `event: ready` message whose `data` is " +
  '`{"merchantId","mode","serviceName"}`; then one message per event, in the order the events were made: ' +
  '`id: <event id>` and `data: {"id","type","createdAt","body","headers"}`, where `body` is the webhook body ' +
  "exactly as a delivery sends it and `headers` holds `webhook-id`, `webhook-timestamp` and `webhook-signature` " +
  "signed now with the mode's webhook endpoint's signing keys (`null` when the merchant has no endpoint in that " +
  "mode; the endpoint's secret is never sent). A comment line (`: keep-alive`) every 15 s while nothing happens. " +
  "The stream ends when the server stops; reconnect with `Last-Event-ID` (EventSource does it by itself): the " +
  "events of the 10 s before that event are sent again (one made earlier may have committed later), so drop the " +
  "ids you have seen."

/** The stream's answer. */
const EventStream = HttpApiSchema.Text({ contentType: "text/event-stream" }).annotations({
  description: "The event stream"
})

/** `Last-Event-ID`: resume after this event. */
const ResumeHeaders = Schema.Struct({
  "last-event-id": Schema.optional(
    Schema.String.annotations({
      description:
        "Resume after this event (`evt_...`): the events made after it are sent, and those of the 10 s before it " +
        "again. 404 when it names no event of this merchant and mode. Without it, only events made from now on"
    })
  )
})

/** `GET /api/v1/events/stream`, behind the merchant's API key (added by `PixgateApi`). */
export const EventsGroup = HttpApiGroup.make("events")
  .add(
    HttpApiEndpoint.get("stream", "/api/v1/events/stream")
      .setHeaders(ResumeHeaders)
      .addSuccess(EventStream)
      .addError(ApiErrors.NotFound)
      .annotateContext(
        OpenApi.annotations({
          identifier: "streamEvents",
          summary: "Follow the key's events as they are made (Server-Sent Events)",
          description: `The merchant's events of the key's mode, signed as webhook deliveries are, for forwarding to a receiver under development (\`pixgate listen --server\`). ${format}`
        })
      )
  )
  .annotateContext(
    OpenApi.annotations({
      title: "Events",
      description: "The merchant's webhook events as a stream, for developing a receiver"
    })
  )

/** `GET /merchants/{merchantId}/events/stream?mode=`, behind the admin token (added by `PixgateApi`). */
export const AdminEventsGroup = HttpApiGroup.make("adminEvents")
  .add(
    HttpApiEndpoint.get("stream", "/merchants/:merchantId/events/stream")
      .setPath(Schema.Struct({ merchantId: Schema.String }))
      .setUrlParams(Requests.ModeParameter)
      .setHeaders(ResumeHeaders)
      .addSuccess(EventStream)
      .addError(Schema.Union(ApiErrors.NotFound, ApiErrors.AdminValidationError))
      .annotateContext(
        OpenApi.annotations({
          identifier: "streamMerchantEvents",
          summary: "Follow a merchant's events of a mode as they are made (Server-Sent Events)",
          description: `What \`GET /api/v1/events/stream\` sends, for any merchant and mode. ${format}`
        })
      )
  )
  .annotateContext(
    OpenApi.annotations({ title: "Admin events", description: "A merchant's webhook events as a stream" })
  )
