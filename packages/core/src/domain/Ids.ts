/**
 * Identifiers: internal ids, PIX txids and end-to-end ids, API keys and their hashes. Randomness
 * comes from Web Crypto's `getRandomValues` (sync on every runtime) and SHA-256 from `Sha256`, so
 * this runs on Node, Deno, Bun and edge without an async hop.
 *
 * Public ids draw from a pooled buffer (one `getRandomValues` serves hundreds). Secrets (API keys,
 * webhook secrets, signing keys) never do: `secretBytes`/`secretBase62` draw fresh bytes from the
 * CSPRNG for each secret and leave none of them behind in a module-level buffer.
 */
import {
  type ApiKeyId,
  type ChargebackId,
  type DeliveryId,
  type EntryId,
  type EventId,
  isApiKeyId,
  isChargebackId,
  isDeliveryId,
  isEntryId,
  isEventId,
  isJobId,
  isMerchantId,
  isTransactionId,
  type JobId,
  type MerchantId,
  type TransactionId
} from "./Domain.js"
import * as Sha256 from "./Sha256.js"

/** The char codes of the base62 alphabet (digits, upper case, lower case). */
const BASE62 = Array.from("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", (c) =>
  c.charCodeAt(0)
)
/** The largest multiple of 62 that fits a byte: bytes at or above it are redrawn, so no bias. */
const BASE62_LIMIT = 248
const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
/** Every pair of Crockford characters, indexed by its 10 bits: half the concatenations. */
const CROCKFORD_PAIRS = Array.from({ length: 1024 }, (_, i) => CROCKFORD[i >>> 5] + CROCKFORD[i & 31])

/** Random bytes drawn 4 KiB at a time: one `getRandomValues` call serves hundreds of ids. */
const pool = new Uint8Array(4096)
let poolAt = pool.length

const randomByte = (): number => {
  if (poolAt === pool.length) {
    globalThis.crypto.getRandomValues(pool)
    poolAt = 0
  }
  return pool[poolAt++]
}

/** The char codes of the chunk being drawn, one array reused by every call. */
const codes: Array<number> = []

/** Up to 256 characters at once: one `fromCharCode` beats a string grown a character at a time. */
const base62Chunk = (n: number): string => {
  codes.length = 0
  while (codes.length < n) {
    const byte = randomByte()
    if (byte < BASE62_LIMIT) codes.push(BASE62[byte % 62])
  }
  return String.fromCharCode(...codes)
}

/** `n` random base62 characters; bytes >= 248 are redrawn so every character is equally likely. */
export const randomBase62 = (n: number): string => {
  let out = ""
  while (out.length < n) out += base62Chunk(Math.min(n - out.length, 256))
  return out
}

/** `n` bytes straight from the CSPRNG, in a fresh array no other caller ever sees. */
export const secretBytes = (n: number): Uint8Array<ArrayBuffer> => {
  if (!Number.isSafeInteger(n) || n < 1 || n > 65_536) throw new RangeError(`secretBytes: bad length ${n}`)
  return globalThis.crypto.getRandomValues(new Uint8Array(n))
}

/**
 * `n` random base62 characters for a secret, from fresh CSPRNG bytes (not the id pool); bytes
 * >= 248 are redrawn, so every character is equally likely (log2(62) = 5.95 bits each).
 */
export const secretBase62 = (n: number): string => {
  if (!Number.isSafeInteger(n) || n < 1 || n > 4096) throw new RangeError(`secretBase62: bad length ${n}`)
  const out: Array<number> = []
  while (out.length < n) {
    // 248/256 of the bytes are kept: n + n/16 + 8 bytes almost always suffice in one draw.
    const bytes = secretBytes(n - out.length + ((n - out.length) >>> 4) + 8)
    for (let i = 0; i < bytes.length && out.length < n; i++) {
      if (bytes[i] < BASE62_LIMIT) out.push(BASE62[bytes[i] % 62])
    }
    bytes.fill(0)
  }
  return String.fromCharCode(...out)
}

/** The 80-bit tail of the last id, big-endian. */
const tail = new Uint8Array(10)
/** NaN until the first id, so only a time that passed the range check is ever matched. */
let lastMs = Number.NaN
/** The 10 Crockford characters of `lastMs`. */
let lastTime = ""

/** 79 random bits: the clear top bit leaves 2^79 increments of room, so the tail never overflows. */
const randomTail = (): void => {
  for (let i = 0; i < 10; i++) tail[i] = randomByte()
  tail[0] &= 0x7f
}

const incrementTail = (): void => {
  for (let i = 9; i >= 0; i--) {
    if (tail[i] < 255) {
      tail[i]++
      return
    }
    tail[i] = 0
  }
}

/** Four characters of a 20-bit number. */
const crockford4 = (v: number): string => CROCKFORD_PAIRS[v >>> 10] + CROCKFORD_PAIRS[v & 1023]

/** A time below 2^48 as 10 characters: two 25-bit halves, as bitwise arithmetic is 32-bit. */
const encodeTime = (ms: number): string => {
  const high = Math.floor(ms / 0x2000000)
  const low = ms - high * 0x2000000
  return (
    CROCKFORD[high >>> 20] + crockford4(high & 0xfffff) + CROCKFORD[low >>> 20] + crockford4(low & 0xfffff)
  )
}

/** The tail as 16 characters: four 20-bit quarters of 2.5 bytes each. */
const encodeTail = (): string =>
  crockford4((tail[0] << 12) | (tail[1] << 4) | (tail[2] >>> 4)) +
  crockford4(((tail[2] & 15) << 16) | (tail[3] << 8) | tail[4]) +
  crockford4((tail[5] << 12) | (tail[6] << 4) | (tail[7] >>> 4)) +
  crockford4(((tail[7] & 15) << 16) | (tail[8] << 8) | tail[9])

