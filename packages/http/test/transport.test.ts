/**
 * The transport's own rules: 404, 405 with Allow, 410 for every removed path, 413 while
 * reading, the order of checks, mounting under a base path, falling through to a host's `next`,
 * request ids, structured logs without secrets, and defects as logged 500s.
 */
import { createServer } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { type Harness, listen, send, start } from "@pixgate/testkit/harness"
import { Effect, ManagedRuntime } from "effect"
import { Handler, Log, Respond, Router } from "../src/node.js"
import * as Route from "../src/Route.js"
import { expectError } from "./support/spec.js"

let h: Harness
let key: string
beforeAll(async () => {
  // Many requests on one key as fast as the server answers: the limiter (tested in errors.test.ts)
  // would answer 429 on a fast run.
  h = await start({ engine: { worker: false }, rateLimit: false })
  key = (await h.merchant()).testKey
})
afterAll(() => h.close())

describe("404 Not found", () => {
  for (const path of [
    "/",
    "/api",
    "/api/",
    "/api/v1",
    "/api/v2/charges",
    "/API/v1/charges",
    "/api/v1/charge",
    "/api/v1/transactions/abc/def",
    "/v1/charges",
    "/api/v1/payments",
    "/favicon.ico",
    "/api/v1/charges%ZZ",
    `/${"a".repeat(5000)}`
  ]) {
    it(`GET ${path.slice(0, 40)}`, async () => {
      expectError(await h.request("GET", path, { key }), 404, "Not found", "not_found")
    })
  }
  it("comes before authentication", async () => {
    expectError(await h.request("POST", "/api/v1/nothing", { body: "{" }), 404, "Not found")
  })
})

describe("405 Method not allowed", () => {
  const cases: ReadonlyArray<[string, string, string]> = [
    ["GET", "/api/v1/charges", "POST"],
    ["PUT", "/api/v1/charges", "POST"],
    ["DELETE", "/api/v1/payouts", "POST"],
    ["PATCH", "/api/v1/payouts", "POST"],
    ["HEAD", "/api/v1/payouts", "POST"],
    ["POST", "/api/v1/transactions", "GET, HEAD"],
    ["DELETE", "/api/v1/transactions", "GET, HEAD"],
    ["POST", "/api/health", "GET, HEAD"],
    ["OPTIONS", "/api/health", "GET, HEAD"]
  ]
  for (const [method, path, allow] of cases) {
    it(`${method} ${path} -> Allow: ${allow}`, async () => {
      const response = await fetch(`${h.base}${path}`, { method, headers: { "x-api-key": key } })
      expect(response.status).toBe(405)
      expect(response.headers.get("allow")).toBe(allow)
      if (method !== "HEAD")
        expect(await response.json()).toEqual({ error: "Method not allowed", code: "method_not_allowed" })
    })
  }
  it("comes before authentication", async () => {
    expectError(await h.request("GET", "/api/v1/charges"), 405, "Method not allowed")
  })
})

describe("410 removed in 2.0.0", () => {
  const removed: ReadonlyArray<[string, string]> = [
    ["GET", "/v1/balance"],
    ["GET", "/v1/charges/txid123"],
    ["GET", "/v1/transactions/tx_123"],
    ["GET", "/v1/payments/REF-1"],
    ["POST", "/v1/refunds"],
    ["GET", "/v1/refunds/REF-1"],
    ["POST", "/v1/webhooks"],
    ["GET", "/v1/webhooks"],
    ["DELETE", "/v1/webhooks"],
    ["DELETE", "/v1/webhooks/wh_1"]
  ]
  for (const [method, path] of removed) {
    for (const prefix of ["", "/api"]) {
      it(`${method} ${prefix}${path}`, async () => {
        const body = method === "POST" ? {} : undefined
        const answer = await h.request(method, `${prefix}${path}`, body === undefined ? {} : { body })
        expectError(answer, 410, "This endpoint was removed in version 2.0.0", "endpoint_removed")
        // With a valid key and a query string too.
        expect((await h.request(method, `${prefix}${path}?x=1`, { key })).status).toBe(410)
      })
    }
  }
})

