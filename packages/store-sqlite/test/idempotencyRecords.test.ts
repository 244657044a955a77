/**
 * Idempotency records written by earlier versions read the same: a finished record's `status`
 * column holds 201 for an answer and a refusal's number (400 or above) for a refusal; the store
 * reads them as the outcomes `answered` and `refused`.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Store } from "@pixgate/core"
import { makeMerchant } from "@pixgate/store-conformance"
import { SqliteStore } from "@pixgate/store-sqlite"
import { Context, Effect, Layer } from "effect"
import { afterAll } from "vitest"

const dir = mkdtempSync(join(tmpdir(), "pixgate-sqlite-idempotency-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe("idempotency records of earlier versions", () => {
  it.scoped("a status of 201 reads as answered, 400 and above as refused", () =>
    Effect.gen(function* () {
      const context = yield* Layer.build(SqliteStore.layer({ filename: join(dir, "records.db") }))
      const store = Context.get(context, Store.Store)
      const sql = Context.get(context, SqlClient.SqlClient)
      const merchant = makeMerchant()
      yield* store.createMerchant(merchant)
      const cases = [
        [201, "answered"],
        [400, "refused"],
        [422, "refused"],
        [409, "refused"]
      ] as const
      for (const [status, outcome] of cases) {
        const scope = { merchantId: merchant.id, mode: "test" as const, key: `old-${status}` }
        yield* store.beginIdempotent(scope, "fp", 0, Number.MAX_SAFE_INTEGER, 1)
        yield* store.finishIdempotent(scope, outcome, '{"kept":true}')
        // The number an earlier version wrote for this outcome.
        yield* sql`UPDATE idempotency_keys SET status = ${status} WHERE idempotency_key = ${scope.key}`
        expect(yield* store.beginIdempotent(scope, "fp", 2, Number.MAX_SAFE_INTEGER, 3)).toEqual({
          _tag: "Replay",
          outcome,
          body: '{"kept":true}'
        })
      }
    })
  )
})
