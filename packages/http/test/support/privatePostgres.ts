/**
 * A throw-away PostgreSQL cluster of the test's own (initdb in a temp directory, a free port,
 * its socket in that directory), so a test can stop the database server under a running Pixgate
 * (`pg_ctl stop -m immediate`: backends killed, as when the server dies) and start it again,
 * without touching the shared test server. `available` says whether the tools are here
 * (`PIXGATE_PG_BIN`, else `pg_config --bindir`, else /usr/lib/postgresql/<newest>/bin); as root
 * (which initdb refuses) every tool runs as the `postgres` user through `runuser`. `destroy`
 * stops the cluster and removes the directory; a process exit stops it too.
 */
import { execFileSync, spawnSync } from "node:child_process"
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { must } from "@pixgate/testkit/must"
import { testWaitMs } from "@pixgate/testkit/wait"

/** A running (or stopped) private cluster. */
export interface PrivatePostgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` */
  readonly url: string
  /** Kills the server at once (`-m immediate`), as a crash would; returns when it is down. */
  readonly stop: () => void
  /** Starts it again (crash recovery included); returns when it accepts connections. */
  readonly start: () => void
  /** Stops it if running and removes its directory. */
  readonly destroy: () => void
}

const binDir = (): string | undefined => {
  const given = process.env.PIXGATE_PG_BIN
  if (given !== undefined) return existsSync(join(given, "initdb")) ? given : undefined
  const fromConfig = spawnSync("pg_config", ["--bindir"], { encoding: "utf8" })
  if (fromConfig.status === 0 && existsSync(join(fromConfig.stdout.trim(), "initdb")))
    return fromConfig.stdout.trim()
  const root = "/usr/lib/postgresql"
  if (!existsSync(root)) return undefined
  const versions = readdirSync(root)
    .filter((v) => /^\d+$/.test(v))
    .sort((a, b) => Number(b) - Number(a))
  return versions.map((v) => join(root, v, "bin")).find((dir) => existsSync(join(dir, "initdb")))
}

const isRoot = typeof process.getuid === "function" && process.getuid() === 0

/** The uid and gid of the `postgres` user, when running as root. */
const postgresUser = (): { uid: number; gid: number } | undefined => {
  if (!isRoot) return undefined
  const id = spawnSync("id", ["-u", "postgres"], { encoding: "utf8" })
  const gid = spawnSync("id", ["-g", "postgres"], { encoding: "utf8" })
  if (id.status !== 0 || gid.status !== 0) return undefined
  return { uid: Number(id.stdout.trim()), gid: Number(gid.stdout.trim()) }
}

const bin = binDir()
const owner = postgresUser()

/** Whether a private cluster can be made here. */
export const available: boolean = bin !== undefined && (!isRoot || owner !== undefined)

/** Why not, for the skip message. */
export const unavailableReason: string =
  bin === undefined
    ? "no initdb found (set PIXGATE_PG_BIN)"
    : isRoot && owner === undefined
      ? "running as root without a postgres user"
      : ""

const run = (tool: string, args: ReadonlyArray<string>) => {
  const command = join(must(bin, "bin"), tool)
  const [file, argv] = isRoot ? ["runuser", ["-u", "postgres", "--", command, ...args]] : [command, args]
  execFileSync(file, argv, { stdio: "pipe", timeout: testWaitMs })
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      server.close(() => resolve(port))
    })
  })

/** Makes and starts a private cluster. */
export const create = async (): Promise<PrivatePostgres> => {
  if (!available) throw new Error(`No private Postgres: ${unavailableReason}`)
  const parent = tmpdir()
  // The postgres user must reach its directory: let others through (not read) the parent.
  if (owner !== undefined) chmodSync(parent, statSync(parent).mode | 0o011)
  const directory = mkdtempSync(join(parent, "pixgate-pg-"))
  if (owner !== undefined) chownSync(directory, owner.uid, owner.gid)
  chmodSync(directory, 0o700)
  const data = join(directory, "data")
  const port = await freePort()
  let running = false
  const start = () => {
    run("pg_ctl", [
      "start",
      "-D",
      data,
      "-w",
      "-t",
      "60",
      "-l",
      join(directory, "server.log"),
      "-o",
      `-p ${port} -k ${directory} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=40`
    ])
    running = true
  }
  const stop = () => {
    run("pg_ctl", ["stop", "-D", data, "-m", "immediate", "-w", "-t", "60"])
    running = false
  }
  const onExit = () => {
    if (running) {
      try {
        stop()
      } catch {
        // The process is exiting: nothing more to do.
      }
    }
  }
  process.once("exit", onExit)
  const destroy = () => {
    process.off("exit", onExit)
    try {
      if (running) stop()
    } finally {
      rmSync(directory, { recursive: true, force: true })
    }
  }
  try {
    run("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"])
    start()
  } catch (error) {
    destroy()
    throw error
  }
  return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, stop, start, destroy }
}
