/**
 * Live mode through the PSP simulator, as a ratio to the sandbox: `pnpm bench:live` (the rows
 * of `bench/scenarios/live.ts`: charges and payouts, server CPU per payout, PSP calls per send).
 * Options: `--quick` (2 s rows); `--sends=settle|instant` (default settle: the send's answer
 * says `EM_PROCESSAMENTO` and the PSP's callback settles it; instant: the answer says `REALIZADO`).
 */
import { removeRunDirectory } from "./lib/db.js"
import { installExitHandlers, onAbort } from "./lib/proc.js"
import { table } from "./lib/report.js"
import * as Live from "./scenarios/live.js"

const args = process.argv.slice(2).filter((a) => a !== "--")
const unknown = args.filter((a) => !/^--(quick|sends=(settle|instant))$/.test(a))
if (unknown.length > 0) {
  process.stderr.write(`bench:live: unknown option(s) ${unknown.join(" ")}\n`)
  process.stderr.write("usage: pnpm bench:live [-- --quick] [--sends=settle|instant]\n")
  process.exit(2)
}
const quick = args.includes("--quick")
const sends = (args.find((a) => a.startsWith("--sends="))?.slice("--sends=".length) ?? "settle") as Live.Sends

installExitHandlers()
onAbort(async () => removeRunDirectory())
const started = Date.now()
const results = await Live.run(
  {
    quick,
    connections: 16,
    durationMs: quick ? 2000 : 6000,
    warmupMs: quick ? 500 : 1000,
    listSizes: [],
    spreadMerchants: 1,
    log: (line) =>
      process.stderr.write(`[${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}\n`)
  },
  { sends, charges: true }
)
process.stdout.write(`${table(results)}\n`)
removeRunDirectory()
process.exit(0)
