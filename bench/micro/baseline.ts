/**
 * The baseline of `crypto.ts`: `Ids` and `WebhookSignature.sign` as they were before `Sha256` and
 * the random pool (commit 691cbaf), on Web Crypto, so both run in the same process.
 */
import { WebhookSignature } from "@pixgate/core"
import { Effect } from "effect"

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
const MAX_RANDOM_BYTES = 65_536

/** `Ids.randomBase62` before: a fresh `getRandomValues` array per call. */
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

const randomTail = (): bigint => {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(10))
  bytes[0] &= 0x7f
  return bytes.reduce((acc, b) => (acc << 8n) | BigInt(b), 0n)
}

let lastMs = -1
let lastTail = 0n

/** `Ids.newId` before: BigInt tail and encoding. */
export const newId = (prefix: string, nowMs: number): string => {
  if (!Number.isSafeInteger(nowMs) || nowMs < 0 || nowMs >= 2 ** 48) {
    throw new RangeError(`newId: time out of the ULID range: ${nowMs}`)
  }
  lastTail = nowMs === lastMs ? lastTail + 1n : randomTail()
  lastMs = nowMs
  return `${prefix}_${encodeCrockford(BigInt(nowMs), 10)}${encodeCrockford(lastTail, 16)}`
}

/** `Ids.newEndToEndId` before: `toISOString` and a regex per call. */
export const newEndToEndId = (ispb: string, nowMs: number): string => {
  if (!/^\d{8}$/.test(ispb)) throw new RangeError(`ISPB must be 8 digits, got "${ispb}"`)
  const stamp = new Date(nowMs).toISOString().replace(/\D/g, "").slice(0, 12)
  return `E${ispb}${stamp}${randomBase62(11)}`
}

/** `Ids.hashApiKey` before: `crypto.subtle.digest`. */
export const hashApiKey = (text: string): Effect.Effect<string> =>
  Effect.promise(() => globalThis.crypto.subtle.digest("SHA-256", new TextEncoder().encode(text))).pipe(
    Effect.map((digest) =>
      Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("")
    )
  )

const base64 = (bytes: Uint8Array): string => btoa(String.fromCharCode(...bytes))

const signingKey = (secret: string): Uint8Array<ArrayBuffer> => {
  const rest = secret.startsWith("whsec_") ? secret.slice("whsec_".length) : null
  if (rest !== null && rest.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(rest)) {
    return Uint8Array.from(atob(rest), (c) => c.charCodeAt(0))
  }
  return new TextEncoder().encode(secret)
}

/** `WebhookSignature.sign` before: `importKey` and `sign` on `crypto.subtle` per call. */
export const sign = (
  secret: string,
  id: string,
  timestamp: number,
  payload: Uint8Array
): Effect.Effect<string, WebhookSignature.SignatureError> =>
  Effect.tryPromise({
    try: async () => {
      const subtle = globalThis.crypto.subtle
      const key = await subtle.importKey(
        "raw",
        signingKey(secret),
        { name: "HMAC", hash: "SHA-256" },
        false,
        ["sign"]
      )
      const prefix = new TextEncoder().encode(`${id}.${timestamp}.`)
      const message = new Uint8Array(prefix.length + payload.length)
      message.set(prefix)
      message.set(payload, prefix.length)
      return `v1,${base64(new Uint8Array(await subtle.sign("HMAC", key, message)))}`
    },
    catch: (cause) =>
      new WebhookSignature.SignatureError({
        message: `cannot sign: ${cause instanceof Error ? cause.message : cause}`
      })
  })
