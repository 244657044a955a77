/**
 * Erasure of personal data (`PersonalDataStoreShape`): the transactions are found by the keyed
 * hashes of the document and PIX key (a payer's) or by age (retention), their sealed name,
 * document and PIX key replaced by the marker and their hashes cleared, and their events' data
 * sealed again without the PIX key. Amounts, ids, statuses, postings and balances are not touched.
 */
import { PersonalData, type Store } from "@pixgate/core"
import { Effect } from "effect"
import { toEvent } from "./rows.js"
import { atomic, query, type Sql } from "./sql.js"
import type { Vault } from "./vault.js"

type Ops = "erasePayer" | "erasePersonalDataBefore"

/** Ids per statement: well under both drivers' parameter limits. */
const chunk = 500

/** The erasure operations over one client. */
export const erasure = (sql: Sql, vault: Vault): Pick<Store.StoreShape, Ops> => {
  const marker = PersonalData.erased
  const holds = sql`((client_name IS NOT NULL AND client_name <> ${marker})
    OR (client_document IS NOT NULL AND client_document <> ${marker})
    OR (pix_key IS NOT NULL AND pix_key <> ${marker}))`
  const replaced = (column: string) => sql`CASE WHEN ${sql(column)} IS NULL THEN NULL ELSE ${marker} END`

  // The events of erased transactions, their data sealed again without the PIX key.
  const eraseEvents = (ids: ReadonlyArray<string>) =>
    Effect.gen(function* () {
      const events = yield* query(sql`SELECT * FROM events WHERE transaction_id IN ${sql.in(ids)}`, (r) =>
        toEvent(vault)(r)
      )
      for (const event of events) {
        const data = PersonalData.eraseEventData(event.data)
        if (data === event.data) continue
        yield* sql`UPDATE events SET data = ${vault.seal("events.data", JSON.stringify(data))}
          WHERE id = ${event.id}`
      }
    })

  const eraseIds = (ids: ReadonlyArray<string>) =>
    Effect.gen(function* () {
      let erased = 0
      for (let i = 0; i < ids.length; i += chunk) {
        const part = ids.slice(i, i + chunk)
        const rows = yield* sql`UPDATE transactions SET
            client_name = ${replaced("client_name")},
            client_document = ${replaced("client_document")},
            pix_key = ${replaced("pix_key")},
            client_document_hash = NULL,
            pix_key_hash = NULL
          WHERE id IN ${sql.in(part)} AND ${holds}
          RETURNING id`
        erased += rows.length
        if (rows.length > 0) yield* eraseEvents(rows.map((r) => String(r.id)))
      }
      return erased
    })

  const idsOf = (rows: ReadonlyArray<{ readonly [column: string]: unknown }>): ReadonlyArray<string> =>
    rows.map((r) => String(r.id))

  return {
    erasePayer: (document) =>
      atomic(sql)(
        Effect.gen(function* () {
          const hash = vault.lookup(document)
          const rows = yield* sql`SELECT id FROM transactions
            WHERE client_document_hash = ${hash} OR pix_key_hash = ${hash} ORDER BY id`
          return yield* eraseIds(idsOf(rows))
        })
      ),
    erasePersonalDataBefore: (before, limit) =>
      atomic(sql)(
        Effect.gen(function* () {
          yield* sql`DELETE FROM idempotency_keys WHERE expires_at < ${before}`
          const rows = yield* sql`SELECT id FROM transactions WHERE created_at < ${before} AND ${holds}
            ORDER BY created_at, id LIMIT ${Math.max(0, limit)}`
          return yield* eraseIds(idsOf(rows))
        })
      )
  }
}
