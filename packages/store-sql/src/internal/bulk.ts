/**
 * Multi-row statements for batches, cheap to run many times. The tagged-template `sql.insert`
 * compiles every value of every row on every call; here the SQL text is built from the row
 * count alone (and kept), and the values go to the driver as one flat parameter list. On
 * SQLite the rows are split into chunks of a few fixed sizes, so the prepared statements are
 * reused; on Postgres a statement is one round trip, so it is one chunk.
 */
import type { SqlError } from "@effect/sql"
import { Effect } from "effect"
import type { Sql } from "./sql.js"

/** A row a statement returns. */
export type Row = { readonly [column: string]: unknown }

/** A value bound to a placeholder. */
export type Value = string | number | null

/**
 * SQLite: row counts a chunk may have; any count is a sum of these, so few texts exist and the
 * client's prepared statements are reused. Postgres parses every statement anyway (the driver
 * sends unnamed ones), and each statement is a round trip: one chunk, up to its parameter limit.
 */
const sqliteChunks = [128, 64, 32, 16, 8, 4, 2, 1] as const
const pgParameterLimit = 65_535

/** A statement over a list of rows, e.g. `INSERT ... VALUES <rows>` or `WITH v AS (VALUES <rows>) ...`. */
export interface Bulk {
  /** Values per row. */
  readonly width: number
  /** Runs the statement over `rows` (values in column order), chunk by chunk; the rows it returns. */
  readonly run: (
    rows: ReadonlyArray<ReadonlyArray<Value>>
  ) => Effect.Effect<ReadonlyArray<Row>, SqlError.SqlError>
  /**
   * Postgres: the statement's text for `rows` rows, its placeholders numbered from `first + 1`,
   * to be one part of a larger statement whose parameters hold these rows' values at `first`.
   */
  readonly render: (rows: number, first: number) => string
}

/**
 * A bulk statement: `text(values)` is the statement around its VALUES rows. `types` are the SQL
 * types of the columns, cast in every row (needed where Postgres cannot infer them, as in a
 * `WITH v AS (VALUES ...)`); without them the values are bare placeholders.
 */
export const make = (
  sql: Sql,
  width: number,
  text: (values: string) => string,
  types?: ReadonlyArray<string>
): Bulk => {
  const pg = sql.onDialectOrElse({ pg: () => true, orElse: () => false })
  const pgRows = Math.floor(pgParameterLimit / width)
  const render = (rows: number, first: number): string => {
    let n = first
    const row = () =>
      `(${Array.from({ length: width }, (_, i) => {
        const p = pg ? `$${++n}` : "?"
        return types === undefined ? p : `CAST(${p} AS ${types[i]})`
      }).join(", ")})`
    return text(Array.from({ length: rows }, row).join(", "))
  }
  const texts = new Map<number, string>()
  const textOf = (rows: number): string => {
    const cached = texts.get(rows)
    if (cached !== undefined) return cached
    const built = render(rows, 0)
    // Postgres texts of any size are built per call; keep only the small, frequent ones.
    if (!pg || rows <= 16) texts.set(rows, built)
    return built
  }
  return {
    width,
    render,
    run: (rows) =>
      Effect.suspend(() => {
        const chunks: Array<ReadonlyArray<ReadonlyArray<Value>>> = []
        for (let at = 0; at < rows.length; ) {
          const left = rows.length - at
          const size = pg ? Math.min(left, pgRows) : (sqliteChunks.find((s) => s <= left) ?? 1)
          chunks.push(rows.slice(at, at + size))
          at += size
        }
        return Effect.map(
          Effect.forEach(chunks, (chunk) => sql.unsafe<Row>(textOf(chunk.length), chunk.flat())),
          (results) => results.flat()
        )
      })
  }
}

/** `INSERT INTO table (columns) VALUES ...` with an optional tail (ON CONFLICT, RETURNING). */
export const insert = (sql: Sql, table: string, columns: ReadonlyArray<string>, tail = ""): Bulk =>
  make(
    sql,
    columns.length,
    (values) => `INSERT INTO ${table} (${columns.join(", ")}) VALUES ${values} ${tail}`
  )

/** The values of `row` in `columns` order. */
export const valuesOf = (row: { readonly [column: string]: unknown }, columns: ReadonlyArray<string>) =>
  columns.map((c) => (row[c] ?? null) as Value)
