/**
 * Deliveries through an outbound HTTP proxy (`NodeWebhookTransport.proxyLayer`, undici's
 * ProxyAgent) against a real local CONNECT proxy and receiver: the POST arrives through the
 * proxy, and the address policy still judges the target (resolved here) before the proxy is asked.
 */
import { createServer as createHttpServer } from "node:http"
import type { AddressInfo, LookupFunction } from "node:net"
import { describe, expect, it } from "@effect/vitest"
import { startForwardProxy } from "@pixgate/testkit/forwardProxy"
import { Effect } from "effect"
import * as NodeWebhookTransport from "../src/node/NodeWebhookTransport.js"
import { WebhookTransport } from "../src/ports/WebhookTransport.js"

const listen = (server: ReturnType<typeof createHttpServer>) =>
  Effect.acquireRelease(
    Effect.async<number>((resume) => {
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed((server.address() as AddressInfo).port)))
    }),
    () =>
      Effect.sync(() => {
        server.closeAllConnections()
        server.close()
      })
  )

/** A receiver answering 200, recording the bodies it got. */
const receiver = Effect.gen(function* () {
  const bodies: Array<string> = []
  const server = createHttpServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      bodies.push(Buffer.concat(chunks).toString())
      res.writeHead(200).end("ok")
    })
  })
  const port = yield* listen(server)
  return { url: `http://127.0.0.1:${port}/hook`, bodies }
})

/** The testkit's forward proxy, closed with the test's scope. */
const proxy = Effect.acquireRelease(
  Effect.promise(() => startForwardProxy()),
  (p) => Effect.promise(() => p.close())
)

const body = new TextEncoder().encode('{"event":"webhook.test"}')

/** Resolves every name to `address`. */
const resolvesTo =
  (address: string): LookupFunction =>
  (_hostname, options, callback) => {
    const all = typeof options === "object" && options !== null && "all" in options && options.all === true
    if (all)
      (callback as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [
        { address, family: 4 }
      ])
    else callback(null, address, 4)
  }

describe("webhook deliveries through an HTTP proxy", () => {
  it.scopedLive("a POST reaches the receiver through the proxy", () =>
    Effect.gen(function* () {
      const hook = yield* receiver
      const p = yield* proxy
      const outcome = yield* Effect.flatMap(WebhookTransport, (t) =>
        t.post({ url: hook.url, headers: { "webhook-id": "evt_1" }, body, timeoutMs: 5_000 })
      ).pipe(Effect.provide(NodeWebhookTransport.proxyLayer(p.url)))
      expect(outcome).toEqual({ statusCode: 200, error: null })
      expect(hook.bodies).toEqual(['{"event":"webhook.test"}'])
      expect(p.targets).toHaveLength(1)
      expect(p.targets[0]).toContain(new URL(hook.url).host)
    })
  )

  it.scopedLive("the address policy judges the target before the proxy is asked", () =>
    Effect.gen(function* () {
      const hook = yield* receiver
      const p = yield* proxy
      const post = (url: string, publicOnly: boolean, lookup?: LookupFunction) =>
        Effect.flatMap(WebhookTransport, (t) =>
          t.post({ url, headers: {}, body, timeoutMs: 5_000, publicOnly })
        ).pipe(Effect.provide(NodeWebhookTransport.proxyLayer(p.url, lookup === undefined ? {} : { lookup })))
      // A live-mode (public only) delivery to a loopback receiver: refused.
      const loopback = yield* post(hook.url, true)
      expect(loopback.statusCode).toBe(null)
      expect(loopback.error).toContain("EPRIVATEADDRESS")
      // A name that resolves to the cloud metadata address: refused in either mode.
      const metadata = yield* post("http://metadata.example/latest", false, resolvesTo("169.254.169.254"))
      expect(metadata.error).toContain("EPRIVATEADDRESS")
      // A name resolving to a private address, public only: refused.
      const rebound = yield* post("http://rebound.example/hook", true, resolvesTo("10.0.0.7"))
      expect(rebound.error).toContain("EPRIVATEADDRESS")
      expect(p.targets).toEqual([])
      expect(hook.bodies).toEqual([])
    })
  )
})
