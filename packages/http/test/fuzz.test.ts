/**
 * Thousands of malformed requests (random JSON, wrong types, huge strings, unicode, bad query
 * values, bad headers, raw broken HTTP) never get a 5xx, always get the error body, and never
 * move money.
 */
import { connect } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { type BankGateway, MemoryStore, Money } from "@pixgate/core"
import { type Harness, send, start } from "@pixgate/testkit/harness"
import { describePostgres, useFreshDatabase } from "@pixgate/testkit/postgres"
import { Effect } from "effect"
import type { Pixgate } from "../src/node.js"

/** A small seeded PRNG (mulberry32), so a failure can be replayed. */
const prng = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

const seed = Number(process.env.FUZZ_SEED ?? 20261122)
const random = prng(seed)
const int = (n: number) => Math.floor(random() * n)
const pick = <A>(items: ReadonlyArray<A>): A => items[int(items.length)]
const chance = (p: number) => random() < p

const text = (max: number, alphabet = "abcXYZ019 -_.@/+%&?=#\"'\\{}[]<>éçãõ€😀\u0000\u202e\uffff") =>
  Array.from({ length: int(max) }, () => pick([...alphabet])).join("")
const latin1 = (max: number) =>
  Array.from({ length: int(max) }, () => String.fromCharCode(0x20 + int(0xdf))).join("")

const scalar = (): unknown =>
  pick([
    () => int(1e6) - 5e5,
    () => random() * 1e4,
    () => -random(),
    () => pick([0, -0, 1e308, -1e308, 5e-324, 0.1 + 0.2, 10.005, 1_000_000.01, Number.MAX_SAFE_INTEGER + 2]),
    () => text(20),
    () => "x".repeat(int(100_000)),
    (): unknown => pick([true, false, null]),
    () => pick(["10", "1e3", "NaN", "Infinity", "-1", " 10 ", "0x10", "١٠"])
  ])()

const value = (depth = 0): unknown =>
  depth > 3 || chance(0.6)
    ? scalar()
    : chance(0.5)
      ? Array.from({ length: int(4) }, () => value(depth + 1))
      : Object.fromEntries(Array.from({ length: int(4) }, () => [text(8), value(depth + 1)]))

const invalidPixKeys = [
  "",
  "  ",
  "nope",
  "a@",
  "@b.com",
  "123",
  "+55",
  "00000000000",
  "{}",
  "x".repeat(300),
  "😀@😀.com"
]

/** A body that is never a valid payout (so no money can move), often nearly one. */
const payoutBody = (): unknown => {
  const base: Record<string, unknown> = { amount: scalar(), pixKey: pick(invalidPixKeys) }
  if (chance(0.3)) base.amount = pick([10, 1, 0.5])
  if (chance(0.5)) base.clientDoc = pick(["123", "529.982.247-25", text(20), 52998224725, null])
  if (chance(0.3)) base.clientName = pick([text(200), "x".repeat(141), 42, ["a"]])
  if (chance(0.3)) base.description = pick([text(200), { a: 1 }, "ok"])
  if (chance(0.2)) base[pick(["__proto__", "constructor", "prototype", "toString"])] = value()
  return base
}

const chargeBody = (): unknown => {
  const base: Record<string, unknown> = { amount: scalar() }
  if (chance(0.5)) base.clientDoc = pick(["123", text(20), 52998224725, null])
  if (chance(0.3)) base.expiresIn = scalar()
  if (chance(0.3)) base.clientName = pick([text(300), "ok"])
  return base
}

const rawBody = (): string | undefined =>
  pick([
    () => undefined,
    () => JSON.stringify(value()),
    () => JSON.stringify(value()).slice(0, int(40)),
    () => text(200),
    () => `${"[".repeat(int(20_000))}`,
    () => `{"amount":${"9".repeat(int(400))}}`,
    () => `{"amount":10,"pad":"${"z".repeat(70_000)}"}`,
    () => '{"amount": 10, "amount": "x"}',
    () => "\uFEFF\uFEFF{}"
  ])()

