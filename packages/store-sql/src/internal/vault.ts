/**
 * Sealed columns (docs/operations.md, "Personal data at rest"). A sealed value is
 * `pxe1.<data key id>.<base64url(salt | iv | ciphertext | tag)>`: AES-256-GCM under the key
 * HMAC-SHA256(data key, salt), with a random 12-byte IV, and the column's name as associated data,
 * so a value copied into another column does not open. Text that is not sealed (written around
 * the store, or the erasure marker) reads as it is. Lookups compare `lookup(value)`: an HMAC under
 * a key of its own, never the data key.
 *
 * A salt (16 random bytes) and its key serve at most `valuesPerSalt` values, then a new salt is
 * drawn: 2^16 random IVs under one key stay far below GCM's limit of 2^32 (a collision chance
 * of about 2^-65), while the HMAC per value went away. IVs are cut from a pool of random bytes
 * drawn 256 at a time; opening keeps the last `openedKeys` salts' keys. Base64url goes through
 * the platform's native Buffer where there is one. Measured (`bench/micro/sealing.ts`, quiet
 * machine): a seal from 16-18 to 7-9 µs of CPU, an open from 9-12 to 6 µs (docs/performance.md,
 * "Where a payout's CPU went since 2026-11-26"). The webhook endpoints' secret and signing keys,
 * which every delivery reads with its endpoint, are kept opened for their last `keptOpen` sealed
 * values: a delivery opens its event only (the process holds those secrets to sign with anyway).
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
const tagLength = 16
/** Values sealed under one salt's key before a new salt is drawn. */
export const valuesPerSalt = 65_536
/** IVs drawn from the random source at once. */
const ivsPerDraw = 256
/** Salts whose keys opening keeps (the oldest is dropped first). */
const openedKeys = 1_024
/** The columns whose opened values are kept: few distinct values, read on every delivery. */
const kept: ReadonlySet<Column> = new Set(["webhook_endpoints.secret", "webhook_endpoints.signing_key"])
/** Opened values of the `kept` columns kept (the oldest is dropped first). */
const keptOpen = 1_024
const encoder = new TextEncoder()
const decoder = new TextDecoder("utf-8", { fatal: true })

/** Node's Buffer (also Bun's and Deno's): native base64url, several times faster than a JS loop. */
const NativeBuffer = (
  globalThis as {
    readonly Buffer?: {
      from(bytes: ArrayBuffer, offset: number, length: number): { toString(encoding: "base64url"): string }
      from(text: string, encoding: "base64url"): Uint8Array
    }
  }
).Buffer

const toBase64Url = (bytes: Uint8Array): string =>
  NativeBuffer === undefined
    ? Encoding.encodeBase64Url(bytes)
    : NativeBuffer.from(bytes.buffer as ArrayBuffer, bytes.byteOffset, bytes.length).toString("base64url")

const base64UrlText = /^[A-Za-z0-9_-]*$/

/** The bytes of unpadded base64url text; undefined when it is not that. */
const fromBase64Url = (text: string): Uint8Array | undefined => {
  if (NativeBuffer === undefined) {
    const decoded = Encoding.decodeBase64Url(text)
    return Either.isLeft(decoded) ? undefined : decoded.right
  }
  // Buffer skips what is not base64url; the text is checked first, so nothing is skipped.
  return text.length % 4 === 1 || !base64UrlText.test(text) ? undefined : NativeBuffer.from(text, "base64url")
}

/** A value's data key id, when it is sealed. */
export const keyIdOf = (stored: string): string | undefined => {
  if (!stored.startsWith(prefix)) return undefined
  const end = stored.indexOf(".", prefix.length)
  return end < 0 ? undefined : stored.slice(prefix.length, end)
}

/** Drops the oldest entry of `map` when it holds `size`. */
const bounded = (map: Map<string, unknown>, size: number) => {
  if (map.size < size) return
  const oldest = map.keys().next()
  if (oldest.done !== true) map.delete(oldest.value)
}

