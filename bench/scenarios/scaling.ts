/**
 * The scaling row: 1, 2 and 3 `pixgate serve` processes on one Postgres database, the payout
 * load (spread over the run's merchants, sandbox keys) split evenly over them. For each count:
 * throughput, and CPU time per payout of Node (the server processes, summed) and of Postgres
 * (the client backends serving this database, summed), each from /proc/<pid>/stat, measured
 * from the load's start until every payout of it is settled (so the sandbox's settlement of
 * each payout is in its cost), divided by the payouts made in that span. Each figure is
 * compared with the 1-process figure of the same run. What the processes and backends burn at
 * rest (2 s without requests, before each load) is measured too, and the per-payout figures are
 * also given above it: an idle instance's job polls are the cost of having it, not of a payout.
 *
 * On a machine with as many cores as processes want, throughput shows what an instance buys;
 * on a small shared one (2 cores here) throughput cannot grow, and CPU per payout is the
 * figure to judge: flat Node CPU per payout means another instance adds capacity at the same
 * cost (it scales out), and Postgres CPU per payout is what each payout asks of the database
 * whatever the number of instances (the size of database a target rate needs).
 */
import { cpuMsOf, pgBackends, snapshot, spent } from "../lib/cpu.js"
import { type BenchDb, createDb } from "../lib/db.js"
import { type LoadResult, load } from "../lib/load.js"
import { admin, fundedMerchants, type Server, startPixgate } from "../lib/pixgate.js"
import { compared, type Result } from "../lib/report.js"
import { failures, keyHeaders, loadOptions, type Settings } from "./common.js"

/** Server processes of the row. */
export const counts = [1, 2, 3] as const

const body = JSON.stringify({ amount: 0.01, pixKey: "cliente@example.com", description: "benchmark" })

/** Transactions committed in this database so far (Postgres' statistics, flushed within a second). */
const commits = async (db: BenchDb) => {
  const [row] = await db.query<{ n: number | string }>(
    "SELECT xact_commit AS n FROM pg_stat_database WHERE datname = current_database()"
  )
  return Number(row?.n ?? 0)
}

const payoutsMade = async (db: BenchDb) => {
  const [row] = await db.query<{ n: number | string }>(
    "SELECT COUNT(*) AS n FROM transactions WHERE type = 'withdrawal'"
  )
  return Number(row?.n ?? 0)
}

