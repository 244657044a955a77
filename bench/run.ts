/**
 * `pnpm bench` (full, under 10 minutes) and `pnpm bench -- --quick` (under 2 minutes): loads
 * Pixgate's standalone server the way users do, on SQLite and on Postgres, next to baselines
 * measured in the same run; prints a table and writes bench/results/latest.json.
 *
 * Options: `--quick`; `--only=payouts,list,...` (scenarios: qr, health, payouts, charges, list,
 * webhooks, live, scaling); `--store=sqlite|postgres`; `--profile` (the servers run with
 * `node --cpu-prof`, profiles in bench/results/profiles/, summarised at the end). `live` (the
 * live payouts through the PSP simulator, SQLite) and `scaling` (1, 2 and 3 server processes on
 * one Postgres) start servers of their own and take a minute or more each: a full run has them,
 * `--quick` only when `--only` names them.
 */
import { mkdirSync, readdirSync, rmSync } from "node:fs"
import { join } from "node:path"
import {
  type BenchDb,
  createDb,
  pgAdminUrl,
  pgReachable,
  removeLeftovers,
  removeRunDirectory,
  type StoreKind
} from "./lib/db.js"
import { admin, fundedMerchants, type Server, startBaseline, startPixgate } from "./lib/pixgate.js"
import { installExitHandlers, memoryOf, onAbort, root } from "./lib/proc.js"
import { summarize } from "./lib/profile.js"
import { machine, type Result, skipped, table, writeJson } from "./lib/report.js"
import * as Charges from "./scenarios/charges.js"
import type { Settings, StoreRun } from "./scenarios/common.js"
import * as Http from "./scenarios/http.js"
import * as List from "./scenarios/list.js"
import * as Live from "./scenarios/live.js"
import * as Memory from "./scenarios/memory.js"
import * as Payouts from "./scenarios/payouts.js"
import * as Qr from "./scenarios/qr.js"
import * as Scaling from "./scenarios/scaling.js"
import * as Webhooks from "./scenarios/webhooks.js"

const scenarios = ["qr", "health", "payouts", "charges", "list", "webhooks", "live", "scaling"] as const
/** Scenarios a `--quick` run leaves out unless `--only` names them (each starts its own servers). */
const slow: ReadonlyArray<Scenario> = ["live", "scaling"]
type Scenario = (typeof scenarios)[number]

const args = process.argv.slice(2).filter((a) => a !== "--")
const option = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3)
const unknown = args.filter((a) => !/^--(quick|profile|only=.+|store=(sqlite|postgres))$/.test(a))
if (unknown.length > 0) {
  process.stderr.write(`bench: unknown option(s) ${unknown.join(" ")}\n`)
  process.stderr.write(
    "usage: pnpm bench [-- --quick] [--only=qr,health,payouts,charges,list,webhooks,live,scaling] [--store=sqlite|postgres] [--profile]\n"
  )
  process.exit(2)
}
const quick = args.includes("--quick")
const profile = args.includes("--profile")
const only = new Set(
  (option("only")?.split(",") ??
    scenarios.filter((s) => !(quick && slow.includes(s)))) as ReadonlyArray<Scenario>
)
const stores: ReadonlyArray<StoreKind> = option("store")
  ? [option("store") as StoreKind]
  : ["sqlite", "postgres"]

const started = Date.now()
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s`
const settings: Settings = {
  quick,
  connections: 32,
  durationMs: quick ? 1_000 : 6_000,
  warmupMs: quick ? 250 : 1_000,
  listSizes: quick ? [10_000] : [10_000, 100_000, 1_000_000],
  spreadMerchants: 100,
  log: (line) => process.stdout.write(`[${elapsed()}] ${line}\n`)
}
const resultsDir = join(root, "bench", "results")
const profileDir = join(resultsDir, "profiles")
/**
 * Environment of every Pixgate server besides its database: no per-key rate limit (one
 * benchmark key sends thousands of requests a second); logs at the shipped `info` level.
 */
const serverEnv = { PIXGATE_RATE_LIMIT_RPS: "0" }

const results: Array<Result> = []
const notes: Array<string> = []
let failed = false
const open = new Set<BenchDb>()
/** Server pids of this run, by store, to name their profiles. */
const profiled = new Map<number, StoreKind>()

installExitHandlers()
onAbort(async () => {
  await Promise.allSettled([...open].map((db) => db.dispose()))
  removeRunDirectory()
})

/** Runs one scenario; a failure becomes a note and a failed run, not an abort. */
const attempt = async (label: string, store: string, work: () => Promise<ReadonlyArray<Result>>) => {
  try {
    results.push(...(await work()))
  } catch (error) {
    failed = true
    const message = error instanceof Error ? error.message : String(error)
    settings.log(`FAILED ${label} (${store}): ${message}`)
    results.push(skipped(label, store, "-", `failed: ${message.split("\n")[0]}`))
  }
}

const runStore = async (kind: StoreKind, bare: Http.Bare, first: boolean) => {
  const db = await createDb(kind, "main")
  open.add(db)
  let pixgate: (Server & { adminToken: string }) | null = null
  let baseline: Server | null = null
  try {
    pixgate = await startPixgate(db, {
      env: serverEnv,
      ...(profile ? { nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${profileDir}`], sources: true } : {})
    })
    settings.log(`pixgate serve on ${kind} up (pid ${pixgate.pid})`)
    profiled.set(pixgate.pid, kind)
    const api = admin(pixgate)
    const [one] = await fundedMerchants(api, "Payouts one", 1, 1_000_000)
    const spread = await fundedMerchants(api, "Payouts spread", settings.spreadMerchants, 50_000)
    const rest = memoryOf(pixgate.pid)
    await Payouts.seedBaselineAccounts(db, settings.spreadMerchants)
    baseline = await startBaseline(db)
    const run: StoreRun = { kind, db, pixgate, baseline, one: one, spread }

    // Health touches no storage: measured once, on the first store's server.
    if (only.has("health") && first)
      await attempt("GET /api/health", kind, () => Http.health(settings, run, bare))
    if (only.has("payouts")) {
      await attempt("POST /api/v1/payouts", kind, () => Payouts.run(settings, run))
      results.push(...Memory.figures(kind, rest.rssMiB, memoryOf(pixgate.pid).peakMiB, bare))
    }
    if (only.has("charges")) await attempt("POST /api/v1/charges", kind, () => Charges.run(settings, run))
    if (only.has("webhooks")) await attempt("Webhook dispatcher", kind, () => Webhooks.run(settings, run))
    // Last: seeding a million rows leaves the database writing them out (Postgres' checkpoint)
    // for minutes after, which would land on whatever row came next.
    if (only.has("list")) await attempt("GET /api/v1/transactions", kind, () => List.run(settings, run))
  } finally {
    await baseline?.stop()
    // A graceful stop lets --cpu-prof write its profile; the worker drains for up to 11 s.
    await pixgate?.stop(profile ? 30_000 : 5_000)
    await db.dispose()
    open.delete(db)
  }
}

