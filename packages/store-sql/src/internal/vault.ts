/**
 * Sealed columns (docs/operations.md, "Personal data at rest"). A sealed value is
 * `pxe1.<data key id>.<base64url(salt | iv | ciphertext | tag)>`: AES-256-GCM under a key of its
 * own, HMAC-SHA256(data key, salt) with a fresh random 16-byte salt, so no key ever meets the
 * GCM limit on random IVs, and the column's name as associated data, so a value copied into
 * another column does not open. Text that is not sealed (written around the store, or the
 * erasure marker) reads as it is. Lookups compare `lookup(value)`: an HMAC under a key of its
 * own, never the data key.
 */
import type { DataCipher } from "@pixgate/core"
import { Either, Encoding } from "effect"

/** The columns that hold sealed values: each name is its values' associated data. */
export const columns = [
  "transactions.client_name",
  "transactions.client_document",
  "transactions.pix_key",
  "events.data",
  "idempotency_keys.body",
  "webhook_endpoints.secret",
  // Also the previous key's column: a rotation moves the value there as it is.
  "webhook_endpoints.signing_key",
  "panel_totp.secret",
  "subscriptions.debtor"
] as const

/** A sealed column. */
export type Column = (typeof columns)[number]

/** The prefix of every sealed value (its format's version). */
export const prefix = "pxe1."

const saltLength = 16
const ivLength = 12
const encoder = new TextEncoder()
const decoder = new TextDecoder("utf-8", { fatal: true })

/** A value's data key id, when it is sealed. */
export const keyIdOf = (stored: string): string | undefined => {
  if (!stored.startsWith(prefix)) return undefined
  const end = stored.indexOf(".", prefix.length)
  return end < 0 ? undefined : stored.slice(prefix.length, end)
}

/** Seals and opens columns with the database's data keys, and hashes lookups. */
export class Vault {
  private readonly aads = new Map<string, Uint8Array>(columns.map((c) => [c, encoder.encode(c)]))

  constructor(
    private readonly cipher: DataCipher.DataCipherShape,
    /** Every data key, by id. */
    private readonly keys: ReadonlyMap<string, Uint8Array>,
    /** The data key new values are sealed with. */
    readonly activeKeyId: string,
    private readonly lookupKey: Uint8Array
  ) {}

  /** The column's value, sealed with the active data key. */
  seal(column: Column, text: string): string {
    const key = this.keys.get(this.activeKeyId)
    if (key === undefined) throw new Error(`Data key ${this.activeKeyId} is not loaded`)
    const random = this.cipher.random(saltLength + ivLength)
    const sealed = this.cipher.seal(
      this.cipher.hmac(key, random.subarray(0, saltLength)),
      random.subarray(saltLength),
      this.aad(column),
      encoder.encode(text)
    )
    const out = new Uint8Array(random.length + sealed.length)
    out.set(random)
    out.set(sealed, random.length)
    return `${prefix}${this.activeKeyId}.${Encoding.encodeBase64Url(out)}`
  }

  private aad(column: Column): Uint8Array {
    return this.aads.get(column) ?? encoder.encode(column)
  }

  /** `seal`, keeping null. */
  sealOrNull(column: Column, text: string | null): string | null {
    return text === null ? null : this.seal(column, text)
  }

  /** The text of a sealed value; text that is not sealed as it is. Throws when it does not open. */
  open(column: Column, stored: string): string {
    const id = keyIdOf(stored)
    if (id === undefined) return stored
    const key = this.keys.get(id)
    if (key === undefined)
      throw new Error(`${column} is sealed with data key ${id}, which this store does not hold`)
    const bytes = Encoding.decodeBase64Url(stored.slice(prefix.length + id.length + 1))
    if (Either.isLeft(bytes) || bytes.right.length < saltLength + ivLength)
      throw new Error(`${column} holds a malformed sealed value`)
    const all = bytes.right
    const plain = this.cipher.open(
      this.cipher.hmac(key, all.subarray(0, saltLength)),
      all.subarray(saltLength, saltLength + ivLength),
      this.aad(column),
      all.subarray(saltLength + ivLength)
    )
    return decoder.decode(plain)
  }

  /** `open` of a column's raw value, keeping null. */
  openOrNull(column: Column, stored: unknown): string | null {
    if (stored === null || stored === undefined) return null
    if (typeof stored !== "string") throw new TypeError(`Expected text in ${column}, got ${typeof stored}`)
    return this.open(column, stored)
  }

  /** The keyed hash lookups compare (base64url HMAC-SHA256 under the lookup key). */
  lookup(text: string): string {
    return Encoding.encodeBase64Url(this.cipher.hmac(this.lookupKey, encoder.encode(text)))
  }

  /** `lookup`, keeping null. */
  lookupOrNull(text: string | null): string | null {
    return text === null ? null : this.lookup(text)
  }
}
