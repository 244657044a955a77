/**
 * Subscriptions on memory, SQLite and Postgres: a create under an Idempotency-Key stores its
 * answer with the subscription in one unit, so a concurrent pair under one key (even one that
 * took the other's key over after its lock lapsed) creates one subscription and every answer is
 * the same; the same key with another body is refused. The debtor's name and CPF/CNPJ are
 * sealed at rest (no raw row holds them) and erased with the payer's erasure, events included.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { SqlClient } from "@effect/sql"
import {
  type DataCipher,
  DueDate,
  Engine,
  MemoryStore,
  PersonalData,
  Store,
  type Subscriptions,
  WebhookTransport
} from "@pixgate/core"
import { PgStore } from "@pixgate/store-pg"
import { SqliteStore } from "@pixgate/store-sqlite"
import { testKeys } from "@pixgate/testkit/dataKeys"
import { describePostgres, useFreshDatabase } from "@pixgate/testkit/postgres"
import { Duration, Effect, Either, Layer } from "effect"
import { afterAll, describe, expect, it } from "vitest"

const StoreTag = Store.Store
type Stores = Store.Store | DataCipher.Keyring | SqlClient.SqlClient

const debtor = { cpf: "52998224725", nome: "Beatriz Devedora Sigilosa" }

const day = DueDate.formatDay(DueDate.nextBusinessDay(DueDate.dayOf(Date.now()) + 6))

/** Another payer, for the idempotency tests (erasure reaches every merchant of a database). */
const otherDebtor = { cpf: "39053344705", nome: "Outro Pagador" }

const request = (
  contrato: string,
  jornada: "JORNADA_1" | "JORNADA_2" = "JORNADA_2",
  devedor: { readonly cpf: string; readonly nome: string } = debtor
) =>
  ({
    jornada,
    vinculo: { contrato, devedor, objeto: "Plano mensal" },
    calendario: { dataInicial: day, periodicidade: "MENSAL" },
    valor: { valorRec: 9990 },
    politicaRetentativa: "PERMITE_3R_7D",
    ...(jornada === "JORNADA_1"
      ? { pagador: { ispbParticipante: "60701190", conta: "123456", agencia: "0001" } }
      : {})
  }) satisfies Subscriptions.CreateSubscription

/** The engine over `store`; a lock of 0 lets a repeat take over a key whose request still runs. */
const engineOver = (store: Layer.Layer<Store.Store, unknown>, lock: Duration.Duration) =>
  Engine.layer({ worker: false, config: { idempotencyLock: lock } }).pipe(
    Layer.provideMerge(Layer.merge(store, WebhookTransport.fetch))
  )

const run = <A, E, R>(
  store: Layer.Layer<Store.Store | R, unknown>,
  work: Effect.Effect<A, E, Engine.Engine | Store.Store | R>,
  lock: Duration.Duration = Duration.seconds(10)
) =>
  Effect.runPromise(
    Effect.scoped(
      Effect.flatMap(Layer.build(engineOver(store, lock)), (ctx) =>
        Effect.provide(work, ctx as never)
      ) as Effect.Effect<A, E>
    )
  )

/** A merchant and its test caller. */
const merchant = Effect.gen(function* () {
  const engine = yield* Engine.Engine
  const { testKey } = yield* engine.admin.createMerchant({ name: "Academia Forte", city: "RECIFE" })
  return { engine, caller: yield* engine.auth.authenticate(testKey) }
})

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

const idempotencySuite = (name: string, storeOf: () => Layer.Layer<Store.Store, unknown>) =>
  describe(`${name}: a create under an Idempotency-Key`, () => {
    const createUnder = (key: string, contrato: string) =>
      Effect.gen(function* () {
        const engine = yield* Engine.Engine
        const { caller } = yield* merchant
        const input = request(contrato, "JORNADA_2", otherDebtor)
        const once = (body: Subscriptions.CreateSubscription) =>
          Effect.either(
            engine.idempotency.run(
              caller,
              key,
              "subscriptions.create",
              body,
              engine.subscriptions.create(caller, body)
            )
          )
        return { engine, caller, input, once }
      })

    it("a concurrent pair under one key creates one subscription; every answer is the same", async () => {
      await run(
        storeOf(),
        Effect.gen(function* () {
          const { engine, caller, input, once } = yield* createUnder("gym-pair", "PAIR-1")
          const pair = yield* Effect.all([once(input), once(input)], { concurrency: 2 })
          const answers = pair.flatMap((e) => (Either.isRight(e) ? [e.right.value] : []))
          expect(answers.length).toBeGreaterThanOrEqual(1)
          // The other, if refused, was told the key is in flight (its retry replays the answer).
          for (const e of pair) if (Either.isLeft(e)) expect(e.left._tag).toBe("Conflict")
          const listed = yield* engine.subscriptions.list(caller, { limit: 10 })
          expect(listed.map((s) => s.id)).toEqual([answers[0]?.id])
          for (const a of answers) expect(a).toEqual(answers[0])
          const repeat = yield* once(input)
          expect(Either.isRight(repeat) && repeat.right.replayed).toBe(true)
          expect(Either.getOrThrow(repeat).value).toEqual(answers[0])
        })
      )
    }, 60_000)

    it("a repeat that takes over a running request's key never creates a second one", async () => {
      await run(
        storeOf(),
        Effect.gen(function* () {
          const { engine, caller, input, once } = yield* createUnder("gym-takeover", "TAKEOVER-1")
          // With no lock each request takes the key over: both run the create.
          const pair = yield* Effect.all([once(input), once(input), once(input)], { concurrency: 3 })
          const answers = pair.flatMap((e) => (Either.isRight(e) ? [e.right.value] : []))
          for (const e of pair) if (Either.isLeft(e)) expect(e.left._tag).toBe("Conflict")
          const listed = yield* engine.subscriptions.list(caller, { limit: 10 })
          expect(listed).toHaveLength(1)
          for (const a of answers) expect(a.id).toBe(listed[0]?.id)
          const repeat = Either.getOrThrow(yield* once(input))
          expect(repeat.replayed).toBe(true)
          expect(repeat.value.id).toBe(listed[0]?.id)
        }),
        Duration.zero
      )
    }, 60_000)

    it("the same key with another body is refused, and nothing more is created", async () => {
      await run(
        storeOf(),
        Effect.gen(function* () {
          const { engine, caller, input, once } = yield* createUnder("gym-mismatch", "MISMATCH-1")
          const first = Either.getOrThrow(yield* once(input))
          const other = yield* once(request("MISMATCH-2", "JORNADA_2", otherDebtor))
          expect(Either.isLeft(other) && other.left._tag).toBe("IdempotencyMismatch")
          const listed = yield* engine.subscriptions.list(caller, { limit: 10 })
          expect(listed.map((s) => s.id)).toEqual([first.value.id])
        })
      )
    }, 60_000)
  })

