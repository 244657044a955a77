/**
 * Server CPU per `GET /api/health` next to the bare node:http baseline (`GET /health`): each
 * server gets the same fixed number of requests over 32 keep-alive connections, in alternating
 * rounds, and its user+system time over them is read from /proc/<pid>/stat. CPU per request is
 * steadier than req/s on a shared machine (a neighbour's burst slows both sides' clock, not
 * the work each request costs).
 *
 * Run: `pnpm exec tsx --conditions=@pixgate/source bench/micro/health-cpu.ts [requests] [rounds]`
 * (defaults 100000 and 3); `PIXGATE_BENCH_BUNDLE` runs a bundle kept aside, as `pnpm bench` does.
 */
import { readFileSync } from "node:fs"
import { Client } from "undici"
import { createDb } from "../lib/db.js"
import { type Server, startBaseline, startPixgate } from "../lib/pixgate.js"
import { installExitHandlers } from "../lib/proc.js"

const requests = Number(process.argv[2] ?? 100_000)
const rounds = Number(process.argv[3] ?? 3)
const connections = 32
const ticks = 100 // USER_HZ on Linux

/** User + system CPU of `pid`, in microseconds. */
const cpuOf = (pid: number): number => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / ticks
}

/** Sends `count` GETs of `path` over `connections` connections; answers µs of CPU per request. */
const measure = async (server: Server, path: string, count: number): Promise<number> => {
  const clients = Array.from({ length: connections }, () => new Client(server.origin, { pipelining: 1 }))
  let sent = 0
  const loop = async (client: Client) => {
    while (sent < count) {
      sent++
      const response = await client.request({ method: "GET", path })
      await response.body.dump()
      if (response.statusCode !== 200) throw new Error(`${path}: ${response.statusCode}`)
    }
  }
  await Promise.all(
    clients.map(async (c) => {
      for (let i = 0; i < 200; i++) {
        const r = await c.request({ method: "GET", path })
        await r.body.dump()
      }
    })
  )
  const before = cpuOf(server.pid)
  const started = performance.now()
  await Promise.all(clients.map(loop))
  const seconds = (performance.now() - started) / 1000
  const cpu = cpuOf(server.pid) - before
  await Promise.all(clients.map((c) => c.close()))
  process.stdout.write(
    `${path.padEnd(12)} ${(count / seconds).toFixed(0).padStart(7)} req/s  ${(cpu / count).toFixed(2).padStart(6)} µs CPU/request\n`
  )
  return cpu / count
}

const main = async () => {
  installExitHandlers()
  const db = await createDb("sqlite", "health-cpu")
  // HEALTH_CPU_ENV: extra server environment as JSON (e.g. `{"PIXGATE_LOG_LEVEL":"warning"}`).
  const extra = JSON.parse(process.env.HEALTH_CPU_ENV ?? "{}") as Record<string, string>
  // HEALTH_CPU_PROFILE=<dir>: the Pixgate server runs under `--cpu-prof` into that directory.
  const profileDir = process.env.HEALTH_CPU_PROFILE
  const pixgate = await startPixgate(db, {
    env: { PIXGATE_RATE_LIMIT_RPS: "0", ...extra },
    ...(profileDir ? { nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] } : {})
  })
  const bare = await startBaseline(null)
  try {
    // What each server spends doing nothing (timers, the job worker's polls), per second.
    for (const [name, server] of [
      ["bare", bare],
      ["pixgate", pixgate]
    ] as const) {
      const before = cpuOf(server.pid)
      await new Promise((resolve) => setTimeout(resolve, 3_000))
      process.stdout.write(`${name} at rest: ${((cpuOf(server.pid) - before) / 3_000).toFixed(1)} ms CPU/s\n`)
    }
    const ratios: Array<number> = []
    for (let round = 0; round < rounds; round++) {
      const b = await measure(bare, "/health", requests)
      const h = await measure(pixgate, "/api/health", requests)
      ratios.push(h / b)
    }
    process.stdout.write(`health CPU / bare CPU per request: ${ratios.map((r) => r.toFixed(2)).join(", ")}\n`)
  } finally {
    await bare.stop()
    await pixgate.stop(profileDir ? 30_000 : 5_000)
    await db.dispose()
  }
}

void main().then(
  () => process.exit(0),
  (error) => {
    console.error(error)
    process.exit(1)
  }
)
