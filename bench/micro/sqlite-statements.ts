/**
 * A preload that times every better-sqlite3 statement run in the process and prints, at exit,
 * the 25 statements that took the most time (runs, total milliseconds, the text's start) and how
 * many statements were prepared. For the engine micro benchmark's SQLite store:
 *
 *   node --import tsx --conditions=@pixgate/source --import ./bench/micro/sqlite-statements.ts \
 *     bench/micro/engine.ts --store=sqlite --n=20000 --worker
 *
 * The times are wall time inside `run`/`all`/`get` (SQLite's own work and the rows' conversion
 * to JavaScript), on the one thread that runs them.
 */
import Database from "better-sqlite3"

interface Stat {
  n: number
  ms: number
}

const stats = new Map<string, Stat>()
const texts = new Set<string>()
let prepares = 0

type Method = (...args: Array<unknown>) => unknown
const proto = Database.prototype as unknown as {
  prepare: (this: unknown, source: string) => Record<string, Method>
}
const prepare = proto.prepare
proto.prepare = function (this: unknown, source: string) {
  prepares++
  texts.add(source)
  const statement = prepare.call(this, source)
  const key = source.replace(/\s+/g, " ").slice(0, 70)
  for (const name of ["run", "all", "get"]) {
    const original = statement[name]
    statement[name] = function (this: unknown, ...args: Array<unknown>) {
      const start = performance.now()
      try {
        return original.apply(this, args)
      } finally {
        const stat = stats.get(key) ?? { n: 0, ms: 0 }
        stat.n++
        stat.ms += performance.now() - start
        stats.set(key, stat)
      }
    }
  }
  return statement
}

process.on("exit", () => {
  process.stderr.write(`statements prepared: ${prepares} (${texts.size} texts)\n`)
  const top = [...stats.entries()].sort((a, b) => b[1].ms - a[1].ms).slice(0, 25)
  for (const [text, s] of top)
    process.stderr.write(`${s.ms.toFixed(0).padStart(7)} ms ${String(s.n).padStart(7)}x  ${text}\n`)
})
