/**
 * A store layer for a database URL as the tests write them (`sqlite:<path>`, `sqlite::memory:`,
 * `postgres://...`): the transport takes store layers; reading URLs is @pixgate/server's.
 */
import type { Store } from "@pixgate/core"
import { PgStore } from "@pixgate/store-pg"
import { SqliteStore } from "@pixgate/store-sqlite"
import type { Layer } from "effect"
import { testKeys } from "./dataKeys.js"

export const storeOf = (database: string): Layer.Layer<Store.Store, unknown> =>
  /^postgres(ql)?:\/\//.test(database)
    ? PgStore.layer({ url: database, keys: testKeys })
    : SqliteStore.layer({ filename: database.replace(/^sqlite:/, ""), keys: testKeys })
