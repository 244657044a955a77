/**
 * The Effect client (`HttpApiClient` over the server's HttpApi definition) against a real
 * Pixgate: typed requests, answers decoded with the view schemas, and error answers decoded into
 * core's tagged errors.
 */
import { FetchHttpClient } from "@effect/platform"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Errors, Money, Requests } from "@pixgate/core"
import { ConfigProvider, Effect, Layer } from "effect"
import { PixgateClient } from "../src/index.js"
import { startServer, type TestServer } from "./support/server.js"

let server: TestServer
let merchant: { merchantId: string; testKey: string }

beforeAll(async () => {
  server = await startServer()
  merchant = await server.merchant("Effect")
})
afterAll(() => server.close())

const client = (apiKey = merchant.testKey) => PixgateClient.layerFetch({ baseUrl: server.baseUrl, apiKey })

const payout = (reais: number) =>
  Requests.CreatePayout.make({
    amount: Money.Cents(Math.round(reais * 100)),
    pixKey: { type: "email", value: "maria@example.com" }
  })

describe("PixgateClient (Effect)", () => {
  it.live("health, charges, payouts with idempotency, transactions; errors are core's tagged errors", () =>
    Effect.gen(function* () {
      const pixgate = yield* PixgateClient.PixgateClient
      expect((yield* pixgate.health.check()).status).toBe("ok")

      // Idempotency-Key is optional: the request may leave `headers` out.
      const charge = yield* pixgate.charges.create({
        payload: Requests.CreateCharge.make({ amount: Money.Cents(750), clientName: "Maria Silva" })
      })
      expect(charge.amount).toBe(7.5)
      expect(charge.qrCode).toContain("br.gov.bcb.pix")

      const poor = yield* Effect.flip(pixgate.payouts.create({ payload: payout(2) }))
      expect(poor).toBeInstanceOf(Errors.InsufficientBalance)
      expect([poor._tag, poor.message]).toEqual(["InsufficientBalance", "Insufficient balance"])

      yield* Effect.promise(() =>
        server.engine((e) => e.admin.topUp(merchant.merchantId, { amount: Money.Cents(2_000) }))
      )
      const headers = { "idempotency-key": "effect-payout-1" }
      const created = yield* pixgate.payouts.create({ payload: payout(2), headers })
      expect(created.status).toBe("pending")
      expect(yield* pixgate.payouts.create({ payload: payout(2), headers })).toEqual(created)
      const mismatch = yield* Effect.flip(pixgate.payouts.create({ payload: payout(3), headers }))
      expect(mismatch).toBeInstanceOf(Errors.IdempotencyMismatch)

      const tooMuch = yield* Effect.flip(
        pixgate.charges.create({
          payload: Requests.CreateCharge.make({ amount: Money.Cents(100_000_001) }),
          headers: {}
        })
      )
      expect(tooMuch).toBeInstanceOf(Errors.ValidationError)
      expect(tooMuch).toMatchObject({
        code: "amount_above_maximum",
        message: "amount exceeds the maximum of 1000000.00",
        details: [{ path: "amount", message: "amount exceeds the maximum of 1000000.00" }]
      })

      // `headers: {}` still works, and a key given in headers still makes the call idempotent.
      const keyed = { "idempotency-key": "effect-charge-1" }
      const first = yield* pixgate.charges.create({
        payload: Requests.CreateCharge.make({ amount: Money.Cents(100) }),
        headers: keyed
      })
      const again = yield* pixgate.charges.create({
        payload: Requests.CreateCharge.make({ amount: Money.Cents(100) }),
        headers: keyed
      })
      expect(again.transactionId).toBe(first.transactionId)
      const plain = yield* pixgate.charges.create({
        payload: Requests.CreateCharge.make({ amount: Money.Cents(100) }),
        headers: {}
      })
      expect(plain.transactionId).not.toBe(first.transactionId)

      const page = yield* pixgate.transactions.list({ urlParams: { page: 1, limit: 1, type: "deposit" } })
      expect([page.total, page.limit, page.pages]).toEqual([3, 1, 3])
      expect(page.data[0]?.id).toBe(plain.transactionId)
    }).pipe(Effect.provide(client()))
  )

  it.live("a wrong key fails with Unauthorized", () =>
    Effect.gen(function* () {
      const pixgate = yield* PixgateClient.PixgateClient
      const error = yield* Effect.flip(pixgate.transactions.list({ urlParams: { page: 1, limit: 20 } }))
      expect(error).toBeInstanceOf(Errors.Unauthorized)
      expect(error.message).toBe("Unauthorized")
    }).pipe(Effect.provide(client("sk_test_wrongwrongwrongwrongwrongwrongwrong")))
  )

  it.live("layerConfig reads PIXGATE_BASE_URL and PIXGATE_API_KEY", () =>
    Effect.gen(function* () {
      const pixgate = yield* PixgateClient.PixgateClient
      const page = yield* pixgate.transactions.list({ urlParams: { page: 1, limit: 20 } })
      expect(page.page).toBe(1)
    }).pipe(
      Effect.provide(
        PixgateClient.layerConfig.pipe(
          Layer.provide(FetchHttpClient.layer),
          Layer.provide(
            Layer.setConfigProvider(
              ConfigProvider.fromMap(
                new Map([
                  ["PIXGATE_BASE_URL", server.baseUrl],
                  ["PIXGATE_API_KEY", merchant.testKey]
                ])
              )
            )
          )
        )
      )
    )
  )
})
