/**
 * The SQLite side of the fault suite. SQLite runs in-process, so no connection can be lost
 * between the engine and its file; what can fail is a lock another process holds past the busy
 * time-out. Such a failure is definite (nothing was written): the answer is 503 with
 * `Retry-After`, logged with its cause, never a 500, and the retry with the same
 * Idempotency-Key once the lock is gone has exactly one effect.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Money } from "@pixgate/core"
import { SqliteStore } from "@pixgate/store-sqlite"
import { type Answer, type Harness, start } from "@pixgate/testkit/harness"
import { testWaitMs } from "@pixgate/testkit/wait"
import Database from "better-sqlite3"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

describe("fault injection on SQLite: another process holds the write lock", () => {
  const directory = mkdtempSync(join(tmpdir(), "pixgate-faults-"))
  const filename = join(directory, "pixgate.db")
  let server: Harness
  let key: string
  let merchantId: string
  const answers: Array<Answer> = []

  beforeAll(async () => {
    server = await start({
      store: SqliteStore.layer({ filename, busyTimeoutMs: 50, checkpointIntervalMs: 0 }),
      rateLimit: false
    })
    const merchant = await server.merchant("Loja Trancada")
    key = merchant.testKey
    merchantId = merchant.merchantId
    await server.engine((e) => e.admin.topUp(merchantId, { amount: Money.reais(100) }))
  })

  afterAll(async () => {
    await server?.close()
    rmSync(directory, { recursive: true, force: true })
  })

  const post = async (path: string, body: unknown, idempotencyKey: string) => {
    const answer = await server.request("POST", path, {
      key,
      body,
      headers: { "idempotency-key": idempotencyKey }
    })
    answers.push(answer)
    return answer
  }

  it("503 with Retry-After while locked, then exactly one payout and one charge", async () => {
    const payout = { amount: 10, pixKey: "lock@example.com", description: "locked-payout" }
    const charge = { amount: 5, clientName: "Ana", description: "locked-charge" }
    const blocker = new Database(filename)
    try {
      blocker.pragma("busy_timeout = 0")
      blocker.exec("BEGIN IMMEDIATE")
      for (const [path, body] of [
        ["/api/v1/payouts", payout],
        ["/api/v1/charges", charge]
      ] as const) {
        const locked = await post(path, body, body.description)
        expect(locked.status, locked.text).toBe(503)
        expect(locked.body).toEqual({
          error: "Service temporarily unavailable",
          code: "service_unavailable"
        })
        expect(Number(locked.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
      }
      // Readiness reflects the process on SQLite: its connection still answers (docs/operations.md).
      expect((await server.request("GET", "/api/health/ready")).status).toBe(200)
    } finally {
      blocker.exec("ROLLBACK")
      blocker.close()
    }

    for (const [path, body] of [
      ["/api/v1/payouts", payout],
      ["/api/v1/charges", charge]
    ] as const) {
      let answer = await post(path, body, body.description)
      const deadline = Date.now() + testWaitMs
      while ((answer.status === 409 || answer.status === 503) && Date.now() < deadline) {
        await new Promise((resolve) =>
          setTimeout(resolve, Number(answer.headers.get("retry-after") ?? "1") * 500)
        )
        answer = await post(path, body, body.description)
      }
      expect(answer.status, answer.text).toBe(201)
      const again = await post(path, body, body.description)
      expect(again.body.transactionId).toBe(answer.body.transactionId)
    }

    const reader = new Database(filename, { readonly: true })
    try {
      for (const description of ["locked-payout", "locked-charge"]) {
        const rows = reader.prepare("SELECT id FROM transactions WHERE description = ?").all(description)
        expect(rows).toHaveLength(1)
      }
    } finally {
      reader.close()
    }
    const check = await server.engine((e) => e.admin.checkLedger("test"))
    expect(check.unbalancedEntries).toEqual([])
    expect(check.balanceMismatches).toEqual([])
    const balance = await server.engine((e) => e.admin.balance(merchantId, "test"))
    expect(balance.available).toBe(89.67)

    expect(answers.filter((a) => a.status === 500)).toEqual([])
    const lines = server.logs.map((line) => JSON.parse(line) as Record<string, unknown>)
    const failed = lines.filter((l) => l.msg === "request" && l.status === 503)
    expect(failed.length).toBeGreaterThanOrEqual(2)
    for (const access of failed) {
      const explained = lines.filter((l) => l.requestId === access.requestId && l.level === "warn")
      expect(explained).toHaveLength(1)
      expect(String(explained[0].cause)).toMatch(/locked|busy/i)
    }
  })
})
