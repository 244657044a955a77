/**
 * `Pixgate.make` of `@pixgate/http/node` with one more way to give the store: `database`, a URL
 * as `PIXGATE_DATABASE` takes it, whose store package is loaded only when its kind is chosen.
 */
import { Pixgate as NodePixgate } from "@pixgate/http/node"
import { Redacted } from "effect"
import * as Database from "./Database.js"

export type Handlers = NodePixgate.Handlers
export type Pixgate = NodePixgate.Pixgate
export type Services = NodePixgate.Services
export const layer: typeof NodePixgate.layer = NodePixgate.layer
export const panelModule: typeof NodePixgate.panelModule = NodePixgate.panelModule

/** How to build an embedded Pixgate: a `store` layer, or a `database` URL. */
export interface PixgateOptions extends Omit<NodePixgate.PixgateOptions, "store"> {
  /** Storage: `MemoryStore.layer`, `SqliteStore.layer({ filename })`, `PgStore.layer({ url })`. */
  readonly store?: NodePixgate.PixgateOptions["store"]
  /**
   * Storage by URL instead of `store`, as `PIXGATE_DATABASE` takes it: `sqlite:./data/pixgate.db`
   * (relative to the process's directory), `sqlite::memory:`, `postgres://...`.
   */
  readonly database?: string
  /**
   * With `database`: the master key personal data is sealed with (base64 of 32 bytes, what
   * `PIXGATE_DATA_KEY` takes); required on Postgres, a SQLite file keeps its own without it.
   */
  readonly dataKey?: string
}

/** Builds the engine and its handlers; rejects when the engine cannot start (e.g. the store). */
export const make = async ({
  database,
  dataKey,
  store,
  ...options
}: PixgateOptions): Promise<NodePixgate.Pixgate> => {
  if (store !== undefined && database !== undefined)
    throw new TypeError("Pixgate: give store or database, not both")
  if (store !== undefined) return NodePixgate.make({ ...options, store })
  if (database !== undefined)
    return NodePixgate.make({
      ...options,
      store: Database.layer(
        Database.parse(database),
        dataKey === undefined ? undefined : { active: Redacted.make(dataKey), retired: [] }
      )
    })
  throw new TypeError("Pixgate: give a store (e.g. SqliteStore.layer({ filename })) or a database URL")
}
