/**
 * PNG image of a QR code (what the API returns as `qrCodeBase64`). `QrMatrix` computes the module
 * matrix; the PNG (1-bit grayscale) and its zlib stream are written here, with no Node-only APIs.
 */
import { base64 } from "../internal/base64.js"
import * as QrMatrix from "./QrMatrix.js"

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
  return pngOf(QrMatrix.encode(text), scale, margin)
}

/**
 * PNG of an encoded matrix (options already checked). The bitmap is never built whole: each
 * module row is one distinct scanline repeated `scale` times (the quiet zone one white line),
 * so the zlib stream is written from those lines, and its Adler-32 from their sums.
 */
const pngOf = (matrix: QrMatrix.Matrix, scale: number, margin: number): Uint8Array => {
  const { size, modules } = matrix
  const side = (size + 2 * margin) * scale
  const stride = 1 + ((side + 7) >> 3)
  const white = new Uint8Array(stride).fill(0xff)
  white[0] = 0 // filter type: none
  // Bits at most: size + 2 literal lines (9 bits a byte), and matches of 31 bits at most, one
  // per 255 bytes of copies plus two per run of copies (a cut tail).
  const bound = (size + 2) * stride * 9 + ((side * stride) / 255 + 2 * (size + 3)) * 31 + 64
  const stream = new Deflate(Math.ceil(bound / 8))
  stream.repeat(white, margin * scale, false)
  let previous = white
  for (let row = 0; row < size; row++) {
    const line = white.slice()
    for (let col = 0; col < size; col++) {
      if (modules[row * size + col] === 0) continue
      for (let x = (margin + col) * scale, end = x + scale; x < end; x++)
        line[1 + (x >> 3)] &= ~(0x80 >> (x & 7))
    }
    // A module row like the one above continues its run of repeated scanlines.
    stream.repeat(line, scale, sameBytes(line, previous))
    previous = line
  }
  stream.repeat(white, margin * scale, previous === white)
  return encodePng(side, side, stream.finish())
}

const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
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
const DISTANCE_ONE = distanceCode(1)

/**
 * zlib stream of one fixed-Huffman deflate block written from repeated scanlines: a line is
 * written once (literals, and runs of 3+ equal bytes as matches at distance 1) and each repeat
 * is a match at distance `stride`, where nearly all the redundancy of a QR bitmap lives.
 */
class Deflate {
  private readonly out: Uint8Array
  private at = 2
  private buffer = 0
  private count = 0
  private adlerA = 1
  private adlerB = 0
  private lines = 0

  /** `maxBytes`: a bound on the compressed block (the caller knows the lines it will write). */
  constructor(maxBytes: number) {
    this.out = new Uint8Array(2 + maxBytes + 16)
    this.out[0] = 0x78 // deflate, 32 KiB window
    this.out[1] = 0x01 // no preset dictionary, check bits
    this.write(0b011, 3) // BFINAL = 1, BTYPE = 01 (fixed Huffman)
  }

  private write(bits: number, length: number) {
    this.buffer |= bits << this.count
    this.count += length
    while (this.count >= 8) {
      this.out[this.at++] = this.buffer & 0xff
      this.buffer >>>= 8
      this.count -= 8
    }
  }

  private match(length: number, distance: readonly [number, number]) {
    this.write(LENGTH_CODE[length], LENGTH_BITS[length])
    this.write(distance[0], distance[1])
  }

  /**
   * `times` copies of `line` (all lines have one length); `continues` when the last line
   * written was the same bytes, so every copy is a match.
   */
  repeat(line: Uint8Array, times: number, continues: boolean) {
    if (times === 0) return
    const stride = line.length
    let copies = times
    if (!(continues && this.lines > 0)) {
      this.literalLine(line)
      copies--
    }
    // Copies at distance `stride` (a match may overlap what it copies); a tail under 3 bytes
    // is left in the last matches by cutting the one before it short.
    let left = copies * stride
    if (left > 0) {
      const distance = distanceCode(stride)
      while (left > 0) {
        let length = Math.min(maxMatch, left)
        if (left - length > 0 && left - length < 3) length -= 3
        this.match(length, distance)
        left -= length
      }
    }
    this.addAdler(line, times)
    this.lines += times
  }

  private literalLine(line: Uint8Array) {
    const n = line.length
    let i = 0
    while (i < n) {
      let run = 0
      if (i > 0) {
        const limit = Math.min(maxMatch, n - i)
        while (run < limit && line[i + run] === line[i - 1]) run++
      }
      if (run >= 3) {
        this.match(run, DISTANCE_ONE)
        i += run
      } else {
        const literal = line[i++]
        this.write(LITERAL_CODE[literal], LITERAL_BITS[literal])
      }
    }
  }

  /** Adler-32 of `times` copies of `line`: a += S, b += n * a + W per copy (RFC 1950). */
  private addAdler(line: Uint8Array, times: number) {
    const n = line.length
    let sum = 0
    let weighted = 0
    for (let i = 0; i < n; i++) {
      sum += line[i]
      weighted += (n - i) * line[i]
    }
    sum %= 65521
    weighted %= 65521
    for (let copy = 0; copy < times; copy++) {
      this.adlerB = (this.adlerB + n * this.adlerA + weighted) % 65521
      this.adlerA = (this.adlerA + sum) % 65521
    }
  }

  finish(): Uint8Array {
    this.write(LITERAL_CODE[256], LITERAL_BITS[256])
    if (this.count > 0) this.out[this.at++] = this.buffer & 0xff
    const adler = ((this.adlerB << 16) | this.adlerA) >>> 0
    this.out[this.at++] = adler >>> 24
    this.out[this.at++] = (adler >>> 16) & 0xff
    this.out[this.at++] = (adler >>> 8) & 0xff
    this.out[this.at++] = adler & 0xff
    return this.out.subarray(0, this.at)
  }
}
