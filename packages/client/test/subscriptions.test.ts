/**
 * The Effect client's subscriptions (Pix Automático) against a real Pixgate: create with an
 * Idempotency-Key, read, list, cycles, cancel; a refusal decoded into core's tagged error.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { DueDate, Errors } from "@pixgate/core"
import { Effect } from "effect"
import { PixgateClient } from "../src/index.js"
import { startServer, type TestServer } from "./support/server.js"

let server: TestServer
let merchant: { merchantId: string; testKey: string }

beforeAll(async () => {
  server = await startServer()
  merchant = await server.merchant("Academia")
})
afterAll(() => server.close())

describe("PixgateClient subscriptions", () => {
  it.live("create, get, list, cycles, cancel; a second cancel is Refused", () =>
    Effect.gen(function* () {
      const pixgate = yield* PixgateClient.PixgateClient
      const payload = {
        jornada: "JORNADA_2" as const,
        vinculo: { contrato: "GYM-1", devedor: { cpf: "12345678909", nome: "Ana Souza" } },
        calendario: {
          dataInicial: DueDate.formatDay(DueDate.nextBusinessDay(DueDate.dayOf(Date.now()) + 6)),
          periodicidade: "MENSAL" as const
        },
        valor: { valorRec: "99.90" },
        politicaRetentativa: "PERMITE_3R_7D" as const
      }
      const headers = { "idempotency-key": "client-sub-1" }
      const created = yield* pixgate.subscriptions.create({ payload, headers })
      expect(created.status).toBe("CRIADA")
      expect(created.dadosQR?.pixCopiaECola).toMatch(/^000201/)
      expect((yield* pixgate.subscriptions.create({ payload, headers })).id).toBe(created.id)
      expect((yield* pixgate.subscriptions.get({ path: { id: created.id } })).id).toBe(created.id)
      const page = yield* pixgate.subscriptions.list({ urlParams: { limit: "10" } })
      expect(page.data.map((s) => s.id)).toEqual([created.id])
      expect((yield* pixgate.subscriptions.cycles({ path: { id: created.id } })).data).toEqual([])
      const cancelled = yield* pixgate.subscriptions.cancel({ path: { id: created.id } })
      expect(cancelled.status).toBe("CANCELADA")
      const again = yield* Effect.flip(pixgate.subscriptions.cancel({ path: { id: created.id } }))
      expect(again).toBeInstanceOf(Errors.Refused)
      expect((again as Errors.Refused).code).toBe("subscription_not_cancellable")
    }).pipe(Effect.provide(PixgateClient.layerFetch({ baseUrl: server.baseUrl, apiKey: merchant.testKey })))
  )
})
