/**
 * The API mounted with `HttpApiLayer` answers as the native dispatcher does: one engine (an
 * embedded Pixgate's, shared with `fromRuntime`) served three ways, the native web handler,
 * `HttpApiBuilder` and `HttpLayerRouter`, each request compared by status, headers and body.
 */
import { HttpApiBuilder, HttpLayerRouter, HttpServer } from "@effect/platform"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Engine, MemoryStore, Metrics } from "@pixgate/core"
import { must } from "@pixgate/testkit/must"
import { Effect, Layer, Metric, Ref } from "effect"
import * as HttpMetrics from "../src/HttpMetrics.js"
import { HttpApiLayer, Pixgate } from "../src/index.js"

type Handler = (request: Request) => Promise<Response>

/** The headers the contract defines (the rest, such as `date`, belong to the server). */
const contractHeaders = [
  "etag",
  "content-security-policy",
  "content-type",
  "cache-control",
  "allow",
  "retry-after",
  "idempotent-replayed",
  "www-authenticate"
]

const answer = async (handler: Handler, method: string, path: string, init: RequestInit = {}) => {
  const response = await handler(new Request(`http://pixgate.test${path}`, { method, ...init }))
  const headers = Object.fromEntries(
    contractHeaders.flatMap((h) => {
      const value = response.headers.get(h)
      return value === null ? [] : [[h, value]]
    })
  )
  return {
    status: response.status,
    headers,
    body: await response.text(),
    requestId: response.headers.get("x-request-id")
  }
}

/** The three ways to serve one engine. */
const serve = async (options: Pixgate.PixgateOptions) => {
  const pixgate = await Pixgate.make({ ...options, log: { level: "none" } })
  const engine = HttpApiLayer.fromRuntime(pixgate.runtime)
  const builder = HttpApiBuilder.toWebHandler(
    Layer.mergeAll(HttpApiLayer.layer(), HttpServer.layerContext).pipe(Layer.provide(engine))
  )
  const router = HttpLayerRouter.toWebHandler(
    HttpApiLayer.routes().pipe(Layer.provide(engine), Layer.provide(HttpServer.layerContext)),
    {
      disableLogger: true
    }
  )
  const merchant = await pixgate.runtime.runPromise(
    Effect.flatMap(Engine.Engine, (e) => e.admin.createMerchant({ name: "Layer Shop" }))
  )
  const handlers: ReadonlyArray<readonly [string, Handler]> = [
    ["native", (request) => pixgate.webHandler(request)],
    ["HttpApiBuilder", (request) => builder.handler(request)],
    ["HttpLayerRouter", (request) => router.handler(request)]
  ]
  const close = async () => {
    await builder.dispose()
    await router.dispose()
    await pixgate.dispose()
  }
  return { pixgate, handlers, key: merchant.testKey, close }
}

