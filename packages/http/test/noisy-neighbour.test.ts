/**
 * Fair webhook delivery with real receivers over sockets, on SQLite and on Postgres: one
 * merchant's endpoint hangs past the 10 s time-out under hundreds of deliveries, and another
 * merchant's first delivery still arrives within 2 s, because an endpoint gets at most its
 * share of the webhook lane (16 of 64 attempts at once by default).
 */
import { mkdtempSync, rmSync } from "node:fs"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { type Harness, listen, start } from "@pixgate/testkit/harness"
import { describePostgres, useFreshDatabase } from "@pixgate/testkit/postgres"
import { testWaitMs } from "@pixgate/testkit/wait"

/** Merchant A's receiver: reads each request and never answers it. */
const hanging = () => {
  const held: Array<ServerResponse> = []
  const server = createServer((req: IncomingMessage, res) => {
    req.resume()
    held.push(res)
  })
  return { server, held }
}

/** Merchant B's receiver: answers 200 and notes when each event arrived. */
const healthy = () => {
  const arrivals: Array<{ readonly at: number; readonly event: string }> = []
  const server = createServer((req, res) => {
    let raw = ""
    req.on("data", (chunk) => {
      raw += chunk
    })
    req.on("end", () => {
      arrivals.push({ at: Date.now(), event: JSON.parse(raw).event })
      res.end("ok")
    })
  })
  return { server, arrivals }
}

const waitUntil = async (what: string, test: () => Promise<boolean> | boolean, ms = testWaitMs) => {
  const deadline = Date.now() + ms
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

const noisyNeighbour = (database: () => string) =>
  it("an endpoint hanging under hundreds of deliveries does not delay another merchant's first delivery", async () => {
    const slow = hanging()
    const fast = healthy()
    const slowUrl = `${await listen(slow.server)}/hook`
    const fastUrl = `${await listen(fast.server)}/hook`
    let h: Harness | undefined
    try {
      h = await start({ database: database(), rateLimit: false, log: { level: "none" } })
      const harness = h
      const a = await harness.merchant("Noisy")
      const b = await harness.merchant("Quiet")
      await harness.engine((e) =>
        e.admin.setWebhook({ merchantId: a.merchantId, mode: "test", url: slowUrl, secret: "noisy-secret" })
      )
      await harness.engine((e) =>
        e.admin.setWebhook({ merchantId: b.merchantId, mode: "test", url: fastUrl, secret: "quiet-secret" })
      )

      // 300 charges: 300 transaction.created deliveries to the hanging endpoint (and more as
      // the sandbox pays them).
      for (let i = 0; i < 6; i++) {
        const batch = Array.from({ length: 50 }, () =>
          harness.request("POST", "/api/v1/charges", { key: a.testKey, body: { amount: 10 } })
        )
        for (const answer of await Promise.all(batch)) expect(answer.status).toBe(201)
      }
      const statusOf = () => harness.engine((e) => e.admin.webhookStatus(a.merchantId))
      // The hanging endpoint has taken its share (its first attempts may have timed out already
      // on a slow machine, and marked it failing: then its share is smaller still).
      await waitUntil("the hanging endpoint to hold its share", () => slow.held.length >= 16)
      const [noisy] = (await statusOf()).endpoints
      expect(noisy?.pending).toBeGreaterThanOrEqual(300)
      expect(noisy?.inFlight).toBeLessThanOrEqual(16)

      const created = await harness.request("POST", "/api/v1/charges", {
        key: b.testKey,
        body: { amount: 5 }
      })
      expect(created.status).toBe(201)
      const sent = Date.now()
      await waitUntil("the quiet merchant's first delivery", () => fast.arrivals.length > 0)
      expect(fast.arrivals[0]?.event).toBe("transaction.created")
      expect(fast.arrivals[0].at - sent).toBeLessThan(2_000)
      expect((await statusOf()).endpoints[0]?.inFlight).toBeLessThanOrEqual(16)
    } finally {
      // Cut the hanging connections first, so that stopping does not wait out the time-out.
      slow.server.closeAllConnections()
      slow.server.close()
      fast.server.closeAllConnections()
      fast.server.close()
      await h?.close()
    }
  })

describe("noisy neighbour on SQLite", () => {
  const dir = mkdtempSync(join(tmpdir(), "pixgate-noisy-"))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  noisyNeighbour(() => `sqlite:${join(dir, "pixgate.db")}`)
})

describePostgres("noisy neighbour on Postgres", () => {
  const database = useFreshDatabase()
  noisyNeighbour(database.url)
})