const main = async () => {
  mkdirSync(resultsDir, { recursive: true })
  if (profile) {
    rmSync(profileDir, { recursive: true, force: true })
    mkdirSync(profileDir, { recursive: true })
  }
  const pgDown = stores.includes("postgres") ? await pgReachable() : null
  const removed = await removeLeftovers(pgDown === null && stores.includes("postgres"))
  if (removed.length > 0) settings.log(`removed leftovers of killed runs: ${removed.join(", ")}`)
  settings.log(
    `pnpm bench${quick ? " --quick" : ""}: ${settings.connections} connections, ` +
      `${settings.durationMs / 1000} s per row after ${settings.warmupMs / 1000} s warm-up`
  )

  if (only.has("qr")) await attempt("QR image", "-", () => Qr.run(quick ? 50 : 200, 3))
  const bare = await Http.startBare()
  let ranStore = false
  for (const kind of stores) {
    if (kind === "postgres" && pgDown !== null) {
      const note = `Postgres unreachable at ${new URL(pgAdminUrl).host} (${pgDown})`
      notes.push(note)
      settings.log(`skipping Postgres rows: ${note}`)
      results.push(skipped("All Postgres scenarios", "postgres", "-", note))
      continue
    }
    // Only the scenarios with servers of their own asked for: no store run.
    if (!scenarios.some((s) => only.has(s) && s !== "qr" && !slow.includes(s))) continue
    const first = !ranStore
    ranStore = true
    await attempt(`${kind} store`, kind, async () => {
      await runStore(kind, bare, first)
      return []
    })
  }
  await bare.server.stop()
  // After the per-store rows, each on servers of its own: the live payouts through the PSP
  // simulator (SQLite) and the scaling row (Postgres).
  if (only.has("live") && stores.includes("sqlite"))
    await attempt("Live payouts (PSP simulator)", "sqlite", () =>
      Live.run(settings, { sends: "settle", charges: false })
    )
  if (only.has("scaling") && stores.includes("postgres") && pgDown === null)
    await attempt("Scaling (server processes on one Postgres)", "postgres", () =>
      Scaling.run(settings, serverEnv, (server) =>
        settings.log(`scaling: pixgate serve up (pid ${server.pid})`)
      )
    )

  if (profile) {
    // One profile per thread; the main thread (id 0) is the server's event loop.
    for (const file of readdirSync(profileDir).sort()) {
      const match = /^CPU\.\d+\.\d+\.(\d+)\.0\.\d+\.cpuprofile$/.exec(file)
      const kind = match === null ? undefined : profiled.get(Number(match[1]))
      if (kind === undefined) continue
      process.stdout.write(`\n${kind}: ${join(profileDir, file)}\n${summarize(join(profileDir, file), 25)}\n`)
    }
  }

  const file = join(resultsDir, "latest.json")
  writeJson(file, {
    mode: quick ? "quick" : "full",
    startedAt: new Date(started).toISOString(),
    finishedAt: new Date().toISOString(),
    seconds: (Date.now() - started) / 1000,
    machine: machine(),
    settings: {
      connections: settings.connections,
      durationMs: settings.durationMs,
      warmupMs: settings.warmupMs,
      listSizes: settings.listSizes,
      spreadMerchants: settings.spreadMerchants,
      stores,
      scenarios: [...only]
    },
    results,
    notes
  })
  process.stdout.write(`\n${table(results)}\n\n`)
  for (const note of notes) process.stdout.write(`note: ${note}\n`)
  process.stdout.write(`results: ${file} (${elapsed().trim()})\n`)
}

try {
  await main()
} catch (error) {
  failed = true
  process.stderr.write(
    `bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`
  )
} finally {
  await Promise.allSettled([...open].map((db) => db.dispose()))
  removeRunDirectory()
}
process.exit(failed ? 1 : 0)
