/**
 * Live mode through the PSP simulator, as a ratio to the sandbox: `pnpm bench:live`.
 *
 * One `pixgate serve` (the bundle) on a fresh SQLite file with PIXGATE_LIVE_* pointing at the
 * simulator (its own process, mTLS, sends settled at once with their callbacks), one merchant
 * funded in both modes. Rows: charges and payouts per second and p50 with a live key, each
 * against the same load with the merchant's test key in the same run (the baseline). A live
 * charge waits for the PSP's `PUT /cob`; a live payout answers before any bank call, but its
 * send job, the PSP's callback and the confirmation GET run during the measurement.
 * Options: `--quick` (2 s rows).
 */
import { randomBytes } from "node:crypto"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { ApiPix, Settings } from "@pixgate/gateway-apipix"
import { Effect } from "effect"
import { createDb, removeRunDirectory, runDirectory } from "./lib/db.js"
import { load } from "./lib/load.js"
import { call, startPixgate } from "./lib/pixgate.js"
import { freePort, installExitHandlers, spawnNode } from "./lib/proc.js"
import { compared, type Result, table } from "./lib/report.js"

const quick = process.argv.includes("--quick")
const durationMs = quick ? 2000 : 6000
const warmupMs = quick ? 500 : 1000
const connections = 16
const pixKey = "recebimentos@pixgate.example"

installExitHandlers()
const db = await createDb("sqlite", "live")
const out = join(runDirectory(), "psp")
const [apiPort, controlPort] = [await freePort(), await freePort()]
const simulator = await spawnNode({
  name: "psp-simulator",
  args: [
    "--import",
    "tsx",
    "--conditions=@pixgate/source",
    "packages/psp-simulator/src/bin.ts",
    ...["--out", out, "--port", String(apiPort), "--control-port", String(controlPort)],
    ...["--pix-key", pixKey, "--sends", "settle"]
  ],
  ready: /^PSP simulator/,
  readyTimeoutMs: 90_000
})
const secret = randomBytes(24).toString("hex")
const env = {
  PIXGATE_LIVE_BASE_URL: `https://127.0.0.1:${apiPort}`,
  PIXGATE_LIVE_CLIENT_ID: "pixgate",
  PIXGATE_LIVE_CLIENT_SECRET: "pixgate-secret",
  PIXGATE_LIVE_CERT_FILE: join(out, "client-cert.pem"),
  PIXGATE_LIVE_KEY_FILE: join(out, "client-key.pem"),
  PIXGATE_LIVE_CA_FILE: join(out, "ca.pem"),
  PIXGATE_LIVE_PIX_KEY: pixKey,
  PIXGATE_LIVE_CALLBACK_SECRET: secret,
  PIXGATE_RATE_LIMIT_RPS: "0",
  PIXGATE_LOG_LEVEL: "warning"
}
const server = await startPixgate(db, { env, label: "live" })
const live = Settings.fromEnv(env, (path) => readFileSync(path))!
await Effect.runPromise(
  ApiPix.registerWebhook(live.settings, `${server.origin}/bank/callbacks/${secret}`).pipe(
    Effect.provide(ApiPix.httpClientNode(live.settings))
  )
)

const headers = { authorization: `Bearer ${server.adminToken}` }
const merchant = await call<{ merchantId: string; testKey: string; liveKey: string }>(
  server.origin,
  "POST",
  "/admin/merchants",
  { headers, body: { name: "Live bench" } }
)
await call(server.origin, "POST", `/admin/merchants/${merchant.merchantId}/sandbox/topup`, {
  headers,
  body: { amount: 900_000 }
})
// Live money comes in through the bank: one large charge, paid at the simulator.
const funding = await call<{ txid: string }>(server.origin, "POST", "/api/v1/charges", {
  headers: { "x-api-key": merchant.liveKey },
  body: { amount: 900_000 }
})
await call(`http://127.0.0.1:${controlPort}`, "POST", `/cobs/${funding.txid}/pay`, { body: {} })
for (let i = 0; ; i++) {
  const balance = await call<{ available: number }>(
    server.origin,
    "GET",
    `/admin/merchants/${merchant.merchantId}/balance?mode=live`,
    { headers }
  )
  if (balance.available > 0) break
  if (i > 300) throw new Error("the live funding charge never completed")
  await new Promise((resolve) => setTimeout(resolve, 100))
}

const run = (key: string, path: string, body: (n: number) => string) =>
  load({
    origin: server.origin,
    connections,
    durationMs,
    warmupMs,
    request: (n) => ({
      method: "POST",
      path,
      headers: { "x-api-key": key, "content-type": "application/json" },
      body: body(n)
    })
  })
const charge = (n: number) => `{"amount":${10 + (n % 5)}.${String(n % 100).padStart(2, "0")}}`
const payout = () => `{"amount":1,"pixKey":"destino@banco.example"}`

const results: Array<Result> = []
for (const [name, path, body, unit] of [
  ["POST /api/v1/charges", "/api/v1/charges", charge, "charges/s"],
  ["POST /api/v1/payouts", "/api/v1/payouts", payout, "payouts/s"]
] as const) {
  const sandbox = await run(merchant.testKey, path, body)
  const bank = await run(merchant.liveKey, path, body)
  process.stderr.write(
    `${name}: sandbox ${Math.round(sandbox.rps)}/s, live ${Math.round(bank.rps)}/s` +
      ` (failed: ${sandbox.failed} / ${bank.failed}${bank.firstFailure ? `, ${bank.firstFailure}` : ""})\n`
  )
  results.push(
    compared({
      name: `${name} (live, PSP simulator)`,
      store: "sqlite",
      metric: "throughput",
      value: bank.rps,
      unit,
      baseline: sandbox.rps,
      baselineOf: "same load, test key (sandbox)"
    }),
    compared({
      name: `${name} (live, PSP simulator)`,
      store: "sqlite",
      metric: "p50",
      value: bank.latency.p50,
      unit: "ms",
      baseline: sandbox.latency.p50,
      baselineOf: "same load, test key (sandbox)"
    })
  )
}
process.stdout.write(`${table(results)}\n`)
await server.stop()
await simulator.stop()
removeRunDirectory()
process.exit(0)
