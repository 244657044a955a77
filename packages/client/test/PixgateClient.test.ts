/**
 * The Effect client (`HttpApiClient` over the server's HttpApi definition) against a real
 * Pixgate: the same calls as the promise client's tests, answers decoded with the view schemas.
 */
import { FetchHttpClient } from "@effect/platform"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
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

describe("PixgateClient (Effect)", () => {
  it.live("health.check, charges.create, payouts.create and transactions.list", () =>
    Effect.gen(function* () {
      const pixgate = yield* PixgateClient.PixgateClient
      expect((yield* pixgate.health.check()).status).toBe("ok")

      const charge = yield* pixgate.charges.create({ payload: { amount: 7.5 }, headers: {} })
      expect(charge.amount).toBe(7.5)
      expect(charge.qrCode).toContain("br.gov.bcb.pix")

      yield* Effect.promise(() => server.engine((e) => e.admin.topUp(merchant.merchantId, 20)))
      const payout = yield* pixgate.payouts.create({
        payload: { amount: 2, pixKey: "maria@example.com" },
        headers: { "idempotency-key": "effect-payout-1" }
      })
      expect(payout.status).toBe("pending")
      const replay = yield* pixgate.payouts.create({
        payload: { amount: 2, pixKey: "maria@example.com" },
        headers: { "idempotency-key": "effect-payout-1" }
      })
      expect(replay).toEqual(payout)

      const page = yield* pixgate.transactions.list({ urlParams: { type: "deposit", limit: 1 } })
      expect([page.total, page.limit, page.pages]).toEqual([1, 1, 1])
      expect(page.data[0]?.id).toBe(charge.transactionId)
    }).pipe(Effect.provide(client()))
  )

  it.live("layerConfig reads PIXGATE_BASE_URL and PIXGATE_API_KEY", () =>
    Effect.gen(function* () {
      const pixgate = yield* PixgateClient.PixgateClient
      const page = yield* pixgate.transactions.list({ urlParams: {} })
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
