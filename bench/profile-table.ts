/**
 * Server CPU profiles side by side, per operation: for each `<file.cpuprofile>:<operations>`
 * given, the server's busy time from its first request on, by package (self time), divided by
 * the operations of that run (payouts made, deliveries answered), with the garbage collector,
 * SQLite's statements and the sealing at rest (node:crypto, base64url, the vault) apart. Profiles
 * of another checkout (a worktree of older code) have their workspace packages named the same.
 * docs/performance.md, "Where a payout's CPU went since 2026-11-26".
 *
 *   pnpm exec tsx bench/profile-table.ts before.cpuprofile:16086 after.cpuprofile:13044
 */
import { analyse } from "./lib/profile.js"

const columns = process.argv.slice(2).map((arg) => {
  const at = arg.lastIndexOf(":")
  const operations = Number(arg.slice(at + 1))
  if (at < 0 || !(operations > 0)) throw new Error(`${arg}: expected <file.cpuprofile>:<operations>`)
  const profile = analyse(arg.slice(0, at))
  const perOperation = new Map<string, number>()
  const add = (name: string, ms: number) =>
    perOperation.set(name, (perOperation.get(name) ?? 0) + (ms * 1000) / operations)
  const selfOf = (test: (name: string) => boolean) =>
    profile.self.filter((s) => test(s.name)).reduce((sum, s) => sum + s.ms, 0)
  for (const p of profile.packages) add(p.name.replace(/^(?:\.\.\/)+.*?(packages\/[^/]+).*$/, "$1"), p.ms)
  add("= busy time", profile.busyMs)
  add(
    "  of which the garbage collector",
    selfOf((n) => n === "(garbage collector)")
  )
  add(
    "  of which SQLite's statements",
    selfOf((n) => n.includes("SqliteClient.js:"))
  )
  add(
    "  of which sealing",
    selfOf((n) =>
      /node:internal\/crypto|^createUnsafeBuffer|vault\.ts|NodeDataCipher|base64Url|Encoding\.js|base64urlSlice/.test(
        n
      )
    )
  )
  return perOperation
})

const last = columns[columns.length - 1]
const names = [...new Set(columns.flatMap((c) => [...c.keys()]))].sort(
  (a, b) => (last.get(b) ?? 0) - (last.get(a) ?? 0)
)
console.log("µs per operation, one column per profile given")
for (const name of names)
  if (columns.some((c) => (c.get(name) ?? 0) >= 5))
    console.log(`${columns.map((c) => (c.get(name) ?? 0).toFixed(0).padStart(7)).join("")}  ${name}`)