const debtorSuite = (
  name: string,
  storeOf: () => Layer.Layer<Stores, unknown>,
  raw: Effect.Effect<string, unknown, SqlClient.SqlClient> = dump
) =>
  describe(`${name}: the debtor at rest`, () => {
    it("no raw row holds the debtor; the engine reads it back; erasure replaces it, events included", async () => {
      await run(
        storeOf(),
        Effect.gen(function* () {
          const { engine, caller } = yield* merchant
          const j1 = yield* engine.subscriptions.create(caller, request("SEALED-1", "JORNADA_1"))
          const j2 = yield* engine.subscriptions.create(caller, request("SEALED-2"))
          expect(j1.vinculo.devedor).toEqual(debtor)
          expect(j1.solicitacao?.destinatario).toMatchObject({ cpf: debtor.cpf })
          const rows = yield* raw
          expect(rows).not.toContain(debtor.nome)
          expect(rows).not.toContain(debtor.cpf)
          expect((yield* engine.subscriptions.get(caller, j2.id)).vinculo.devedor).toEqual(debtor)
          // A change keeps the debtor sealed and readable.
          yield* engine.subscriptions.cancel(caller, j2.id)
          expect((yield* engine.subscriptions.get(caller, j2.id)).vinculo.devedor).toEqual(debtor)
          expect(yield* raw).not.toContain(debtor.nome)

          expect(yield* engine.erasure.erasePayer("529.982.247-25")).toEqual({
            transactions: 0,
            subscriptions: 2
          })
          const erased = { nome: PersonalData.erased, cpf: PersonalData.erased }
          const after1 = yield* engine.subscriptions.get(caller, j1.id)
          expect(after1.vinculo.devedor).toEqual(erased)
          expect(after1.solicitacao?.destinatario).toMatchObject({
            cpf: PersonalData.erased,
            conta: "123456"
          })
          expect(after1.vinculo.contrato).toBe("SEALED-1")
          expect((yield* engine.subscriptions.get(caller, j2.id)).vinculo.devedor).toEqual(erased)
          // Nothing of the debtor in the events either.
          const store = yield* StoreTag
          const feed = yield* store.listEvents(caller.merchant.id, "test")
          expect(feed.some((e) => e.type === "subscription.updated")).toBe(true)
          expect(JSON.stringify(feed)).not.toContain(debtor.nome)
          expect(JSON.stringify(feed)).not.toContain(debtor.cpf)
          // Erasing again finds nothing; a later change does not bring the debtor back.
          expect(yield* engine.erasure.erasePayer(debtor.cpf)).toEqual({ transactions: 0, subscriptions: 0 })
          yield* engine.subscriptions.cancel(caller, j1.id)
          expect((yield* engine.subscriptions.get(caller, j1.id)).vinculo.devedor).toEqual(erased)
          const listed = yield* engine.subscriptions.list(caller, { limit: 10 })
          expect(listed.every((s) => s.vinculo.devedor.nome === PersonalData.erased)).toBe(true)
        })
      )
    }, 60_000)
  })

const dir = mkdtempSync(join(tmpdir(), "pixgate-subscriptions-once-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const sqlite = () =>
  SqliteStore.layer({
    filename: join(dir, `${Math.random().toString(36).slice(2)}.db`),
    keys: testKeys,
    checkpointIntervalMs: 0
  })

idempotencySuite("memory", () => MemoryStore.layer)
idempotencySuite("SQLite", sqlite)
debtorSuite("SQLite", sqlite)
// Memory keeps nothing at rest: its debtor's erasure only.
debtorSuite(
  "memory",
  () => Layer.merge(MemoryStore.layer, Layer.succeed(SqlClient.SqlClient, {} as never)) as never,
  Effect.succeed("")
)

describePostgres("Postgres", () => {
  const database = useFreshDatabase()
  const pg = () => PgStore.layer({ url: database.url(), keys: testKeys, maxConnections: 4 })
  idempotencySuite("Postgres", pg)
  debtorSuite("Postgres", pg)
})
