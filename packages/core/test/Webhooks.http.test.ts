/**
 * Webhook delivery over real HTTP, through each transport (the node:http one, and Fetch through
 * an Effect HttpClient): a node:http receiver on 127.0.0.1, the real clock. And the node:http
 * transport's connect-time check of live-mode addresses (DNS rebinding).
 */
import * as dns from "node:dns"
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo, LookupFunction } from "node:net"
import { describe, expect, it } from "@effect/vitest"
import { must } from "@pixgate/testkit/must"
import { testWaitMs } from "@pixgate/testkit/wait"
import { Duration, Effect, type Layer, Schedule } from "effect"
import { Webhook, WebhookVerificationError } from "standardwebhooks"
import * as MemoryStore from "../src/adapters/MemoryStore.js"
import type { Mode } from "../src/domain/Domain.js"
import * as NodeWebhookTransport from "../src/node/NodeWebhookTransport.js"
import { Store } from "../src/ports/Store.js"
import * as WebhookTransport from "../src/ports/WebhookTransport.js"
import type { EngineConfigShape } from "../src/runtime/Config.js"
import { emit, engineOver, event, log, setEndpoint, testSigningKey } from "./support/webhooks.js"

interface Seen {
  readonly method: string
  readonly url: string
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void

/** A receiver on a free port; it records each request before `handler` answers it. */
const serve = (handler: Handler) =>
  Effect.acquireRelease(
    Effect.async<{ url: string; seen: Array<Seen>; close: () => void }>((resume) => {
      const seen: Array<Seen> = []
      const server = createServer((req, res) => {
        const chunks: Array<Buffer> = []
        req.on("data", (c: Buffer) => chunks.push(c))
        req.on("end", () => {
          seen.push({
            method: must(req.method, "req.method"),
            url: must(req.url, "req.url"),
            headers: req.headers,
            body: Buffer.concat(chunks).toString()
          })
          handler(req, res)
        })
      })
      server.listen(0, "127.0.0.1", () => {
        const { port } = server.address() as AddressInfo
        resume(Effect.succeed({ url: `http://127.0.0.1:${port}/hook`, seen, close: () => server.close() }))
      })
      server.on("close", () => server.closeAllConnections())
    }),
    ({ close }) => Effect.sync(close)
  )

const transports = [
  ["node:http", NodeWebhookTransport.layer],
  ["Fetch", WebhookTransport.fetch]
] as const

/** Delivers events through a worker over `transport`, waiting until no delivery is pending. */
const deliverOver = (
  transport: Layer.Layer<WebhookTransport.WebhookTransport>,
  mode: Mode,
  url: string,
  secret: string,
  options: Partial<EngineConfigShape> & { readonly secretHeader?: boolean },
  ...ids: ReadonlyArray<string>
) =>
  Effect.gen(function* () {
    const { secretHeader = true, ...config } = options
    const store = yield* MemoryStore.make
    return yield* Effect.gen(function* () {
      yield* setEndpoint(url, secret, mode, testSigningKey, secretHeader)
      const now = Date.now()
      yield* emit(...ids.map((id) => event(id, now, mode)))
      return yield* log.pipe(
        Effect.filterOrFail(
          (entries) => entries.length === ids.length && entries.every((e) => e.delivery.status !== "pending")
        ),
        Effect.retry(Schedule.spaced("10 millis")),
        Effect.timeoutFail({
          duration: Duration.millis(testWaitMs),
          onTimeout: () => new Error("deliveries still pending")
        })
      )
    }).pipe(Effect.provide(engineOver(store, transport, config)), Effect.provideService(Store, store))
  })

describe.each(transports)("webhook delivery over HTTP (%s)", (_, transport) => {
  const deliver = (
    url: string,
    secret: string,
    config: Partial<EngineConfigShape> & { readonly secretHeader?: boolean },
    ...ids: ReadonlyArray<string>
  ) => deliverOver(transport, "test", url, secret, config, ...ids)

  // No retries; a deadline a loaded machine's receivers meet (a 201 answered past 300 ms at load
  // 12 was seen as a time-out). The time-out's own test sets its 300 ms.
  const fast = { webhookTimeout: Duration.seconds(5), webhookRetryDelays: [] }

  /** Verifies a request the way a receiver does, with the `standardwebhooks` library. */
  const verifies = (key: string | Uint8Array, seen: Seen) => {
    try {
      new Webhook(key, typeof key === "string" ? {} : { format: "raw" }).verify(seen.body, {
        "webhook-id": String(seen.headers["webhook-id"]),
        "webhook-timestamp": String(seen.headers["webhook-timestamp"]),
        "webhook-signature": String(seen.headers["webhook-signature"])
      })
      return true
    } catch (e) {
      if (e instanceof WebhookVerificationError) return false
      throw e
    }
  }

  it.scopedLive(
    "POSTs the event's JSON with the secret header, a Standard Webhooks signature by the signing key and the User-Agent",
    () =>
      Effect.gen(function* () {
        const receiver = yield* serve((_, res) => res.end("ok"))
        const [entry] = yield* deliver(receiver.url, "plain-secret-123", {}, "evt_http")
        expect(entry?.delivery.status).toBe("delivered")
        expect(entry?.attempts.map((a) => a.statusCode)).toEqual([200])
        const [seen] = receiver.seen
        expect(seen?.method).toBe("POST")
        expect(seen?.url).toBe("/hook")
        const sent = event("evt_http", entry.event.createdAt)
        expect(JSON.parse(seen.body)).toEqual({
          id: "evt_http",
          event: "transaction.completed",
          data: sent.data,
          timestamp: new Date(sent.createdAt).toISOString()
        })
        expect(seen?.headers).toMatchObject({
          "content-type": "application/json",
          "x-pixgate-signature": "plain-secret-123",
          "user-agent": "Pixgate-Webhooks/1.0",
          "webhook-id": "evt_http"
        })
        expect(seen?.headers.traceparent).toBeUndefined()
        expect(Math.abs(Number(seen?.headers["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(300)
        expect(String(seen?.headers["webhook-signature"])).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/)
        expect(verifies(testSigningKey, seen)).toBe(true)
        // The secret every request shows cannot make a valid signature, as raw bytes or as a key.
        expect(verifies(new TextEncoder().encode("plain-secret-123"), seen)).toBe(false)
        expect(verifies(`whsec_${btoa("plain-secret-123")}`, seen)).toBe(false)
      })
  )

  it.scopedLive(
    "a secret written like a signing key is only the header: the signature is the endpoint's key; headers named after the service",
    () =>
      Effect.gen(function* () {
        const secret = `whsec_${Buffer.from("0123456789abcdef0123456789abcdef").toString("base64")}`
        const receiver = yield* serve((_, res) => res.end())
        const [entry] = yield* deliver(receiver.url, secret, { serviceName: "Acme" }, "evt_whsec")
        expect(entry?.delivery.status).toBe("delivered")
        const [seen] = receiver.seen
        expect(seen?.headers["x-acme-signature"]).toBe(secret)
        expect(seen?.headers["user-agent"]).toBe("Acme-Webhooks/1.0")
        expect(verifies(testSigningKey, seen)).toBe(true)
        expect(verifies(secret, seen)).toBe(false)
      })
  )

  it.scopedLive(
    "an endpoint that turned the secret header off: no X-Pixgate-Signature, the secret nowhere, the Standard Webhooks signature verifies",
    () =>
      Effect.gen(function* () {
        const receiver = yield* serve((_, res) => res.end("ok"))
        const secret = "kept-out-of-the-wire-123"
        const [entry] = yield* deliver(receiver.url, secret, { secretHeader: false }, "evt_nohdr")
        expect(entry?.delivery.status).toBe("delivered")
        const [seen] = receiver.seen
        expect(seen?.headers["x-pixgate-signature"]).toBeUndefined()
        expect(JSON.stringify(seen?.headers)).not.toContain(secret)
        expect(seen?.body).not.toContain(secret)
        expect(seen?.headers["webhook-id"]).toBe("evt_nohdr")
        expect(verifies(testSigningKey, seen)).toBe(true)
      })
  )

  it.scopedLive("201, 204 and 302 are failures; a redirect is not followed", () =>
    Effect.forEach([201, 204, 302], (code) =>
      Effect.gen(function* () {
        const receiver = yield* serve((req, res) => {
          if (req.url === "/ok") return res.end("ok")
          res.writeHead(code, code === 302 ? { Location: "/ok" } : {}).end()
        })
        const [entry] = yield* deliver(receiver.url, "s", fast, `evt_${code}`)
        expect(entry?.delivery.status).toBe("failed")
        expect(entry?.attempts.map((a) => a.statusCode)).toEqual([code])
        expect(receiver.seen.map((s) => s.url)).toEqual(["/hook"])
      })
    )
  )

  it.scopedLive("a receiver that answers after the time-out fails every attempt", () =>
    Effect.gen(function* () {
      const receiver = yield* serve((_, res) => setTimeout(() => res.end("late"), 2000).unref())
      const [entry] = yield* deliver(
        receiver.url,
        "s",
        { ...fast, webhookTimeout: Duration.millis(300), webhookRetryDelays: [Duration.millis(50)] },
        "evt_late"
      )
      expect(entry?.delivery.status).toBe("failed")
      expect(entry?.attempts.map((a) => [a.statusCode, a.error])).toEqual([
        [null, "Timed out after 300 ms"],
        [null, "Timed out after 300 ms"]
      ])
      expect(receiver.seen).toHaveLength(2)
    })
  )

  it.scopedLive("a huge response body is not read to its end", () =>
    Effect.gen(function* () {
      let closed = false
      const chunk = Buffer.alloc(64 * 1024, "x")
      const receiver = yield* serve((_, res) => {
        res.on("close", () => {
          closed = true
        })
        const pump = () => {
          while (!closed && res.write(chunk));
          if (!closed) res.once("drain", pump)
        }
        res.writeHead(200)
        pump()
      })
      const [entry] = yield* deliver(receiver.url, "s", { webhookTimeout: Duration.seconds(5) }, "evt_huge")
      expect(entry?.delivery.status).toBe("delivered")
      yield* Effect.sync(() => closed).pipe(
        Effect.repeat({ schedule: Schedule.spaced("10 millis"), until: (c) => c }),
        Effect.timeout(Duration.millis(testWaitMs))
      )
    })
  )

  it.scopedLive("a response body that trickles forever does not stall the attempt", () =>
    Effect.gen(function* () {
      const receiver = yield* serve((_, res) => {
        res.writeHead(200)
        const timer = setInterval(() => res.write("."), 20)
        res.on("close", () => clearInterval(timer))
      })
      // A deadline a loaded machine's headers meet (300 ms did not at load 7); a body read to
      // its end would still run past it, forever.
      const [entry] = yield* deliver(receiver.url, "s", fast, "evt_trickle")
      expect(entry?.delivery.status).toBe("delivered")
      expect(entry?.attempts.map((a) => a.statusCode)).toEqual([200])
    })
  )

  it.scopedLive("a receiver that is down is a failure with the connection error", () =>
    Effect.gen(function* () {
      const receiver = yield* serve(() => {})
      receiver.close()
      const [entry] = yield* deliver(receiver.url, "s", fast, "evt_down")
      expect(entry?.delivery.status).toBe("failed")
      expect(entry?.attempts[0]?.statusCode).toBeNull()
      expect(entry?.attempts[0]?.error).toMatch(/ECONNREFUSED/)
    })
  )
})

describe("live-mode webhooks over node:http connect to public addresses only", () => {
  // A name that was public when its URL was set and resolves to loopback now (DNS rebinding).
  const rebinding: LookupFunction = (hostname, options, callback) => {
    if (hostname !== "rebind.example") return dns.lookup(hostname, options, callback)
    if (options.all) return callback(null, [{ address: "127.0.0.1", family: 4 }])
    callback(null, "127.0.0.1", 4)
  }
  const transport = NodeWebhookTransport.layerWith({ lookup: rebinding })
  const fast = { webhookTimeout: Duration.millis(1_000), webhookRetryDelays: [] }
  const rebound = (url: string) => url.replace("127.0.0.1", "rebind.example")

  it.scopedLive("a live host that now resolves to loopback is refused when connecting; nothing arrives", () =>
    Effect.gen(function* () {
      const receiver = yield* serve((_, res) => res.end("ok"))
      const [entry] = yield* deliverOver(transport, "live", rebound(receiver.url), "s", fast, "evt_rebind")
      expect(entry?.delivery.status).toBe("failed")
      expect(entry?.attempts[0]?.statusCode).toBeNull()
      expect(entry?.attempts[0]?.error).toBe(
        "Transport: EPRIVATEADDRESS: rebind.example resolves to 127.0.0.1, which is a loopback address; " +
          "live-mode webhooks must use a public address"
      )
      expect(receiver.seen).toEqual([])
    })
  )

  it.scopedLive("a live URL with a private address literal is refused without connecting", () =>
    Effect.gen(function* () {
      const receiver = yield* serve((_, res) => res.end("ok"))
      const [entry] = yield* deliverOver(transport, "live", receiver.url, "s", fast, "evt_literal")
      expect(entry?.delivery.status).toBe("failed")
      expect(entry?.attempts[0]?.error).toBe(
        "Transport: EPRIVATEADDRESS: 127.0.0.1 is a loopback address; live-mode webhooks must use a public address"
      )
      expect(receiver.seen).toEqual([])
    })
  )

  it.scopedLive("a stored URL that cannot be requested fails its attempt with the reason", () =>
    Effect.gen(function* () {
      const [entry] = yield* deliverOver(transport, "live", "not a url", "s", fast, "evt_unparsable")
      expect(entry?.delivery.status).toBe("failed")
      expect(entry?.attempts[0]?.error).toBe("Invalid URL")
    })
  )

  it.scopedLive("test mode, and live mode with allowPrivateWebhookUrls, reach the same receiver", () =>
    Effect.gen(function* () {
      const receiver = yield* serve((_, res) => res.end("ok"))
      const [test] = yield* deliverOver(transport, "test", rebound(receiver.url), "s", fast, "evt_test")
      expect(test?.delivery.status).toBe("delivered")
      const allowed = { ...fast, allowPrivateWebhookUrls: true }
      const [live] = yield* deliverOver(transport, "live", rebound(receiver.url), "s", allowed, "evt_allowed")
      expect(live?.delivery.status).toBe("delivered")
      expect(receiver.seen.map((r) => r.headers["webhook-id"])).toEqual(["evt_test", "evt_allowed"])
    })
  )
})
