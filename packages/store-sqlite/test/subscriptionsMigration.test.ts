/**
 * Migration 0028 on a SQLite file made before it: a subscription stored with its debtor in its
 * clear JSON has the debtor (name, CPF, and the CPF its push request repeats) moved to the
 * sealed column, reads back the same, and is found by the payer's erasure.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { NodeContext } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { SqliteClient, SqliteMigrator } from "@effect/sql-sqlite-node"
import { describe, expect, it } from "@effect/vitest"
import { PersonalData, SubscriptionStore } from "@pixgate/core"
import { subscriptionRecord } from "@pixgate/store-conformance"
import { Migrations } from "@pixgate/store-sql"
import { SqliteStore } from "@pixgate/store-sqlite"
import { testKeys } from "@pixgate/testkit/dataKeys"
import { Context, Effect, Layer, Option } from "effect"
import { afterAll } from "vitest"

const dir = mkdtempSync(join(tmpdir(), "pixgate-sqlite-0028-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const debtor = { cpf: "52998224725", nome: "Carla Devedora Antiga" }

describe("migration 0028", () => {
  it.scoped("moves an earlier subscription's debtor out of its clear JSON into the sealed column", () =>
    Effect.gen(function* () {
      const filename = join(dir, "upgrade-0028.db")
      const old = subscriptionRecord({
        jornada: "JORNADA_1",
        vinculo: { contrato: "OLD-1", devedor: debtor, objeto: null },
        location: null,
        pixCopiaECola: null,
        solicitacao: {
          idSolicRec: "SC1234567820260302abcdefghijk",
          status: "ENVIADA",
          dataExpiracaoSolicitacao: "2026-04-01T00:00:00.000Z",
          destinatario: { ispbParticipante: "60701190", conta: "123456", cpf: debtor.cpf },
          atualizacao: [{ status: "ENVIADA", data: "2026-03-02T00:00:00.000Z" }]
        }
      })
      yield* Effect.scoped(
        Effect.gen(function* () {
          yield* SqliteMigrator.run({
            loader: SqliteMigrator.fromRecord(
              Object.fromEntries(Object.entries(Migrations.sqlite(testKeys)).filter(([id]) => id < "0028"))
            ),
            table: Migrations.table
          })
          const sql = yield* SqlClient.SqlClient
          yield* sql`INSERT INTO subscriptions ${sql.insert({
            id: old.id,
            merchant_id: old.merchantId,
            mode: old.mode,
            id_rec: old.idRec,
            status: old.status,
            next_at: old.nextAt,
            version: old.version,
            created_at: old.createdAt,
            body: JSON.stringify(old)
          })}`
        }).pipe(Effect.provide(SqliteClient.layer({ filename })), Effect.provide(NodeContext.layer))
      )
      const context = yield* Layer.build(SqliteStore.layer({ filename, keys: testKeys }))
      const sql = Context.get(context, SqlClient.SqlClient)
      const store = Context.get(context, SubscriptionStore.SubscriptionStore)
      const [row] = yield* sql<{ body: string; debtor: string; debtor_hash: string | null }>`
        SELECT body, debtor, debtor_hash FROM subscriptions WHERE id = ${old.id}`
      expect(row?.body).not.toContain(debtor.cpf)
      expect(row?.body).not.toContain(debtor.nome)
      expect(row?.debtor).toMatch(/^pxe1\./)
      expect(row?.debtor_hash).toEqual(expect.any(String))
      expect(Option.getOrThrow(yield* store.getSubscription(old.id))).toEqual(old)
      expect(yield* store.eraseDebtor(debtor.cpf)).toBe(1)
      const erased = Option.getOrThrow(yield* store.getSubscription(old.id))
      expect(erased.vinculo.devedor).toEqual({ cpf: PersonalData.erased, nome: PersonalData.erased })
      expect(erased.solicitacao?.destinatario).toEqual({
        ispbParticipante: "60701190",
        conta: "123456",
        cpf: PersonalData.erased
      })
    })
  )
})
