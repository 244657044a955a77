/**
 * PNG image of a QR code (what the API returns as `qrCodeBase64`). `qrcode` computes the module
 * matrix; the PNG (1-bit grayscale) and its zlib stream are written here, with no Node-only APIs.
 */
import { create } from "qrcode"
import { base64 } from "./internal/base64.js"

/** Size of the image: pixels per module and width of the quiet zone in modules. */
export interface PngOptions {
  readonly scale?: number
  readonly margin?: number
}

/** Pixels per QR module unless told otherwise: about 300 px for a typical BR Code. */
export const defaultScale = 6

/** Quiet zone around the symbol, in modules (the 4 the QR standard asks for). */
export const defaultMargin = 4

const maxScale = 64
const maxMargin = 64

/** PNG (1-bit grayscale, black on white, ECC level M) of a QR code of `text`; throws if it does not fit. */
export const png = (text: string, options?: PngOptions): Uint8Array => {
  const scale = options?.scale ?? defaultScale
  const margin = options?.margin ?? defaultMargin
  if (!Number.isInteger(scale) || scale < 1 || scale > maxScale) {
    throw new RangeError(`scale must be an integer from 1 to ${maxScale}, got ${scale}`)
  }
  if (!Number.isInteger(margin) || margin < 0 || margin > maxMargin) {
    throw new RangeError(`margin must be an integer from 0 to ${maxMargin}, got ${margin}`)
  }
  const { size, data } = create(text, { errorCorrectionLevel: "M" }).modules
  const side = (size + 2 * margin) * scale
  const stride = 1 + ((side + 7) >> 3)
  const raw = new Uint8Array(stride * side).fill(0xff)
  for (let y = 0; y < side; y++) raw[y * stride] = 0
  for (let row = 0; row < size; row++) {
    const first = (margin + row) * scale * stride
    for (let col = 0; col < size; col++) {
      if (!data[row * size + col]) continue
      for (let x = (margin + col) * scale, end = x + scale; x < end; x++) {
        raw[first + 1 + (x >> 3)] &= ~(0x80 >> (x & 7))
      }
    }
    for (let copy = 1; copy < scale; copy++) raw.copyWithin(first + copy * stride, first, first + stride)
  }
  return encodePng(side, side, zlib(raw, stride))
}

/** Base64 (no `data:` prefix) of {@link png}. */
export const pngBase64 = (text: string, options?: PngOptions): string => base64(png(text, options))

const CRC32_TABLE = (() => {
  const table = new Uint32Array(256)
  for (let n = 0; n < 256; n++) {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
    table[n] = c >>> 0
  }
  return table
})()

const crc32 = (bytes: Uint8Array, from: number, to: number): number => {
  let crc = 0xffffffff
  for (let i = from; i < to; i++) crc = CRC32_TABLE[(crc ^ bytes[i]) & 0xff] ^ (crc >>> 8)
  return (crc ^ 0xffffffff) >>> 0
}

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]

const encodePng = (width: number, height: number, idat: Uint8Array): Uint8Array => {
  const out = new Uint8Array(SIGNATURE.length + 25 + 12 + idat.length + 12)
  const view = new DataView(out.buffer)
  out.set(SIGNATURE)
  let at = SIGNATURE.length
  const chunk = (type: string, length: number, fill: (start: number) => void) => {
    view.setUint32(at, length)
    for (let i = 0; i < 4; i++) out[at + 4 + i] = type.charCodeAt(i)
    fill(at + 8)
    view.setUint32(at + 8 + length, crc32(out, at + 4, at + 8 + length))
    at += 12 + length
  }
  chunk("IHDR", 13, (start) => {
    view.setUint32(start, width)
    view.setUint32(start + 4, height)
    out.set([1, 0, 0, 0, 0], start + 8) // bit depth 1, grayscale, deflate, no filter, no interlace
  })
  chunk("IDAT", idat.length, (start) => out.set(idat, start))
  chunk("IEND", 0, () => {})
  return out
}

// Fixed-Huffman tables of RFC 1951 §3.2.6, codes bit-reversed for LSB-first output.
const reverse = (code: number, length: number): number => {
  let result = 0
  for (let i = 0; i < length; i++) result = (result << 1) | ((code >> i) & 1)
  return result
}

