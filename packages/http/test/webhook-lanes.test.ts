/**
 * Lanes that refill, with a real receiver over sockets, on SQLite and on Postgres: one merchant's
 * backlog (its receiver held its answers while the charges were made) drains with more attempts
 * in flight than the endpoint's share of 16 once the receiver answers, though the worker's poll
 * interval is an hour: finished attempts start the next ones, and the endpoint's limit grows
 * while it answers 200, never above `webhookEndpointMaxConcurrency` (48).
 */
import { mkdtempSync, rmSync } from "node:fs"
import { createServer, type ServerResponse } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it, vi } from "@effect/vitest"
import { type Harness, listen, start } from "@pixgate/testkit/harness"
import { describePostgres, useFreshDatabase } from "@pixgate/testkit/postgres"
import { testWait, testWaitMs, until } from "@pixgate/testkit/wait"
import { Duration } from "effect"

/**
 * Holds every request until `release`, then answers each 200 after `delayMs`, counting those in
 * flight. Right after `release` it answers the held share and holds what comes next until more
 * than the share (16) is in flight at once, or `gatherMs` passed: only an endpoint whose limit
 * grew can have a 17th attempt out, so the count does not depend on how fast a loaded machine
 * turns answers into new attempts (with quick answers, a slow worker never overlaps 17).
 */
const receiver = (delayMs: number, gatherMs: number) => {
  const stats = { active: 0, peak: 0, peakAfterRelease: 0, events: new Set<string>() }
  let phase: "held" | "gathering" | "open" = "held"
  let gathering: ReturnType<typeof setTimeout> | undefined
  const held: Array<() => void> = []
  const open = () => {
    phase = "open"
    clearTimeout(gathering)
    for (const answer of held.splice(0)) answer()
  }
  const server = createServer((req, res: ServerResponse) => {
    let raw = ""
    req.on("data", (chunk) => {
      raw += chunk
    })
    req.on("end", () => {
      stats.active++
      stats.peak = Math.max(stats.peak, stats.active)
      if (phase !== "held") stats.peakAfterRelease = Math.max(stats.peakAfterRelease, stats.active)
      // An attempt the sender gave up on (its time-out, on a slow machine) is no longer in flight.
      let done = false
      const end = () => {
        if (!done) stats.active--
        done = true
      }
      res.on("close", end)
      const answer = () =>
        setTimeout(() => {
          if (done) return
          end()
          stats.events.add(JSON.parse(raw).id)
          res.end("ok")
        }, delayMs)
      if (phase === "open") return answer()
      held.push(answer)
      if (phase === "gathering" && stats.active > 16) open()
    })
  })
  const release = () => {
    const share = held.splice(0)
    phase = "gathering"
    gathering = setTimeout(open, gatherMs)
    for (const answer of share) answer()
  }
  const close = () => clearTimeout(gathering)
  return { server, stats, release, close }
}

// 400 charges made, then delivered, on a loaded machine: three base waits per test.
vi.setConfig({ testTimeout: testWait(3), hookTimeout: testWait(3) })

const refills = (database: () => string) =>
  it("a backlog drains with more than the share in flight, an hour's poll interval notwithstanding", async () => {
    const target = receiver(3, testWaitMs / 2)
    const url = `${await listen(target.server)}/hook`
    let h: Harness | undefined
    try {
      h = await start({
        database: database(),
        rateLimit: false,
        log: { level: "none" },
        // Held attempts must not time out while a slow machine makes the charges.
        engine: { config: { workerPollInterval: Duration.hours(1), webhookTimeout: Duration.minutes(2) } }
      })
      const harness = h
      const merchant = await harness.merchant("Platform")
      await harness.engine((e) =>
        e.admin.setWebhook({ merchantId: merchant.merchantId, mode: "test", url, secret: "lanes-secret" })
      )
      const n = 400
      for (let i = 0; i < n / 50; i++) {
        const batch = Array.from({ length: 50 }, () =>
          harness.request("POST", "/api/v1/charges", { key: merchant.testKey, body: { amount: 10 } })
        )
        for (const answer of await Promise.all(batch)) expect(answer.status).toBe(201)
      }
      // While the receiver holds its answers, the endpoint has its share in flight and no more.
      await until("the endpoint to take its share", () => target.stats.peak >= 16, testWait(1.5))
      expect(target.stats.peak).toBeLessThanOrEqual(16)
      const [backlog] = (await harness.engine((e) => e.admin.webhookStatus(merchant.merchantId))).endpoints
      expect(backlog?.pending).toBeGreaterThanOrEqual(n)
      expect(backlog?.inFlight).toBeLessThanOrEqual(16)

      target.release()
      // Every charge's transaction.created arrives (the sandbox's payments add more events).
      await until(`${n} events to arrive`, () => target.stats.events.size >= n, testWait(1.5))
      expect(target.stats.peakAfterRelease).toBeGreaterThan(16)
      expect(target.stats.peak).toBeLessThanOrEqual(48)
    } finally {
      target.close()
      target.server.closeAllConnections()
      target.server.close()
      await h?.close()
    }
  })

describe("lanes that refill on SQLite", () => {
  const dir = mkdtempSync(join(tmpdir(), "pixgate-lanes-"))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  refills(() => `sqlite:${join(dir, "pixgate.db")}`)
})

describePostgres("lanes that refill on Postgres", () => {
  const database = useFreshDatabase()
  refills(database.url)
})
