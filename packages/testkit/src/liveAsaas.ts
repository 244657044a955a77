/**
 * Live mode against the simulated Asaas: a simulator with a default customer, gateway settings
 * that reach it (its test CA, a webhook token), an engine serving the bank's callback route with
 * the Asaas gateway, the webhook registered with the simulator, and a receiver of the merchant's
 * webhooks. Everything stops in `close`.
 */
import { randomBytes } from "node:crypto"
import { createServer } from "node:http"
import { Asaas, type Settings } from "@pixgate/gateway-asaas"
import type { Pixgate } from "@pixgate/http/node"
import { AsaasSimulator } from "@pixgate/psp-simulator"
import { Duration, Effect, Redacted } from "effect"
import { expect } from "vitest"
import { type Harness, listen, start } from "./harness.js"
import type { Received } from "./live.js"

/** A live engine wired to a simulated Asaas. */
export interface LiveAsaas {
  readonly sim: AsaasSimulator.AsaasSimulator
  readonly h: Harness
  readonly settings: Settings.AsaasSettings
  readonly secret: string
  /** The default customer's id (charges without a payer). */
  readonly customerId: string
  readonly webhooks: Array<Received>
  /** A merchant with a live webhook endpoint on the receiver. */
  readonly merchant: () => Promise<{ merchantId: string; liveKey: string }>
  readonly close: () => Promise<void>
}

/** Settings reaching `sim`, with quick polls for tests. */
export const asaasSettingsFor = (
  sim: AsaasSimulator.AsaasSimulator,
  customerId: string,
  overrides: Partial<Settings.AsaasSettings> = {}
): Settings.AsaasSettings => ({
  baseUrl: sim.url,
  apiKey: Redacted.make(sim.apiKey),
  customerId,
  webhookToken: Redacted.make(randomBytes(24).toString("hex")),
  ca: sim.caPem,
  // Room for a TLS handshake on a loaded 2-core machine.
  timeoutMs: 5000,
  pollDelayMs: 250,
  sendBudgetMs: 3000,
  reconcileIntervalMs: 1000,
  ...overrides
})

/** Starts a simulated Asaas and an engine on `database`, registers the webhook. */
export const startLiveAsaas = async (
  database: string,
  overrides: Partial<Settings.AsaasSettings> = {},
  simulator: AsaasSimulator.AsaasSimulatorOptions = {},
  engineOptions: Partial<Pixgate.PixgateOptions> = {}
): Promise<LiveAsaas> => {
  const sim = await AsaasSimulator.start(simulator)
  const customerId = sim.createCustomer("Pixgate Cobranças", "12345678000195")
  const webhooks: Array<Received> = []
  const receiver = createServer((req, res) => {
    let body = ""
    req.on("data", (chunk) => {
      body += chunk
    })
    req.on("end", () => {
      const event = JSON.parse(body) as { event: string; data: Record<string, unknown> }
      webhooks.push({ type: event.event, data: event.data })
      res.end("ok")
    })
  })
  const webhookUrl = await listen(receiver)
  const settings = asaasSettingsFor(sim, customerId, overrides)
  const secret = randomBytes(24).toString("hex")
  const stopReceiver = async () => {
    receiver.closeAllConnections()
    await new Promise((resolve) => receiver.close(resolve))
  }
  let h: Harness
  try {
    h = await start({
      database,
      liveGateway: Asaas.layerNode(settings),
      bankCallbacks: { secret },
      engine: {
        config: {
          allowPrivateWebhookUrls: true,
          allowInsecureLiveWebhooks: true,
          jobLease: Duration.seconds(5)
        }
      },
      rateLimit: false,
      ...engineOptions
    })
  } catch (error) {
    // Settings the gateway refuses stop the engine before it serves: nothing is left running.
    await sim.close()
    await stopReceiver()
    throw error
  }
  await Effect.runPromise(
    Asaas.registerWebhook(settings, `${h.base}/bank/callbacks/${secret}`, "ops@pixgate.example").pipe(
      Effect.provide(Asaas.httpClientNode(settings))
    )
  )
  return {
    sim,
    h,
    settings,
    secret,
    customerId,
    webhooks,
    merchant: async () => {
      const m = await h.merchant()
      await h.engine((e) =>
        e.admin.setWebhook({
          merchantId: m.merchantId,
          mode: "live",
          url: webhookUrl,
          secret: "whsec-live-test"
        })
      )
      return m
    },
    close: async () => {
      await h.close()
      await sim.close()
      await stopReceiver()
    }
  }
}

/** The live ledger's invariants hold. */
export const expectAsaasLedgerClean = async (live: LiveAsaas) => {
  const check = await live.h.engine((e) => e.admin.checkLedger("live"))
  expect(check).toMatchObject({ unbalancedEntries: [], balanceMismatches: [], total: 0 })
}
