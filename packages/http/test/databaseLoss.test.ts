/**
 * Losing the database server under a running Pixgate: a private Postgres cluster
 * (support/privatePostgres.ts) is killed (`pg_ctl stop -m immediate`) while the server runs.
 * Readiness turns unready within its bound, liveness stays up, API requests get 503
 * `service_unavailable` with `Retry-After` (never a 500, never an answer later than the
 * connection bound allows), the worker's failed rounds are warnings, and everything recovers by
 * itself once the database is back: readiness 200, requests served, the ledger balanced.
 */

import { type Answer, type Harness, start } from "@pixgate/testkit/harness"
import { testWait, testWaitMs } from "@pixgate/testkit/wait"
import { Duration } from "effect"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import * as PrivatePostgres from "./support/privatePostgres.js"

// A private Postgres cluster made, stopped and started again: three base waits a test or hook.
vi.setConfig({ testTimeout: testWait(3), hookTimeout: testWait(3) })

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The readiness bound the server runs with. */
const boundMs = 1_000
/**
 * The longest any answer may take while the database is gone: the pool's connect time-out
 * (5 s) and a loaded machine's margin. A hang would run into the test's own time-out instead.
 */
const answerDeadlineMs = 15_000

if (!PrivatePostgres.available)
  console.warn(`!! database-loss test SKIPPED: ${PrivatePostgres.unavailableReason}`)

describe.skipIf(!PrivatePostgres.available)("the database server dies under a running Pixgate", () => {
  let database: PrivatePostgres.PrivatePostgres
  let server: Harness
  let key: string
  const answers: Array<Answer & { readonly ms: number }> = []

  const timed = async (method: string, path: string, call?: Parameters<Harness["request"]>[2]) => {
    const started = Date.now()
    const answer = await server.request(method, path, call)
    const timedAnswer = { ...answer, ms: Date.now() - started }
    answers.push(timedAnswer)
    return timedAnswer
  }
  const ready = () => timed("GET", "/api/health/ready")

  /** Probes readiness every 200 ms until `want`, within `withinMs`; returns the answer and how long it took. */
  const until = async (want: number, withinMs: number) => {
    const started = Date.now()
    for (;;) {
      const answer = await ready()
      if (answer.status === want) return { answer, afterMs: Date.now() - started }
      if (Date.now() - started > withinMs)
        throw new Error(`readiness still ${answer.status} after ${withinMs} ms: ${answer.text}`)
      await sleep(200)
    }
  }

  beforeAll(async () => {
    database = await PrivatePostgres.create()
    server = await start({
      database: database.url,
      rateLimit: false,
      engine: {
        config: { readinessTimeout: Duration.millis(boundMs), workerPollInterval: Duration.millis(200) }
      }
    })
    key = (await server.merchant("Loja Sem Banco")).testKey
  })

  afterAll(async () => {
    try {
      await server?.close()
    } finally {
      database?.destroy()
    }
  })

  it("goes unready within its bound, answers 503 with Retry-After, and recovers by itself", async () => {
    const healthy = await ready()
    expect([healthy.status, healthy.body]).toEqual([
      200,
      { status: "ready", checks: { database: "ok", instance: "ok" }, failed: [] }
    ])
    const before = await timed("POST", "/api/v1/charges", { key, body: { amount: 12.5 } })
    expect(before.status, before.text).toBe(201)

    database.stop()

    // Unready at the first probe after the loss, each probe answered within its bound.
    const down = await until(503, testWait(1 / 6))
    expect(down.answer.body).toMatchObject({ status: "unready", failed: ["database"] })
    expect(["unreachable", "timeout"]).toContain(down.answer.body.checks.database)
    expect(down.answer.body.checks.instance).toBe("ok")
    expect(Number(down.answer.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
    const live = await timed("GET", "/api/health/live")
    expect(live.status).toBe(200)
    expect((await timed("GET", "/api/health")).body.status).toBe("ok")

    // Every kind of request answers 503 with Retry-After while it is gone, in bounded time.
    for (let round = 0; round < 3; round++) {
      for (const [method, path, call] of [
        ["POST", "/api/v1/charges", { key, body: { amount: 3 } }],
        ["POST", "/api/v1/payouts", { key, body: { amount: 1, pixKey: "a@b.com" } }],
        ["GET", "/api/v1/transactions", { key }]
      ] as const) {
        const answer = await timed(method, path, call)
        expect(answer.status, `${method} ${path}: ${answer.text}`).toBe(503)
        expect(answer.body).toEqual({ error: "Service temporarily unavailable", code: "service_unavailable" })
        expect(Number(answer.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
      }
      // Let the worker run into the outage too.
      await sleep(300)
    }

    database.start()

    const up = await until(200, testWaitMs)
    expect(up.answer.body).toEqual({
      status: "ready",
      checks: { database: "ok", instance: "ok" },
      failed: []
    })
    let after = await timed("POST", "/api/v1/charges", { key, body: { amount: 7 } })
    for (let i = 0; after.status === 503 && i < 20; i++) {
      await sleep(500)
      after = await timed("POST", "/api/v1/charges", { key, body: { amount: 7 } })
    }
    expect(after.status, after.text).toBe(201)
    const list = await timed("GET", "/api/v1/transactions", { key })
    expect(list.status).toBe(200)
    expect(list.body.total).toBe(2)
    const check = await server.engine((e) => e.admin.checkLedger("test"))
    expect(check.unbalancedEntries).toEqual([])

    // Never a 500, never an answer past the deadline; probes within bound + margin.
    expect(answers.filter((a) => a.status >= 500 && a.status !== 503)).toEqual([])
    expect(answers.filter((a) => a.ms > answerDeadlineMs).map((a) => [a.status, a.ms])).toEqual([])
    const probes = answers.filter((a) => a.body?.checks !== undefined)
    expect(Math.max(...probes.map((a) => a.ms))).toBeLessThan(boundMs + 5_000)

    // The logs: each 503 explained once at warn; nothing at error; no unhandled-fiber reports.
    const lines = server.logs.map((line) => JSON.parse(line) as Record<string, unknown>)
    expect(lines.filter((l) => l.level === "error")).toEqual([])
    expect(lines.filter((l) => String(l.msg).includes("unhandled"))).toEqual([])
    const failed = lines.filter(
      (l) => l.msg === "request" && l.status === 503 && l.path !== "/api/health/ready"
    )
    expect(failed).toHaveLength(9)
    for (const access of failed) {
      expect(access.code).toBe("service_unavailable")
      expect(lines.filter((l) => l.requestId === access.requestId && l.level === "warn")).toHaveLength(1)
    }
    // The worker: one warning per lane for the whole outage (with its next attempt), then one line when it claims again.
    const rounds = lines.filter(
      (l) => String(l.msg).startsWith("Job worker round failed") && l.level === "warn"
    )
    expect(rounds.length).toBeLessThanOrEqual(2)
    for (const round of rounds) expect(Date.parse(String(round.nextAttemptAt))).toBeGreaterThan(0)
    expect(lines.filter((l) => l.msg === "Readiness: the database does not answer")).toHaveLength(1)
    expect(lines.filter((l) => l.msg === "Readiness: the database answers again")).toHaveLength(1)
  })
})
