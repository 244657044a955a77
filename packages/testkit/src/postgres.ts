/**
 * Postgres for tests: each test file gets its own fresh database
 * (`pixgate_test_<run>_<random>`, a copy of the run's migrated template unless asked empty),
 * created before its first test and dropped after its last;
 * `<run>` is the vitest run's id (vitest.global-setup.ts), whose teardown drops any of its own
 * run's databases a timed-out test left behind. When the server does not answer,
 * the tests are skipped with a loud warning, except in CI (`process.env.CI`), where that fails.
 * Tests import it as `@pixgate/testkit/postgres`.
 */
import { randomBytes } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Redacted } from "effect"
import { afterAll, beforeAll, describe } from "vitest"

/** The test server (`PIXGATE_TEST_PG_URL` overrides the default). */
export const serverUrl = process.env.PIXGATE_TEST_PG_URL ?? "postgres://postgres@127.0.0.1:5432"

/** The URL of one database on the test server. */
export const databaseUrl = (database: string): string => {
  const url = new URL(serverUrl)
  url.pathname = `/${database}`
  return url.toString()
}

/** Runs statements on the server's `postgres` database over one short-lived connection. */
export const onServer = <A, E>(work: Effect.Effect<A, E, SqlClient.SqlClient>): Promise<A> =>
  Effect.runPromise(
    Effect.provide(
      work,
      PgClient.layer({
        url: Redacted.make(databaseUrl("postgres")),
        maxConnections: 1,
        connectTimeout: "3 seconds",
        applicationName: "pixgate-tests"
      }).pipe(Layer.orDie)
    )
  )

const probe = async (): Promise<boolean> => {
  try {
    await onServer(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT 1`))
    return true
  } catch (error) {
    if (process.env.CI)
      throw new Error(`Postgres is required in CI but ${serverUrl} did not answer`, { cause: error })
    const line = "!".repeat(78)
    console.warn(
      `\n${line}\n!! Postgres at ${serverUrl} did not answer: the Postgres tests are SKIPPED.\n` +
        `!! Start a server there (or set PIXGATE_TEST_PG_URL) to run them; in CI this fails.\n${line}\n`
    )
    return false
  }
}

/** Whether the test server answered (probed once, when this module loads). */
export const postgresAvailable: boolean = await probe()

/** `describe` when Postgres answered, `describe.skip` otherwise. */
export const describePostgres = postgresAvailable ? describe : describe.skip

/** This test run's id (set by vitest.global-setup.ts; "adhoc" outside a vitest run). */
const runId = /^[a-z0-9]{1,16}$/.test(process.env.PIXGATE_TEST_RUN ?? "")
  ? process.env.PIXGATE_TEST_RUN
  : "adhoc"

/**
 * The run's migrated template database (vitest.global-setup.ts), when there is one: fresh
 * databases are copies of it, which costs less than migrating each one.
 */
const template = /^pixgate_test_[a-z0-9]{1,16}_template$/.test(process.env.PIXGATE_TEST_PG_TEMPLATE ?? "")
  ? process.env.PIXGATE_TEST_PG_TEMPLATE
  : undefined

/** What a fresh database starts as. */
export interface DatabaseOptions {
  /**
   * No tables at all, for the tests of migrating itself. Otherwise a copy of the run's migrated
   * template when there is one (what the store's own start-up migration would have made), else
   * empty too.
   */
  readonly empty?: boolean
}

/** A new database on the test server: migrated, unless `empty` (see DatabaseOptions). */
export const createDatabase = async (options: DatabaseOptions = {}): Promise<string> => {
  const name = `pixgate_test_${runId}_${randomBytes(6).toString("hex")}`
  const from = options.empty === true || template === undefined ? "" : ` TEMPLATE ${template}`
  await onServer(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(`CREATE DATABASE ${name}${from}`)))
  return name
}

/** Drops a database, ending its connections first. */
export const dropDatabase = (name: string): Promise<void> =>
  onServer(
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      yield* sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE datname = ${name} AND pid <> pg_backend_pid()`
      yield* sql.unsafe(`DROP DATABASE IF EXISTS ${name}`)
    })
  )

/**
 * A fresh database for the enclosing `describe` (or file): created in `beforeAll`, dropped in
 * `afterAll`. `url()` is its connection string, available once `beforeAll` ran; build layers
 * lazily (`Layer.suspend`) so they read it then.
 */
export const useFreshDatabase = (options: DatabaseOptions = {}): { readonly url: () => string } => {
  let name: string | undefined
  beforeAll(async () => {
    name = await createDatabase(options)
  })
  afterAll(async () => {
    if (name !== undefined) await dropDatabase(name)
  })
  return {
    url: () => {
      if (name === undefined) throw new Error("The fresh test database is created in beforeAll")
      return databaseUrl(name)
    }
  }
}
