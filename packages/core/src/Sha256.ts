/**
 * SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104) in plain TypeScript, synchronous. Web Crypto's
 * `subtle` is async everywhere (on Node every call is a hop through libuv's thread pool), which
 * costs more than hashing the short keys, ids and webhook bodies the engine hashes.
 *
 * Written for V8: Int32 arithmetic, one module-level state and message schedule reused by every
 * call (safe, as no call yields before it returns), strings encoded to UTF-8 straight into the
 * block buffer. The only allocation per call is the result.
 */

/** Bytes, or text hashed as its UTF-8 encoding (lone surrogates as U+FFFD, like `TextEncoder`). */
export type Input = Uint8Array | string

// biome-ignore format: the FIPS 180-4 table, eight words a row as published
const K = Int32Array.of(
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2
)
// biome-ignore format: one row, as published
const IV = Int32Array.of(
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19
)

const H = new Int32Array(8)
const W = new Int32Array(64)
const block = new Uint8Array(64)
/** Bytes waiting in `block`. */
let used = 0
/** Bytes hashed since `reset`, for the length field of the padding. */
let length = 0

const reset = (): void => {
  H.set(IV)
  used = 0
  length = 0
}

/** Folds the 64 bytes of `p` at `at` into `H`. */
const compress = (p: Uint8Array, at: number): void => {
  for (let i = 0; i < 16; i++, at += 4) {
    W[i] = (p[at] << 24) | (p[at + 1] << 16) | (p[at + 2] << 8) | p[at + 3]
  }
  for (let i = 16; i < 64; i++) {
    const x = W[i - 2]
    const y = W[i - 15]
    const s1 = ((x >>> 17) | (x << 15)) ^ ((x >>> 19) | (x << 13)) ^ (x >>> 10)
    const s0 = ((y >>> 7) | (y << 25)) ^ ((y >>> 18) | (y << 14)) ^ (y >>> 3)
    W[i] = (s1 + W[i - 7] + s0 + W[i - 16]) | 0
  }
  let a = H[0]
  let b = H[1]
  let c = H[2]
  let d = H[3]
  let e = H[4]
  let f = H[5]
  let g = H[6]
  let h = H[7]
  for (let i = 0; i < 64; i++) {
    const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))
    // Ch and Maj in their cheaper equivalent forms: g ^ (e & (f ^ g)), (a & b) | (c & (a | b)).
    const t1 = (h + S1 + (g ^ (e & (f ^ g))) + K[i] + W[i]) | 0
    const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))
    const t2 = (S0 + ((a & b) | (c & (a | b)))) | 0
    h = g
    g = f
    f = e
    e = (d + t1) | 0
    d = c
    c = b
    b = a
    a = (t1 + t2) | 0
  }
  H[0] = (H[0] + a) | 0
  H[1] = (H[1] + b) | 0
  H[2] = (H[2] + c) | 0
  H[3] = (H[3] + d) | 0
  H[4] = (H[4] + e) | 0
  H[5] = (H[5] + f) | 0
  H[6] = (H[6] + g) | 0
  H[7] = (H[7] + h) | 0
}

const updateBytes = (bytes: Uint8Array): void => {
  const n = bytes.length
  let i = 0
  length += n
  if (used > 0) {
    while (used < 64 && i < n) block[used++] = bytes[i++]
    if (used < 64) return
    compress(block, 0)
    used = 0
  }
  // Whole blocks are read where they lie, without a copy.
  for (; i + 64 <= n; i += 64) compress(bytes, i)
  while (i < n) block[used++] = bytes[i++]
}

const put = (byte: number): void => {
  block[used++] = byte
  if (used === 64) {
    compress(block, 0)
    used = 0
  }
}

