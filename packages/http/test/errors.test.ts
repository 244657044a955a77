/**
 * Every row of the spec's Errors table and every error docs/decisions.md adds, over a real socket:
 * status, verbatim message, stable code, `{ error, code, details? }` body, headers.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { BankGateway, MemoryStore, Money, Store } from "@pixgate/core"
import { type Harness, start } from "@pixgate/testkit/harness"
import { Effect, Layer } from "effect"
import { expectError } from "./support/spec.js"

const posts = ["/api/v1/charges", "/api/v1/payouts"] as const
const authenticated = [
  ["POST", "/api/v1/charges"],
  ["POST", "/api/v1/payouts"],
  ["GET", "/api/v1/transactions"]
] as const

let h: Harness
let key: string
let merchantId: string

beforeAll(async () => {
  // Hundreds of requests on one key, as fast as the server answers: with the default bucket
  // (50/s, burst 100) a fast enough run would see 429 where it checks other errors. The limiter
  // is tested below on servers of its own, with its default bucket and a small one.
  h = await start({ rateLimit: false })
  const m = await h.merchant()
  key = m.testKey
  merchantId = m.merchantId
})
afterAll(() => h.close())

describe("400 Invalid JSON body", () => {
  const bodies: ReadonlyArray<[string, string]> = [
    ["malformed JSON", "{amount: 10"],
    ["truncated JSON", '{"amount": 10'],
    ["empty body", ""],
    ["an array", "[1,2]"],
    ["a string", '"amount"'],
    ["a number", "10"],
    ["null", "null"],
    ["a boolean", "true"],
    ["trailing garbage", '{"amount": 10} x'],
    ["deeply nested JSON", `{"amount":10,"x":${"[".repeat(5000)}${"]".repeat(5000)}}`]
  ]
  for (const path of posts) {
    for (const [what, body] of bodies) {
      it(`${path}: ${what}`, async () => {
        expectError(await h.request("POST", path, { key, body }), 400, "Invalid JSON body", "invalid_json")
      })
    }
    for (const contentType of [
      "text/plain",
      "application/x-www-form-urlencoded",
      "application/jsonx",
      "application/json-patch+json",
      "application/json; charset=latin1",
      "multipart/form-data; boundary=x"
    ]) {
      it(`${path}: Content-Type ${contentType}`, async () => {
        const answer = await h.request("POST", path, {
          key,
          body: '{"amount":10}',
          headers: { "content-type": contentType }
        })
        expectError(answer, 400, "Invalid JSON body", "invalid_json")
      })
    }
    it(`${path}: no Content-Type`, async () => {
      const response = await fetch(`${h.base}${path}`, {
        method: "POST",
        headers: { "x-api-key": key },
        body: new Blob([new TextEncoder().encode('{"amount":10}')])
      })
      expect(response.status).toBe(400)
      // The message stays docs/decisions.md's; `details` says the content type is what is wrong.
      expect(await response.json()).toEqual({
        error: "Invalid JSON body",
        code: "invalid_json",
        details: [
          {
            path: "headers.content-type",
            message: "Content-Type must be application/json (the request has none)"
          }
        ]
      })
    })
    it(`${path}: invalid UTF-8`, async () => {
      const bytes = new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d])
      const response = await fetch(`${h.base}${path}`, {
        method: "POST",
        headers: { "x-api-key": key, "content-type": "application/json" },
        body: bytes
      })
      expect(response.status).toBe(400)
    })
  }

  it("accepts application/json with a UTF-8 charset, in any case", async () => {
    for (const contentType of [
      "application/json; charset=utf-8",
      "Application/JSON;charset=UTF-8",
      "application/json"
    ]) {
      const answer = await h.request("POST", "/api/v1/charges", {
        key,
        body: { amount: 1 },
        headers: { "content-type": contentType }
      })
      expect(answer.status, contentType).toBe(201)
    }
  })

  it("accepts a UTF-8 byte-order mark", async () => {
    const answer = await h.request("POST", "/api/v1/charges", { key, body: '\uFEFF{"amount": 2}' })
    expect(answer.status).toBe(201)
  })
})

describe("401 Unauthorized", () => {
  const keys: ReadonlyArray<[string, Record<string, string>]> = [
    ["missing", {}],
    ["empty", { "x-api-key": "" }],
    ["malformed", { "x-api-key": "not-a-key" }],
    ["wrong prefix", { "x-api-key": `pk_test_${"a".repeat(40)}` }],
    ["too short", { "x-api-key": "sk_test_abc" }],
    ["unknown", { "x-api-key": `sk_test_${"A".repeat(40)}` }],
    ["unknown live", { "x-api-key": `sk_live_${"b".repeat(40)}` }],
    ["in Authorization instead", { authorization: "Bearer sk_test_xxx" }]
  ]
  for (const [method, path] of authenticated) {
    for (const [what, headers] of keys) {
      it(`${method} ${path}: ${what} key`, async () => {
        const body = method === "POST" ? { amount: 10, pixKey: "a@b.com" } : undefined
        const answer = await h.request(method, path, { headers, ...(body ? { body } : {}) })
        expectError(answer, 401, "Unauthorized", "unauthorized")
      })
    }
  }

  it("a revoked key", async () => {
    const created = await h.engine((e) => e.admin.createKey(merchantId, "test"))
    expect((await h.request("GET", "/api/v1/transactions", { key: created.key })).status).toBe(200)
    await h.engine((e) => e.admin.revokeKey(created.keyId))
    expectError(await h.request("GET", "/api/v1/transactions", { key: created.key }), 401, "Unauthorized")
  })

  it("a key of one mode with the other mode's prefix", async () => {
    const m = await h.merchant("Prefix")
    const swapped = m.testKey.replace("sk_test_", "sk_live_")
    expectError(await h.request("GET", "/api/v1/transactions", { key: swapped }), 401, "Unauthorized")
  })

  it("is checked before the body", async () => {
    for (const path of posts) {
      expectError(await h.request("POST", path, { body: "{not json" }), 401, "Unauthorized")
      expectError(await h.request("POST", path, { body: "x".repeat(100_000) }), 401, "Unauthorized")
      expectError(
        await h.request("POST", path, { body: "{}", headers: { "content-type": "text/plain" } }),
        401,
        "Unauthorized"
      )
    }
  })
})

describe("422 amount", () => {
  const positive = "amount must be a positive number"
  const cases: ReadonlyArray<[string, unknown, string]> = [
    ["missing", {}, positive],
    ["zero", { amount: 0 }, positive],
    ["negative", { amount: -10 }, positive],
    ["a string", { amount: "10" }, positive],
    ["null", { amount: null }, positive],
    ["a boolean", { amount: true }, positive],
    ["an object", { amount: { value: 10 } }, positive],
    ["an array", { amount: [10] }, positive],
    ["three decimals", { amount: 10.005 }, "amount must have at most 2 decimal places"],
    ["below a centavo", { amount: 0.001 }, "amount must have at most 2 decimal places"],
    ["above the maximum", { amount: 1_000_000.01 }, "amount exceeds the maximum of 1000000.00"],
    ["far above the maximum", { amount: 10_000_000 }, "amount exceeds the maximum of 1000000.00"]
  ]
  for (const path of posts) {
    for (const [what, body, message] of cases) {
      it(`${path}: ${what}`, async () => {
        const answer = await h.request("POST", path, {
          key,
          body: { pixKey: "someone@example.com", ...(body as object) }
        })
        expectError(answer, 422, message)
        // A string amount keeps the contract's message; a second detail says it must be a number.
        const hint = typeof (body as { amount?: unknown }).amount === "string"
        expect(answer.body.details).toEqual([
          { path: "amount", message },
          ...(hint ? [{ path: "amount", message: "amount must be a JSON number, not a string" }] : [])
        ])
      })
    }
  }

  // Judged on the JSON text, not on the double it parses to (1.0000000000000001 is the double 1).
  const texts: ReadonlyArray<[string, number, string | undefined]> = [
    ["1.0000000000000001", 422, "amount must have at most 2 decimal places"],
    ["1e-3", 422, "amount must have at most 2 decimal places"],
    ["1e400", 422, "amount exceeds the maximum of 1000000.00"],
    ["1.10", 201, undefined],
    ["1.1e0", 201, undefined],
    ["1e-2", 201, undefined]
  ]
  for (const [text, status, message] of texts) {
    it(`/api/v1/charges: amount ${text} -> ${status}`, async () => {
      const answer = await h.request("POST", "/api/v1/charges", { key, body: `{"amount":${text}}` })
      if (message === undefined) expect(answer.status).toBe(status)
      else expectError(answer, 422, message)
    })
  }

  it("accepts the minimum and the maximum", async () => {
    expect((await h.request("POST", "/api/v1/charges", { key, body: { amount: 1_000_000 } })).status).toBe(
      201
    )
    expect((await h.request("POST", "/api/v1/charges", { key, body: { amount: 0.01 } })).status).toBe(201)
  })
})

describe("422 pixKey, clientDoc and text fields", () => {
  for (const [what, pixKey] of [
    ["missing", undefined],
    ["null", null],
    ["empty", ""],
    ["blank", "   "]
  ] as const) {
    it(`pixKey ${what}: pixKey is required`, async () => {
      const body = { amount: 10, pixKey }
      const answer = await h.request("POST", "/api/v1/payouts", { key, body })
      expectError(answer, 422, "pixKey is required", "pix_key_required")
      expect(answer.body.details).toEqual([{ path: "pixKey", message: "pixKey is required" }])
    })
  }

  for (const pixKey of ["not a key", "123", "+5511", "user@", 12345678901, { key: "a@b.com" }]) {
    it(`pixKey ${JSON.stringify(pixKey)} is invalid`, async () => {
      const answer = await h.request("POST", "/api/v1/payouts", { key, body: { amount: 10, pixKey } })
      expectError(answer, 422, "pixKey is not a valid PIX key", "invalid_pix_key")
    })
  }

  it("reports every invalid field in details, the first as the message", async () => {
    const answer = await h.request("POST", "/api/v1/payouts", { key, body: { amount: -1, clientDoc: "123" } })
    expectError(answer, 422, "amount must be a positive number")
    expect(answer.body.details.map((d: { path: string }) => d.path)).toEqual([
      "amount",
      "pixKey",
      "clientDoc"
    ])
  })

  for (const path of posts) {
    for (const clientDoc of ["123", "111.111.111-11", "529.982.247-24", "00.000.000/0000-00", 52998224725]) {
      it(`${path}: clientDoc ${JSON.stringify(clientDoc)} is invalid`, async () => {
        const answer = await h.request("POST", path, {
          key,
          body: { amount: 10, pixKey: "a@b.com", clientDoc }
        })
        expectError(answer, 422, "clientDoc must be a valid CPF or CNPJ", "invalid_client_doc")
      })
    }
    it(`${path}: clientName and description over 140 characters`, async () => {
      const long = "x".repeat(141)
      const name = await h.request("POST", path, {
        key,
        body: { amount: 10, pixKey: "a@b.com", clientName: long }
      })
      expectError(name, 422, "clientName must be a string of at most 140 characters")
      const description = await h.request("POST", path, {
        key,
        body: { amount: 10, pixKey: "a@b.com", description: 5 }
      })
      expectError(description, 422, "description must be a string of at most 140 characters")
    })
  }

  it("a NUL character in any text is 422 (no database can store it)", async () => {
    for (const path of posts) {
      const answer = await h.request("POST", path, {
        key,
        body: { amount: 10, pixKey: "a@b.com", clientName: "a\u0000b" }
      })
      expectError(answer, 422, "clientName must not contain NUL characters", "invalid_text")
      expect(answer.body.details).toEqual([
        { path: "clientName", message: "clientName must not contain NUL characters" }
      ])
    }
    const nested = await h.request("POST", "/api/v1/charges", {
      key,
      body: { amount: 1, extra: { list: ["ok", "\u0000"] } }
    })
    expectError(nested, 422, "extra.list.1 must not contain NUL characters")
  })

  it("expiresIn out of range", async () => {
    for (const expiresIn of [59, 604_801, 1.5, "60"]) {
      const answer = await h.request("POST", "/api/v1/charges", { key, body: { amount: 10, expiresIn } })
      expectError(answer, 422, "expiresIn must be an integer between 60 and 604800", "invalid_expires_in")
    }
  })
})

describe("422 Insufficient balance", () => {
  it("needs amount + 0.33 available, checked atomically", async () => {
    const m = await h.merchant("Balance")
    const insufficient = await h.request("POST", "/api/v1/payouts", {
      key: m.testKey,
      body: { amount: 1, pixKey: "a@b.com" }
    })
    expectError(insufficient, 422, "Insufficient balance", "insufficient_balance")
    await h.engine((e) => e.admin.topUp(m.merchantId, { amount: Money.reais(10) }))
    const tooMuch = await h.request("POST", "/api/v1/payouts", {
      key: m.testKey,
      body: { amount: 9.68, pixKey: "a@b.com" }
    })
    expectError(tooMuch, 422, "Insufficient balance")
    const exact = await h.request("POST", "/api/v1/payouts", {
      key: m.testKey,
      body: { amount: 9.67, pixKey: "a@b.com" }
    })
    expect(exact.status).toBe(201)
    expect(await h.engine((e) => e.admin.balance(m.merchantId, "test"))).toMatchObject({ available: 0 })
  })

  it("concurrent payouts never overdraw", async () => {
    const m = await h.merchant("Race")
    await h.engine((e) => e.admin.topUp(m.merchantId, { amount: Money.reais(10) }))
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        h.request("POST", "/api/v1/payouts", { key: m.testKey, body: { amount: 2, pixKey: "a@b.com" } })
      )
    )
    expect(answers.filter((a) => a.status === 201)).toHaveLength(4)
    expect(answers.filter((a) => a.status === 422)).toHaveLength(6)
    expect(await h.engine((e) => e.admin.balance(m.merchantId, "test"))).toMatchObject({ available: 0.68 })
  })
})

describe("422 invalid list query", () => {
  const cases: ReadonlyArray<[string, string]> = [
    ["type=refund", "type must be one of: deposit, withdrawal, payment"],
    ["type=DEPOSIT", "type must be one of: deposit, withdrawal, payment"],
    ["status=paid", "status must be one of: pending, completed, failed, refunded"],
    ["page=0", "page must be a positive integer"],
    ["page=-1", "page must be a positive integer"],
    ["page=abc", "page must be a positive integer"],
    ["page=1.5", "page must be a positive integer"],
    ["limit=0", "limit must be a positive integer"],
    ["limit=ten", "limit must be a positive integer"],
    ["limit=99999999999999999999", "limit must be a positive integer"],
    ["startDate=2026-02-30", "startDate must be a valid date in YYYY-MM-DD format"],
    ["startDate=2026-1-5", "startDate must be a valid date in YYYY-MM-DD format"],
    ["endDate=05/01/2026", "endDate must be a valid date in YYYY-MM-DD format"],
    ["endDate=2026-13-01", "endDate must be a valid date in YYYY-MM-DD format"],
    ["startDate=2026-03-02&endDate=2026-03-01", "startDate must not be after endDate"]
  ]
  for (const [query, message] of cases) {
    it(query, async () => {
      const answer = await h.request("GET", `/api/v1/transactions?${query}`, { key })
      expectError(answer, 422, message, "invalid_query")
      expect(answer.body.details[0].message).toBe(message)
    })
  }
})

describe("Idempotency-Key", () => {
  it("replays the first answer with Idempotent-Replayed: true", async () => {
    const headers = { "idempotency-key": "order-1" }
    const first = await h.request("POST", "/api/v1/charges", {
      key,
      body: { amount: 15, description: "x" },
      headers
    })
    const again = await h.request("POST", "/api/v1/charges", {
      key,
      body: { description: "x", amount: 15 },
      headers
    })
    expect(first.status).toBe(201)
    expect(first.headers.get("idempotent-replayed")).toBeNull()
    expect(again.status).toBe(201)
    expect(again.headers.get("idempotent-replayed")).toBe("true")
    expect(again.body).toEqual(first.body)
  })

  it("a different body with the same key is 422", async () => {
    const headers = { "idempotency-key": "order-2" }
    await h.request("POST", "/api/v1/charges", { key, body: { amount: 15 }, headers })
    const answer = await h.request("POST", "/api/v1/charges", { key, body: { amount: 16 }, headers })
    expectError(
      answer,
      422,
      "Idempotency-Key was already used with a different request",
      "idempotency_mismatch"
    )
  })

  it("keys are per merchant and mode", async () => {
    const other = await h.merchant("Other")
    const headers = { "idempotency-key": "shared" }
    const a = await h.request("POST", "/api/v1/charges", { key, body: { amount: 5 }, headers })
    const b = await h.request("POST", "/api/v1/charges", { key: other.testKey, body: { amount: 5 }, headers })
    expect(b.headers.get("idempotent-replayed")).toBeNull()
    expect(b.body.transactionId).not.toBe(a.body.transactionId)
  })

  it("replays errors too, marked as replayed", async () => {
    const m = await h.merchant("Replay error")
    const headers = { "idempotency-key": "payout-1" }
    const body = { amount: 5, pixKey: "a@b.com" }
    const first = await h.request("POST", "/api/v1/payouts", { key: m.testKey, body, headers })
    expectError(first, 422, "Insufficient balance")
    expect(first.headers.get("idempotent-replayed")).toBeNull()
    await h.engine((e) => e.admin.topUp(m.merchantId, { amount: Money.reais(100) }))
    const again = await h.request("POST", "/api/v1/payouts", { key: m.testKey, body, headers })
    expectError(again, 422, "Insufficient balance")
    expect(again.headers.get("idempotent-replayed")).toBe("true")
  })

  it("rejects keys over 255 characters", async () => {
    const answer = await h.request("POST", "/api/v1/charges", {
      key,
      body: { amount: 5 },
      headers: { "idempotency-key": "k".repeat(256) }
    })
    expectError(answer, 422, "Idempotency-Key must be 1 to 255 characters", "invalid_idempotency_key")
  })
})

describe("live mode gateways", () => {
  const location = { location: "bank.example/v2/cob/0123456789abcdefghij" }
  const slow: BankGateway.BankGatewayShape = {
    createCharge: () => Effect.as(Effect.sleep("400 millis"), location),
    sender: {
      pollDelay: 60_000,
      status: () => Effect.succeed({ _tag: "Unknown", reason: "bank down" }),
      send: () => Effect.succeed({ _tag: "Unknown", reason: "bank down" })
    },
    timers: () => []
  }
  let live: Harness
  beforeAll(async () => {
    live = await start({ engine: { liveGateway: slow } })
  })
  afterAll(() => live.close())

  it("502 without a live gateway", async () => {
    const m = await h.merchant("No gateway")
    const charge = await h.request("POST", "/api/v1/charges", { key: m.liveKey, body: { amount: 10 } })
    expectError(charge, 502, "Failed to create charge", "gateway_not_configured")
    const payout = await h.request("POST", "/api/v1/payouts", {
      key: m.liveKey,
      body: { amount: 10, pixKey: "a@b.com" }
    })
    expectError(payout, 502, "Failed to process payout", "gateway_not_configured")
  })

  it("502 Failed to create charge when the bank fails", async () => {
    const failing: BankGateway.BankGatewayShape = {
      ...slow,
      createCharge: () => Effect.fail(new BankGateway.GatewayFailure({ message: "timeout" }))
    }
    const down = await start({ engine: { liveGateway: failing } })
    const m = await down.merchant()
    const answer = await down.request("POST", "/api/v1/charges", { key: m.liveKey, body: { amount: 10 } })
    expectError(answer, 502, "Failed to create charge", "gateway_error")
    await down.close()
  })

  it("503 with Retry-After when storage fails, each 5xx logged once at warn with cause and request id", async () => {
    const failing: BankGateway.BankGatewayShape = {
      ...slow,
      createCharge: () => Effect.fail(new BankGateway.GatewayFailure({ message: "bank timed out" }))
    }
    const broken = Layer.effect(
      Store.Store,
      Effect.map(MemoryStore.make, (store) => ({
        ...store,
        listTransactions: () => Effect.fail(new Store.StoreError({ message: "Connection terminated" }))
      }))
    )
    const down = await start({ store: broken, engine: { liveGateway: failing } })
    const m = await down.merchant()
    const list = await down.request("GET", "/api/v1/transactions", {
      key: m.testKey,
      headers: { "x-request-id": "req-503" }
    })
    expectError(list, 503, "Service temporarily unavailable", "service_unavailable")
    expect(list.headers.get("retry-after")).toBe("1")
    const charge = await down.request("POST", "/api/v1/charges", {
      key: m.liveKey,
      body: { amount: 10 },
      headers: { "x-request-id": "req-502" }
    })
    expect(charge.status).toBe(502)
    await down.close()
    const lines = down.logs.map((line) => JSON.parse(line))
    const warnings = lines.filter((l) => l.level === "warn")
    expect(warnings.map((l) => [l.requestId, l.status, l.code, l.cause])).toEqual([
      ["req-503", 503, "service_unavailable", "Connection terminated"],
      ["req-502", 502, "gateway_error", "bank timed out"]
    ])
  })

  // Before live mode, a failing send answered 502 and returned the money at once, freeing the
  // Idempotency-Key: a bank that had received the send would then get a second one on retry.
  // A send the bank does not answer is not a failure: the payout stays pending, debited.
  it("a payout is 201 pending when the bank does not answer, the money stays debited", async () => {
    const m = await live.merchant()
    const charge = await live.request("POST", "/api/v1/charges", { key: m.liveKey, body: { amount: 100 } })
    expect(charge.status).toBe(201)
    await live.engine((e) => e.bankEvents.chargePaid({ txid: charge.body.txid }))
    const before = await live.engine((e) => e.admin.balance(m.merchantId, "live"))
    expect(before.available).toBe(99.01)
    const payout = await live.request("POST", "/api/v1/payouts", {
      key: m.liveKey,
      body: { amount: 50, pixKey: "a@b.com" }
    })
    expect(payout.status).toBe(201)
    expect(payout.body).toMatchObject({ status: "pending", amount: 50 })
    const after = await live.engine((e) => e.admin.balance(m.merchantId, "live"))
    expect(after.available).toBeLessThan(before.available - 49.99)
    const page = await live.request("GET", "/api/v1/transactions?type=withdrawal", { key: m.liveKey })
    expect(page.body).toMatchObject({ total: 1, data: [{ status: "pending" }] })
  })

  it("a client that hangs up does not cut a charge in half", async () => {
    const m = await live.merchant()
    const aborted = new AbortController()
    const sent = fetch(`${live.base}/api/v1/charges`, {
      method: "POST",
      headers: { "x-api-key": m.liveKey, "content-type": "application/json" },
      body: JSON.stringify({ amount: 10 }),
      signal: aborted.signal
    }).catch((error) => error)
    await new Promise((resolve) => setTimeout(resolve, 100))
    aborted.abort()
    expect(await sent).toBeInstanceOf(Error)
    await new Promise((resolve) => setTimeout(resolve, 500))
    const page = await live.request("GET", "/api/v1/transactions", { key: m.liveKey })
    expect(page.body).toMatchObject({ total: 1, data: [{ amount: 10, status: "pending" }] })
  })

  it("409 while the first request with a key is in flight", async () => {
    const m = await live.merchant()
    const call = () =>
      live.request("POST", "/api/v1/charges", {
        key: m.liveKey,
        body: { amount: 10 },
        headers: { "idempotency-key": "slow" }
      })
    const first = call()
    await new Promise((resolve) => setTimeout(resolve, 100))
    const second = await call()
    expectError(
      second,
      409,
      "A request with this Idempotency-Key is still being processed",
      "idempotency_in_flight"
    )
    expect((await first).status).toBe(201)
    expect((await call()).headers.get("idempotent-replayed")).toBe("true")
  })
})

describe("429 Too many requests", () => {
  it("by default a key has a burst of 100 and refills 50 per second", async () => {
    const limited = await start()
    const m = await limited.merchant("Default bucket")
    const began = performance.now()
    const statuses = await Promise.all(
      Array.from({ length: 160 }, () => limited.request("GET", "/api/v1/transactions", { key: m.testKey }))
    ).then((answers) => answers.map((a) => a.status))
    const seconds = (performance.now() - began) / 1000
    const ok = statuses.filter((s) => s === 200).length
    expect(ok + statuses.filter((s) => s === 429).length).toBe(160)
    // The burst, plus what refilled while the requests were in flight, and no more.
    expect(ok).toBeGreaterThanOrEqual(100)
    expect(ok).toBeLessThanOrEqual(100 + Math.ceil(seconds * 50))
    await limited.close()
  })

  it("limits each API key with a token bucket and says when to retry", async () => {
    const limited = await start({ rateLimit: { requestsPerSecond: 1, burst: 3 } })
    const a = await limited.merchant("A")
    const b = await limited.merchant("B")
    const statuses = []
    for (let i = 0; i < 4; i++)
      statuses.push((await limited.request("GET", "/api/v1/transactions", { key: a.testKey })).status)
    expect(statuses).toEqual([200, 200, 200, 429])
    const refused = await limited.request("POST", "/api/v1/charges", { key: a.testKey, body: { amount: 1 } })
    expectError(refused, 429, "Too many requests", "rate_limited")
    const retryAfter = refused.headers.get("retry-after")
    expect(retryAfter).toMatch(/^[1-9]\d*$/)
    // Another key, and the other mode's key, have their own buckets.
    expect((await limited.request("GET", "/api/v1/transactions", { key: b.testKey })).status).toBe(200)
    expect((await limited.request("GET", "/api/v1/transactions", { key: a.liveKey })).status).toBe(200)
    // Unauthenticated requests are refused before the limiter (and the health check is never limited).
    expect((await limited.request("GET", "/api/v1/transactions")).status).toBe(401)
    expect((await limited.request("GET", "/api/health")).status).toBe(200)
    await new Promise((resolve) => setTimeout(resolve, Number(retryAfter) * 1000 + 50))
    expect((await limited.request("GET", "/api/v1/transactions", { key: a.testKey })).status).toBe(200)
    await limited.close()
  })
})