/** Waits until no payout is pending (sandbox settlement); how many are left when it gives up. */
const settled = async (db: BenchDb, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const [row] = await db.query<{ n: number | string }>(
      "SELECT COUNT(*) AS n FROM transactions WHERE type = 'withdrawal' AND status = 'pending'"
    )
    const left = Number(row?.n ?? 0)
    if (left === 0 || Date.now() > deadline) return left
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

/** Several loads at once, one per server, as one result (counts summed, latencies of the first). */
const together = (results: ReadonlyArray<LoadResult>): LoadResult => {
  const ok = results.reduce((n, r) => n + r.ok, 0)
  const statuses: Record<string, number> = {}
  for (const r of results)
    for (const [status, count] of Object.entries(r.statuses))
      statuses[status] = (statuses[status] ?? 0) + count
  return {
    ok,
    failed: results.reduce((n, r) => n + r.failed, 0),
    statuses,
    firstFailure: results.find((r) => r.firstFailure !== null)?.firstFailure ?? null,
    seconds: results[0].seconds,
    rps: ok / results[0].seconds,
    latency: results[0].latency
  }
}

interface Step {
  readonly servers: number
  readonly result: LoadResult
  readonly payouts: number
  /** CPU ms over the span, summed over the processes (Node) and the backends (Postgres). */
  readonly nodeMs: number
  readonly pgMs: number
  /** The same less what they burn at rest over as long a span: the payouts' own cost. */
  readonly nodeNetMs: number
  readonly pgNetMs: number
  /** CPU ms per second at rest, summed. */
  readonly nodeRest: number
  readonly pgRest: number
  /** Postgres transactions committed over the span (the bench's own polling reads included). */
  readonly commits: number
}

/** Runs the scaling row on a fresh Postgres database of its own. */
export const run = async (
  settings: Settings,
  env: Record<string, string>,
  started: (server: Server) => void = () => undefined
): Promise<Array<Result>> => {
  const db = await createDb("postgres", "scaling")
  const servers: Array<Server & { readonly adminToken: string }> = []
  try {
    const steps: Array<Step> = []
    let merchants: ReadonlyArray<{ readonly testKey: string }> = []
    for (const n of counts) {
      // One more process on the same database (the first one migrates it and makes the merchants).
      while (servers.length < n) {
        const server = await startPixgate(db, { env, label: `scaling-${servers.length + 1}` })
        servers.push(server)
        started(server)
      }
      if (merchants.length === 0)
        merchants = await fundedMerchants(admin(servers[0]), "Scaling", settings.spreadMerchants, 50_000)
      const pids = servers.map((s) => s.pid)
      // What the processes burn at rest (job polls, timers): 2 s before the load, no request.
      const rest = pids.map(cpuMsOf)
      const pgRest = snapshot(await pgBackends(db))
      await new Promise((resolve) => setTimeout(resolve, 2000))
      const restMsPerSecond = pids.reduce((sum, pid, i) => sum + (cpuMsOf(pid) - rest[i]), 0) / 2
      const pgRestMsPerSecond = spent(pgRest, snapshot(await pgBackends(db))) / 2
      const made = await payoutsMade(db)
      const committed = await commits(db)
      const loadStart = Date.now()
      const backendsBefore = snapshot(await pgBackends(db))
      const nodeBefore = pids.map(cpuMsOf)
      // The run's connections split over the servers; each server's share loads its merchants.
      const results = await Promise.all(
        servers.map((server, i) =>
          load(
            loadOptions(
              settings,
              server.origin,
              (k) => ({
                method: "POST",
                path: "/api/v1/payouts",
                headers: keyHeaders(merchants[(k * n + i) % merchants.length].testKey, true),
                body
              }),
              {
                connections: Math.floor(settings.connections / n) + (i < settings.connections % n ? 1 : 0)
              }
            )
          )
        )
      )
      const left = await settled(db, 120_000)
      if (left > 0) settings.log(`  ${left} payouts still pending after the ${n}-process load`)
      const nodeMs = pids.reduce((sum, pid, i) => sum + (cpuMsOf(pid) - nodeBefore[i]), 0)
      const pgMs = spent(backendsBefore, snapshot(await pgBackends(db)))
      const payouts = (await payoutsMade(db)) - made
      const seconds = (Date.now() - loadStart) / 1000
      // Statistics reach pg_stat_database within a second of the commit.
      await new Promise((resolve) => setTimeout(resolve, 1500))
      const transactions = (await commits(db)) - committed
      const result = together(results)
      steps.push({
        servers: n,
        result,
        payouts,
        nodeMs,
        pgMs,
        nodeNetMs: nodeMs - restMsPerSecond * seconds,
        pgNetMs: pgMs - pgRestMsPerSecond * seconds,
        nodeRest: restMsPerSecond,
        pgRest: pgRestMsPerSecond,
        commits: transactions
      })
      settings.log(
        `scaling, ${n} process${n === 1 ? "" : "es"}: ${Math.round(result.rps)} payouts/s, ` +
          `Node ${(nodeMs / payouts).toFixed(3)} ms + Postgres ${(pgMs / payouts).toFixed(3)} ms CPU per payout ` +
          `(${payouts} payouts in ${seconds.toFixed(1)} s to settled; at rest: Node ${restMsPerSecond.toFixed(1)} ms/s, ` +
          `Postgres ${pgRestMsPerSecond.toFixed(1)} ms/s` +
          `${result.failed > 0 ? `; ${result.failed} failed: ${result.firstFailure}` : ""})`
      )
    }
    const one = steps[0]
    const baselineOf = "1 process, same run"
    return steps.flatMap((step) => {
      const name = `Scaling: ${step.servers} server process${step.servers === 1 ? "" : "es"}, 1 Postgres`
      const note = failures(step.result)
      return [
        {
          ...compared({
            name,
            store: "postgres",
            metric: "payouts throughput",
            value: step.result.rps,
            unit: "payouts/s",
            baseline: one.result.rps,
            baselineOf
          }),
          ...(note === undefined ? {} : { note })
        },
        compared({
          name,
          store: "postgres",
          metric: "Node CPU per payout",
          value: step.nodeMs / step.payouts,
          unit: "ms",
          baseline: one.nodeMs / one.payouts,
          baselineOf
        }),
        compared({
          name,
          store: "postgres",
          metric: "Postgres CPU per payout",
          value: step.pgMs / step.payouts,
          unit: "ms",
          baseline: one.pgMs / one.payouts,
          baselineOf
        }),
        compared({
          name,
          store: "postgres",
          metric: "Node CPU per payout above rest",
          value: step.nodeNetMs / step.payouts,
          unit: "ms",
          baseline: one.nodeNetMs / one.payouts,
          baselineOf
        }),
        compared({
          name,
          store: "postgres",
          metric: "Postgres CPU per payout above rest",
          value: step.pgNetMs / step.payouts,
          unit: "ms",
          baseline: one.pgNetMs / one.payouts,
          baselineOf
        }),
        compared({
          name,
          store: "postgres",
          metric: "Postgres commits per payout",
          value: step.commits / step.payouts,
          unit: "commits",
          baseline: one.commits / one.payouts,
          baselineOf
        }),
        compared({
          name,
          store: "postgres",
          metric: "Node + Postgres CPU at rest",
          value: step.nodeRest + step.pgRest,
          unit: "ms/s",
          baseline: one.nodeRest + one.pgRest,
          baselineOf
        })
      ]
    })
  } finally {
    await Promise.allSettled(servers.map((s) => s.stop()))
    await db.dispose()
  }
}
