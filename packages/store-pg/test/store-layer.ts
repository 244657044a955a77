/** The store of the multi-process tests' engines, in the test process and in the children. */
import { PgStore } from "@pixgate/store-pg"
import { SqliteStore } from "@pixgate/store-sqlite"
import { testKeys } from "@pixgate/testkit/dataKeys"

/** Postgres by URL, or a SQLite file for `sqlite:<path>`. */
export const storeLayer = (url: string, maxConnections: number) =>
  url.startsWith("sqlite:")
    ? SqliteStore.layer({ filename: url.slice("sqlite:".length) })
    : PgStore.layer({ keys: testKeys, url, maxConnections })
