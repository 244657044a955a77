/**
 * `PIXGATE_DATABASE` to a store: `sqlite:<path>` (relative to the current directory;
 * `sqlite::memory:` for a throwaway database) or `postgres://...` / `postgresql://...`.
 */
import { resolve } from "node:path"
import type { Store } from "@pixgate/core"
import { PgStore } from "@pixgate/store-pg"
import { SqliteStore } from "@pixgate/store-sqlite"
import type { Layer } from "effect"

/** The default database: a SQLite file under the current directory. */
export const defaultUrl = "sqlite:./data/pixgate.db"

/** A parsed database setting. */
export type Target =
  | { readonly kind: "sqlite"; readonly filename: string }
  | { readonly kind: "postgres"; readonly url: string }

/** Parses a database URL; throws an Error naming the accepted forms (never echoing credentials). */
export const parse = (url: string, cwd: string = process.cwd()): Target => {
  const text = url.trim()
  if (/^postgres(ql)?:\/\//i.test(text)) return { kind: "postgres", url: text }
  if (/^sqlite:/i.test(text)) {
    const rest = text.slice("sqlite:".length).replace(/^\/\/(?=[./])/, "")
    if (rest === "")
      throw new Error("PIXGATE_DATABASE sqlite: needs a file path, e.g. sqlite:./data/pixgate.db")
    return { kind: "sqlite", filename: rest === ":memory:" ? rest : resolve(cwd, rest) }
  }
  throw new Error("PIXGATE_DATABASE must be sqlite:<path>, postgres://... or postgresql://...")
}

/** The store of a target (migrated when the layer is built). */
export const layer = (target: Target): Layer.Layer<Store.Store, Store.StoreError> =>
  target.kind === "sqlite"
    ? SqliteStore.layer({ filename: target.filename })
    : PgStore.layer({ url: target.url })

/** A target for logs: the SQLite path, or the Postgres URL without its password. */
export const describe = (target: Target): string => {
  if (target.kind === "sqlite") return `sqlite:${target.filename}`
  try {
    const url = new URL(target.url)
    if (url.password !== "") url.password = "***"
    return url.toString()
  } catch {
    return "postgres://(unparsable URL)"
  }
}
