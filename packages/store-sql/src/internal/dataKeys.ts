/**
 * The `data_keys` table (migration 0017): the database's data keys, each wrapped by one or more
 * master keys (`DataKeys.ts`). Opening it unwraps every data key, creates the first data and
 * lookup keys of a new database, and wraps every key under the active master key, so that an
 * instance started with a new master key leaves the database readable by it alone.
 */
import type { SqlError } from "@effect/sql"
import { PersonalData, Store } from "@pixgate/core"
import { Effect, Either, Encoding } from "effect"
import type { Keys, Reencrypted, Wrapping } from "../DataKeys.js"
import { type Sql, transaction } from "./sql.js"
import { type Column, keyIdOf, Vault } from "./vault.js"

type Purpose = "data" | "lookup"

interface Row {
  readonly id: string
  readonly purpose: Purpose
  readonly master_key_id: string
  readonly wrapped: string
  readonly created_at: number | string
}

const encoder = new TextEncoder()
const wrapAad = (id: string, purpose: Purpose) => encoder.encode(`pixgate data key ${id} ${purpose}`)

const fail = (message: string) => Effect.fail(new Store.StoreError({ message }))

const wrap = (keys: Keys, id: string, purpose: Purpose, bytes: Uint8Array): string => {
  const iv = keys.cipher.random(12)
  const sealed = keys.cipher.seal(keys.active.bytes, iv, wrapAad(id, purpose), bytes)
  const out = new Uint8Array(iv.length + sealed.length)
  out.set(iv)
  out.set(sealed, iv.length)
  return Encoding.encodeBase64Url(out)
}

const unwrap = (keys: Keys, master: Uint8Array, row: Row): Either.Either<Uint8Array, string> => {
  const bytes = Encoding.decodeBase64Url(row.wrapped)
  if (Either.isLeft(bytes) || bytes.right.length < 12 + 16) return Either.left("is malformed")
  return Either.try({
    try: () =>
      keys.cipher.open(
        master,
        bytes.right.subarray(0, 12),
        wrapAad(row.id, row.purpose),
        bytes.right.subarray(12)
      ),
    catch: () => `does not open with master key ${row.master_key_id}`
  })
}

const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")

interface Loaded {
  readonly purpose: Purpose
  readonly createdAt: number
  bytes?: Uint8Array
  readonly wrappedBy: Set<string>
}

/** Every data key of the table, unwrapped where a configured master key wraps it. */
const load = (keys: Keys, rows: ReadonlyArray<Row>) =>
  Effect.gen(function* () {
    const masters = new Map([keys.active, ...keys.retired].map((k) => [k.id, k.bytes]))
    const loaded = new Map<string, Loaded>()
    for (const row of rows) {
      const entry = loaded.get(row.id) ?? {
        purpose: row.purpose,
        createdAt: Number(row.created_at),
        wrappedBy: new Set<string>()
      }
      loaded.set(row.id, entry)
      entry.wrappedBy.add(row.master_key_id)
      const master = masters.get(row.master_key_id)
      if (entry.bytes !== undefined || master === undefined) continue
      const bytes = unwrap(keys, master, row)
      if (Either.isLeft(bytes)) return yield* fail(`Data key ${row.id} ${bytes.left}`)
      entry.bytes = bytes.right
    }
    const unreadable = [...loaded].filter(([, e]) => e.bytes === undefined)
    if (unreadable.length > 0) {
      const named = unreadable
        .map(([id, e]) => `${id} (wrapped by ${[...e.wrappedBy].join(", ")})`)
        .join("; ")
      return yield* fail(
        `No configured data key opens this database's data keys: ${named}. Configured: ${[...masters.keys()].join(", ")}`
      )
    }
    return loaded
  })

/**
 * Opens the vault: loads and unwraps every data key (failing when one opens with no configured
 * master key), creates the data and lookup keys a new database lacks (`newDataKey`: a new data
 * key, which becomes the active one), and wraps every key under the active master key. Runs in
 * one transaction; on Postgres it locks the table, so instances starting together agree.
 */
