/**
 * `POST /api/v1/payouts` from funded sandbox merchants: all load on one merchant (every payout
 * queues on one balance row), then spread round-robin over many merchants. Baseline: the same
 * HTTP load on the baseline server doing one guarded UPDATE + one INSERT per payout through
 * the same driver, on the same accounts pattern (one account vs as many accounts).
 */
import { readFileSync } from "node:fs"
import { must } from "@pixgate/testkit/must"
import type { BenchDb } from "../lib/db.js"
import type { LoadResult } from "../lib/load.js"
import { waitForIdle } from "../lib/pixgate.js"
import type { Result } from "../lib/report.js"
import { keyHeaders, loadFigures, measure, type Settings, type StoreRun, summary } from "./common.js"

/** Ids of the baseline's merchants (rows written directly, with their balances). */
export const baselineMerchant = (i: number) => `mer_baseline_${String(i).padStart(3, "0")}`

/** Creates the baseline's merchants and funds their test balances (plenty for any run). */
export const seedBaselineAccounts = async (db: BenchDb, count: number): Promise<void> => {
  const now = Date.now()
  const merchants = Array.from({ length: count }, (_, i) => baselineMerchant(i))
  await db.exec(
    `INSERT INTO merchants (id, name, city, fee_plan, created_at) VALUES ${merchants
      .map((id) => `('${id}', 'Baseline', 'SAO PAULO', '{}', ${now})`)
      .join(", ")}`
  )
  await db.exec(
    `INSERT INTO balances (mode, account, amount) VALUES ${merchants
      .map((id) => `('test', 'merchant:${id}:available', 100000000000)`)
      .join(", ")}`
  )
}

/**
 * CPU time (user + system) a process has used, in microseconds, from /proc/<pid>/stat (clock
 * ticks of 10 ms, Linux's USER_HZ of 100). Less moved by a busy machine than throughput: what a
 * neighbour takes from the cores shows in the rates, not in the work a request costs.
 */
const cpuMicros = (pid: number): number => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return (Number(fields[11]) + Number(fields[12])) * 10_000
}

/** Transactions stored so far: one per payout, Pixgate's and the baseline's. */
const stored = async (db: BenchDb): Promise<number> => {
  const [row] = await db.query<{ n: number | string }>("SELECT COUNT(*) AS n FROM transactions")
  return Number(row?.n ?? 0)
}

/** The CPU of `pid` per transaction `work` stores, warm-up included (Pixgate's: settlements too). */
export const cpuPer = async (db: BenchDb, pid: number, work: () => Promise<void>): Promise<number> => {
  const [rows, cpu] = [await stored(db), cpuMicros(pid)]
  await work()
  const made = (await stored(db)) - rows
  return made > 0 ? (cpuMicros(pid) - cpu) / made : Number.NaN
}

const body = JSON.stringify({ amount: 0.01, pixKey: "cliente@example.com", description: "benchmark" })

/**
 * The targets are ratios to the raw-SQL baseline of the same run (absolute rates move by
 * tens of percent with this shared machine's load): on SQLite >= 0.7x, one merchant or
 * spread; on Postgres >= 1.0x on one merchant (group commit against ten connections queueing
 * on one balance row) and >= 0.9x spread.
 */
const targets = (kind: string, shape: "one" | "spread") => {
  const floor = kind === "postgres" ? (shape === "one" ? 1.0 : 0.9) : 0.7
  return {
    rps: { text: `>= ${floor.toFixed(1)}x raw SQL`, met: (v: number, b: number) => v >= floor * b },
    p99: { text: "< 50 ms", met: (v: number) => v < 50 }
  }
}

/** Runs both payout rows (one merchant, spread) with their baselines. */
export const run = async (settings: Settings, store: StoreRun): Promise<Array<Result>> => {
  const results: Array<Result> = []
  const loads: Record<string, LoadResult> = {}
  for (const shape of ["one", "spread"] as const) {
    const n = shape === "one" ? 1 : store.spread.length
    let base: LoadResult | undefined
    const baseCpu = await cpuPer(store.db, store.baseline.pid, async () => {
      base = await measure(settings, store.baseline.origin, (i) => {
        const id = baselineMerchant(i % n)
        return {
          method: "POST",
          path: "/payout",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ account: `merchant:${id}:available`, merchantId: id, amount: 0.01 })
        }
      })
    })
    settings.log(summary(`baseline payout SQL, ${shape} (${store.kind})`, must(base, "base")))
    const keys = shape === "one" ? [store.one.testKey] : store.spread.map((m) => m.testKey)
    let result: LoadResult | undefined
    // Settlements included: the CPU is read again once the jobs have drained.
    const cpu = await cpuPer(store.db, store.pixgate.pid, async () => {
      result = await measure(settings, store.pixgate.origin, (i) => ({
        method: "POST",
        path: "/api/v1/payouts",
        headers: keyHeaders(keys[i % keys.length], true),
        body
      }))
      settings.log(summary(`POST /api/v1/payouts, ${shape} (${store.kind})`, result))
      const left = await waitForIdle(store.db, 120_000)
      if (left > 0) settings.log(`  ${left} jobs still pending after the payouts (${store.kind})`)
    })
    settings.log(`  server CPU per payout: ${cpu.toFixed(0)} µs (raw SQL server: ${baseCpu.toFixed(0)} µs)`)
    loads[shape] = must(result, "result")
    results.push({
      name: shape === "one" ? "Payouts: server CPU, 1 merchant" : `Payouts: server CPU, ${n} merchants`,
      store: store.kind,
      metric: "CPU per payout",
      value: cpu,
      unit: "µs",
      baseline: baseCpu,
      baselineOf: "the raw-SQL server's CPU per payout (Postgres' own CPU not counted on either)",
      ratio: cpu / baseCpu
    })
    results.push(
      ...loadFigures({
        name: shape === "one" ? "POST /api/v1/payouts, 1 merchant" : `POST /api/v1/payouts, ${n} merchants`,
        store: store.kind,
        unit: "payouts/s",
        result: must(result, "result"),
        baseline: must(base, "base"),
        baselineOf: "raw SQL: guarded UPDATE + INSERT, same driver",
        targets: targets(store.kind, shape)
      })
    )
  }
  const one = loads.one
  const spread = loads.spread
  results.push({
    name: `Payouts: ${store.spread.length} merchants vs 1`,
    store: store.kind,
    metric: "throughput",
    value: spread.rps,
    unit: "payouts/s",
    baseline: one.rps,
    baselineOf: "the 1-merchant row",
    ratio: spread.rps / one.rps,
    // "No slower", allowing for this machine's run-to-run noise of a few percent.
    target: ">= 0.95x (no slower)",
    met: spread.rps >= 0.95 * one.rps
  })
  return results
}
