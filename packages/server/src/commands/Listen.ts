/**
 * `pixgate listen --forward-to URL`: a merchant's test-mode events, as they are made, POSTed to
 * a local URL with the same body and signature a delivery has, one line per event with the
 * receiver's answer. Two sources:
 *
 * - `--server URL` with the merchant's test key (or `PIXGATE_ADMIN_TOKEN` and `--merchant`):
 *   the server's event stream (`GET /api/v1/events/stream`, Server-Sent Events), signed there
 *   with the test endpoint's signing key; reconnecting after a dropped connection with
 *   `Last-Event-ID`, forwarding each event id once. Nothing of the local database is opened.
 * - without it, the database `PIXGATE_DATABASE` names, read every 0.5 s (a server need not run).
 *
 * Events made before it starts are not sent. Without a test endpoint, the requests are signed
 * with a key made for this run. Secrets are shown only with `--print-secret`.
 */
import {
  Domain,
  Engine,
  Errors,
  SigningKeys,
  Store,
  WebhookSignature,
  Webhooks,
  WebhookTransport
} from "@pixgate/core"
import { Clock, Effect, Option, Stream } from "effect"
import { EventSource } from "eventsource"
import { command, type Flag, UsageError } from "./Command.js"
import { Readable } from "./Output.js"
import { authHeaders, RemoteFailure, type Server } from "./Remote.js"

/** How often the database is read again. */
const pollMs = 500

/** How long the receiver has to answer each event. */
const timeoutMs = 10_000

const utf8 = new TextEncoder()

/** The flags of `listen`. */
const listenFlags: Readonly<Record<string, Flag>> = {
  "forward-to": {
    value: "URL",
    description: "the local URL each event is POSTed to, e.g. http://localhost:4000/webhooks",
    test: (v) => /^https?:\/\/[^\s]+$/.test(v),
    message: "--forward-to must be an http:// or https:// URL"
  },
  merchant: {
    value: "ID",
    description:
      "the merchant's id (mer_...): required on the database and with the admin token; a key names its merchant"
  },
  mode: {
    value: "test",
    description: "the events' mode: test (the default; listen forwards sandbox events only)",
    test: (v) => v === "test",
    message: "--mode: listen forwards test-mode events only"
  },
  events: {
    value: "a,b",
    description: `only these events, comma-separated (default all): ${Domain.eventTypes.join(", ")}`,
    test: (v) => v.split(",").every((e) => Domain.eventTypes.some((t) => t === e.trim())),
    message: `--events must be a comma-separated list of: ${Domain.eventTypes.join(", ")}`
  },
  server: {
    value: "URL",
    description:
      "follow this server's event stream (e.g. https://staging.example.com) instead of the local database; " +
      "with the merchant's test key (--api-key or PIXGATE_API_KEY) or PIXGATE_ADMIN_TOKEN and --merchant"
  },
  "api-key": {
    value: "KEY|-",
    description: "with --server: the merchant's test key (sk_test_...); `-` reads it from stdin",
    secretEnv: "PIXGATE_API_KEY"
  },
  "print-secret": {
    value: "",
    switch: true,
    description:
      "also print the signing key the requests are signed with (and, on the database, the endpoint's secret); never shown otherwise"
  }
}

/** One forwarded event as printed: a line for a person, an object for `--json`. */
const forwarded = (at: number, id: string, type: string, outcome: WebhookTransport.WebhookOutcome) => {
  const answer = outcome.statusCode === null ? `failed: ${outcome.error}` : `${outcome.statusCode}`
  return new Readable(
    {
      at: new Date(at).toISOString(),
      id,
      type,
      statusCode: outcome.statusCode,
      error: outcome.error ?? null
    },
    `${new Date(at).toISOString()}  ${type.padEnd(21)}  ${id}  -> ${answer}\n`
  )
}

const notice = (text: string) => new Readable(undefined, text)

/** POSTs one event to the receiver. */
const post = (url: string, body: Uint8Array, headers: Readonly<Record<string, string>>) =>
  Effect.flatMap(WebhookTransport.WebhookTransport, (transport) =>
    transport.post({ url, body, headers: { ...headers }, timeoutMs, publicOnly: false })
  )