const LITERAL_CODE = new Uint16Array(288)
const LITERAL_BITS = new Uint8Array(288)
for (let symbol = 0; symbol < 288; symbol++) {
  const [code, bits] =
    symbol < 144
      ? [0x30 + symbol, 8]
      : symbol < 256
        ? [0x190 + symbol - 144, 9]
        : symbol < 280
          ? [symbol - 256, 7]
          : [0xc0 + symbol - 280, 8]
  LITERAL_CODE[symbol] = reverse(code, bits)
  LITERAL_BITS[symbol] = bits
}

const LENGTH_BASE = [
  3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195,
  227, 258
]
const LENGTH_EXTRA = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
const DISTANCE_BASE = [
  1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097,
  6145, 8193, 12289, 16385, 24577
]
const DISTANCE_EXTRA = [
  0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13
]
const maxMatch = 258
const maxDistance = 32768

// Length symbol and extra bits of each match length 3..258, as one bit string.
const LENGTH_CODE = new Uint16Array(maxMatch + 1)
const LENGTH_BITS = new Uint8Array(maxMatch + 1)
for (let index = 0; index < LENGTH_BASE.length; index++) {
  const symbol = 257 + index
  const last = index + 1 < LENGTH_BASE.length ? LENGTH_BASE[index + 1] - 1 : maxMatch
  for (let length = LENGTH_BASE[index]; length <= last; length++) {
    LENGTH_CODE[length] = LITERAL_CODE[symbol] | ((length - LENGTH_BASE[index]) << LITERAL_BITS[symbol])
    LENGTH_BITS[length] = LITERAL_BITS[symbol] + LENGTH_EXTRA[index]
  }
}

/** Distance symbol (5-bit fixed code) and extra bits, as [bit string, bit count]. */
const distanceCode = (distance: number): readonly [number, number] => {
  let index = DISTANCE_BASE.length - 1
  while (DISTANCE_BASE[index] > distance) index--
  return [reverse(index, 5) | ((distance - DISTANCE_BASE[index]) << 5), 5 + DISTANCE_EXTRA[index]]
}

/**
 * zlib stream of one fixed-Huffman deflate block. Matches are only looked for at distance 1
 * (runs of equal bytes) and at `period` (the scanline length: a module row repeats `scale`
 * times), which is where nearly all the redundancy of a QR bitmap lives.
 */
const zlib = (data: Uint8Array, period: number): Uint8Array => {
  const n = data.length
  // A match costs at most 31 bits for 3+ bytes, a literal at most 9 bits: 11 bits a byte bounds both.
  const out = new Uint8Array(2 + ((n * 11) >> 3) + 8)
  out[0] = 0x78 // deflate, 32 KiB window
  out[1] = 0x01 // no preset dictionary, check bits
  let at = 2
  let buffer = 0
  let count = 0
  const write = (bits: number, length: number) => {
    buffer |= bits << count
    count += length
    while (count >= 8) {
      out[at++] = buffer & 0xff
      buffer >>>= 8
      count -= 8
    }
  }
  const distances = period > 1 && period <= maxDistance ? [period, 1] : [1]
  const codes = distances.map(distanceCode)
  write(0b011, 3) // BFINAL = 1, BTYPE = 01 (fixed Huffman)
  let i = 0
  while (i < n) {
    const limit = Math.min(maxMatch, n - i)
    let best = 0
    let choice = 0
    for (let d = 0; d < distances.length; d++) {
      const distance = distances[d]
      if (distance > i) continue
      let length = 0
      while (length < limit && data[i + length] === data[i + length - distance]) length++
      if (length > best) {
        best = length
        choice = d
      }
    }
    if (best >= 3) {
      write(LENGTH_CODE[best], LENGTH_BITS[best])
      const [bits, length] = codes[choice]
      write(bits, length)
      i += best
    } else {
      const literal = data[i++]
      write(LITERAL_CODE[literal], LITERAL_BITS[literal])
    }
  }
  write(LITERAL_CODE[256], LITERAL_BITS[256])
  if (count > 0) out[at++] = buffer & 0xff
  const adler = adler32(data)
  out[at++] = adler >>> 24
  out[at++] = (adler >>> 16) & 0xff
  out[at++] = (adler >>> 8) & 0xff
  out[at++] = adler & 0xff
  return out.subarray(0, at)
}

const adler32 = (data: Uint8Array): number => {
  let a = 1
  let b = 0
  // 5552 is the largest block whose sums cannot overflow before the modulo (zlib's NMAX).
  for (let start = 0; start < data.length; start += 5552) {
    const end = Math.min(start + 5552, data.length)
    for (let i = start; i < end; i++) {
      a += data[i]
      b += a
    }
    a %= 65521
    b %= 65521
  }
  return ((b << 16) | a) >>> 0
}