/** Seals and opens columns with the database's data keys, and hashes lookups. */
export class Vault {
  private readonly aads = new Map<string, Uint8Array>(columns.map((c) => [c, encoder.encode(c)]))
  /** The salt new values are sealed under, its key, and how many more values it may seal. */
  private sealing: { readonly salt: Uint8Array; readonly key: Uint8Array; left: number } | undefined
  private ivs: Uint8Array = new Uint8Array(0)
  private ivAt = 0
  /** Keys of the salts opened lately (and of the sealing salts), by data key id and salt. */
  private readonly opened = new Map<string, Uint8Array>()
  /** Opened values of the `kept` columns, by column and sealed value. */
  private readonly openedValues = new Map<string, string>()

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
    const sealing = this.sealingKey()
    const iv = this.nextIv()
    const sealed = this.cipher.seal(sealing.key, iv, this.aad(column), encoder.encode(text))
    const out = new Uint8Array(saltLength + ivLength + sealed.length)
    out.set(sealing.salt)
    out.set(iv, saltLength)
    out.set(sealed, saltLength + ivLength)
    return `${prefix}${this.activeKeyId}.${toBase64Url(out)}`
  }

  /** The sealing salt and its key, a new salt once the last one sealed `valuesPerSalt` values. */
  private sealingKey() {
    if (this.sealing === undefined || this.sealing.left === 0) {
      const key = this.keys.get(this.activeKeyId)
      if (key === undefined) throw new Error(`Data key ${this.activeKeyId} is not loaded`)
      const salt = this.cipher.random(saltLength).slice()
      const derived = this.cipher.hmac(key, salt)
      this.sealing = { salt, key: derived, left: valuesPerSalt }
      this.remember(`${this.activeKeyId}.${toBase64Url(salt)}`, derived)
    }
    this.sealing.left--
    return this.sealing
  }

  /** A fresh IV, cut from the pool of random bytes (each byte used once). */
  private nextIv(): Uint8Array {
    if (this.ivAt + ivLength > this.ivs.length) {
      this.ivs = this.cipher.random(ivLength * ivsPerDraw)
      this.ivAt = 0
    }
    const iv = this.ivs.subarray(this.ivAt, this.ivAt + ivLength)
    this.ivAt += ivLength
    return iv
  }

  private remember(id: string, key: Uint8Array) {
    bounded(this.opened, openedKeys)
    this.opened.set(id, key)
  }

  /** The key of a value sealed under data key `id` with `salt`. */
  private keyOf(id: string, key: Uint8Array, salt: Uint8Array): Uint8Array {
    const name = `${id}.${toBase64Url(salt)}`
    const known = this.opened.get(name)
    if (known !== undefined) return known
    const derived = this.cipher.hmac(key, salt)
    this.remember(name, derived)
    return derived
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
    if (!kept.has(column)) return this.opening(column, stored)
    const name = `${column}\u0000${stored}`
    const known = this.openedValues.get(name)
    if (known !== undefined) return known
    const text = this.opening(column, stored)
    bounded(this.openedValues, keptOpen)
    this.openedValues.set(name, text)
    return text
  }

  private opening(column: Column, stored: string): string {
    const id = keyIdOf(stored)
    if (id === undefined) return stored
    const key = this.keys.get(id)
    if (key === undefined)
      throw new Error(`${column} is sealed with data key ${id}, which this store does not hold`)
    const all = fromBase64Url(stored.slice(prefix.length + id.length + 1))
    if (all === undefined || all.length < saltLength + ivLength + tagLength)
      throw new Error(`${column} holds a malformed sealed value`)
    const plain = this.cipher.open(
      this.keyOf(id, key, all.subarray(0, saltLength)),
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
    return toBase64Url(this.cipher.hmac(this.lookupKey, encoder.encode(text)))
  }

  /** `lookup`, keeping null. */
  lookupOrNull(text: string | null): string | null {
    return text === null ? null : this.lookup(text)
  }
}
