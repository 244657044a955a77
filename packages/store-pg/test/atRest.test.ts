/**
 * Personal data and secrets at rest, on SQLite and Postgres: every table read with plain SQL
 * holds no CPF, name, PIX key, webhook secret, signing key or TOTP secret; a database whose
 * master key was rotated still reads what the old key sealed, and after `reencrypt` only the new
 * key opens it; erasing a payer leaves the ledger check passing and the transaction list showing
 * the marker.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { SqlClient } from "@effect/sql"
import {
  DataCipher,
  Domain,
  Engine,
  Ids,
  Money,
  PersonalData,
  Requests,
  Store,
  WebhookTransport
} from "@pixgate/core"
import { NodeDataCipher } from "@pixgate/core/node"
import { PgStore } from "@pixgate/store-pg"
import { DataKeys } from "@pixgate/store-sql"
import { SqliteStore } from "@pixgate/store-sqlite"
import { describePostgres, useFreshDatabase } from "@pixgate/testkit/postgres"
import { Effect, Either, Layer, Option } from "effect"
import { afterAll, describe, expect, it } from "vitest"

const cipher = NodeDataCipher.cipher
const keyA = DataKeys.generateMasterKey(cipher)
const keyB = DataKeys.generateMasterKey(cipher)
const keys = (active: string, retired: ReadonlyArray<string> = []) =>
  Either.getOrThrow(DataKeys.fromText(cipher, active, retired))

const payer = { name: "Maria Secreta Sigilosa", document: "52998224725" }
const recipient = { name: "Joao Recebedor Reservado", document: "39053344705" }
const webhookSecret = "plain-webhook-secret-4815"
const totpSecret = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"

type StoreLayer = (
  k: DataKeys.Keys
) => Layer.Layer<Store.Store | SqlClient.SqlClient | DataCipher.Keyring, unknown>

const engineOver = (store: Layer.Layer<Store.Store | SqlClient.SqlClient | DataCipher.Keyring, unknown>) =>
  Engine.layer({ worker: false }).pipe(Layer.provideMerge(Layer.merge(store, WebhookTransport.fetch)))

const run = <A, E>(
  layer: Layer.Layer<Store.Store | SqlClient.SqlClient | DataCipher.Keyring, unknown>,
  work: Effect.Effect<A, E, Engine.Engine | Store.Store | SqlClient.SqlClient | DataCipher.Keyring>
) =>
  Effect.runPromise(
    Effect.scoped(Effect.flatMap(Layer.build(engineOver(layer)), (ctx) => Effect.provide(work, ctx)))
  )

/** Every row of every table, as text. */
const dump = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const tables = yield* sql.onDialectOrElse({
    pg: () => sql<{ name: string }>`SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public'`,
    orElse: () => sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'table'`
  })
  const out: Array<string> = []
  for (const { name } of tables) out.push(JSON.stringify(yield* sql`SELECT * FROM ${sql(name)}`))
  return out.join("\n")
})

/** A merchant with a webhook, a charge, a payout, an idempotent answer and a panel user's TOTP. */
const populate = Effect.gen(function* () {
  const engine = yield* Engine.Engine
  const store = yield* Store.Store
  const { merchantId, testKey } = yield* engine.admin.createMerchant({ name: "Loja", city: "RECIFE" })
  const endpoint = yield* engine.admin.setWebhook({
    merchantId,
    mode: "test",
    url: "http://127.0.0.1:9/hook",
    secret: webhookSecret
  })
  const caller = yield* engine.auth.authenticate(testKey)
  const charge = yield* engine.charges.create(
    caller,
    yield* Requests.decode(
      Requests.CreateCharge,
      engine.config
    )({
      amount: 150.5,
      clientName: payer.name,
      clientDoc: "529.982.247-25"
    })
  )
  yield* engine.admin.sandboxPayCharge(charge.transactionId)
  yield* engine.admin.topUp(merchantId, { amount: Money.reais(500) })
  yield* engine.payouts.create(
    caller,
    yield* Requests.decode(
      Requests.CreatePayout,
      engine.config
    )({
      amount: 20,
      pixKey: recipient.document,
      clientName: recipient.name,
      clientDoc: recipient.document
    })
  )
  const scope = { merchantId: caller.merchant.id, mode: "test" as const, key: "order-1" }
  yield* store.beginIdempotent(scope, "fp", 0, Number.MAX_SAFE_INTEGER, 1)
  yield* store.finishIdempotent(
    scope,
    "answered",
    JSON.stringify({ clientName: payer.name, clientDocument: payer.document })
  )
  const user = {
    id: Ids.newId("usr", 0),
    merchantId: caller.merchant.id,
    email: "dona@loja.example",
    passwordHash: null,
    role: "owner" as const,
    createdAt: 0,
    updatedAt: 0
  }
  yield* store.invitePanelUser(user, { tokenHash: Ids.randomBase62(64), expiresAt: 1, createdAt: 0 })
  yield* store.beginPanelTotp(user.id, totpSecret, 0)
  return { caller, charge, signingKey: endpoint.signingKey ?? "", userId: user.id }
})

const secrets = (signingKey: string) => [
  payer.name,
  payer.document,
  recipient.name,
  recipient.document,
  webhookSecret,
  totpSecret,
  signingKey.replace(/^whsec_/, "")
]

/** Each test in a `describe` of its own, on a database `fresh` makes for it. */
const suite = (name: string, fresh: () => () => StoreLayer) =>
  describe(name, () => {
    const test = (title: string, body: (storeOf: () => StoreLayer) => Promise<void>) =>
      describe(title, () => {
        const storeOf = fresh()
        it(title, () => body(storeOf))
      })

    test("raw SQL finds no personal data or secret; the store reads them back", async (storeOf) => {
      const layer = storeOf()(keys(keyA))
      await run(
        layer,
        Effect.gen(function* () {
          const { caller, charge, signingKey, userId } = yield* populate
          expect(signingKey).toMatch(/^whsec_/)
          const raw = yield* dump
          for (const secret of secrets(signingKey)) expect(raw).not.toContain(secret)
          const engine = yield* Engine.Engine
          const store = yield* Store.Store
          const page = yield* engine.transactions.list(caller, { page: 1, limit: 10 })
          const deposit = page.data.find((t) => t.id === charge.transactionId)
          expect(deposit).toMatchObject({ clientName: payer.name, clientDocument: payer.document })
          expect(page.data.find((t) => t.type === "withdrawal")).toMatchObject({ pixKey: recipient.document })
          const endpoint = Option.getOrThrow(yield* store.getWebhookEndpoint(caller.merchant.id, "test"))
          expect(endpoint).toMatchObject({ secret: webhookSecret, signingKey })
          expect(Option.getOrThrow(yield* store.getPanelTotp(userId)).secret).toBe(totpSecret)
          const found = yield* store.listTransactions({
            merchantId: caller.merchant.id,
            mode: "test",
            document: payer.document,
            offset: 0,
            limit: 10
          })
          expect(found.rows.map((t) => t.id)).toEqual([charge.transactionId])
          expect(found.total).toBe(1)
        })
      )
    })

    test("a rotated master key still reads old rows; after reencrypt only the new one opens them", async (storeOf) => {
      const layers = storeOf()
      const { charge, caller } = await run(layers(keys(keyA)), populate)
      const read = Effect.gen(function* () {
        const store = yield* Store.Store
        return Option.getOrThrow(
          yield* Domain.findById(Domain.TransactionId, charge.transactionId, store.getTransaction)
        ).clientName
      })
      expect(await run(layers(keys(keyB, [keyA])), read)).toBe(payer.name)
      // Before reencrypt the data key is still wrapped by A too.
      expect(await run(layers(keys(keyA)), read)).toBe(payer.name)
      const report = await run(
        layers(keys(keyB, [keyA])),
        Effect.flatMap(DataCipher.Keyring, (k) => k.reencrypt())
      )
      expect(report.wrappings.every((w) => w.masterKeyIds.length === 1)).toBe(true)
      expect(await run(layers(keys(keyB)), read)).toBe(payer.name)
      await expect(run(layers(keys(keyA)), read)).rejects.toThrow(/No configured data key opens/)
      const listed = await run(
        layers(keys(keyB)),
        Effect.flatMap(Engine.Engine, (e) => e.transactions.list(caller, { page: 1, limit: 10 }))
      )
      expect(listed.data.find((t) => t.type === "withdrawal")).toMatchObject({ clientName: recipient.name })
    })

    test("erasing a payer leaves the ledger exact and the list showing the marker", async (storeOf) => {
      await run(
        storeOf()(keys(keyA)),
        Effect.gen(function* () {
          const { caller, charge, signingKey } = yield* populate
          const engine = yield* Engine.Engine
          const store = yield* Store.Store
          const before = yield* engine.transactions.list(caller, { page: 1, limit: 10 })
          expect(yield* engine.erasure.erasePayer("529.982.247-25")).toEqual({
            transactions: 1,
            subscriptions: 0
          })
          expect(yield* engine.erasure.erasePayer(recipient.document)).toEqual({
            transactions: 1,
            subscriptions: 0
          })
          expect(yield* engine.erasure.erasePayer(payer.document)).toEqual({
            transactions: 0,
            subscriptions: 0
          })
          const after = yield* engine.transactions.list(caller, { page: 1, limit: 10 })
          expect(after.data.find((t) => t.id === charge.transactionId)).toMatchObject({
            clientName: PersonalData.erased,
            clientDocument: PersonalData.erased
          })
          expect(after.data.find((t) => t.type === "withdrawal")).toMatchObject({
            clientName: PersonalData.erased,
            clientDocument: PersonalData.erased,
            pixKey: PersonalData.erased
          })
          // Amounts, ids, statuses and fees exactly as before.
          const strip = (t: (typeof after.data)[number]) => ({
            ...t,
            clientName: 0,
            clientDocument: 0,
            pixKey: 0
          })
          expect(after.data.map(strip)).toEqual(before.data.map(strip))
          const check = yield* store.checkLedger("test")
          expect(check).toMatchObject({ unbalancedEntries: [], balanceMismatches: [], total: 0 })
          for (const event of yield* store.listEvents(caller.merchant.id, "test")) {
            const data: object = event.data
            if ("pixKey" in data) expect(data.pixKey).toBe(PersonalData.erased)
          }
          const raw = yield* dump
          for (const secret of secrets(signingKey).slice(0, 4)) expect(raw).not.toContain(secret)
          const searched = yield* store.listTransactions({
            merchantId: caller.merchant.id,
            mode: "test",
            document: payer.document,
            offset: 0,
            limit: 10
          })
          expect(searched.rows).toEqual([])
        })
      )
    })
  })

const dir = mkdtempSync(join(tmpdir(), "pixgate-at-rest-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

suite("SQLite", () => {
  const filename = join(dir, `${Math.random().toString(36).slice(2)}.db`)
  return () => (k) => SqliteStore.layer({ filename, keys: k, checkpointIntervalMs: 0 })
})

describePostgres("Postgres", () => {
  suite("PgStore", () => {
    // Empty: migration 0017 makes the data keys under the test's own master key.
    const database = useFreshDatabase({ empty: true })
    return () => (k) => PgStore.layer({ url: database.url(), keys: k, maxConnections: 2 })
  })
})

describePostgres("Postgres without a configured key", () => {
  const database = useFreshDatabase({ empty: true })
  const noKey = () => PgStore.layer({ url: database.url(), maxConnections: 2 })
  const withKey = (k: DataKeys.Keys) => PgStore.layer({ url: database.url(), keys: k, maxConnections: 2 })

  it("seals with a key the database keeps, until the first start with a key moves the data keys under it", async () => {
    const signing = await run(
      noKey(),
      Effect.gen(function* () {
        const { signingKey } = yield* populate
        const raw = yield* dump
        for (const secret of secrets(signingKey)) expect(raw).not.toContain(secret)
        const sql = yield* SqlClient.SqlClient
        expect(yield* sql`SELECT count(*)::int AS n FROM pixgate_kept_master_key`).toEqual([{ n: 1 }])
        return signingKey
      })
    )
    // A second start without a key opens the same database with the kept key.
    await run(
      noKey(),
      Effect.gen(function* () {
        const raw = yield* dump
        for (const secret of secrets(signing)) expect(raw).not.toContain(secret)
      })
    )
    // The first start with a key reads what the kept key sealed, and deletes the kept key.
    await run(
      withKey(keys(keyA)),
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        expect(yield* sql`SELECT count(*)::int AS n FROM pixgate_kept_master_key`).toEqual([{ n: 0 }])
        const status = yield* Effect.flatMap(DataCipher.Keyring, (k) => k.status)
        expect(status.wrappings.every((w) => w.masterKeyIds.includes(keys(keyA).active.id))).toBe(true)
        const rows = yield* sql<{ id: string }>`SELECT id FROM transactions`
        expect(rows.length).toBeGreaterThan(0)
        const engine = yield* Engine.Engine
        const [first] = yield* engine.admin.listMerchants()
        expect(first).toBeDefined()
      })
    )
    // From then on the configured key alone opens it: without it, the start fails.
    await expect(run(noKey(), Effect.void)).rejects.toThrow(/No configured data key opens/)
  })
})