describe("HttpApiLayer", () => {
  let server: Awaited<ReturnType<typeof serve>>
  beforeAll(async () => {
    server = await serve({ store: MemoryStore.layer })
  })
  afterAll(() => server?.close())

  const json = (key: string | undefined, body: string, type = "application/json") => ({
    headers: { "content-type": type, ...(key === undefined ? {} : { "x-api-key": key }) },
    body
  })

  it("answers every request as the native handler does", async () => {
    const key = server.key
    const requests: ReadonlyArray<readonly [string, string, RequestInit?]> = [
      ["POST", "/api/v1/charges", json(key, JSON.stringify({ amount: -1 }))],
      ["POST", "/api/v1/charges", json(key, "{oops")],
      ["POST", "/api/v1/charges", json(key, "[1]")],
      ["POST", "/api/v1/charges", json(key, "{}", "text/plain")],
      ["POST", "/api/v1/charges", json(key, JSON.stringify({ amount: 1, pad: "x".repeat(70_000) }))],
      ["POST", "/api/v1/charges", json(key, JSON.stringify({ amount: 1, description: "a\u0000b" }))],
      ["POST", "/api/v1/payouts", json(key, JSON.stringify({ amount: 5, pixKey: "a@b.com" }))],
      ["POST", "/api/v1/payouts", json(key, JSON.stringify({ amount: 5 }))],
      ["POST", "/api/v1/payouts", json(undefined, "{}")],
      ["POST", "/api/v1/payouts", json("sk_test_nope", "{}")],
      ["POST", "/api/v1/charges", { headers: { "x-api-key": key, "idempotency-key": "" }, body: "{}" }],
      ["GET", "/api/v1/transactions?limit=1", { headers: { "x-api-key": key } }],
      ["GET", "/api/v1/transactions/", { headers: { "x-api-key": key } }],
      ["GET", "/api/v1/transactions?status=nope", { headers: { "x-api-key": key } }],
      ["GET", "/api/v1/transactions?type=%00", { headers: { "x-api-key": key } }],
      ["GET", "/api/v1/charges", { headers: { "x-api-key": key } }],
      ["PATCH", "/api/v1/payouts"],
      ["DELETE", "/api/v1/webhooks"],
      ["GET", "/v1/balance"],
      ["GET", "/api/v1/nothing"],
      ["HEAD", "/api/health"],
      ["HEAD", "/api/health/live"],
      ["GET", "/api/health/ready"],
      ["POST", "/api/health/ready"],
      ["GET", "/api/openapi.json"],
      ["GET", "/api/docs"],
      ["GET", "/api/docs/scalar.js"]
    ]
    // A charge first, so the listings hold something.
    await answer(server.handlers[0][1], "POST", "/api/v1/charges", json(key, JSON.stringify({ amount: 3 })))
    // Queries the definition's schemas refuse before any handler runs.
    const refusedByDefinition = new Set(["/api/v1/transactions?status=nope", "/api/v1/transactions?type=%00"])
    for (const [method, path, init] of requests) {
      const [native, ...others] = await Promise.all(
        server.handlers.map(async ([name, handler]) => ({
          name,
          ...(await answer(handler, method, path, init))
        }))
      )
      for (const other of others) {
        if (other.name === "HttpLayerRouter" && refusedByDefinition.has(path)) {
          // Documented difference: there the definition's own query decoder answers first.
          expect([other.status, JSON.parse(other.body)._tag]).toEqual([400, "HttpApiDecodeError"])
          continue
        }
        expect({ ...other, name: native.name, requestId: null }).toEqual({ ...native, requestId: null })
      }
    }
  })

  it("replays an Idempotency-Key across the ways of serving", async () => {
    const init = {
      headers: { "content-type": "application/json", "x-api-key": server.key, "idempotency-key": "layer-1" },
      body: JSON.stringify({ amount: 9.99 })
    }
    const [first, ...replays] = await Promise.all(
      server.handlers.map(([, handler], i) =>
        new Promise((resolve) => setTimeout(resolve, i * 200)).then(() =>
          answer(handler, "POST", "/api/v1/charges", init)
        )
      )
    )
    expect(first.status).toBe(201)
    for (const replay of replays) {
      expect(replay.headers["idempotent-replayed"]).toBe("true")
      expect([replay.status, replay.body]).toEqual([201, first.body])
    }
  })

  it("answers readiness the same way: 200, then 503 naming the check once the instance drains", async () => {
    const all = () =>
      Promise.all(server.handlers.map(([, handler]) => answer(handler, "GET", "/api/health/ready")))
    const ready = await all()
    for (const one of ready) {
      expect([one.status, JSON.parse(one.body)]).toEqual([
        200,
        { status: "ready", checks: { database: "ok", instance: "ok" }, failed: [] }
      ])
    }
    await Effect.runPromise(Ref.set(server.pixgate.draining, true))
    try {
      const [native, ...others] = await all()
      expect([native.status, native.headers["retry-after"], JSON.parse(native.body)]).toEqual([
        503,
        "1",
        { status: "unready", checks: { database: "ok", instance: "draining" }, failed: ["instance"] }
      ])
      for (const other of others)
        expect({ ...other, requestId: null }).toEqual({ ...native, requestId: null })
    } finally {
      await Effect.runPromise(Ref.set(server.pixgate.draining, false))
    }
  })

  it("labels its metrics with the route's template, as the native dispatcher does", async () => {
    const count = (method: string, route: string, status: number) =>
      Effect.runSync(
        Metric.value(
          Metric.taggedWithLabels(
            HttpMetrics.requests,
            Metrics.labels(["method", "route", "status"], [method, route, String(status)])
          )
        )
      ).count
    const builder = must(
      server.handlers.find(([name]) => name === "HttpApiBuilder"),
      'server.handlers.find(([name]) => name === "HttpApiBuilder")'
    )[1]
    const cases: ReadonlyArray<readonly [string, string, string | undefined, string, number]> = [
      // Served by its route, and refused before any route ran (no key): both under the template.
      ["GET", "/api/v1/transactions", server.key, "/api/v1/transactions", 200],
      ["GET", "/api/v1/transactions", undefined, "/api/v1/transactions", 401],
      ["GET", "/api/v1/nothing-here", server.key, HttpMetrics.unmatched, 404]
    ]
    for (const [method, path, key, route, status] of cases) {
      const before = count(method, route, status)
      const answered = await answer(
        builder,
        method,
        path,
        key === undefined ? {} : { headers: { "x-api-key": key } }
      )
      expect(answered.status).toBe(status)
      expect(count(method, route, status) - before, `${method} ${path}`).toBe(1)
    }
  })

  it("echoes a sane x-request-id", async () => {
    for (const [, handler] of server.handlers.slice(1)) {
      const response = await answer(handler, "GET", "/api/health", { headers: { "x-request-id": "req-42" } })
      expect(response.requestId).toBe("req-42")
    }
  })

  it("rate limits per key with Retry-After", async () => {
    const limited = await serve({
      store: MemoryStore.layer,
      rateLimit: { requestsPerSecond: 0.01, burst: 2 }
    })
    try {
      for (const [name, handler] of limited.handlers) {
        const key = (
          await limited.pixgate.runtime.runPromise(
            Effect.flatMap(Engine.Engine, (e) => e.admin.createMerchant({ name: `Limited ${name}` }))
          )
        ).testKey
        const get = (query = "") =>
          answer(handler, "GET", `/api/v1/transactions${query}`, { headers: { "x-api-key": key } })
        // A refused query takes its token, once, as natively (the key is checked before the query).
        expect((await get("?status=nope")).status).toBe(name === "HttpLayerRouter" ? 400 : 422)
        expect({ name, status: (await get()).status }).toEqual({ name, status: 200 })
        const refused = await get()
        expect({ name, status: refused.status, body: refused.body }).toEqual({
          name,
          status: 429,
          body: JSON.stringify({ error: "Too many requests", code: "rate_limited" })
        })
        expect(Number(refused.headers["retry-after"])).toBeGreaterThanOrEqual(1)
      }
    } finally {
      await limited.close()
    }
  })
})

