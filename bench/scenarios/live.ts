/**
 * Live mode through the PSP simulator, as a ratio to the sandbox (`pnpm bench:live`, and the
 * live payouts row of `pnpm bench`).
 *
 * One `pixgate serve` (the bundle) on a fresh SQLite file with PIXGATE_LIVE_* pointing at the
 * simulator (its own process, mTLS), one merchant funded in both modes. The simulator decides
 * every send at once: `settle` answers `EM_PROCESSAMENTO` and settles right after with its
 * callback (Efí's way: the callback is confirmed with a status GET), `instant` answers the
 * send with `REALIZADO` already (no confirmation needed), the callback after. Rows: payouts
 * (and with `charges`, charges) per second and p50 with a live key, each against the same load
 * with the merchant's test key in the same run (the baseline); the server's CPU time per payout
 * (live against sandbox, from /proc, until every payout of the load is final); and the PSP
 * calls each live send cost (status GETs, PUTs, callbacks), read from the simulator.
 */
import { randomBytes } from "node:crypto"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import { ApiPix, Settings as LiveSettings } from "@pixgate/gateway-apipix"
import { must } from "@pixgate/testkit/must"
import { Effect } from "effect"
import { cpuMsOf } from "../lib/cpu.js"
import { type BenchDb, createDb, runDirectory } from "../lib/db.js"
import type { LoadResult } from "../lib/load.js"
import { call, startPixgate } from "../lib/pixgate.js"
import { freePort, spawnNode } from "../lib/proc.js"
import { compared, type Result } from "../lib/report.js"
import { failures, measure, type Settings, summary } from "./common.js"

/** What the simulator does with a send (see the module's comment). */
export type Sends = "settle" | "instant"

/** Options of the live rows. */
export interface LiveOptions {
  readonly sends: Sends
  /** Also the charges rows (`pnpm bench:live`). */
  readonly charges: boolean
}

const pixKey = "recebimentos@pixgate.example"
/** Connections of every live row (fewer than the other rows: each live payout waits on the PSP). */
const connections = 16

interface Counts {
  readonly routes: Record<string, number>
  readonly deliveries: number
}

const withdrawals = async (db: BenchDb, mode: "test" | "live", pending: boolean) => {
  const [row] = await db.query<{ n: number | string }>(
    `SELECT COUNT(*) AS n FROM transactions WHERE mode = '${mode}' AND type = 'withdrawal'${pending ? " AND status = 'pending'" : ""}`
  )
  return Number(row?.n ?? 0)
}

/** Waits until no payout of `mode` is pending; how many are left when it gives up. */
const settled = async (db: BenchDb, mode: "test" | "live", timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const left = await withdrawals(db, mode, true)
    if (left === 0 || Date.now() > deadline) return left
    await sleep(200)
  }
}