export const openVault = (
  sql: Sql,
  keys: Keys,
  options: { readonly newDataKey?: boolean } = {}
): Effect.Effect<Vault, SqlError.SqlError | Store.StoreError> =>
  transaction(sql)(
    Effect.gen(function* () {
      if (sql.onDialectOrElse({ pg: () => true, orElse: () => false }))
        yield* sql.unsafe("LOCK TABLE data_keys IN SHARE ROW EXCLUSIVE MODE")
      const rows = yield* sql<Row>`SELECT id, purpose, master_key_id, wrapped, created_at FROM data_keys`
      const loaded = yield* load(keys, rows)
      const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
      const add = (purpose: Purpose) => {
        const id = `dk_${hex(keys.cipher.random(8))}`
        loaded.set(id, { purpose, createdAt: now, bytes: keys.cipher.random(32), wrappedBy: new Set() })
      }
      const has = (purpose: Purpose) => [...loaded.values()].some((e) => e.purpose === purpose)
      if (!has("lookup")) add("lookup")
      if (!has("data") || options.newDataKey === true) add("data")
      for (const [id, e] of loaded) {
        if (e.wrappedBy.has(keys.active.id) || e.bytes === undefined) continue
        yield* sql`INSERT INTO data_keys ${sql.insert({
          id,
          purpose: e.purpose,
          master_key_id: keys.active.id,
          wrapped: wrap(keys, id, e.purpose, e.bytes),
          created_at: e.createdAt
        })}`
        e.wrappedBy.add(keys.active.id)
      }
      return vaultOf(keys, loaded)
    })
  )

/** The vault over loaded keys: the newest data key seals, the oldest lookup key hashes. */
const vaultOf = (keys: Keys, loaded: ReadonlyMap<string, Loaded>): Vault => {
  const ordered = [...loaded].sort(([a, x], [b, y]) => x.createdAt - y.createdAt || (a < b ? -1 : 1))
  const bytes = new Map(ordered.flatMap(([id, e]) => (e.bytes === undefined ? [] : [[id, e.bytes] as const])))
  const data = ordered.filter(([, e]) => e.purpose === "data")
  const lookup = ordered.find(([, e]) => e.purpose === "lookup")
  const active = data[data.length - 1]
  if (active === undefined || lookup?.[1].bytes === undefined) throw new Error("The vault has no keys")
  return new Vault(keys.cipher, bytes, active[0], lookup[1].bytes)
}

/** Every data key and the master keys wrapping it. */
export const wrappings = (sql: Sql): Effect.Effect<ReadonlyArray<Wrapping>, SqlError.SqlError> =>
  Effect.map(
    sql<Row>`SELECT id, purpose, master_key_id, wrapped, created_at FROM data_keys ORDER BY created_at, id, master_key_id`,
    (rows): ReadonlyArray<Wrapping> => {
      const byId = new Map<string, { purpose: Purpose; masters: Array<string> }>()
      for (const r of rows) {
        const entry = byId.get(r.id) ?? { purpose: r.purpose, masters: [] }
        entry.masters.push(r.master_key_id)
        byId.set(r.id, entry)
      }
      return [...byId].map(([dataKeyId, e]) => ({ dataKeyId, purpose: e.purpose, masterKeyIds: e.masters }))
    }
  )

/** A table's sealed columns (each with the column whose name seals it) and its key, for a walk over every row. */
interface Sealed {
  readonly table: string
  readonly key: ReadonlyArray<string>
  readonly columns: ReadonlyArray<readonly [name: string, sealedAs: Column]>
}

const tables: ReadonlyArray<Sealed> = [
  {
    table: "transactions",
    key: ["id"],
    columns: [
      ["client_name", "transactions.client_name"],
      ["client_document", "transactions.client_document"],
      ["pix_key", "transactions.pix_key"]
    ]
  },
  { table: "events", key: ["id"], columns: [["data", "events.data"]] },
  {
    table: "idempotency_keys",
    key: ["merchant_id", "mode", "idempotency_key"],
    columns: [["body", "idempotency_keys.body"]]
  },
  {
    table: "webhook_endpoints",
    key: ["merchant_id", "mode"],
    columns: [
      ["secret", "webhook_endpoints.secret"],
      ["signing_key", "webhook_endpoints.signing_key"],
      ["previous_signing_key", "webhook_endpoints.signing_key"]
    ]
  },
  { table: "panel_totp", key: ["user_id"], columns: [["secret", "panel_totp.secret"]] },
  // From migration 0028 on (`sealAll`'s `tablesBefore` leaves it out of earlier migrations).
  { table: "subscriptions", key: ["id"], columns: [["debtor", "subscriptions.debtor"]] }
]