describe("413 Request body too large", () => {
  const big = (size: number) => JSON.stringify({ amount: 10, pad: "x".repeat(size) })

  it("over the default 64 KiB, announced by Content-Length", async () => {
    expectError(
      await h.request("POST", "/api/v1/charges", { key, body: big(70_000) }),
      413,
      "Request body too large",
      "payload_too_large"
    )
    expectError(
      await h.request("POST", "/api/v1/payouts", { key, body: big(5_000_000) }),
      413,
      "Request body too large"
    )
  })

  it("over the limit while streaming a chunked body, without reading it all", async () => {
    let sent = 0
    const chunk = new TextEncoder().encode("y".repeat(16_384))
    const body = new ReadableStream({
      pull(controller) {
        if (sent >= 50_000_000) return controller.close()
        sent += chunk.length
        controller.enqueue(chunk)
      }
    })
    const response = await fetch(`${h.base}/api/v1/charges`, {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json" },
      body,
      duplex: "half"
    } as RequestInit)
    expect(response.status).toBe(413)
    expect(sent).toBeLessThan(50_000_000)
    // The connection stays usable.
    expect((await h.request("GET", "/api/health")).status).toBe(200)
  })

  it("up to the limit is read", async () => {
    const body = JSON.stringify({ amount: 10, pad: "x".repeat(65_536 - 30) })
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(65_536)
    expect((await h.request("POST", "/api/v1/charges", { key, body })).status).toBe(201)
  })

  it("follows the configured limit", async () => {
    const small = await start({ maxBodySize: 1024 })
    const m = await small.merchant()
    expect((await small.request("POST", "/api/v1/charges", { key: m.testKey, body: big(500) })).status).toBe(
      201
    )
    expectError(
      await small.request("POST", "/api/v1/charges", { key: m.testKey, body: big(1100) }),
      413,
      "Request body too large"
    )
    await small.close()
  })

  it("after authentication", async () => {
    expectError(await h.request("POST", "/api/v1/charges", { body: big(70_000) }), 401, "Unauthorized")
  })
})

describe("routing details", () => {
  it("tolerates a trailing or doubled slash", async () => {
    expect((await h.request("GET", "/api/health/")).status).toBe(200)
    expect((await h.request("GET", "/api//health")).status).toBe(200)
    expect((await h.request("POST", "/api/v1/charges/", { key, body: { amount: 1 } })).status).toBe(201)
  })

  it("ignores a body on GET", async () => {
    const response = await fetch(`${h.base}/api/v1/transactions`, {
      method: "GET",
      headers: { "x-api-key": key }
    })
    expect(response.status).toBe(200)
  })

  it("echoes a sane x-request-id, else makes one", async () => {
    const echoed = await h.request("GET", "/api/health", { headers: { "x-request-id": "abc-123" } })
    expect(echoed.headers.get("x-request-id")).toBe("abc-123")
    const made = await h.request("GET", "/api/health", { headers: { "x-request-id": "bad id with spaces" } })
    expect(made.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/)
  })

  it("sends Cache-Control: no-store on API answers", async () => {
    expect((await h.request("GET", "/api/v1/transactions", { key })).headers.get("cache-control")).toBe(
      "no-store"
    )
  })
})

