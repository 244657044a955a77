import { FetchHttpClient, HttpServer } from "@effect/platform"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { PixgateClient } from "@pixgate/client"
import { Engine, Errors, Money, Requests } from "@pixgate/core"
import { Effect, ManagedRuntime } from "effect"
import { layer } from "../effect-httpapi.js"
import { start } from "../node-http.js"
import { exercise, send } from "./support.js"

/** The Effect application of the example on a free port, in memory, with a merchant. */
const startEffect = async () => {
  const runtime = ManagedRuntime.make(layer(0, ":memory:"))
  const url = await runtime.runPromise(
    Effect.map(HttpServer.HttpServer, (server) =>
      server.address._tag === "TcpAddress" ? `http://127.0.0.1:${server.address.port}` : ""
    )
  )
  const merchant = () =>
    runtime.runPromise(Effect.flatMap(Engine.Engine, (e) => e.admin.createMerchant({ name: "Example Shop" })))
  return { url, merchant, close: () => runtime.dispose() }
}

/** The same app on the native node handler, for comparison. */
const startNative = async () => {
  const { pixgate, url, close } = await start(0, "sqlite::memory:")
  const merchant = () =>
    pixgate.runtime.runPromise(
      Effect.flatMap(Engine.Engine, (e) => e.admin.createMerchant({ name: "Example Shop" }))
    )
  return { url, merchant, close }
}

// What differs between two servers by construction: ids, codes, images and times.
const varying = new Set([
  "id",
  "transactionId",
  "txid",
  "qrCode",
  "qrCodeBase64",
  "brCode",
  "copyPaste",
  "endToEndId",
  "timestamp",
  "createdAt",
  "updatedAt",
  "expiresAt",
  "completedAt"
])

const normalize = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(normalize)
  if (typeof value !== "object" || value === null) return value
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, varying.has(k) && v !== null ? `<${k}>` : normalize(v)])
  )
}

/** The error body a decoded error stands for (anything else as it is, to show in a failure). */
const bodyOf = (error: unknown) => (Errors.isPixgateError(error) ? Errors.body(error) : error)

/** `@pixgate/client`'s Effect client: `HttpApiClient` over the same definition, the key on every request. */
const client = (url: string, key: string) =>
  PixgateClient.make({ baseUrl: url, apiKey: key }).pipe(Effect.provide(FetchHttpClient.layer))

describe("examples/effect-httpapi.ts", () => {
  let effect: Awaited<ReturnType<typeof startEffect>>
  let native: Awaited<ReturnType<typeof startNative>>
  beforeAll(async () => {
    effect = await startEffect()
    native = await startNative()
  })
  afterAll(async () => {
    await effect?.close()
    await native?.close()
  })

  it("serves the API next to the application's own route", async () => {
    await exercise(`${effect.url}/api`, (await effect.merchant()).testKey)
    const home = await send(`${effect.url}/`, "GET")
    expect([home.status, home.text]).toEqual([200, "Example Shop"])
    expect((await send(`${effect.url}/v1/balance`, "GET")).status).toBe(410)
  })

  it("is called with HttpApiClient (@pixgate/client's Effect client; Idempotency-Key optional)", async () => {
    const api = await Effect.runPromise(client(effect.url, (await effect.merchant()).testKey))
    const program = Effect.gen(function* () {
      const health = yield* api.health.check()
      expect(health.status).toBe("ok")
      const charge = yield* api.charges.create({ payload: { amount: Money.reais(42.5) } })
      expect([charge.amount, charge.txid.length]).toEqual([42.5, 32])
      const payout = yield* Effect.flip(
        api.payouts.create({
          payload: Requests.CreatePayout.make({
            amount: Money.reais(10),
            pixKey: { type: "email", value: "a@b.com" }
          }),
          headers: { "idempotency-key": "client-1" }
        })
      )
      expect(payout).toBeInstanceOf(Errors.InsufficientBalance)
      expect(bodyOf(payout)).toEqual({ error: "Insufficient balance", code: "insufficient_balance" })
      const page = yield* api.transactions.list({ urlParams: { page: 1, limit: 20 } })
      expect([page.total, page.data[0]?.id]).toEqual([1, charge.transactionId])
      // Above the engine's maximum: valid for the schema, refused by the server with its exact 422.
      const tooMuch = yield* Effect.flip(
        api.charges.create({ payload: { amount: Money.Cents(Money.defaultMaximum + 1) } })
      )
      expect(tooMuch).toBeInstanceOf(Errors.ValidationError)
      return bodyOf(tooMuch)
    })
    const refused = await Effect.runPromise(program)
    const native = await send(`${effect.url}/api/v1/charges`, "POST", {
      key: (await effect.merchant()).testKey,
      body: JSON.stringify({ amount: (Money.defaultMaximum + 1) / 100 })
    })
    expect([native.status, refused]).toEqual([422, native.body])
  })

  it("answers every request as the native node handler does", async () => {
    const requests: ReadonlyArray<{
      method: string
      path: string
      body?: string
      key?: boolean
      type?: string
    }> = [
      { method: "GET", path: "/api/health" },
      { method: "POST", path: "/api/v1/charges", body: JSON.stringify({ amount: 12.34 }), key: true },
      { method: "POST", path: "/api/v1/charges", body: JSON.stringify({ amount: -1 }), key: true },
      { method: "POST", path: "/api/v1/charges", body: "{oops", key: true },
      { method: "POST", path: "/api/v1/charges", body: "{}", key: true, type: "text/plain" },
      {
        method: "POST",
        path: "/api/v1/payouts",
        body: JSON.stringify({ amount: 5, pixKey: "a@b.com" }),
        key: true
      },
      { method: "POST", path: "/api/v1/payouts", body: JSON.stringify({ amount: 5 }), key: true },
      { method: "POST", path: "/api/v1/payouts", body: "{}" },
      { method: "GET", path: "/api/v1/transactions?limit=1", key: true },
      { method: "GET", path: "/api/v1/transactions?status=nope", key: true },
      { method: "GET", path: "/api/v1/charges", key: true },
      { method: "DELETE", path: "/api/v1/webhooks" },
      { method: "GET", path: "/api/v1/nothing" }
    ]
    const keys = [(await effect.merchant()).testKey, (await native.merchant()).testKey]
    for (const r of requests) {
      const [a, b] = await Promise.all(
        [effect, native].map((server, i) =>
          send(`${server.url}${r.path}`, r.method, {
            ...(r.key ? { key: keys[i] } : {}),
            ...(r.body === undefined ? {} : { body: r.body }),
            ...(r.type === undefined ? {} : { type: r.type })
          })
        )
      )
      expect({ request: r, status: a.status, body: normalize(a.body) }).toEqual({
        request: r,
        status: b.status,
        body: normalize(b.body)
      })
    }
  })
})
