/**
 * Fault injection between the engine and Postgres: a real server on a socket, its pool going
 * through a loopback proxy (support/pgProxy.ts) that cuts a connection after forwarding a
 * COMMIT, before it, or in the middle of a statement; and `pg_terminate_backend` under load.
 * For every money-moving request with an Idempotency-Key, retrying as the answers say yields
 * exactly one effect; no answer is a 500; the ledger check holds; every 503 carries
 * `Retry-After` and is logged once with its cause and request id.
 */

import { Money } from "@pixgate/core"
import { type Answer, type Harness, start } from "@pixgate/testkit/harness"
import { must } from "@pixgate/testkit/must"
import { describePostgres, serverUrl, useFreshDatabase } from "@pixgate/testkit/postgres"
import { testWait, until } from "@pixgate/testkit/wait"
import { Duration, Effect, Either } from "effect"
import pg from "pg"
import { afterAll, beforeAll, expect, it, vi } from "vitest"
import { statusOf } from "../src/Status.js"
import * as PgProxy from "./support/pgProxy.js"

// Connections cut under load, retried until the store answers: four base waits a test or hook.
vi.setConfig({ testTimeout: testWait(4), hookTimeout: testWait(4) })

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The money unit of a charge or payout: the batch that inserts transactions. */
const insertsTransactions = /INSERT INTO "?transactions"?[\s(]/i
const lockSeconds = 2

describePostgres("fault injection between the engine and Postgres", () => {
  const database = useFreshDatabase()
  let proxy: PgProxy.PgProxy
  let server: Harness
  let direct: pg.Client
  let key: string
  let merchantId: string
  const answers: Array<Answer> = []

  const request = async (method: string, path: string, body: unknown, idempotencyKey?: string) => {
    const answer = await server.request(method, path, {
      key,
      body,
      ...(idempotencyKey === undefined ? {} : { headers: { "idempotency-key": idempotencyKey } })
    })
    answers.push(answer)
    return answer
  }

  /** Retries as a client should: after `Retry-After` on 503, shortly on 409, until an answer is final. */
  const retryUntilFinal = async (path: string, body: unknown, idempotencyKey: string): Promise<Answer> => {
    const deadline = Date.now() + testWait(1.5)
    for (;;) {
      const answer = await request("POST", path, body, idempotencyKey)
      if (answer.status !== 503 && answer.status !== 409) return answer
      if (Date.now() > deadline) throw new Error(`still ${answer.status} after 90 s: ${answer.text}`)
      await sleep(answer.status === 503 ? Number(answer.headers.get("retry-after") ?? "1") * 1000 : 250)
    }
  }

  const rowsWith = async (description: string) =>
    (
      await direct.query<{ id: string; type: string; status: string }>(
        "SELECT id, type, status FROM transactions WHERE description = $1",
        [description]
      )
    ).rows

  const ledgerHolds = async () => {
    const check = await server.engine((e) => e.admin.checkLedger("test"))
    expect(check.unbalancedEntries).toEqual([])
    expect(check.balanceMismatches).toEqual([])
    // The merchant's money: top-ups and paid charges (net), minus every payout that is not
    // failed (amount + fee): one effect per transaction, no more. The sandbox pays charges 2-3 s
    // after they are made, so a payment can land between the sums and the balance: the balance
    // counts only when the sums read before and after it agree.
    const sums = async () => {
      const { rows } = await direct.query<{ topups: string; deposits: string; payouts: string }>(
        `SELECT
         (SELECT COALESCE(SUM(amount), 0) FROM postings p JOIN journal_entries e ON e.id = p.entry_id
           WHERE e.kind = 'sandbox.topup' AND p.account = $1) AS topups,
         (SELECT COALESCE(SUM(net_amount), 0) FROM transactions
           WHERE merchant_id = $2 AND type = 'deposit' AND status = 'completed') AS deposits,
         (SELECT COALESCE(SUM(amount + fee_amount), 0) FROM transactions
           WHERE merchant_id = $2 AND type = 'withdrawal' AND status <> 'failed') AS payouts`,
        [`merchant:${merchantId}:available`, merchantId]
      )
      const { topups, deposits, payouts } = rows[0]
      return (Number(topups) + Number(deposits) - Number(payouts)) / 100
    }
    let settled: { expected: number; held: number } | undefined
    await until("the sums to hold still around a balance read", async () => {
      const before = await sums()
      const balance = await server.engine((e) => e.admin.balance(merchantId, "test"))
      const after = await sums()
      if (before !== after) return false
      settled = { expected: before, held: balance.available + balance.held }
      return true
    })
    expect(must(settled, "settled").held).toBeCloseTo(must(settled, "settled").expected, 2)
  }

  beforeAll(async () => {
    const target = new URL(serverUrl)
    const name = new URL(database.url()).pathname.slice(1)
    proxy = await PgProxy.start({ host: target.hostname, port: Number(target.port || 5432) })
    direct = new pg.Client({ connectionString: database.url() })
    await direct.connect()
    server = await start({
      database: proxy.url(name),
      rateLimit: false,
      engine: { config: { idempotencyLock: Duration.seconds(lockSeconds) } }
    })
    const merchant = await server.merchant("Loja Falhas")
    key = merchant.testKey
    merchantId = merchant.merchantId
    await server.engine((e) => e.admin.topUp(merchantId, { amount: Money.reais(5000) }))
  })

  afterAll(async () => {
    await server?.close()
    await direct?.end()
    await proxy?.close()
  })

  const operations = [
    {
      name: "payout",
      path: "/api/v1/payouts",
      body: (description: string, amount: number) => ({ amount, pixKey: "fault@example.com", description })
    },
    {
      name: "charge",
      path: "/api/v1/charges",
      body: (description: string, amount: number) => ({ amount, clientName: "Ana", description })
    }
  ] as const
  const kinds = ["afterCommit", "beforeCommit", "midStatement"] as const

  for (const operation of operations)
    for (const kind of kinds)
      it(`a ${operation.name} cut ${kind} and retried with its key has exactly one effect`, async () => {
        const idempotencyKey = `${operation.name}-${kind}`
        const body = operation.body(idempotencyKey, 1.23)
        const fired = proxy.arm({ kind, match: insertsTransactions })
        const first = await request("POST", operation.path, body, idempotencyKey)
        await fired
        expect(first.status, first.text).toBe(503)
        expect(first.body).toEqual({ error: "Service temporarily unavailable", code: "service_unavailable" })
        const wait = Number(first.headers.get("retry-after"))
        expect(wait).toBeGreaterThanOrEqual(1)
        // Unknown outcomes keep the key locked, and say so: retry after the lock lapses.
        if (kind !== "midStatement") expect(wait).toBe(lockSeconds)

        const final = await retryUntilFinal(operation.path, body, idempotencyKey)
        expect(final.status, final.text).toBe(201)
        const rows = await rowsWith(idempotencyKey)
        expect(rows).toHaveLength(1)
        expect(final.body.transactionId).toBe(rows[0].id)
        // The cut after COMMIT kept the unit: the retry is the stored answer, not a second one.
        if (kind === "afterCommit") expect(final.headers.get("idempotent-replayed")).toBe("true")
        else expect(final.headers.get("idempotent-replayed")).toBeNull()
        // A repeat now replays the same answer.
        const again = await request("POST", operation.path, body, idempotencyKey)
        expect(again.status).toBe(201)
        expect(again.body.transactionId).toBe(rows[0].id)
        await ledgerHolds()
      })

  it("a payout whose key claim is cut after COMMIT runs once, when the claim's lock lapses", async () => {
    const idempotencyKey = "payout-claim-afterCommit"
    const body = { amount: 1.11, pixKey: "claim@example.com", description: idempotencyKey }
    const fired = proxy.arm({ kind: "afterCommit", match: /INSERT INTO "?idempotency_keys"?[\s(]/i })
    const first = await request("POST", "/api/v1/payouts", body, idempotencyKey)
    await fired
    expect(first.status, first.text).toBe(503)
    expect(Number(first.headers.get("retry-after"))).toBe(lockSeconds)
    expect(await rowsWith(idempotencyKey)).toEqual([])
    const final = await retryUntilFinal("/api/v1/payouts", body, idempotencyKey)
    expect(final.status, final.text).toBe(201)
    expect(final.headers.get("idempotent-replayed")).toBeNull()
    expect(await rowsWith(idempotencyKey)).toHaveLength(1)
    await ledgerHolds()
  })

  it("a chargeback cut after COMMIT fails with 503 and opening it again finds it open", async () => {
    const charge = await request("POST", "/api/v1/charges", { amount: 2.5, description: "disputed" })
    expect(charge.status).toBe(201)
    await server.engine((e) => e.admin.sandboxPayCharge(charge.body.transactionId))
    const fired = proxy.arm({ kind: "afterCommit", match: /INSERT INTO "?chargebacks"?[\s(]/i })
    const outcome = await server.engine((e) =>
      Effect.either(e.admin.sandboxOpenChargeback(charge.body.transactionId))
    )
    await fired
    expect(Either.isLeft(outcome) && statusOf(outcome.left)).toBe(503)
    const again = await server.engine((e) =>
      Effect.either(e.admin.sandboxOpenChargeback(charge.body.transactionId))
    )
    expect(Either.isLeft(again) && again.left.code).toBe("chargeback_already_open")
    const { rows } = await direct.query("SELECT id FROM chargebacks WHERE transaction_id = $1", [
      charge.body.transactionId
    ])
    expect(rows).toHaveLength(1)
    await ledgerHolds()
  })

  it("an admin top-up cut after COMMIT fails with 503, never a defect", async () => {
    const fired = proxy.arm({ kind: "afterCommit", match: /INSERT INTO "?postings"?[\s(]/i })
    const outcome = await server.engine((e) =>
      Effect.either(e.admin.topUp(merchantId, { amount: Money.reais(10) }))
    )
    await fired
    expect(Either.isLeft(outcome)).toBe(true)
    if (Either.isLeft(outcome)) {
      expect(statusOf(outcome.left)).toBe(503)
      expect(outcome.left._tag === "StorageUnavailable" ? outcome.left.outcome : undefined).toBe("unknown")
    }
    await ledgerHolds()
  })

  it("pg_terminate_backend under load: one payout per key, no 500, the ledger holds", async () => {
    const keys = Array.from({ length: 30 }, (_, i) => `terminate-${i}`)
    const body = (k: string) => ({ amount: 0.5, pixKey: "load@example.com", description: k })
    let terminating = true
    let terminated = 0
    const killer = (async () => {
      while (terminating) {
        const { rows } = await direct.query<{ n: string }>(
          `SELECT COUNT(pg_terminate_backend(pid)) AS n FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> pg_backend_pid() AND application_name = 'pixgate'`
        )
        terminated += Number(rows[0].n)
        await sleep(40)
      }
    })()
    const firsts = await Promise.all(keys.map((k) => request("POST", "/api/v1/payouts", body(k), k)))
    terminating = false
    await killer
    expect(terminated).toBeGreaterThan(0)
    for (const first of firsts) expect([201, 409, 503]).toContain(first.status)

    for (const k of keys) {
      const final = await retryUntilFinal("/api/v1/payouts", body(k), k)
      expect(final.status, final.text).toBe(201)
      const rows = await rowsWith(k)
      expect(rows).toHaveLength(1)
      expect(final.body.transactionId).toBe(rows[0].id)
    }
    await ledgerHolds()
  })

  it("answered no 500, and logged every 5xx once with its cause and request id", async () => {
    expect(answers.length).toBeGreaterThan(0)
    for (const answer of answers) {
      expect(answer.status).not.toBe(500)
      if (answer.status === 503) expect(Number(answer.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
    }
    const lines = server.logs.map((line) => JSON.parse(line) as Record<string, unknown>)
    const failed = lines.filter((l) => l.msg === "request" && typeof l.status === "number" && l.status >= 500)
    expect(failed.length).toBeGreaterThan(0)
    expect(failed.filter((l) => l.status === 500)).toEqual([])
    // The cuts at COMMIT say what they were.
    expect(
      lines.some((l) => l.outcome === "unknown" && String(l.cause).startsWith("Commit outcome unknown"))
    ).toBe(true)
    for (const access of failed) {
      const explained = lines.filter(
        (l) => l.requestId === access.requestId && l.msg !== "request" && l.level === "warn"
      )
      expect(explained, JSON.stringify(access)).toHaveLength(1)
      expect(String(explained[0].cause)).not.toBe("")
    }
  })
})
