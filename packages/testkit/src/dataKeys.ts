/**
 * The master key the tests seal their databases with: the run's Postgres template database is
 * migrated with it (vitest.global-setup.ts), so every copy of it opens with it. Servers the tests
 * start on Postgres get it as `PIXGATE_DATA_KEY`.
 */
import { NodeDataCipher } from "@pixgate/core/node"
import { DataKeys } from "@pixgate/store-sql"
import { Either, Redacted } from "effect"

/** `PIXGATE_DATA_KEY` of the tests: base64 of 32 bytes. */
export const testDataKey = "cGl4Z2F0ZS10ZXN0LWRhdGEta2V5LTMyLWJ5dGVzISE="

/** The tests' keys, as a store layer takes them. */
export const testKeys: DataKeys.Keys = Either.getOrThrow(
  DataKeys.fromText(NodeDataCipher.cipher, testDataKey)
)

/** The tests' key as `Server.start({ dataKeys })` takes it (what `pixgate serve` reads from the environment). */
export const testDataKeys = { active: Redacted.make(testDataKey), retired: [] } as const
