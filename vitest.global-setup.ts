/**
 * Once per `vitest run`: a run id and a temporary directory of the run's own. Every test file
 * inherits `TMPDIR` (so `os.tmpdir()` and anything written there stay inside it) and
 * `PIXGATE_TEST_RUN` (Postgres test databases are named `pixgate_test_<run>_*`). When Postgres
 * answers, one database of the run, `pixgate_test_<run>_template`, is migrated here, once, and
 * its name passed on in `PIXGATE_TEST_PG_TEMPLATE`: the tests' fresh databases are copies of it
 * (`CREATE DATABASE ... TEMPLATE`, about a second less per database than migrating each one;
 * the migrations' own tests still start from an empty database). The teardown removes the
 * directory and drops the run's databases that are still there (the template, and those of a
 * test that timed out or a worker that died before its own `afterAll`).
 */
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { PgStore } from "@pixgate/store-pg"
import { testKeys } from "@pixgate/testkit/dataKeys"
import { Effect, Layer } from "effect"
import pg from "pg"

const pgUrl = process.env.PIXGATE_TEST_PG_URL ?? "postgres://postgres@127.0.0.1:5432"

/** The URL of one database of the test server. */
const databaseUrl = (database: string): string => {
  const url = new URL(pgUrl)
  url.pathname = `/${database}`
  return url.toString()
}

/**
 * Creates and migrates the run's template database; answers its name, or undefined when no
 * Postgres answers (the Postgres tests then skip, or fail in CI, on their own).
 */
const migrateTemplate = async (run: string): Promise<string | undefined> => {
  const client = new pg.Client({ connectionString: databaseUrl("postgres"), connectionTimeoutMillis: 3000 })
  try {
    await client.connect()
  } catch {
    return undefined
  }
  const name = `pixgate_test_${run}_template`
  try {
    await client.query(`CREATE DATABASE ${name}`)
  } finally {
    await client.end()
  }
  // The store migrates on start; its pool is closed when the scope ends, so that no session is
  // left on the template (a copy needs none there).
  await Effect.runPromise(
    Effect.scoped(Layer.build(PgStore.layer({ url: databaseUrl(name), maxConnections: 1, keys: testKeys })))
  )
  return name
}

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
    // The template is dropped here by design; any other was left by a test that did not finish.
    const left = rows.filter(({ datname }) => !datname.endsWith("_template")).length
    if (left > 0) console.warn(`Dropped ${left} test database(s) left by this run`)
  } finally {
    await client.end()
  }
}

export default async function setup() {
  const run = randomBytes(4).toString("hex")
  const dir = mkdtempSync(join(tmpdir(), `pixgate-test-${run}-`))
  process.env.PIXGATE_TEST_RUN = run
  process.env.TMPDIR = dir
  process.env.TMP = dir
  process.env.TEMP = dir
  const template = await migrateTemplate(run)
  if (template !== undefined) process.env.PIXGATE_TEST_PG_TEMPLATE = template
  return async () => {
    await dropRunDatabases(run)
    rmSync(dir, { recursive: true, force: true })
  }
}