const updateString = (text: string): void => {
  const n = text.length
  for (let i = 0; i < n; i++) {
    let c = text.charCodeAt(i)
    if (c < 0x80) {
      put(c)
      length += 1
    } else if (c < 0x800) {
      put(0xc0 | (c >> 6))
      put(0x80 | (c & 0x3f))
      length += 2
    } else {
      if (c >= 0xd800 && c <= 0xdfff) {
        const next = i + 1 < n ? text.charCodeAt(i + 1) : 0
        if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
          const cp = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00)
          put(0xf0 | (cp >> 18))
          put(0x80 | ((cp >> 12) & 0x3f))
          put(0x80 | ((cp >> 6) & 0x3f))
          put(0x80 | (cp & 0x3f))
          length += 4
          i++
          continue
        }
        c = 0xfffd
      }
      put(0xe0 | (c >> 12))
      put(0x80 | ((c >> 6) & 0x3f))
      put(0x80 | (c & 0x3f))
      length += 3
    }
  }
}

const update = (data: Input | ReadonlyArray<Input>): void => {
  if (typeof data === "string") updateString(data)
  else if (Array.isArray(data)) for (const part of data) update(part)
  else updateBytes(data as Uint8Array)
}

/** Pads the message (0x80, zeros, the length in bits as 64 bits big-endian); leaves the digest in `H`. */
const finish = (): void => {
  const high = Math.floor(length / 0x20000000)
  const low = (length * 8) >>> 0
  block[used++] = 0x80
  if (used > 56) {
    block.fill(0, used)
    compress(block, 0)
    used = 0
  }
  block.fill(0, used, 56)
  block[56] = high >>> 24
  block[57] = high >>> 16
  block[58] = high >>> 8
  block[59] = high
  block[60] = low >>> 24
  block[61] = low >>> 16
  block[62] = low >>> 8
  block[63] = low
  compress(block, 0)
}

const writeDigest = <A extends Uint8Array>(out: A): A => {
  for (let i = 0; i < 8; i++) {
    const w = H[i]
    out[4 * i] = w >>> 24
    out[4 * i + 1] = w >>> 16
    out[4 * i + 2] = w >>> 8
    out[4 * i + 3] = w
  }
  return out
}

/** SHA-256 of `data` (an array of parts is hashed as their concatenation): 32 bytes. */
export const digest = (data: Input | ReadonlyArray<Input>): Uint8Array<ArrayBuffer> => {
  reset()
  update(data)
  finish()
  return writeDigest(new Uint8Array(32))
}

const HEX_DIGITS = Array.from("0123456789abcdef", (c) => c.charCodeAt(0))
/** The 64 char codes of a hex digest: one `fromCharCode` beats 32 concatenations. */
const hexCodes: Array<number> = new Array(64).fill(0)

/** SHA-256 of `data` as 64 lowercase hex characters. */
export const hex = (data: Input | ReadonlyArray<Input>): string => {
  reset()
  update(data)
  finish()
  for (let i = 0; i < 64; i++) hexCodes[i] = HEX_DIGITS[(H[i >>> 3] >>> (28 - 4 * (i & 7))) & 15]
  return String.fromCharCode(...hexCodes)
}

const keyBlock = new Uint8Array(64)
const pad = new Uint8Array(64)
const inner = new Uint8Array(32)

/** Starts a hash with the key block XOR `mask` (RFC 2104's ipad 0x36, opad 0x5c). */
const startKeyed = (mask: number): void => {
  for (let i = 0; i < 64; i++) pad[i] = keyBlock[i] ^ mask
  reset()
  updateBytes(pad)
}

/** HMAC-SHA256 of `message` (an array of parts is signed as their concatenation): 32 bytes. */
export const hmac = (key: Uint8Array, message: Input | ReadonlyArray<Input>): Uint8Array<ArrayBuffer> => {
  keyBlock.fill(0)
  if (key.length > 64) {
    reset()
    updateBytes(key)
    finish()
    writeDigest(keyBlock)
  } else {
    keyBlock.set(key)
  }
  startKeyed(0x36)
  update(message)
  finish()
  writeDigest(inner)
  startKeyed(0x5c)
  updateBytes(inner)
  finish()
  return writeDigest(new Uint8Array(32))
}