const paths = [
  "/api/v1/charges",
  "/api/v1/payouts",
  "/api/v1/transactions",
  "/api/health",
  "/api/openapi.json",
  "/v1/balance",
  "/api/v1/webhooks",
  "/api/v1/transactions/",
  "/api/v1/refunds/x",
  "/api/v1/%E0%A4%A",
  "/api/v1/..%2F..%2Fetc%2Fpasswd",
  "/api/v1/charges/../payouts"
]

const queryValues = [
  "",
  "-1",
  "0",
  "1",
  "2.5",
  "1e3",
  "NaN",
  "99999999999999999999",
  "%",
  "%00",
  "2026-02-30",
  "2026-13-01",
  "deposit",
  "PENDING",
  "😀",
  "a".repeat(3000)
]
const query = () =>
  chance(0.5)
    ? ""
    : `?${Array.from({ length: 1 + int(4) }, () => `${pick(["page", "limit", "type", "status", "startDate", "endDate", "search", "page"])}=${encodeURIComponent(pick(queryValues))}`).join("&")}`

// 431 comes from Node's HTTP parser itself (headers over 16 KiB), before Pixgate sees anything.
const allowed = new Set([200, 201, 400, 401, 404, 405, 409, 410, 413, 422, 429, 431])

/** The fuzz suite on one storage (read lazily: a fresh database's URL is known in beforeAll). */
const suite = (storage: () => Partial<Pixgate.PixgateOptions> & { readonly database?: string }) => {
  let h: Harness
  let keys: ReadonlyArray<string>
  let merchantId: string

  beforeAll(async () => {
    // A working live bank, so live keys reach the engine too (without one live mode is a 502).
    const liveGateway: BankGateway.BankGatewayShape = {
      createCharge: () => Effect.succeed({ location: "bank.example/v2/cob/0123456789abcdefghij" }),
      timers: () => []
    }
    h = await start({
      engine: { worker: false, liveGateway },
      rateLimit: false,
      log: { level: "none" },
      ...storage()
    })
    const m = await h.merchant("Fuzz")
    merchantId = m.merchantId
    await h.engine((e) => e.admin.topUp(merchantId, { amount: Money.reais(1000) }))
    keys = [
      m.testKey,
      m.testKey,
      m.liveKey,
      "",
      "sk_test_",
      `sk_test_${"a".repeat(40)}`,
      latin1(60),
      "x".repeat(8000)
    ]
  })
  afterAll(() => h.close())

  it("2000 malformed requests: never a 5xx, always the error body, no money moved", async () => {
    const before = await h.engine((e) => e.admin.balance(merchantId, "test"))
    const seen = new Map<number, number>()
    const one = async () => {
      const method = pick(["POST", "POST", "POST", "GET", "GET", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD"])
      const path = pick(paths)
      const headers: Record<string, string> = {}
      if (chance(0.9)) headers["x-api-key"] = pick(keys)
      if (chance(0.85)) {
        headers["content-type"] = pick([
          "application/json",
          "application/json; charset=utf-8",
          "text/plain",
          "application/json; charset=utf-16",
          "application/json;;",
          "application/json; charset",
          "*/*",
          "application/",
          "application/json, text/plain"
        ])
      }
      if (chance(0.2)) headers["idempotency-key"] = pick([latin1(20), "k".repeat(300), "", "same"])
      if (chance(0.05)) headers["content-encoding"] = "gzip"
      let body: string | undefined
      if (method === "POST" || method === "PUT" || method === "PATCH") {
        body = pick([
          () => JSON.stringify(path.includes("payouts") ? payoutBody() : chargeBody()),
          () => JSON.stringify(payoutBody()),
          rawBody
        ])()
      }
      const target = `${path}${path.includes("transactions") || chance(0.1) ? query() : ""}`
      let answer: Awaited<ReturnType<typeof send>>
      try {
        answer = await send(h.base, method, target, { headers, body })
      } catch (error) {
        // The client itself refused to send it (e.g. a header value fetch does not allow).
        if ((error as { cause?: { code?: string } }).cause?.code === "UND_ERR_INVALID_ARG") return
        throw error
      }
      seen.set(answer.status, (seen.get(answer.status) ?? 0) + 1)
      expect(
        allowed.has(answer.status),
        `${method} ${target.slice(0, 80)} -> ${answer.status} ${answer.text.slice(0, 200)}`
      ).toBe(true)
      if (answer.status >= 400 && answer.status !== 431 && method !== "HEAD") {
        expect(typeof answer.body?.error).toBe("string")
        expect(typeof answer.body?.code).toBe("string")
      }
    }
    const queue = Array.from({ length: 2000 }, (_, i) => i)
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (queue.pop() !== undefined) await one()
      })
    )
    expect(await h.engine((e) => e.admin.balance(merchantId, "test"))).toEqual(before)
    expect(await h.engine((e) => e.admin.balance(merchantId, "live"))).toMatchObject({
      available: 0,
      held: 0
    })
    for (const mode of ["test", "live"] as const) {
      expect(await h.engine((e) => e.admin.checkLedger(mode))).toMatchObject({
        unbalancedEntries: [],
        balanceMismatches: []
      })
    }
    expect([...seen.keys()].every((s) => s < 500)).toBe(true)
    expect(seen.get(400)).toBeGreaterThan(0)
    expect(seen.get(422)).toBeGreaterThan(0)
  })

  it("broken HTTP on a raw socket never gets a 5xx and leaves the server serving", async () => {
    const { port, hostname } = new URL(h.base)
    const raw = (request: string) =>
      new Promise<string>((resolve) => {
        const socket = connect(Number(port), hostname)
        let data = ""
        socket.setTimeout(2000, () => socket.destroy())
        socket.on("data", (chunk) => {
          data += chunk.toString("latin1")
        })
        socket.on("close", () => resolve(data))
        socket.on("error", () => resolve(data))
        socket.end(request)
      })
    const key = keys[0]
    const requests = [
      `POST /api/v1/charges HTTP/1.1\r\nHost: x\r\nx-api-key: ${key}\r\nContent-Type: application/json\r\nContent-Length: abc\r\n\r\n{}`,
      `POST /api/v1/charges HTTP/1.1\r\nHost: x\r\nx-api-key: ${key}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"amount":1}`,
      `POST /api/v1/charges HTTP/1.1\r\nHost: x\r\nx-api-key: ${key}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
      `POST /api/v1/charges HTTP/1.1\r\nHost: x\r\nx-api-key: ${key}\r\nContent-Type: application/json\r\nContent-Length: 5\r\nContent-Length: 7\r\n\r\n{"a":1}`,
      `GET /api/health HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`,
      "BREW /api/health HTTP/1.1\r\nHost: x\r\n\r\n",
      "GET /api/health HTTP/1.0\r\n\r\n",
      `GET /api/v1/transactions?page=%FF%FE HTTP/1.1\r\nHost: x\r\nx-api-key: ${key}\r\nConnection: close\r\n\r\n`,
      `GET /api/v1/transactions HTTP/1.1\r\nHost: x\r\nx-api-key: ${key}\r\nx-api-key: ${key}\r\nConnection: close\r\n\r\n`,
      "GET http://evil.example/api/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
      "GET * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
      "\r\n\r\n\r\n"
    ]
    for (const request of requests) {
      const response = await raw(request)
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(response)?.[1] ?? "0")
      expect(status, request.slice(0, 60)).toBeLessThan(500)
    }
    expect((await h.request("GET", "/api/health")).status).toBe(200)
  })
}

describe(`fuzz on MemoryStore (seed ${seed})`, () => suite(() => ({ store: MemoryStore.layer })))
describe(`fuzz on SQLite (seed ${seed})`, () => suite(() => ({ database: "sqlite::memory:" })))
describePostgres(`fuzz on Postgres (seed ${seed})`, () => {
  const database = useFreshDatabase()
  suite(() => ({ database: database.url() }))
})