describe("HttpApiLayer admin API", () => {
  const token = "an-admin-token-long-enough"
  const bearer = { authorization: `Bearer ${token}`, "content-type": "application/json" }

  it("answers under /admin behind the token as the native admin router does", async () => {
    const pixgate = await Pixgate.make({
      store: MemoryStore.layer,
      admin: { token, basePath: "/admin" },
      log: { level: "none" }
    })
    const engine = HttpApiLayer.fromRuntime(pixgate.runtime)
    const withAdmin = HttpApiBuilder.toWebHandler(
      Layer.mergeAll(HttpApiLayer.layer({ admin: { token } }), HttpServer.layerContext).pipe(
        Layer.provide(engine)
      )
    )
    const without = HttpApiBuilder.toWebHandler(
      Layer.mergeAll(HttpApiLayer.layer(), HttpServer.layerContext).pipe(Layer.provide(engine))
    )
    try {
      const nativeAdmin = (request: Request) => must(pixgate.admin, "pixgate.admin").webHandler(request)
      const created = await answer(withAdmin.handler, "POST", "/admin/merchants", {
        headers: bearer,
        body: JSON.stringify({ name: "Admin Shop" })
      })
      expect(created.status).toBe(201)
      const merchantId: string = JSON.parse(created.body).merchantId
      const reader = await pixgate.runtime.runPromise(
        Effect.flatMap(Engine.Engine, (e) => e.adminTokens.create({ name: "reader", scope: "read-only" }))
      )
      const readOnly = { authorization: `Bearer ${reader.token}`, "content-type": "application/json" }
      const requests: ReadonlyArray<readonly [string, string, RequestInit?]> = [
        ["GET", `/admin/merchants/${merchantId}`, { headers: readOnly }],
        ["POST", "/admin/merchants", { headers: readOnly, body: JSON.stringify({ name: "Not allowed" }) }],
        ["GET", "/admin/audit-log?limit=1", { headers: readOnly }],
        ["GET", `/admin/merchants/${merchantId}`, { headers: bearer }],
        ["GET", `/admin/merchants/${merchantId}/keys`, { headers: bearer }],
        ["GET", "/admin/merchants/nope", { headers: bearer }],
        ["GET", `/admin/merchants/${merchantId}`],
        ["GET", `/admin/merchants/${merchantId}`, { headers: { authorization: "Bearer wrong" } }],
        ["PUT", `/admin/merchants/${merchantId}/webhooks/nope`, { headers: bearer, body: "{}" }],
        ["POST", `/admin/merchants/${merchantId}/sandbox/topup`, { headers: bearer, body: "{}" }],
        ["DELETE", "/admin/merchants"]
      ]
      for (const [method, path, init] of requests) {
        const native = await answer(nativeAdmin, method, path, init)
        const layered = await answer(withAdmin.handler, method, path, init)
        expect({ path, ...layered, requestId: null }).toEqual({ path, ...native, requestId: null })
      }
      const off = await answer(without.handler, "GET", `/admin/merchants/${merchantId}`, { headers: bearer })
      expect([off.status, off.body]).toEqual([404, JSON.stringify({ error: "Not found", code: "not_found" })])
    } finally {
      await withAdmin.dispose()
      await without.dispose()
      await pixgate.dispose()
    }
  })
})
