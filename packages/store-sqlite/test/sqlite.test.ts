import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import { NodeContext } from "@effect/platform-node"
import { SqlClient, Statement } from "@effect/sql"
import { SqliteClient, SqliteMigrator } from "@effect/sql-sqlite-node"
import { describe, expect, it } from "@effect/vitest"
import { Store } from "@pixgate/core"
import { chargeInsert, makeCharge, makeMerchant } from "@pixgate/store-conformance"
import { Migrations } from "@pixgate/store-sql"
import { SqliteStore } from "@pixgate/store-sqlite"
import { testKeys } from "@pixgate/testkit/dataKeys"
import { Context, Effect, Layer, Option } from "effect"
import { afterAll } from "vitest"

const dir = mkdtempSync(join(tmpdir(), "pixgate-sqlite-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** The store and client of a freshly built layer, released with the scope. */
const open = (filename: string) =>
  Effect.map(Layer.build(SqliteStore.layer({ filename })), (context) => ({
    store: Context.get(context, Store.Store),
    sql: Context.get(context, SqlClient.SqlClient)
  }))

describe("SqliteStore", () => {
  it.scoped("upgrading a file from 0003: endpoints get a signing key, queued attempts a fairness key", () =>
    Effect.gen(function* () {
      const filename = join(dir, "upgrade.db")
      // The schema as it was before signing keys, with an endpoint and a queued attempt.
      yield* Effect.scoped(
        Effect.gen(function* () {
          yield* SqliteMigrator.run({
            loader: SqliteMigrator.fromRecord(
              Object.fromEntries(Object.entries(Migrations.sqlite(testKeys)).filter(([id]) => id < "0004"))
            ),
            table: Migrations.table
          })
          const sql = yield* SqlClient.SqlClient
          yield* sql`INSERT INTO merchants VALUES ('mer_old', 'Old', 'RECIFE', '{}', 0)`
          yield* sql`INSERT INTO webhook_endpoints VALUES ('mer_old', 'test', 'https://old.example/h', 'old-secret', 0)`
          yield* sql`INSERT INTO events VALUES ('evt_old', 'mer_old', 'test', 'transaction.created', '{}', 0)`
          yield* sql`INSERT INTO webhook_deliveries VALUES ('dlv_old', 'evt_old', 'mer_old', 'test', 'https://old.example/h', 'pending', 0, 0, 0)`
          yield* sql`INSERT INTO jobs (id, kind, ref, run_at, lease_until, due_at) VALUES ('job_old', 'webhook.attempt', 'dlv_old', 0, NULL, 0)`
        }).pipe(Effect.provide(SqliteClient.layer({ filename })), Effect.provide(NodeContext.layer))
      )
      const { store, sql } = yield* open(filename)
      const endpoint = Option.getOrThrow(yield* store.getWebhookEndpoint("mer_old" as never, "test"))
      expect(endpoint.signingKey).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
      expect(endpoint).toMatchObject({ secret: "old-secret", previousSigningKey: null })
      expect(Option.getOrThrow(yield* store.getDelivery("dlv_old" as never)).endpoint?.signingKey).toBe(
        endpoint.signingKey
      )
      expect(yield* sql`SELECT fairness_key FROM jobs WHERE id = 'job_old'`).toEqual([
        { fairness_key: "mer_old:test" }
      ])
      const claimed = yield* store.claimDueJobs(1, 10, 100, "webhooks", {
        perEndpoint: 1,
        failingPerEndpoint: 1
      })
      expect(claimed.map((j) => j.id)).toEqual(["job_old"])
    })
  )

  it.scoped(
    "upgrading a file from 0010: events and their deliveries kept, refund events accepted (0012)",
    () =>
      Effect.gen(function* () {
        const filename = join(dir, "upgrade-0012.db")
        yield* Effect.scoped(
          Effect.gen(function* () {
            yield* SqliteMigrator.run({
              loader: SqliteMigrator.fromRecord(
                Object.fromEntries(Object.entries(Migrations.sqlite(testKeys)).filter(([id]) => id < "0012"))
              ),
              table: Migrations.table
            })
            const sql = yield* SqlClient.SqlClient
            yield* sql`PRAGMA foreign_keys = ON`
            // The events table as files made before refunds have it: 0001's CHECK of that time.
            yield* sql`DROP TABLE events`
            yield* sql.unsafe(`CREATE TABLE events (
    id TEXT PRIMARY KEY,
    merchant_id TEXT NOT NULL,
    mode TEXT NOT NULL CHECK (mode IN ('test', 'live')),
    type TEXT NOT NULL CHECK (type IN ('transaction.created', 'transaction.completed', 'transaction.failed', 'withdrawal.created', 'withdrawal.completed', 'chargeback.created', 'chargeback.updated')),
    data TEXT NOT NULL,
    created_at BIGINT NOT NULL
  )`)
            yield* sql`CREATE INDEX events_merchant ON events (merchant_id, mode, created_at, id)`
            yield* sql`INSERT INTO merchants VALUES ('mer_old', 'Old', 'RECIFE', '{}', 0)`
            yield* sql`INSERT INTO events VALUES ('evt_old', 'mer_old', 'test', 'transaction.created', '{}', 0)`
            yield* sql`INSERT INTO webhook_deliveries VALUES ('dlv_old', 'evt_old', 'mer_old', 'test', 'https://old.example/h', 'pending', 0, 0, 0)`
            // Before 0012 the events' CHECK knows no refund event.
            const refused = yield* Effect.either(
              sql`INSERT INTO events VALUES ('evt_new', 'mer_old', 'test', 'refund.created', '{}', 1)`
            )
            expect(refused._tag).toBe("Left")
          }).pipe(Effect.provide(SqliteClient.layer({ filename })), Effect.provide(NodeContext.layer))
        )
        const { store, sql } = yield* open(filename)
        expect(Option.map(yield* store.getEvent("evt_old" as never), (e) => e.type)).toEqual(
          Option.some("transaction.created")
        )
        expect(Option.map(yield* store.getDelivery("dlv_old" as never), (d) => d.event.id)).toEqual(
          Option.some("evt_old")
        )
        yield* sql`INSERT INTO events (id, merchant_id, mode, type, data, created_at)
        VALUES ('evt_new', 'mer_old', 'test', 'refund.created', '{}', 1)`
        const bad = yield* Effect.either(
          sql`INSERT INTO events (id, merchant_id, mode, type, data, created_at)
          VALUES ('evt_bad', 'mer_old', 'test', 'refund.nope', '{}', 1)`
        )
        expect(bad._tag).toBe("Left")
        // The deliveries' foreign key still points at events.
        const orphan = yield* Effect.either(
          sql`INSERT INTO webhook_deliveries VALUES ('dlv_x', 'evt_missing', 'mer_old', 'test', 'u', 'pending', 0, 0, 0)`
        )
        expect(orphan._tag).toBe("Left")
        expect(yield* sql`PRAGMA foreign_key_check`).toEqual([])
        expect(yield* sql`SELECT COUNT(*) AS n FROM refunds`).toEqual([{ n: 0 }])
      })
  )

  it.scoped("creates the file's directory and sets WAL, NORMAL sync, foreign keys and a busy timeout", () =>
    Effect.gen(function* () {
      const { sql } = yield* open(join(dir, "a", "b", "pixgate.db"))
      const pragma = (name: string) =>
        Effect.map(sql.unsafe(`PRAGMA ${name}`), (rows) => Object.values(rows[0])[0])
      expect(yield* pragma("journal_mode")).toBe("wal")
      expect(yield* pragma("synchronous")).toBe(1)
      expect(yield* pragma("foreign_keys")).toBe(1)
      expect(yield* pragma("busy_timeout")).toBe(5000)
    })
  )

  it.scoped("a worker thread checkpoints the log into the file; the writer only past 8,192 pages", () =>
    Effect.gen(function* () {
      const filename = join(dir, "checkpoints.db")
      const { store, sql } = yield* open(filename)
      const pragma = (name: string) =>
        Effect.map(sql.unsafe(`PRAGMA ${name}`), (rows) => Object.values(rows[0])[0])
      expect(yield* pragma("wal_autocheckpoint")).toBe(8192)
      const before = statSync(filename).size
      const merchant = makeMerchant()
      yield* store.createMerchant(merchant)
      for (let i = 0; i < 50; i++) yield* store.insertTransactions(chargeInsert(makeCharge(merchant.id)))
      // Far fewer pages than the writer's threshold: only the worker copies them into the file.
      yield* Effect.promise(() => sleep(400))
      expect(statSync(filename).size).toBeGreaterThan(before)
      // Everything in the log is in the file: a checkpoint finds nothing left to copy.
      const [result] = yield* sql.unsafe<{ log: number; checkpointed: number }>(
        "PRAGMA wal_checkpoint(PASSIVE)"
      )
      expect(result.checkpointed).toBe(result.log)
    })
  )

  it.scoped("checkpointIntervalMs 0 leaves checkpoints to the writer at SQLite's 1,000 pages", () =>
    Effect.gen(function* () {
      const context = yield* Layer.build(
        SqliteStore.layer({ filename: join(dir, "no-worker.db"), checkpointIntervalMs: 0 })
      )
      const sql = Context.get(context, SqlClient.SqlClient)
      const rows = yield* sql.unsafe("PRAGMA wal_autocheckpoint")
      expect(Object.values(rows[0])[0]).toBe(1000)
    })
  )

  it.effect("reopening a file keeps its data and applies each migration once", () =>
    Effect.gen(function* () {
      const filename = join(dir, "reopen.db")
      const merchant = makeMerchant()
      yield* Effect.scoped(Effect.flatMap(open(filename), ({ store }) => store.createMerchant(merchant)))
      const { store, sql } = yield* open(filename)
      expect(yield* store.getMerchant(merchant.id)).toEqual(Option.some(merchant))
      const applied = yield* sql`SELECT migration_id FROM ${sql(Migrations.table)}`
      expect(applied.length).toBe(Object.keys(Migrations.sqlite(testKeys)).length)
    }).pipe(Effect.scoped)
  )

  it.effect("an unusable path fails to build as a StoreError naming the database", () =>
    Effect.gen(function* () {
      const blocker = join(dir, "not-a-directory")
      writeFileSync(blocker, "")
      const error = yield* Effect.flip(Effect.scoped(open(join(blocker, "pixgate.db"))))
      expect(error._tag).toBe("StoreError")
      expect(error.message).toContain(`Cannot open SQLite database ${join(blocker, "pixgate.db")}`)
    })
  )

  it.scoped("the filtered list queries search an index: the list's, or the counts' for totals", () =>
    Effect.gen(function* () {
      const { store, sql } = yield* open(":memory:")
      const merchant = makeMerchant()
      yield* store.createMerchant(merchant)
      yield* store.insertTransactions(chargeInsert(makeCharge(merchant.id)))
      const queries: Array<readonly [string, ReadonlyArray<unknown>]> = []
      const capture = Statement.withTransformer((statement) =>
        Effect.sync(() => {
          queries.push(statement.compile())
          return statement
        })
      )
      const page = { merchantId: merchant.id, mode: "test", offset: 0, limit: 20 } as const
      for (const filter of [
        {},
        { status: "pending" },
        { type: "deposit" },
        { from: 0, to: Date.now() }
      ] as const) {
        yield* capture(store.listTransactions({ ...page, ...filter }))
      }
      expect(queries.length).toBe(8)
      // Totals of whole-day filters come from the counts, searched by their primary key.
      expect(queries.filter(([text]) => /FROM transaction_counts/.test(text)).length).toBe(3)
      for (const [text, params] of queries) {
        const plan = yield* sql.unsafe<{ detail: string }>(`EXPLAIN QUERY PLAN ${text}`, params)
        const details = plan.map((row) => row.detail).join("; ")
        if (/FROM transaction_counts/.test(text)) {
          expect(details, text).toMatch(/SEARCH transaction_counts USING (COVERING )?INDEX/)
          expect(details, text).not.toMatch(/SCAN transaction_counts/)
        } else {
          expect(details, text).toMatch(/transactions USING (COVERING )?INDEX transactions_list/)
          expect(details, text).not.toMatch(/SCAN transactions(?! USING)/)
        }
      }
    })
  )
})
