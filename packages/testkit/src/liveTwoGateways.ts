/**
 * Two banks in one engine: the simulated PSP (API Pix with Efí's sends) as the default live
 * gateway, the simulated Asaas beside it (`engine.gateways`), both as plugins, each with its
 * callback registered (Efí at `/bank/callbacks/<secret>`, Asaas under `/gateways/asaas`), the
 * admin API on its own server, and a receiver of the merchants' webhooks.
 */
import { randomBytes } from "node:crypto"
import { createServer } from "node:http"
import { GatewayPlugin } from "@pixgate/core"
import { ApiPix } from "@pixgate/gateway-apipix"
import { plugin as efi } from "@pixgate/gateway-apipix/efi"
import { Asaas } from "@pixgate/gateway-asaas"
import { plugin as asaas } from "@pixgate/gateway-asaas/plugin"
import { AsaasSimulator, PspSimulator } from "@pixgate/psp-simulator"
import { Duration, Effect } from "effect"
import { adminSender, type Harness, listen, start } from "./harness.js"
import { pixKey, type Received, settingsFor } from "./live.js"
import { asaasSettingsFor } from "./liveAsaas.js"

/** The engine, both banks, the admin API and the received webhooks. */
export interface TwoGateways {
  readonly h: Harness
  readonly psp: PspSimulator.PspSimulator
  readonly sim: AsaasSimulator.AsaasSimulator
  readonly admin: ReturnType<typeof adminSender>
  readonly webhooks: Array<Received & { readonly merchantId: string | undefined }>
  /** A merchant with a live webhook endpoint on the receiver. */
  readonly merchant: (name: string) => Promise<{ merchantId: string; liveKey: string }>
  readonly close: () => Promise<void>
}

/** Starts both simulators and an engine on `database` with the two gateways. */
export const startTwoGateways = async (database: string, token: string): Promise<TwoGateways> => {
  const psp = await PspSimulator.start({ pixKeys: [pixKey], sendOutcome: "instant" })
  const sim = await AsaasSimulator.start({ transferOutcome: "instant" })
  const customerId = sim.createCustomer("Pixgate Cobranças", "12345678000195")
  const efiSettings = settingsFor(psp)
  const asaasSettings = asaasSettingsFor(sim, customerId)
  const webhooks: Array<Received & { readonly merchantId: string | undefined }> = []
  const receiver = createServer((req, res) => {
    let body = ""
    req.on("data", (chunk) => {
      body += chunk
    })
    req.on("end", () => {
      const event = JSON.parse(body) as { event: string; data: Record<string, unknown> }
      const merchantId = /^\/m\/([^/?]+)/.exec(req.url ?? "")?.[1]
      webhooks.push({ type: event.event, data: event.data, merchantId })
      res.end("ok")
    })
  })
  const webhookUrl = await listen(receiver)
  const secret = randomBytes(24).toString("hex")
  const h = await start({
    database,
    gateway: GatewayPlugin.configure(efi, efiSettings),
    bankCallbacks: { secret },
    admin: { token, basePath: "/admin" },
    engine: {
      gateways: [GatewayPlugin.configure(asaas, asaasSettings)],
      config: {
        allowPrivateWebhookUrls: true,
        allowInsecureLiveWebhooks: true,
        jobLease: Duration.seconds(5)
      }
    },
    rateLimit: false
  })
  const adminServer = createServer()
  const adminHandler = h.pixgate.admin
  if (adminHandler === undefined) throw new Error("no admin handler")
  adminServer.on("request", adminHandler.nodeHandler)
  const adminBase = await listen(adminServer)
  await Effect.runPromise(
    ApiPix.registerWebhook(efiSettings, `${h.base}/bank/callbacks/${secret}`).pipe(
      Effect.provide(ApiPix.httpClientNode(efiSettings))
    )
  )
  await Effect.runPromise(
    Asaas.registerWebhook(asaasSettings, `${h.base}/bank/callbacks/${secret}/gateways/asaas`).pipe(
      Effect.provide(Asaas.httpClientNode(asaasSettings))
    )
  )
  return {
    h,
    psp,
    sim,
    admin: adminSender(() => adminBase, token),
    webhooks,
    merchant: async (name) => {
      const m = await h.merchant(name)
      await h.engine((e) =>
        e.admin.setWebhook({
          merchantId: m.merchantId,
          mode: "live",
          url: `${webhookUrl}/m/${m.merchantId}`,
          secret: "whsec-live-test"
        })
      )
      return m
    },
    close: async () => {
      adminServer.closeAllConnections()
      await new Promise((resolve) => adminServer.close(resolve))
      await h.close()
      await psp.close()
      await sim.close()
      receiver.closeAllConnections()
      await new Promise((resolve) => receiver.close(resolve))
    }
  }
}
