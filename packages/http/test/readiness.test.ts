/**
 * The health endpoints: `/api/health` keeps the spec's body, `/api/health/live` checks the
 * process only, `/api/health/ready` pings the database within `readinessTimeout` and reports
 * the draining flag. A store whose ping never returns (a database that accepts and then hangs)
 * makes readiness answer 503 `timeout` within its bound, never a hang. Every answer is checked
 * against the OpenAPI document by the harness.
 */
import { MemoryStore, Store } from "@pixgate/core"
import { type Harness, start } from "@pixgate/testkit/harness"
import { Duration, Effect, Layer, Ref } from "effect"
import { afterEach, describe, expect, it } from "vitest"

/** MemoryStore whose ping never answers, as a database that took the connection and went quiet. */
const hangingStore: Layer.Layer<Store.Store> = Layer.effect(
  Store.Store,
  Effect.map(Store.Store, (store) => ({ ...store, ping: Effect.never }))
).pipe(Layer.provide(MemoryStore.layer))

describe("health, liveness and readiness", () => {
  let server: Harness | undefined
  afterEach(async () => {
    await server?.close()
    server = undefined
  })

  it("the spec's health body stays exactly { status, timestamp }; liveness answers the same", async () => {
    server = await start()
    for (const path of ["/api/health", "/api/health/live"]) {
      const answer = await server.request("GET", path)
      expect(answer.status).toBe(200)
      expect(Object.keys(answer.body)).toEqual(["status", "timestamp"])
      expect(answer.body.status).toBe("ok")
      expect(Number.isNaN(Date.parse(answer.body.timestamp))).toBe(false)
    }
  })

  it("ready while the store answers; 503 naming `instance` once draining, with Retry-After", async () => {
    server = await start()
    const ready = await server.request("GET", "/api/health/ready")
    expect([ready.status, ready.body]).toEqual([
      200,
      { status: "ready", checks: { database: "ok", instance: "ok" }, failed: [] }
    ])
    expect(ready.headers.get("cache-control")).toBe("no-store")
    await Effect.runPromise(Ref.set(server.pixgate.draining, true))
    const draining = await server.request("GET", "/api/health/ready")
    expect([draining.status, draining.body]).toEqual([
      503,
      { status: "unready", checks: { database: "ok", instance: "draining" }, failed: ["instance"] }
    ])
    expect(draining.headers.get("retry-after")).toBe("1")
    // Liveness and the spec's check are not readiness: a draining instance is alive.
    expect((await server.request("GET", "/api/health/live")).status).toBe(200)
    expect((await server.request("GET", "/api/health")).status).toBe(200)
  })

  it("a ping that never returns is a 503 `timeout` within the bound, and is logged once", async () => {
    server = await start({
      store: hangingStore,
      engine: { worker: false, config: { readinessTimeout: Duration.millis(300) } }
    })
    for (let i = 0; i < 3; i++) {
      const started = Date.now()
      const answer = await server.request("GET", "/api/health/ready")
      const took = Date.now() - started
      expect([answer.status, answer.body]).toEqual([
        503,
        { status: "unready", checks: { database: "timeout", instance: "ok" }, failed: ["database"] }
      ])
      expect(took).toBeGreaterThanOrEqual(250)
      // Generous: the bound is 300 ms; a loaded machine may add seconds, a hang would add forever.
      expect(took).toBeLessThan(10_000)
    }
    const lines = server.logs.map((line) => JSON.parse(line) as Record<string, unknown>)
    const warned = lines.filter((l) => l.msg === "Readiness: the database does not answer")
    expect(warned).toHaveLength(1)
    expect(warned[0]).toMatchObject({ level: "warn", check: "timeout" })
  })

  it("only GET: other methods get the router's 405 with Allow", async () => {
    server = await start()
    const answer = await server.request("POST", "/api/health/ready")
    expect(answer.status).toBe(405)
    expect(answer.headers.get("allow")).toContain("GET")
  })
})
