/**
 * The primitives a SQL store seals personal data and secrets with at rest (docs/operations.md,
 * "Personal data at rest"): AES-256-GCM and HMAC-SHA256. Synchronous, so that a store seals and
 * opens fields while it maps rows, without a promise per field on the request path; the keys,
 * their ids and the sealed format belong to the store (`@pixgate/store-sql`'s `DataKeys`).
 * `@pixgate/core/node` implements it over node:crypto (OpenSSL).
 */
import { Context, type Effect } from "effect"
import type { StoreError } from "./Store.js"

/** AES-256-GCM and HMAC-SHA256, each call independent of the others. */
export interface DataCipherShape {
  /** `size` bytes from a cryptographically secure source. */
  readonly random: (size: number) => Uint8Array
  /** HMAC-SHA256 of `data` under `key` (32 bytes). */
  readonly hmac: (key: Uint8Array, data: Uint8Array) => Uint8Array
  /** AES-256-GCM of `plaintext` under a 32-byte key and a 12-byte IV: the ciphertext, then its 16-byte tag. */
  readonly seal: (key: Uint8Array, iv: Uint8Array, aad: Uint8Array, plaintext: Uint8Array) => Uint8Array
  /** Opens what `seal` made; throws when the key, IV, associated data or bytes are not those sealed. */
  readonly open: (key: Uint8Array, iv: Uint8Array, aad: Uint8Array, sealed: Uint8Array) => Uint8Array
}

/** A data key of the database and the master keys that wrap it. */
export interface Wrapping {
  readonly dataKeyId: string
  /** `data` seals values; `lookup` keys the hashes lookups compare. */
  readonly purpose: "data" | "lookup"
  readonly masterKeyIds: ReadonlyArray<string>
}

/** What a re-encryption did. */
export interface Reencrypted {
  /** Rows whose values were sealed again under the active data key (they were plaintext, or under another). */
  readonly values: number
  /** Wrappings dropped: under master keys other than the active one, and of data keys no value uses any more. */
  readonly droppedWrappings: number
  /** Every data key left, wrapped by the active master key only. */
  readonly wrappings: ReadonlyArray<Wrapping>
}

/** The keys of a store that seals at rest, for the operator's tools (`pixgate data-key ...`). */
export interface KeyringShape {
  /** The active master key's id and every data key's wrappings. */
  readonly status: Effect.Effect<
    { readonly activeMasterKeyId: string; readonly wrappings: ReadonlyArray<Wrapping> },
    StoreError
  >
  /**
   * Seals again every value not sealed under the active data key, then keeps only the
   * wrappings under the active master key; with `newDataKey`, first makes a new data key the
   * active one (every value moves to it: run it with no other instance running).
   */
  readonly reencrypt: (options?: { readonly newDataKey?: boolean }) => Effect.Effect<Reencrypted, StoreError>
}

/** A SQL store's keys (`@pixgate/store-sql` provides it with the store). */
export class Keyring extends Context.Tag("@pixgate/core/DataCipher/Keyring")<Keyring, KeyringShape>() {}