/** `listen` on the database: the store's event list, read every `pollMs`. */
const fromDatabase = (
  flags: {
    readonly "forward-to": string
    readonly merchant?: string | undefined
    readonly events?: string | undefined
    readonly "print-secret"?: string | undefined
  },
  print: (item: Readable) => Effect.Effect<void>
) =>
  Effect.gen(function* () {
    if (flags.merchant === undefined)
      return yield* new UsageError({
        message: "listen needs --merchant (or --server URL with the merchant's test key)"
      })
    const engine = yield* Engine.Engine
    const store = yield* Store.Store
    const url = flags["forward-to"]
    const only = flags.events?.split(",").map((e) => e.trim())
    const merchant = yield* engine.admin.getMerchant(flags.merchant)
    const found = yield* store.getWebhookEndpoint(merchant.id, "test")
    // Without a test endpoint, keys made for this run.
    const endpoint = Option.getOrElse(found, () => ({
      secret: SigningKeys.newSigningKey().slice("whsec_".length, "whsec_".length + 32),
      secretHeader: true,
      signingKey: SigningKeys.newSigningKey(),
      previousSigningKey: null,
      previousKeyExpiresAt: null
    }))
    const seen = new Set((yield* store.listEvents(merchant.id, "test")).map((e) => e.id))
    const secrets =
      flags["print-secret"] === "yes"
        ? `Signing key (webhook-signature, Standard Webhooks): ${endpoint.signingKey}\n` +
          `Secret (X-${WebhookSignature.token(engine.config.serviceName)}-Signature): ${endpoint.secret}\n`
        : ""
    yield* print(
      notice(
        `Ready: forwarding the test-mode events of ${merchant.id} to ${url} (Ctrl-C to stop)\n${secrets}` +
          `Keys: ${Option.isSome(found) ? "the merchant's test endpoint's" : "made for this run (the merchant has no test endpoint)"}` +
          `${flags["print-secret"] === "yes" ? "" : "; --print-secret shows them"}\n`
      )
    )
    const forward = (event: Domain.Event) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const request = yield* Effect.orDie(
          Webhooks.signedRequest(engine.config.serviceName, endpoint, event, now)
        )
        yield* print(forwarded(now, event.id, event.type, yield* post(url, request.body, request.headers)))
      })
    const poll = Effect.gen(function* () {
      for (const event of yield* store.listEvents(merchant.id, "test")) {
        if (seen.has(event.id)) continue
        seen.add(event.id)
        if (only === undefined || only.includes(event.type)) yield* forward(event)
      }
    })
    return yield* Effect.forever(Effect.zipRight(poll, Effect.sleep(pollMs)))
  }).pipe(Effect.catchTag("StoreError", (e) => Effect.fail(Errors.unavailable(e))))

/** What the server's stream says, message by message. */
type StreamMessage =
  | { readonly _tag: "Ready"; readonly data: string }
  | { readonly _tag: "Event"; readonly data: string }
  | { readonly _tag: "Dropped"; readonly message: string }

/** One event of the server's stream. */
interface StreamedEvent {
  readonly id: string
  readonly type: string
  readonly body: string
  readonly headers: Readonly<Record<string, string>> | null
}

const isStreamedEvent = (u: unknown): u is StreamedEvent =>
  typeof u === "object" && u !== null && "id" in u && "type" in u && "body" in u && "headers" in u

/** The server's event stream as messages; fails when the server refuses it (a reconnection does not). */
const messages = (url: string, headers: Record<string, string>) =>
  Stream.async<StreamMessage, RemoteFailure>((emit) => {
    const source = new EventSource(url, {
      fetch: (input, init) => fetch(input, { ...init, headers: { ...init?.headers, ...headers } })
    })
    source.addEventListener("ready", (e) => void emit.single({ _tag: "Ready", data: e.data }))
    source.onmessage = (e) => void emit.single({ _tag: "Event", data: e.data })
    source.onerror = (e) => {
      if (source.readyState === EventSource.CLOSED)
        void emit.fail(
          new RemoteFailure({
            message: `${url}: ${e.code === undefined ? (e.message ?? "refused") : `HTTP ${e.code}`}${e.code === 401 ? " (unauthorized: check the key or token)" : ""}`
          })
        )
      else void emit.single({ _tag: "Dropped", message: e.message ?? "connection lost" })
    }
    return Effect.sync(() => source.close())
  })

