/**
 * SHA-256 and HMAC-SHA256, synchronous, on any runtime: a thin adapter over `@noble/hashes`
 * (audited, no dependencies, no `node:` imports). Web Crypto's `subtle` would do too, but it is
 * async everywhere, and the engine hashes short keys, ids and webhook bodies inline.
 *
 * The adapter only turns the engine's inputs (bytes, text as UTF-8, or a list of parts hashed as
 * their concatenation) into the library's streaming `update` calls.
 */
import { hmac as nobleHmac } from "@noble/hashes/hmac.js"
import { sha256 } from "@noble/hashes/sha2.js"

/** Bytes, or text hashed as its UTF-8 encoding (lone surrogates as U+FFFD, like `TextEncoder`). */
export type Input = Uint8Array | string

const encoder = new TextEncoder()

/** Anything with noble's streaming `update`: a plain hash or an HMAC. */
interface Updatable {
  update(data: Uint8Array): unknown
}

const feed = (hash: Updatable, data: Input | ReadonlyArray<Input>): void => {
  if (typeof data === "string") hash.update(encoder.encode(data))
  else if (data instanceof Uint8Array) hash.update(data)
  else for (const part of data) hash.update(typeof part === "string" ? encoder.encode(part) : part)
}

/** SHA-256 of `data` (an array of parts is hashed as their concatenation): 32 bytes. */
export const digest = (data: Input | ReadonlyArray<Input>): Uint8Array<ArrayBuffer> => {
  if (typeof data === "string") return sha256(encoder.encode(data)) as Uint8Array<ArrayBuffer>
  if (data instanceof Uint8Array) return sha256(data) as Uint8Array<ArrayBuffer>
  const hash = sha256.create()
  feed(hash, data)
  return hash.digest() as Uint8Array<ArrayBuffer>
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"))

/** SHA-256 of `data` as 64 lowercase hex characters. */
export const hex = (data: Input | ReadonlyArray<Input>): string => {
  const bytes = digest(data)
  let out = ""
  for (let i = 0; i < bytes.length; i++) out += HEX[bytes[i]]
  return out
}

/** HMAC-SHA256 of `message` (an array of parts is signed as their concatenation): 32 bytes. */
export const hmac = (key: Uint8Array, message: Input | ReadonlyArray<Input>): Uint8Array<ArrayBuffer> => {
  const mac = nobleHmac.create(sha256, key)
  feed(mac, message)
  return mac.digest() as Uint8Array<ArrayBuffer>
}

/** Equality of two byte strings that takes the same time wherever they differ (no early exit). */
export const equalBytes = (a: Uint8Array, b: Uint8Array): boolean => {
  let difference = a.length ^ b.length
  for (let i = 0; i < a.length; i++) difference |= a[i] ^ (b[i] ?? 0)
  return difference === 0
}

/**
 * Constant-time equality of a presented secret and the expected one: their digests (equal
 * lengths whatever was presented) compared whole, so neither the secret's length nor where the
 * two differ shows in the time taken.
 */
export const sameSecret = (presented: Input, expected: Input): boolean =>
  equalBytes(digest(presented), digest(expected))