/**
 * `${prefix}_` + a 26-char ULID (10 chars of time, 16 of tail), so ids sort by creation time.
 * Monotonic within a process: ids minted in the same millisecond increment the previous tail by
 * one instead of drawing a new one, so they sort in creation order too.
 */
export const newId = (prefix: string, nowMs: number): string => {
  if (nowMs === lastMs) {
    incrementTail()
  } else {
    if (!Number.isSafeInteger(nowMs) || nowMs < 0 || nowMs >= 2 ** 48) {
      throw new RangeError(`newId: time out of the ULID range: ${nowMs}`)
    }
    randomTail()
    lastMs = nowMs
    lastTime = encodeTime(nowMs)
  }
  return `${prefix}_${lastTime}${encodeTail()}`
}

/** `raw` as an id of its kind, checked by the kind's guard (`Domain.isMerchantId`, ...). */
const checked = <A extends string>(is: (u: unknown) => u is A, raw: string): A => {
  if (is(raw)) return raw
  throw new RangeError(`Not an id of its kind: ${raw}`)
}

/**
 * Typed constructors of the engine's ids: a new id of each kind at `nowMs`, checked by its
 * kind's guard, so no id is ever cast to its brand.
 */
export const merchantId = (nowMs: number): MerchantId => checked(isMerchantId, newId("mer", nowMs))
/** A new transaction id (`tx_...`). */
export const transactionId = (nowMs: number): TransactionId => checked(isTransactionId, newId("tx", nowMs))
/** A new event id (`evt_...`). */
export const eventId = (nowMs: number): EventId => checked(isEventId, newId("evt", nowMs))
/** A new chargeback id (`cb_...`). */
export const chargebackId = (nowMs: number): ChargebackId => checked(isChargebackId, newId("cb", nowMs))
/** A new webhook delivery id (`dlv_...`). */
export const deliveryId = (nowMs: number): DeliveryId => checked(isDeliveryId, newId("dlv", nowMs))
/** A new API key id (`key_...`). */
export const apiKeyId = (nowMs: number): ApiKeyId => checked(isApiKeyId, newId("key", nowMs))
/** A new durable job id (`job_...`). */
export const jobId = (nowMs: number): JobId => checked(isJobId, newId("job", nowMs))
/** A new journal entry id (`je_...`). */
export const entryId = (nowMs: number): EntryId => checked(isEntryId, newId("je", nowMs))

/** `n` base62 digits of a non-negative integer, most significant first (they sort like the number). */
const base62Digits = (value: number, n: number): string => {
  let out = ""
  for (let i = 0; i < n; i++) {
    out = String.fromCharCode(BASE62[value % 62]) + out
    value = Math.floor(value / 62)
  }
  return out
}

/**
 * A fresh PIX txid: 32 base62 characters (the BCB allows 26 to 35), the first 8 the creation
 * time, the other 24 random (142 bits). Time first keeps the unique index's inserts at its end
 * instead of on a random page each, and ids of one moment apart from each other.
 */
export const newTxid = (nowMs: number): string =>
  `${base62Digits(Math.max(0, Math.floor(nowMs)), 8)}${randomBase62(24)}`

/** True for a PIX txid of a charge: 26 to 35 characters of [a-zA-Z0-9]. */
export const isTxid = (s: string): boolean => /^[a-zA-Z0-9]{26,35}$/.test(s)

let stampMinute = Number.NaN
let stamp = ""

/** `yyyyMMddHHmm` (UTC) of `nowMs`, formatted once per minute. */
const minuteStamp = (nowMs: number): string => {
  // Date truncates a fractional time toward zero before flooring it to the minute.
  const minute = Math.floor(Math.trunc(nowMs) / 60_000)
  if (minute !== stampMinute) {
    stamp = new Date(nowMs).toISOString().replace(/\D/g, "").slice(0, 12)
    stampMinute = minute
  }
  return stamp
}

/**
 * `E` + ISPB + `yyyyMMddHHmm` (UTC) + 11 alphanumerics: the BCB end-to-end id, 32 chars. The
 * BCB leaves the 11 to the PSP (a sequence or random); here the millisecond within the minute
 * (3 base62 digits) then 8 random: ids sort by time, so the unique index grows at its end.
 */
export const newEndToEndId = (ispb: string, nowMs: number): string => {
  if (!/^\d{8}$/.test(ispb)) throw new RangeError(`ISPB must be 8 digits, got "${ispb}"`)
  const msOfMinute = ((Math.trunc(nowMs) % 60_000) + 60_000) % 60_000
  return `E${ispb}${minuteStamp(nowMs)}${base62Digits(msOfMinute, 3)}${randomBase62(8)}`
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

/**
 * A new secret API key: `sk_test_`/`sk_live_` + 40 base62 chars (about 238 random bits), from
 * fresh CSPRNG bytes (`secretBase62`), never the pooled buffer of public ids.
 */
export const newApiKey = (mode: "test" | "live"): string => `sk_${mode}_${secretBase62(40)}`

/** The mode of a well-formed API key (prefix + 32 to 128 base62 chars); undefined otherwise. */
export const apiKeyMode = (raw: string): "test" | "live" | undefined => {
  const m = /^sk_(test|live)_[0-9A-Za-z]{32,128}$/.exec(raw)
  return m === null ? undefined : (m[1] as "test" | "live")
}

/**
 * What we store for an API key: its lowercase hex SHA-256. A fast hash is enough, as the key
 * carries 238 random bits.
 */
export const hashApiKey = (raw: string): string => Sha256.hex(raw)
