/**
 * The benchmark's own access to the databases it creates: a fresh Postgres database per run
 * (`pixgate_bench_<pid>_<random>`, dropped at the end) and SQLite files in a temporary
 * directory (removed at the end), with a plain connection for seeding and for waiting on jobs.
 * The pid in every name lets a later run remove what a killed run left behind.
 */
import { randomBytes } from "node:crypto"
import { mkdirSync, readdirSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import Database from "better-sqlite3"
import pg from "pg"
import { isAlive } from "./proc.js"

/** The store kinds the benchmark runs on. */
export type StoreKind = "sqlite" | "postgres"

/** A database of one run, and a connection to it. */
export interface BenchDb {
  readonly kind: StoreKind
  /** What `PIXGATE_DATABASE` is set to for a server on this database. */
  readonly url: string
  readonly exec: (sql: string) => Promise<void>
  readonly query: <T = Record<string, unknown>>(sql: string, params?: ReadonlyArray<unknown>) => Promise<T[]>
  /** Closes the connection and removes the database. */
  readonly dispose: () => Promise<void>
}

/** The server Postgres databases are created on (`PIXGATE_BENCH_PG` overrides). */
export const pgAdminUrl = process.env.PIXGATE_BENCH_PG ?? "postgres://postgres@127.0.0.1:5432/postgres"

const prefix = "pixgate_bench_"
const dirPrefix = "pixgate-bench-"

const withDatabase = (url: string, database: string): string => {
  const parsed = new URL(url)
  parsed.pathname = `/${database}`
  return parsed.toString()
}

const adminClient = async (): Promise<pg.Client> => {
  const client = new pg.Client({ connectionString: pgAdminUrl, connectionTimeoutMillis: 3_000 })
  await client.connect()
  return client
}

/** Whether Postgres answers; the reason when it does not. */
export const pgReachable = async (): Promise<string | null> => {
  try {
    const client = await adminClient()
    await client.end()
    return null
  } catch (error) {
    return error instanceof Error ? error.message : String(error)
  }
}

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`

/** Drops databases and removes directories of earlier runs whose process is gone. */
export const removeLeftovers = async (pgUp: boolean): Promise<ReadonlyArray<string>> => {
  const removed: Array<string> = []
  const dead = (pid: string) => /^\d+$/.test(pid) && Number(pid) !== process.pid && !isAlive(Number(pid))
  for (const entry of readdirSync(tmpdir())) {
    if (entry.startsWith(dirPrefix) && dead(entry.slice(dirPrefix.length).split("-")[0])) {
      rmSync(join(tmpdir(), entry), { recursive: true, force: true })
      removed.push(join(tmpdir(), entry))
    }
  }
  if (pgUp) {
    const client = await adminClient()
    try {
      const { rows } = await client.query<{ datname: string }>(
        "SELECT datname FROM pg_database WHERE datname LIKE 'pixgate\\_bench\\_%'"
      )
      for (const { datname } of rows) {
        if (dead(datname.slice(prefix.length).split("_")[0])) {
          await client.query(`DROP DATABASE IF EXISTS ${quoteIdent(datname)} WITH (FORCE)`)
          removed.push(datname)
        }
      }
    } finally {
      await client.end()
    }
  }
  return removed
}

/** A fresh, empty Postgres database. */
export const createPg = async (label: string): Promise<BenchDb> => {
  const name = `${prefix}${process.pid}_${label}_${randomBytes(4).toString("hex")}`
  const admin = await adminClient()
  try {
    await admin.query(`CREATE DATABASE ${quoteIdent(name)}`)
  } finally {
    await admin.end()
  }
  const url = withDatabase(pgAdminUrl, name)
  const pool = new pg.Pool({ connectionString: url, max: 4 })
  return {
    kind: "postgres",
    url,
    exec: async (sql) => {
      await pool.query(sql)
    },
    query: async <T>(sql: string, params?: ReadonlyArray<unknown>) =>
      (await pool.query(sql, params as Array<unknown>)).rows as T[],
    dispose: async () => {
      await pool.end().catch(() => undefined)
      const client = await adminClient()
      try {
        await client.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`)
      } finally {
        await client.end()
      }
    }
  }
}

let runDir: string | null = null
/** This run's temporary directory (SQLite files, logs of children). */
export const runDirectory = (): string => {
  if (runDir === null) {
    runDir = join(tmpdir(), `${dirPrefix}${process.pid}-${randomBytes(3).toString("hex")}`)
    mkdirSync(runDir, { recursive: true })
  }
  return runDir
}

/** Removes this run's temporary directory. */
export const removeRunDirectory = (): void => {
  if (runDir !== null) rmSync(runDir, { recursive: true, force: true })
  runDir = null
}

/** A new SQLite file in this run's directory (created by whoever migrates it first). */
export const createSqlite = async (label: string): Promise<BenchDb> => {
  const filename = join(runDirectory(), `${label}.db`)
  let handle: Database.Database | null = null
  const open = () => {
    if (handle === null) {
      handle = new Database(filename)
      handle.pragma("journal_mode = WAL")
      handle.pragma("busy_timeout = 10000")
    }
    return handle
  }
  return {
    kind: "sqlite",
    url: `sqlite:${filename}`,
    exec: async (sql) => {
      open().exec(sql)
    },
    query: async <T>(sql: string, params?: ReadonlyArray<unknown>) => {
      const statement = open().prepare(sql)
      if (statement.reader) return statement.all(...(params ?? [])) as T[]
      statement.run(...(params ?? []))
      return []
    },
    dispose: async () => {
      handle?.close()
      handle = null
      for (const suffix of ["", "-wal", "-shm"]) rmSync(`${filename}${suffix}`, { force: true })
    }
  }
}

/** A fresh database of the kind. */
export const createDb = (kind: StoreKind, label: string): Promise<BenchDb> =>
  kind === "postgres" ? createPg(label) : createSqlite(label)
