/**
 * A merchant's events of one mode as a feed a client follows as they are made (the HTTP API's
 * event stream, which `pixgate listen` forwards to a local URL). Each item is the event with the
 * exact body a webhook delivery sends and the Standard Webhooks headers (`webhook-id`,
 * `webhook-timestamp`, `webhook-signature`) signed at that moment with the mode's endpoint's
 * signing keys, as a delivery is; without an endpoint the item carries no signature. The
 * endpoint's secret (`X-<Service>-Signature`) never goes out: it is not the feed's to show.
 *
 * The store is read again every `pollInterval`, over a window reaching `window` back from the
 * newest event seen: an event is stamped when its change is made and becomes visible when that
 * change commits (on Postgres, perhaps on another instance), so it may appear after a newer one
 * was sent. Resuming after an event id (SSE's `Last-Event-ID`) sends again every event of the
 * window before that event's time, the given one excepted; a client drops the ids it has seen.
 */
import { Chunk, Clock, Context, Duration, Effect, Layer, Option, Stream } from "effect"
import * as Errors from "../contract/Errors.js"
import { type Event, EventId, findById, type MerchantId, type Mode } from "../domain/Domain.js"
import { MerchantStore, ReadStore, type StoreError } from "../ports/Store.js"
import { EngineConfig } from "../runtime/Config.js"
import * as WebhookSignature from "../webhooks/WebhookSignature.js"
import * as Webhooks from "../webhooks/Webhooks.js"

/** One event of the feed, ready to forward. */
export interface FeedItem {
  readonly id: EventId
  readonly type: Event["type"]
  readonly createdAt: number
  /** The body exactly as a delivery sends it (the bytes the signature covers). */
  readonly body: string
  /** `webhook-id`, `webhook-timestamp`, `webhook-signature`; null without an endpoint in the mode. */
  readonly headers: Readonly<Record<string, string>> | null
}

/** Where a feed starts. */
export interface FeedStart {
  readonly merchantId: MerchantId
  readonly mode: Mode
  /** Resume after this event (`Last-Event-ID`); without it, only the events made from now on. */
  readonly after?: string | undefined
}

/** The event feed. */
export interface EventFeedShape {
  /**
   * The events of `start.merchantId` in `start.mode` from `start.after` on, as a stream that
   * never ends by itself. Fails with 404 when `after` names no event of that merchant and mode.
   */
  readonly follow: (
    start: FeedStart
  ) => Effect.Effect<
    Stream.Stream<FeedItem, Errors.StorageUnavailable>,
    Errors.NotFound | Errors.StorageUnavailable
  >
  /** How often the store is read again. */
  readonly pollInterval: Duration.Duration
}

/** The feed's tag. */
export class EventFeed extends Context.Tag("@pixgate/core/EventFeed")<EventFeed, EventFeedShape>() {}

/** How far back each read reaches from the newest event seen: longer than a change takes to commit. */
export const window = Duration.seconds(10)

/** The default time between reads. */
export const defaultPollInterval = Duration.millis(250)

/** What a feed remembers between reads: where the next read starts, and the ids sent since then. */
interface Cursor {
  readonly since: number
  readonly sent: ReadonlyMap<string, number>
}

const unavailable = (e: StoreError) => Errors.unavailable(e)

const utf8 = new TextDecoder()

type SigningEndpoint = Parameters<typeof Webhooks.signedRequest>[1]

/** Builds the feed over the store's event reads and the endpoints' signing keys. */
export const make = (pollInterval: Duration.Duration = defaultPollInterval) =>
  Effect.gen(function* () {
    const reads = yield* ReadStore
    const merchants = yield* MerchantStore
    const config = yield* EngineConfig
    const windowMs = Duration.toMillis(window)
    const secretHeader = `X-${WebhookSignature.token(config.serviceName)}-Signature`

    const item = (event: Event, now: number, endpoint: SigningEndpoint | null): Effect.Effect<FeedItem> => {
      const base = { id: event.id, type: event.type, createdAt: event.createdAt }
      if (endpoint === null)
        return Effect.succeed({ ...base, body: utf8.decode(WebhookSignature.body(event)), headers: null })
      return Effect.map(
        Effect.orDie(Webhooks.signedRequest(config.serviceName, endpoint, event, now)),
        (signed) => {
          const { [secretHeader]: _secret, "User-Agent": _agent, ...headers } = signed.headers
          return { ...base, body: utf8.decode(signed.body), headers }
        }
      )
    }

    /** One read: the window's events not sent yet, signed now, and the cursor after them. */
    const read = (
      start: FeedStart,
      cursor: Cursor
    ): Effect.Effect<readonly [Chunk.Chunk<FeedItem>, Cursor], Errors.StorageUnavailable> =>
      Effect.gen(function* () {
        const events = yield* reads.listEvents(start.merchantId, start.mode, cursor.since)
        const fresh = events.filter((e) => !cursor.sent.has(e.id))
        const newest = events.reduce((t, e) => Math.max(t, e.createdAt), cursor.since + windowMs)
        const since = newest - windowMs
        const sent = new Map([...cursor.sent].filter(([, at]) => at >= since))
        for (const e of fresh) sent.set(e.id, e.createdAt)
        if (fresh.length === 0) return [Chunk.empty<FeedItem>(), { since, sent }] as const
        const now = yield* Clock.currentTimeMillis
        const found = yield* merchants.getWebhookEndpoint(start.merchantId, start.mode)
        const endpoint = Option.getOrNull(found)
        const items = yield* Effect.forEach(fresh, (e: Event) => item(e, now, endpoint))
        return [Chunk.fromIterable(items), { since, sent }] as const
      }).pipe(Effect.mapError(unavailable))

    /** Where the feed starts: after the given event, or at this moment (what exists now is not sent). */
    const first = (start: FeedStart): Effect.Effect<Cursor, Errors.NotFound | Errors.StorageUnavailable> =>
      Effect.gen(function* () {
        if (start.after === undefined) {
          const now = yield* Clock.currentTimeMillis
          const existing = yield* Effect.mapError(
            reads.listEvents(start.merchantId, start.mode, now - windowMs),
            unavailable
          )
          return { since: now - windowMs, sent: new Map(existing.map((e) => [e.id, e.createdAt])) }
        }
        const after = yield* Effect.mapError(findById(EventId, start.after, reads.getEvent), unavailable)
        if (
          Option.isNone(after) ||
          after.value.merchantId !== start.merchantId ||
          after.value.mode !== start.mode
        )
          return yield* Effect.fail(Errors.notFound("Event"))
        return {
          since: after.value.createdAt - windowMs,
          sent: new Map([[after.value.id, after.value.createdAt]])
        }
      })

    const next = (start: FeedStart, cursor: Cursor, wait: boolean) =>
      Effect.map(
        Effect.zipRight(wait ? Effect.sleep(pollInterval) : Effect.void, read(start, cursor)),
        ([items, after]) => Option.some([items, { cursor: after, wait: true }] as const)
      )

    const follow = (start: FeedStart) =>
      Effect.map(first(start), (cursor) =>
        Stream.unfoldChunkEffect({ cursor, wait: false }, (state) => next(start, state.cursor, state.wait))
      )

    return EventFeed.of({ follow, pollInterval })
  })

/** The feed at the default poll interval. */
export const layer: Layer.Layer<EventFeed, never, ReadStore | MerchantStore | EngineConfig> = Layer.effect(
  EventFeed,
  make()
)