describe("mounting", () => {
  it("under a basePath the host does not strip", async () => {
    const mounted = await start({ basePath: "/payments/" })
    const m = await mounted.merchant()
    expect((await mounted.request("GET", "/payments/api/health")).status).toBe(200)
    expect(
      (await mounted.request("POST", "/payments/api/v1/charges", { key: m.testKey, body: { amount: 1 } }))
        .status
    ).toBe(201)
    expect((await mounted.request("GET", "/payments/v1/balance")).status).toBe(410)
    expectError(await mounted.request("GET", "/api/health"), 404, "Not found")
    expectError(await mounted.request("GET", "/paymentsx/api/health"), 404, "Not found")
    const doc = (await mounted.request("GET", "/payments/api/openapi.json")).body
    expect(doc.servers).toEqual([{ url: "/payments" }])
    await mounted.close()
  })

  it("falls through to the host's next() for paths it does not know, when asked", async () => {
    const host = await start({ fallthrough: true, basePath: "/pix" })
    const server = createServer((req, res) =>
      host.pixgate.nodeHandler(req, res, () => {
        res.writeHead(200, { "content-type": "text/plain" }).end("host")
      })
    )
    const base = await listen(server)
    expect((await send(base, "GET", "/other")).text).toBe("host")
    expect((await send(base, "GET", "/pix/unknown")).text).toBe("host")
    expect((await send(base, "GET", "/pix/api/health")).status).toBe(200)
    expect((await send(base, "PUT", "/pix/api/health")).status).toBe(405)
    expect((await send(base, "GET", "/pix/v1/balance")).status).toBe(410)
    // Without next the handler answers 404 itself.
    expect((await host.request("GET", "/pix/unknown")).status).toBe(404)
    server.close()
    await host.close()
  })
})

describe("logs", () => {
  it("one JSON line per request, with no keys, secrets or query strings", async () => {
    const logged = await start()
    const m = await logged.merchant()
    await logged.engine((e) =>
      e.admin.setWebhook({
        merchantId: m.merchantId,
        mode: "test",
        url: "http://127.0.0.1:9/hook",
        secret: "whsec_topsecret"
      })
    )
    await logged.request("POST", "/api/v1/charges", {
      key: m.testKey,
      body: { amount: 1 },
      headers: { "idempotency-key": "idem-secret" }
    })
    await logged.request("GET", "/api/v1/transactions?startDate=2026-01-01", { key: m.testKey })
    await logged.request("GET", "/api/v1/transactions", { key: `${m.liveKey}x` })
    const lines = logged.logs.map((line) => JSON.parse(line))
    const requests = lines.filter((l) => l.msg === "request")
    expect(requests).toHaveLength(3)
    for (const line of requests) {
      expect(line).toMatchObject({
        level: "info",
        method: expect.any(String),
        path: expect.any(String),
        status: expect.any(Number)
      })
      expect(typeof line.durationMs).toBe("number")
      expect(typeof line.requestId).toBe("string")
      expect(typeof line.time).toBe("string")
    }
    expect(requests.map((l) => [l.method, l.path, l.status])).toEqual([
      ["POST", "/api/v1/charges", 201],
      ["GET", "/api/v1/transactions", 200],
      ["GET", "/api/v1/transactions", 401]
    ])
    const all = logged.logs.join("\n")
    for (const secret of [
      m.testKey,
      m.liveKey,
      m.testKey.slice(8),
      "whsec_topsecret",
      "idem-secret",
      "2026-01-01"
    ]) {
      expect(all).not.toContain(secret)
    }
    await logged.close()
  })
})

describe("defects", () => {
  it("become a logged 500 with the error body, never a crash", async () => {
    const logs: Array<string> = []
    const boom = Route.make("GET", "/boom", { body: false }, Route.open, () =>
      Effect.die(new Error("kaboom"))
    )
    const fine = Route.make("GET", "/fine", { body: false }, Route.open, () =>
      Effect.succeed(new Respond.Answer(200, { "content-type": "text/plain" }, "fine"))
    )
    const router = Router.make([boom, fine])
    const log = Log.writer({ write: (line) => logs.push(line) })
    const runtime = ManagedRuntime.make(Log.layer(log))
    const server = createServer(Handler.node(await runtime.runtime(), router, { maxBodySize: 1024, log }))
    const base = await listen(server)
    expectError(await send(base, "GET", "/boom"), 500, "Internal server error", "internal_error")
    expect((await send(base, "GET", "/fine")).text).toBe("fine")
    const error = logs.map((l) => JSON.parse(l)).find((l) => l.level === "error")
    expect(error.msg).toBe("Unexpected defect while handling a request")
    expect(error.detail).toContain("kaboom")
    server.close()
    await runtime.dispose()
  })
})