/** The server's event stream to read: the merchant's (test key) or, with the admin token, by merchant. */
const streamPath = (server: Server, merchant: string | undefined) =>
  Effect.gen(function* () {
    if (server.apiKey?.startsWith("sk_live_"))
      return yield* new UsageError({
        message: "listen forwards test-mode events only: give the merchant's test key (sk_test_...)"
      })
    const path =
      server.apiKey !== undefined
        ? "/api/v1/events/stream"
        : server.adminToken !== undefined && merchant !== undefined
          ? `/admin/merchants/${encodeURIComponent(merchant)}/events/stream?mode=test`
          : undefined
    if (path === undefined)
      return yield* new UsageError({
        message:
          "listen --server needs the merchant's test key (--api-key - or PIXGATE_API_KEY), or PIXGATE_ADMIN_TOKEN and --merchant"
      })
    return path
  })

/** `listen --server URL`: the server's event stream, forwarded. */
const fromServer = (
  server: Server,
  flags: {
    readonly "forward-to": string
    readonly merchant?: string | undefined
    readonly events?: string | undefined
    readonly "print-secret"?: string | undefined
  },
  print: (item: Readable) => Effect.Effect<void>
) =>
  Effect.gen(function* () {
    const path = yield* streamPath(server, flags.merchant)
    const url = flags["forward-to"]
    const only = flags.events?.split(",").map((e) => e.trim())
    // Requests the server could not sign (no test endpoint) are signed with a key of this run.
    const runKeys = {
      secret: "",
      signingKey: SigningKeys.newSigningKey(),
      previousSigningKey: null,
      previousKeyExpiresAt: null
    }
    const seen = new Set<string>()
    let readyOnce = false
    const onMessage = (message: StreamMessage) =>
      Effect.gen(function* () {
        if (message._tag === "Dropped")
          return yield* print(notice(`Connection lost (${message.message}); reconnecting\n`))
        if (message._tag === "Ready") {
          const ready = JSON.parse(message.data) as { merchantId: string }
          if (readyOnce) return yield* print(notice("Reconnected: resuming after the last event forwarded\n"))
          readyOnce = true
          return yield* print(
            notice(
              `Ready: forwarding the test-mode events of ${ready.merchantId} from ${server.url} to ${url} (Ctrl-C to stop)\n` +
                "Signatures: the merchant's test endpoint's signing key; without an endpoint, a key made for this run" +
                (flags["print-secret"] === "yes"
                  ? `: ${runKeys.signingKey}\n`
                  : " (--print-secret shows it)\n")
            )
          )
        }
        const event: unknown = JSON.parse(message.data)
        if (!isStreamedEvent(event) || seen.has(event.id)) return
        seen.add(event.id)
        if (only !== undefined && !only.includes(event.type)) return
        const body = utf8.encode(event.body)
        const now = yield* Clock.currentTimeMillis
        const headers =
          event.headers ??
          (yield* Effect.map(
            Effect.orDie(WebhookSignature.sign(runKeys.signingKey, event.id, Math.floor(now / 1000), body)),
            (signature) => ({
              "webhook-id": event.id,
              "webhook-timestamp": String(Math.floor(now / 1000)),
              "webhook-signature": signature
            })
          ))
        yield* print(
          forwarded(
            now,
            event.id,
            event.type,
            yield* post(url, body, { "content-type": "application/json", ...headers })
          )
        )
      })
    yield* Stream.runForEach(
      messages(`${server.url}${path}`, authHeaders(server, server.apiKey !== undefined ? "key" : "admin")),
      onMessage
    )
    return new Readable(undefined, "")
  })

/** `listen --forward-to URL [--merchant ID] [--server URL] [--events a,b] [--print-secret]`. */
export const listenCommand = command({
  summary:
    "Forwards a merchant's test-mode events, as they are made, to a local URL, signed like real deliveries; prints one line per event with the receiver's answer. From a server (--server) or the local database.",
  examples: [
    "PIXGATE_API_KEY=sk_test_... pixgate listen --forward-to http://localhost:4000/webhooks --server https://staging.example.com",
    "pixgate listen --forward-to http://localhost:4000/webhooks --merchant mer_...",
    "pixgate listen --forward-to http://localhost:4000/webhooks --merchant mer_... --events transaction.completed,withdrawal.completed --json"
  ],
  usage:
    "listen --forward-to URL [--server URL [--api-key KEY|-]] [--merchant ID] [--events a,b] [--print-secret]",
  required: ["forward-to"],
  optional: ["merchant", "mode", "events", "server", "api-key", "print-secret"],
  flags: listenFlags,
  run: (_, flags, __, print) => fromDatabase(flags, print),
  remote: (server, flags, _, print) => fromServer(server, flags, print)
})