/** Runs the live rows; every child it starts is stopped before it returns. */
export const run = async (settings: Settings, options: LiveOptions): Promise<Array<Result>> => {
  const db = await createDb("sqlite", "live")
  const out = join(runDirectory(), "psp")
  const [apiPort, controlPort] = [await freePort(), await freePort()]
  const control = `http://127.0.0.1:${controlPort}`
  const simulator = await spawnNode({
    name: "psp-simulator",
    args: [
      "--import",
      "tsx",
      "--conditions=@pixgate/source",
      "packages/psp-simulator/src/bin.ts",
      ...["--out", out, "--port", String(apiPort), "--control-port", String(controlPort)],
      ...["--pix-key", pixKey, "--sends", options.sends]
    ],
    ready: /^PSP simulator/,
    readyTimeoutMs: 90_000
  })
  let server: Awaited<ReturnType<typeof startPixgate>> | undefined
  try {
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
    server = await startPixgate(db, { env, label: "live" })
    const origin = server.origin
    const live = must(
      LiveSettings.fromEnv(env, (path) => readFileSync(path)),
      "LiveSettings.fromEnv(env, (path) => readFileSync(path))"
    )
    await Effect.runPromise(
      ApiPix.registerWebhook(live.settings, `${origin}/bank/callbacks/${secret}`).pipe(
        Effect.provide(ApiPix.httpClientNode(live.settings))
      )
    )

    const headers = { authorization: `Bearer ${server.adminToken}` }
    const merchant = await call<{ merchantId: string; testKey: string; liveKey: string }>(
      origin,
      "POST",
      "/admin/merchants",
      { headers, body: { name: "Live bench" } }
    )
    await call(origin, "POST", `/admin/merchants/${merchant.merchantId}/sandbox/topup`, {
      headers,
      body: { amount: 900_000 }
    })
    // Live money comes in through the bank: one large charge, paid at the simulator.
    const funding = await call<{ txid: string }>(origin, "POST", "/api/v1/charges", {
      headers: { "x-api-key": merchant.liveKey },
      body: { amount: 900_000 }
    })
    await call(control, "POST", `/cobs/${funding.txid}/pay`, { body: {} })
    for (let i = 0; ; i++) {
      const balance = await call<{ available: number }>(
        origin,
        "GET",
        `/admin/merchants/${merchant.merchantId}/balance?mode=live`,
        { headers }
      )
      if (balance.available > 0) break
      if (i > 300) throw new Error("the live funding charge never completed")
      await sleep(100)
    }

    const load = (key: string, path: string, body: (n: number) => string) =>
      measure(
        settings,
        origin,
        (n) => ({
          method: "POST",
          path,
          headers: { "x-api-key": key, "content-type": "application/json" },
          body: body(n)
        }),
        { connections }
      )
    const notes = (result: LoadResult, baseline: LoadResult) => {
      const text = [failures(result), failures(baseline) && `baseline: ${failures(baseline)}`]
        .filter(Boolean)
        .join("; ")
      return text === "" ? {} : { note: text }
    }
    const pid = server.pid
    const results: Array<Result> = []
    const name = (what: string) => `${what} (live, PSP simulator, sends ${options.sends})`
    const sandbox = "same load, test key (sandbox)"

    if (options.charges) {
      const charge = (n: number) => `{"amount":${10 + (n % 5)}.${String(n % 100).padStart(2, "0")}}`
      const base = await load(merchant.testKey, "/api/v1/charges", charge)
      settings.log(summary("POST /api/v1/charges, sandbox key (live bench)", base))
      const bank = await load(merchant.liveKey, "/api/v1/charges", charge)
      settings.log(summary("POST /api/v1/charges, live key", bank))
      for (const [metric, unit, value, baseline] of [
        ["throughput", "charges/s", bank.rps, base.rps],
        ["p50 latency", "ms", bank.latency.p50, base.latency.p50]
      ] as const)
        results.push({
          ...compared({
            name: name("POST /api/v1/charges"),
            store: "sqlite",
            metric,
            value,
            unit,
            baseline,
            baselineOf: sandbox
          }),
          ...notes(bank, base)
        })
    }

    // Each side: the load, then its payouts' settlement (sandbox timers; the live sends, the
    // PSP's callbacks and the jobs' polls), with the server's CPU time and payouts made over all.
    const payout = () => `{"amount":1,"pixKey":"destino@banco.example"}`
    const side = async (mode: "test" | "live") => {
      const made = await withdrawals(db, mode, false)
      const cpu = cpuMsOf(pid)
      const result = await load(
        mode === "test" ? merchant.testKey : merchant.liveKey,
        "/api/v1/payouts",
        payout
      )
      const left = await settled(db, mode, 120_000)
      if (left > 0) settings.log(`  ${left} ${mode} payouts still pending after the load`)
      const payouts = (await withdrawals(db, mode, false)) - made
      return { result, payouts, cpuPerPayout: (cpuMsOf(pid) - cpu) / payouts }
    }
    const base = await side("test")
    settings.log(summary("POST /api/v1/payouts, sandbox key (live bench)", base.result))
    const before = await call<Counts>(control, "GET", "/requests/counts")
    const bank = await side("live")
    settings.log(summary(`POST /api/v1/payouts, live key (sends ${options.sends})`, bank.result))
    // Every send has one callback, posted as it settles (after the answer, with `instant`):
    // wait for their delivery records (up to 20 s).
    let after = await call<Counts>(control, "GET", "/requests/counts")
    for (let i = 0; i < 100 && after.deliveries - before.deliveries < bank.payouts; i++) {
      await sleep(200)
      after = await call<Counts>(control, "GET", "/requests/counts")
    }
    await sleep(200)
    after = await call<Counts>(control, "GET", "/requests/counts")
    const delta = (route: string) => ((after.routes[route] ?? 0) - (before.routes[route] ?? 0)) / bank.payouts
    const gets = delta("send.get")
    const puts = delta("send.put")
    const callbacks = (after.deliveries - before.deliveries) / bank.payouts
    settings.log(
      `  ${bank.payouts} live payouts: ${gets.toFixed(2)} status GET, ${puts.toFixed(2)} PUT, ` +
        `${callbacks.toFixed(2)} callbacks per send; server CPU ${bank.cpuPerPayout.toFixed(2)} ms per payout ` +
        `(sandbox ${base.cpuPerPayout.toFixed(2)} ms)`
    )
    results.push(
      {
        ...compared({
          name: name("POST /api/v1/payouts"),
          store: "sqlite",
          metric: "throughput",
          value: bank.result.rps,
          unit: "payouts/s",
          baseline: base.result.rps,
          baselineOf: sandbox
        }),
        ...notes(bank.result, base.result)
      },
      compared({
        name: name("POST /api/v1/payouts"),
        store: "sqlite",
        metric: "p50 latency",
        value: bank.result.latency.p50,
        unit: "ms",
        baseline: base.result.latency.p50,
        baselineOf: sandbox
      }),
      compared({
        name: name("Payouts, server CPU per payout"),
        store: "sqlite",
        metric: "CPU time",
        value: bank.cpuPerPayout,
        unit: "ms",
        baseline: base.cpuPerPayout,
        baselineOf: "sandbox payouts, same run (to final status)"
      }),
      {
        name: name("Live send, PSP calls per send"),
        store: "sqlite",
        metric: `GET ${gets.toFixed(2)} + PUT ${puts.toFixed(2)} + callback ${callbacks.toFixed(2)}`,
        value: gets + puts + callbacks,
        unit: "calls"
      }
    )
    return results
  } finally {
    await server?.stop()
    await simulator.stop()
    await db.dispose()
  }
}
