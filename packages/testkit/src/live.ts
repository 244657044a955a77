/**
 * Live mode against the PSP simulator: a simulator with a test PKI, gateway settings that reach
 * it over mTLS, an engine serving the bank's callback route, the PSP's webhook registered to
 * it, and a receiver of the merchant's webhooks. Everything stops in `close`.
 */
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ApiPix, type Profile, Settings } from "@pixgate/gateway-apipix"
import type { Pixgate } from "@pixgate/http/node"
import { PspSimulator } from "@pixgate/psp-simulator"
import { Duration, Effect, Redacted } from "effect"
import { expect } from "vitest"
import { type Harness, listen, send, start } from "./harness.js"
import { createDatabase, databaseUrl, dropDatabase, postgresAvailable } from "./postgres.js"
import { testWaitMs } from "./wait.js"

/** A database per live test file: a SQLite file in a temporary directory, and Postgres when up. */
export interface LiveStore {
  readonly name: string
  readonly open: () => Promise<{ readonly url: string; readonly drop: () => Promise<void> }>
}

/** SQLite always; Postgres when 127.0.0.1:5432 answers. `prefix` names the temporary directory. */
export const liveStores = (prefix: string): ReadonlyArray<LiveStore> => [
  {
    name: "SQLite",
    open: async () => {
      const dir = mkdtempSync(join(tmpdir(), `${prefix}-`))
      return {
        url: `sqlite:${join(dir, "live.db")}`,
        drop: async () => rmSync(dir, { recursive: true, force: true })
      }
    }
  },
  ...(postgresAvailable
    ? [
        {
          name: "Postgres",
          open: async () => {
            const name = await createDatabase()
            return { url: databaseUrl(name), drop: () => dropDatabase(name) }
          }
        }
      ]
    : [])
]

/** The settlement account's key at the simulated PSP. */
export const pixKey = "recebimentos@pixgate.example"

/** Settings reaching `psp` over mTLS, with quick polls for tests. */
export const settingsFor = (
  psp: PspSimulator.PspSimulator,
  overrides: Partial<Settings.ApiPixSettings> = {}
): Settings.ApiPixSettings => ({
  baseUrl: psp.url,
  clientId: psp.client.clientId,
  clientSecret: Redacted.make(psp.client.clientSecret),
  scopes: [...Settings.defaults.scopes, ...Settings.recurringScopes],
  certificate: Settings.pem(psp.tls.clientCertPem, psp.tls.clientKeyPem),
  ca: psp.tls.caPem,
  pixKey,
  // Pix Automático on: cycles are paid into this account, /webhookrec and /webhookcobr registered.
  recebedor: { conta: "123456", tipoConta: "CORRENTE", agencia: "0001" },
  // Room for an mTLS handshake on a loaded 2-core machine (1.5 s timed out under two CPU hogs).
  timeoutMs: 5000,
  pollDelayMs: 250,
  reconcileIntervalMs: 1000,
  ...overrides
})

/** A received merchant webhook. */
export interface Received {
  readonly type: string
  readonly data: Record<string, unknown>
  /** The W3C trace context the delivery carried, when tracing is on. */
  readonly traceparent?: string | undefined
}

/** A live engine wired to a simulator. */
export interface Live {
  readonly psp: PspSimulator.PspSimulator
  readonly h: Harness
  readonly settings: Settings.ApiPixSettings
  readonly secret: string
  readonly webhooks: Array<Received>
  readonly webhookUrl: string
  /** A merchant with a live webhook endpoint on the receiver. */
  readonly merchant: () => Promise<{ merchantId: string; liveKey: string }>
  readonly close: () => Promise<void>
}

/** Waits until `check` holds (polling), or fails with `what`. */
export const until = async (
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = testWaitMs
) => {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for: ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/**
 * Starts a simulator and an engine on `database`, registers the PSP's webhook. The gateway uses
 * `profile` (Efí's by default; `Profile.standard` for the BCB standard alone).
 */
export const startLive = async (
  database: string,
  overrides: Partial<Settings.ApiPixSettings> = {},
  simulator: PspSimulator.PspSimulatorOptions = {},
  engineOptions: Partial<Pixgate.PixgateOptions> = {},
  profile?: Profile.PspProfile
): Promise<Live> => {
  const psp = await PspSimulator.start({ pixKeys: [pixKey], ...simulator })
  const webhooks: Array<Received> = []
  const receiver = createServer((req, res) => {
    let body = ""
    req.on("data", (chunk) => {
      body += chunk
    })
    req.on("end", () => {
      const event = JSON.parse(body) as { event: string; data: Record<string, unknown> }
      const traceparent = req.headers.traceparent
      webhooks.push({
        type: event.event,
        data: event.data,
        traceparent: typeof traceparent === "string" ? traceparent : undefined
      })
      res.end("ok")
    })
  })
  const webhookUrl = await listen(receiver)
  const settings = settingsFor(psp, overrides)
  const secret = randomBytes(24).toString("hex")
  const h = await start({
    database,
    liveGateway: ApiPix.layerNode(settings, profile),
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
  await Effect.runPromise(
    ApiPix.registerWebhook(settings, `${h.base}/bank/callbacks/${secret}`, profile).pipe(
      Effect.provide(ApiPix.httpClientNode(settings))
    )
  )
  return {
    psp,
    h,
    settings,
    secret,
    webhooks,
    webhookUrl,
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
      await psp.close()
      receiver.closeAllConnections()
      await new Promise((resolve) => receiver.close(resolve))
    }
  }
}

/** The live ledger's invariants hold. */
export const expectLedgerClean = async (live: Live) => {
  const check = await live.h.engine((e) => e.admin.checkLedger("live"))
  expect(check).toMatchObject({ unbalancedEntries: [], balanceMismatches: [], total: 0 })
}

/** A transaction's status as its merchant's API lists it (among the newest 100). */
export const statusOf = async (live: Live, key: string, id: string): Promise<string | undefined> =>
  (
    (await send(live.h.base, "GET", "/api/v1/transactions?limit=100", { key })).body.data as Array<{
      id: string
      status: string
    }>
  ).find((t) => t.id === id)?.status

/** A new merchant with one live charge of `amount` paid through the bank (its callback at once). */
export const paidCharge = async (live: Live, amount: number) => {
  const m = await live.merchant()
  const answer = await send(live.h.base, "POST", "/api/v1/charges", { key: m.liveKey, body: { amount } })
  expect(answer.status, answer.text).toBe(201)
  const c = answer.body as { transactionId: string; txid: string }
  const pix = await live.psp.payCob(c.txid, { callback: "now" })
  await until(
    "the charge completes",
    async () => (await statusOf(live, m.liveKey, c.transactionId)) === "completed"
  )
  return { m, id: c.transactionId, e2e: pix.endToEndId }
}
