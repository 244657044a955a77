/**
 * Once per `vitest run`: a run id and a temporary directory of the run's own. Every test file
 * inherits `TMPDIR` (so `os.tmpdir()` and anything written there stay inside it) and
 * `PIXGATE_TEST_RUN` (Postgres test databases are named `pixgate_test_<run>_*`). The teardown
 * removes the directory and drops the run's databases that are still there: those of a test
 * that timed out or a worker that died before its own `afterAll`.
 */
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import pg from "pg"

const pgUrl = process.env.PIXGATE_TEST_PG_URL ?? "postgres://postgres@127.0.0.1:5432"

/** Drops the databases named `pixgate_test_<run>_*`; quiet when no server answers. */
const dropRunDatabases = async (run: string) => {
  const url = new URL(pgUrl)
  url.pathname = "/postgres"
  const client = new pg.Client({ connectionString: url.toString(), connectionTimeoutMillis: 3000 })
  try {
    await client.connect()
  } catch {
    return
  }
  try {
    const { rows } = await client.query<{ datname: string }>(
      "SELECT datname FROM pg_database WHERE datname LIKE $1",
      [`pixgate\\_test\\_${run}\\_%`]
    )
    for (const { datname } of rows) {
      await client.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
        [datname]
      )
      await client.query(`DROP DATABASE IF EXISTS "${datname}"`)
    }
    if (rows.length > 0) console.warn(`Dropped ${rows.length} test database(s) left by this run`)
  } finally {
    await client.end()
  }
}

export default function setup() {
  const run = randomBytes(4).toString("hex")
  const dir = mkdtempSync(join(tmpdir(), `pixgate-test-${run}-`))
  process.env.PIXGATE_TEST_RUN = run
  process.env.TMPDIR = dir
  process.env.TMP = dir
  process.env.TEMP = dir
  return async () => {
    await dropRunDatabases(run)
    rmSync(dir, { recursive: true, force: true })
  }
}
