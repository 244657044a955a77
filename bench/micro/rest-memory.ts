/**
 * The server's RSS at rest, as `pnpm bench` reads it (its "Server memory, RSS at rest" row):
 * `pixgate serve` from the bundle, with the node flags and environment of `pnpm start`, then
 * 1 + 100 funded sandbox merchants through the admin router, then VmRSS from
 * `/proc/<pid>/status` (after a 2 s pause; the bench reads it right away). Also prints where
 * the resident pages are (`/proc/<pid>/smaps`: the node binary, anonymous memory, the rest).
 *
 * Run: `pnpm exec tsx --conditions=@pixgate/source bench/micro/rest-memory.ts [rounds]
 * [--store=sqlite|postgres]` (default 3 rounds on both stores); `PIXGATE_BENCH_BUNDLE` runs a
 * bundle kept aside, `PIXGATE_BENCH_NODE_FLAGS` and `PIXGATE_BENCH_START_ENV` replace the start script's node flags
 * and environment (`startScript` in bench/lib/pixgate.ts; `""` for none).
 */
import { readFileSync } from "node:fs"
import { setTimeout as sleep } from "node:timers/promises"
import { createDb, removeRunDirectory, type StoreKind } from "../lib/db.js"
import { admin, fundedMerchants, startPixgate } from "../lib/pixgate.js"
import { installExitHandlers, memoryOf } from "../lib/proc.js"

const args = process.argv.slice(2).filter((a) => a !== "--")
const rounds = Number(args.find((a) => /^\d+$/.test(a)) ?? 3)
const store = args.find((a) => a.startsWith("--store="))?.slice("--store=".length)
const stores: ReadonlyArray<StoreKind> = store ? [store as StoreKind] : ["sqlite", "postgres"]

/** Resident MiB by mapping kind: the node binary's file pages, anonymous pages, everything else. */
const breakdown = (pid: number) => {
  const smaps = readFileSync(`/proc/${pid}/smaps`, "utf8").split("\n")
  let current = ""
  const sums = { binary: 0, anonymous: 0, other: 0 }
  for (const line of smaps) {
    const header = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line)
    if (header !== null) {
      current = header[1] ?? ""
      continue
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line)
    if (rss === null) continue
    const kib = Number(rss[1])
    if (current.endsWith("/node")) sums.binary += kib
    else if (current === "" || current.startsWith("[heap]") || current.startsWith("[anon"))
      sums.anonymous += kib
    else sums.other += kib
  }
  const mib = (kib: number) => (kib / 1024).toFixed(1)
  return `binary ${mib(sums.binary)}, anonymous ${mib(sums.anonymous)}, other ${mib(sums.other)}`
}

installExitHandlers()
const main = async () => {
  for (let round = 1; round <= rounds; round++) {
    for (const kind of stores) {
      const db = await createDb(kind, "restmem")
      const server = await startPixgate(db, {
        env: { PIXGATE_RATE_LIMIT_RPS: "0" },
        label: `restmem-${kind}`
      })
      try {
        const api = admin(server)
        await fundedMerchants(api, "Payouts one", 1, 1_000_000)
        await fundedMerchants(api, "Payouts spread", 100, 50_000)
        const atOnce = memoryOf(server.pid).rssMiB
        await sleep(2_000)
        const later = memoryOf(server.pid).rssMiB
        process.stdout.write(
          `round ${round} ${kind.padEnd(8)} RSS at rest ${atOnce.toFixed(1)} MiB (2 s later ${later.toFixed(1)}): ${breakdown(server.pid)}\n`
        )
      } finally {
        await server.stop(5_000)
        await db.dispose()
      }
    }
  }
  removeRunDirectory()
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
  process.exit(1)
})
