/**
 * Identifiers: internal ids, PIX txids and end-to-end ids, API keys and their hashes. Randomness
 * comes from Web Crypto's `getRandomValues` (sync on every runtime) and SHA-256 from `Sha256`, so
 * this runs on Node, Deno, Bun and edge without an async hop.
 */
import { Effect } from "effect"
import * as Sha256 from "./Sha256.js"

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

/** Web Crypto refuses to fill more than 64 KiB at once. */
const MAX_RANDOM_BYTES = 65_536

/** `n` random base62 characters; bytes >= 248 are redrawn so every character is equally likely. */
export const randomBase62 = (n: number): string => {
  const limit = 256 - (256 % BASE62.length)
  let out = ""
  while (out.length < n) {
    const bytes = new Uint8Array(Math.min(n - out.length + 8, MAX_RANDOM_BYTES))
    for (const byte of globalThis.crypto.getRandomValues(bytes)) {
      if (byte < limit && out.length < n) out += BASE62[byte % BASE62.length]
    }
  }
  return out
}

const encodeCrockford = (value: bigint, length: number): string => {
  let out = ""
  for (let i = 0; i < length; i++) {
    out = CROCKFORD[Number(value % 32n)] + out
    value /= 32n
  }
  return out
}

/** 79 random bits: the clear top bit leaves 2^79 increments of room, so the tail never overflows. */
const randomTail = (): bigint => {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(10))
  bytes[0] &= 0x7f
  return bytes.reduce((acc, b) => (acc << 8n) | BigInt(b), 0n)
}

let lastMs = -1
let lastTail = 0n

/**
 * `${prefix}_` + a 26-char ULID (10 chars of time, 16 of tail), so ids sort by creation time.
 * Monotonic within a process: ids minted in the same millisecond increment the previous tail by
 * one instead of drawing a new one, so they sort in creation order too.
 */
export const newId = (prefix: string, nowMs: number): string => {
  if (!Number.isSafeInteger(nowMs) || nowMs < 0 || nowMs >= 2 ** 48) {
    throw new RangeError(`newId: time out of the ULID range: ${nowMs}`)
  }
  lastTail = nowMs === lastMs ? lastTail + 1n : randomTail()
  lastMs = nowMs
  return `${prefix}_${encodeCrockford(BigInt(nowMs), 10)}${encodeCrockford(lastTail, 16)}`
}

/** A fresh PIX txid: 32 base62 characters (the BCB allows 26 to 35). */
export const newTxid = (): string => randomBase62(32)

/** True for a PIX txid of a charge: 26 to 35 characters of [a-zA-Z0-9]. */
export const isTxid = (s: string): boolean => /^[a-zA-Z0-9]{26,35}$/.test(s)

/** `E` + ISPB + `yyyyMMddHHmm` (UTC) + 11 alphanumerics: the BCB end-to-end id, 32 chars. */
export const newEndToEndId = (ispb: string, nowMs: number): string => {
  if (!/^\d{8}$/.test(ispb)) throw new RangeError(`ISPB must be 8 digits, got "${ispb}"`)
  const stamp = new Date(nowMs).toISOString().replace(/\D/g, "").slice(0, 12)
  return `E${ispb}${stamp}${randomBase62(11)}`
}

/** True for a well-formed end-to-end id whose timestamp is a real UTC minute. */
export const isEndToEndId = (s: string): boolean => {
  const m = /^E\d{8}(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})[a-zA-Z0-9]{11}$/.exec(s)
  if (m === null) return false
  const [year, month, day, hour, minute] = m.slice(1).map(Number)
  const date = new Date(Date.UTC(year, month - 1, day, hour, minute))
  return (
    date.getUTCFullYear() === year &&
    date.getUTCMonth() === month - 1 &&
    date.getUTCDate() === day &&
    date.getUTCHours() === hour &&
    date.getUTCMinutes() === minute
  )
}

/** A new secret API key: `sk_test_`/`sk_live_` + 40 base62 chars (about 238 random bits). */
export const newApiKey = (mode: "test" | "live"): string => `sk_${mode}_${randomBase62(40)}`

/** The mode of a well-formed API key (prefix + 32 to 128 base62 chars); undefined otherwise. */
export const apiKeyMode = (raw: string): "test" | "live" | undefined => {
  const m = /^sk_(test|live)_[0-9A-Za-z]{32,128}$/.exec(raw)
  return m === null ? undefined : (m[1] as "test" | "live")
}

/** Lowercase hex SHA-256 of the UTF-8 text. */
export const sha256Hex = (text: string): Effect.Effect<string> => Effect.sync(() => Sha256.hex(text))

/** What we store for an API key: a fast hash is enough, as the key carries 238 random bits. */
export const hashApiKeySync = (raw: string): string => Sha256.hex(raw)

/** `hashApiKeySync` as an effect. */
export const hashApiKey = (raw: string): Effect.Effect<string> => Effect.sync(() => hashApiKeySync(raw))
