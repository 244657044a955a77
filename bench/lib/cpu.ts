/**
 * CPU time of processes from /proc (Linux): user + system time of a process (all its threads),
 * and of the Postgres backends serving one database. On a machine shared with other work the
 * CPU time a unit of work costs is steadier than its throughput: a busy neighbour slows the
 * rate, not the CPU each payout needs.
 */
import { execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"
import type { BenchDb } from "./db.js"

let ticksPerSecond: number | undefined
/** `getconf CLK_TCK` (100 on Linux), read once. */
const clockTicks = (): number => {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100
    } catch {
      ticksPerSecond = 100
    }
  }
  return ticksPerSecond
}

/** utime + stime of a process in ms (its threads included); NaN when it is gone or unreadable. */
export const cpuMsOf = (pid: number): number => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    // Fields after the command (which may hold spaces): state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks()
  } catch {
    return Number.NaN
  }
}

/** CPU ms per pid at one moment. */
export type CpuSnapshot = ReadonlyMap<number, number>

/** Snapshots the CPU time of `pids`. */
export const snapshot = (pids: ReadonlyArray<number>): CpuSnapshot =>
  new Map(pids.map((pid) => [pid, cpuMsOf(pid)] as const).filter(([, ms]) => Number.isFinite(ms)))

/**
 * CPU ms spent between two snapshots, summed over the processes of `after`; a process that
 * appeared in between counts from 0 (its whole life), one that ended in between is lost.
 */
export const spent = (before: CpuSnapshot, after: CpuSnapshot): number => {
  let total = 0
  for (const [pid, ms] of after) total += ms - (before.get(pid) ?? 0)
  return total
}

/**
 * Pids of the Postgres client backends serving Pixgate's connections to `db` (application name
 * `pixgate`, the store's default; the bench's own connections are left out), read from
 * `pg_stat_activity`. Postgres' shared processes (WAL writer, checkpointer, background writer)
 * serve every database of the cluster and are not counted.
 */
export const pgBackends = async (db: BenchDb): Promise<ReadonlyArray<number>> =>
  (
    await db.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE datname = current_database()
        AND backend_type = 'client backend' AND application_name LIKE 'pixgate%'`
    )
  ).map((r) => Number(r.pid))