/** The sealed tables that exist before migration 0028 (what migration 0017 seals). */
export const tablesBefore0028: ReadonlyArray<string> = tables
  .map((t) => t.table)
  .filter((t) => t !== "subscriptions")

const page = 500

/** Values of one row sealed again where they are not under the active key; undefined when none changes. */
const resealRow = (vault: Vault, t: Sealed, row: Record<string, unknown>) => {
  const set: Record<string, string | null> = {}
  let changed = false
  for (const [name, column] of t.columns) {
    const value = row[name]
    if (typeof value !== "string" || value === PersonalData.erased) continue
    if (keyIdOf(value) === vault.activeKeyId) continue
    const text = vault.open(column, value)
    set[name] = vault.seal(column, text)
    changed = true
    if (name === "client_document") set.client_document_hash = vault.lookup(text)
    if (name === "pix_key") set.pix_key_hash = vault.lookup(text)
    if (name === "data") set.transaction_id = transactionIdOf(text)
    if (name === "debtor") {
      const document = PersonalData.debtorDocument(JSON.parse(text) as PersonalData.Debtor)
      set.debtor_hash = document === null ? null : vault.lookup(document)
    }
  }
  return changed ? set : undefined
}

const transactionIdOf = (json: string): string | null => {
  const data: unknown = JSON.parse(json)
  return typeof data === "object" &&
    data !== null &&
    "transactionId" in data &&
    typeof data.transactionId === "string"
    ? data.transactionId
    : null
}

/** Seals every value of the sealed columns that is not sealed under the active data key; answers how many rows changed. */
export const sealAll = (sql: Sql, vault: Vault, only?: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    let changed = 0
    for (const t of tables) {
      if (only !== undefined && !only.includes(t.table)) continue
      const names = t.columns.map(([name]) => name)
      const keyList = t.key.join(", ")
      let after: ReadonlyArray<unknown> | undefined
      for (;;) {
        const where =
          after === undefined
            ? sql``
            : sql`WHERE (${sql.literal(keyList)}) > (${sql.csv(after.map((v) => sql`${v as string}`))})`
        const rows = yield* sql<
          Record<string, unknown>
        >`SELECT ${sql.literal(`${keyList}, ${names.join(", ")}`)}
          FROM ${sql(t.table)} ${where} ORDER BY ${sql.literal(keyList)} LIMIT ${page}`
        for (const row of rows) {
          const set = yield* Effect.try({
            try: () => resealRow(vault, t, row),
            catch: (cause) =>
              new Store.StoreError({ message: `Cannot seal ${t.table}: ${String(cause)}`, cause })
          })
          if (set === undefined) continue
          yield* sql`UPDATE ${sql(t.table)} SET ${sql.update(set)} WHERE ${sql.and(
            t.key.map((k) => sql`${sql(k)} = ${row[k] as string}`)
          )}`
          changed++
        }
        if (rows.length < page) break
        const last = rows[rows.length - 1]
        after = t.key.map((k) => last[k])
      }
    }
    return changed
  })

/** `DataKeys.reencrypt` over an opened vault: seals, then drops what no longer serves. */
export const reseal = (
  sql: Sql,
  keys: Keys,
  vault: Vault
): Effect.Effect<Reencrypted, SqlError.SqlError | Store.StoreError> =>
  Effect.gen(function* () {
    const values = yield* sealAll(sql, vault)
    const before = yield* wrappings(sql)
    // Every value is now sealed with the active data key: older data keys serve nothing.
    const stale = before.filter((w) => w.purpose === "data" && w.dataKeyId !== vault.activeKeyId)
    for (const w of stale) yield* sql`DELETE FROM data_keys WHERE id = ${w.dataKeyId}`
    yield* sql`DELETE FROM data_keys WHERE master_key_id <> ${keys.active.id}`
    const after = yield* wrappings(sql)
    const count = (list: ReadonlyArray<Wrapping>) => list.reduce((n, w) => n + w.masterKeyIds.length, 0)
    return { values, droppedWrappings: count(before) - count(after), wrappings: after }
  })
