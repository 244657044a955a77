/**
 * QR code module matrix (ISO/IEC 18004), error correction level M: the symbol behind every
 * charge's `qrCodeBase64`. Written here because the matrix was the bound of a charge's QR work:
 * `qrcode.create` took 0.89 ms of `QrImage.pngBase64`'s 1.48 ms per BR Code, most of it in the
 * mask choice and in a Dijkstra search over segment modes. This encoder makes the same symbol
 * as `qrcode` for a given segmentation (the same penalty rules, so the same mask), with an
 * optimal mixed numeric / alphanumeric / byte segmentation, 7.4x faster than `qrcode.create`
 * on 170-character BR Codes in the same process (median 0.44 vs 3.23 ms per code on a 2-core
 * machine at load 19, 2026-11-26: `pnpm exec tsx --conditions=@pixgate/source
 * bench/micro/qr.ts`; figures in docs/performance.md). The speed comes from work done once per
 * version and kept (function patterns, the zigzag order of data modules, the 8 mask patterns
 * restricted to data modules) and from scoring all 8 masks in one pass over bytes whose bit p
 * is a module's colour under mask p.
 *
 * Checked by independent decoders (jsQR and ZXing) on every version 1-40, on BR Codes of every
 * length the engine builds and on random payloads, and module for module against `qrcode`
 * given the same segments (test/QrMatrix.test.ts).
 */

/** A QR symbol: `modules[row * size + col]` is 1 for a dark module, 0 for a light one. */
export interface Matrix {
  readonly version: number
  /** Data mask pattern 0-7 (the one with the lowest penalty unless one was asked for). */
  readonly mask: number
  readonly size: number
  readonly modules: Uint8Array
}

/** One run of the text in one mode; `text` is a substring of the input. */
export interface Segment {
  readonly mode: "numeric" | "alphanumeric" | "byte"
  readonly text: string
}

// Mode indices: 0 byte, 1 alphanumeric, 2 numeric (the order of the segmentation search).
const BYTE = 0
const ALNUM = 1
const NUMERIC = 2
const modeNames = ["byte", "alphanumeric", "numeric"] as const
const modeIndicator = [0b0100, 0b0010, 0b0001]
/** Character count indicator bits by mode and version group (1-9, 10-26, 27-40). */
const countBits = [
  [8, 16, 16],
  [9, 11, 13],
  [10, 12, 14]
]
const groupFirst = [1, 10, 27]
const groupLast = [9, 26, 40]

const ALPHANUMERIC_CHARS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:"
const ALNUM_VALUE = new Int8Array(128).fill(-1)
for (let i = 0; i < ALPHANUMERIC_CHARS.length; i++) ALNUM_VALUE[ALPHANUMERIC_CHARS.charCodeAt(i)] = i

// Level M, by version: error correction codewords per block and number of blocks.
const ECC_PER_BLOCK = [
  0, 10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28, 26, 26, 26, 26, 28, 28, 28, 28, 28,
  28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28
]
const BLOCKS = [
  0, 1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16, 17, 17, 18, 20, 21, 23, 25, 26, 28, 29,
  31, 33, 35, 37, 38, 40, 43, 45, 47, 49
]

/** Modules left for data and error correction once the function patterns are placed. */
const rawDataModules = (version: number): number => {
  let result = (16 * version + 128) * version + 64
  if (version >= 2) {
    const align = Math.floor(version / 7) + 2
    result -= (25 * align - 10) * align - 55
    if (version >= 7) result -= 36
  }
  return result
}

const totalCodewords = (version: number) => rawDataModules(version) >> 3
const dataCodewords = (version: number) => totalCodewords(version) - ECC_PER_BLOCK[version] * BLOCKS[version]

// GF(256) with the QR polynomial x^8 + x^4 + x^3 + x^2 + 1.
const EXP = new Uint8Array(512)
const LOG = new Uint8Array(256)
{
  let x = 1
  for (let i = 0; i < 255; i++) {
    EXP[i] = x
    LOG[x] = i
    x <<= 1
    if (x & 0x100) x ^= 0x11d
  }
  for (let i = 255; i < 512; i++) EXP[i] = EXP[i - 255]
}

const generators = new Map<number, Uint8Array>()
/** Logs of the coefficients (after the leading 1) of prod_{i<degree} (x - a^i). */
const generatorLogs = (degree: number): Uint8Array => {
  const cached = generators.get(degree)
  if (cached !== undefined) return cached
  let poly = [1]
  for (let i = 0; i < degree; i++) {
    const next = new Array<number>(poly.length + 1).fill(0)
    for (let j = 0; j < poly.length; j++) {
      next[j] ^= poly[j]
      if (poly[j] !== 0) next[j + 1] ^= EXP[LOG[poly[j]] + i]
    }
    poly = next
  }
  // Every coefficient of a QR generator polynomial is non-zero, so each has a log.
  const logs = Uint8Array.from(poly.slice(1), (c) => LOG[c])
  generators.set(degree, logs)
  return logs
}

/** Reed-Solomon remainder of `data[from, to)` into `out[at, at + degree)` (a shift register). */
const reedSolomon = (
  data: Uint8Array,
  from: number,
  to: number,
  degree: number,
  out: Uint8Array,
  at: number
) => {
  const gen = generatorLogs(degree)
  const last = at + degree - 1
  for (let i = from; i < to; i++) {
    const factor = data[i] ^ out[at]
    if (factor === 0) {
      out.copyWithin(at, at + 1, last + 1)
      out[last] = 0
      continue
    }
    const log = LOG[factor]
    for (let j = at; j < last; j++) out[j] = out[j + 1] ^ EXP[gen[j - at] + log]
    out[last] = EXP[gen[degree - 1] + log]
  }
}

/** What every symbol of one version shares, built on first use and kept (at most 40). */
interface Template {
  readonly size: number
  /** Function patterns in place, format areas light. */
  readonly base: Uint8Array
  /** Indices of the data modules in placement order (the two-column zigzag from bottom right). */
  readonly order: Int32Array
  /** Bit p set where mask pattern p flips a data module (0 on every function module). */
  readonly flips: Uint8Array
  /** Indices of format bit i's two copies: `format[i]` and `format[15 + i]`. */
  readonly format: Int32Array
}

const templates: Array<Template | undefined> = []

const maskBit = (mask: number, i: number, j: number): boolean => {
  switch (mask) {
    case 0:
      return (i + j) % 2 === 0
    case 1:
      return i % 2 === 0
    case 2:
      return j % 3 === 0
    case 3:
      return (i + j) % 3 === 0
    case 4:
      return (Math.floor(i / 2) + Math.floor(j / 3)) % 2 === 0
    case 5:
      return ((i * j) % 2) + ((i * j) % 3) === 0
    case 6:
      return (((i * j) % 2) + ((i * j) % 3)) % 2 === 0
    default:
      return (((i * j) % 3) + ((i + j) % 2)) % 2 === 0
  }
}

const alignmentCoords = (version: number, size: number): Array<number> => {
  if (version === 1) return []
  const count = Math.floor(version / 7) + 2
  const step = size === 145 ? 26 : Math.ceil((size - 13) / (2 * count - 2)) * 2
  const coords = [size - 7]
  for (let i = 1; i < count - 1; i++) coords.push(coords[i - 1] - step)
  coords.push(6)
  return coords.reverse()
}

/** The three finder patterns, with their separators. */
const finderPatterns = (size: number, set: (row: number, col: number, dark: boolean) => void) => {
  for (const [top, left] of [
    [0, 0],
    [size - 7, 0],
    [0, size - 7]
  ] as const) {
    for (let r = -1; r <= 7; r++) {
      if (top + r < 0 || top + r >= size) continue
      for (let c = -1; c <= 7; c++) {
        if (left + c < 0 || left + c >= size) continue
        const ring = (r >= 0 && r <= 6 && (c === 0 || c === 6)) || (c >= 0 && c <= 6 && (r === 0 || r === 6))
        set(top + r, left + c, ring || (r >= 2 && r <= 4 && c >= 2 && c <= 4))
      }
    }
  }
}

/** The alignment patterns, but where they would cover a finder pattern. */
const alignmentPatterns = (
  version: number,
  size: number,
  set: (row: number, col: number, dark: boolean) => void
) => {
  const coords = alignmentCoords(version, size)
  for (let i = 0; i < coords.length; i++) {
    for (let j = 0; j < coords.length; j++) {
      const last = coords.length - 1
      if ((i === 0 && j === 0) || (i === 0 && j === last) || (i === last && j === 0)) continue
      for (let r = -2; r <= 2; r++) {
        for (let c = -2; c <= 2; c++) {
          set(
            coords[i] + r,
            coords[j] + c,
            r === -2 || r === 2 || c === -2 || c === 2 || (r === 0 && c === 0)
          )
        }
      }
    }
  }
}

/** The data modules in placement order: two-module columns, right to left, zigzagging up and down. */
const dataOrder = (version: number, size: number, reserved: Uint8Array) => {
  const order = new Int32Array(rawDataModules(version))
  let n = 0
  let up = true
  for (let col = size - 1; col > 0; col -= 2) {
    if (col === 6) col--
    for (let k = 0; k < size; k++) {
      const row = up ? size - 1 - k : k
      for (let c = 0; c < 2; c++) {
        const at = row * size + col - c
        if (reserved[at] === 0) order[n++] = at
      }
    }
    up = !up
  }
  return order
}

/** For each data module, the masks (bit per mask) that flip it. */
const maskFlips = (size: number, reserved: Uint8Array) => {
  const flips = new Uint8Array(size * size)
  for (let row = 0; row < size; row++) {
    for (let col = 0; col < size; col++) {
      const at = row * size + col
      if (reserved[at] !== 0) continue
      for (let mask = 0; mask < 8; mask++) if (maskBit(mask, row, col)) flips[at] |= 1 << mask
    }
  }
  return flips
}

const template = (version: number): Template => {
  const cached = templates[version]
  if (cached !== undefined) return cached
  const size = version * 4 + 17
  const base = new Uint8Array(size * size)
  const reserved = new Uint8Array(size * size)
  const set = (row: number, col: number, dark: boolean) => {
    base[row * size + col] = dark ? 1 : 0
    reserved[row * size + col] = 1
  }
  finderPatterns(size, set)
  for (let i = 8; i < size - 8; i++) {
    set(i, 6, i % 2 === 0)
    set(6, i, i % 2 === 0)
  }
  alignmentPatterns(version, size, set)
  // Format information: bit i's two copies (the layout of ISO/IEC 18004 §7.9.1).
  const format = new Int32Array(30)
  for (let i = 0; i < 15; i++) {
    const vertical = i < 6 ? i : i < 8 ? i + 1 : size - 15 + i
    format[i] = vertical * size + 8
    const horizontal = i < 8 ? size - i - 1 : i < 9 ? 15 - i : 15 - i - 1
    format[15 + i] = 8 * size + horizontal
  }
  for (const at of format) reserved[at] = 1
  set(size - 8, 8, true) // the dark module
  if (version >= 7) {
    let rem = version
    for (let i = 0; i < 12; i++) rem = (rem << 1) ^ ((rem >> 11) * 0x1f25)
    const bits = (version << 12) | rem
    for (let i = 0; i < 18; i++) {
      const dark = ((bits >> i) & 1) === 1
      const row = Math.floor(i / 3)
      const col = (i % 3) + size - 11
      set(row, col, dark)
      set(col, row, dark)
    }
  }
  const order = dataOrder(version, size, reserved)
  const flips = maskFlips(size, reserved)
  const built: Template = { size, base, order, flips, format }
  templates[version] = built
  return built
}

/** Format information of level M with `mask` (BCH(15,5), XOR 0x5412). */
const formatBits = (mask: number): number => {
  const data = (0b00 << 3) | mask // level M is 00
  let rem = data
  for (let i = 0; i < 10; i++) rem = (rem << 1) ^ ((rem >> 9) * 0x537)
  return ((data << 10) | rem) ^ 0x5412
}
/** Per format bit i: bit p set if that bit is 1 under mask p. */
const FORMAT_LANES = Uint8Array.from({ length: 15 }, (_, i) => {
  let lanes = 0
  for (let mask = 0; mask < 8; mask++) lanes |= ((formatBits(mask) >> i) & 1) << mask
  return lanes
})

// The mask choice scores all 8 masks in one pass: each module is a byte whose bit p is its
// colour under mask p, and every penalty rule is a few bitwise operations on such bytes
// ("lanes"), counted per lane with 4 counters of 8 bits in one 32-bit integer.
/** 4 bits spread to the low bit of each byte of a 32-bit integer. */
const SPREAD = new Uint32Array(16)
for (let n = 0; n < 16; n++) for (let j = 0; j < 4; j++) if ((n >> j) & 1) SPREAD[n] |= 1 << (8 * j)

/** Adds the 8 per-lane byte counters held in `lo` (lanes 0-3) and `hi` (lanes 4-7), times `weight`. */
const flush = (totals: Float64Array, lo: number, hi: number, weight: number) => {
  for (let j = 0; j < 4; j++) {
    totals[j] += ((lo >>> (8 * j)) & 0xff) * weight
    totals[4 + j] += ((hi >>> (8 * j)) & 0xff) * weight
  }
}

/**
 * N1 and N3 penalty points of one line of lane bytes (a row: `step` 1; a column: `step` size)
 * into `totals`: N1 as `qrcode` scores it (3 for a run of 5 same-colour modules, 1 more per
 * module beyond), N3 for each 11-module window 10111010000 or 00001011101 (40 each).
 */
const linePenalty = (lanes: Uint8Array, from: number, step: number, size: number, totals: Float64Array) => {
  // ge2..ge6: lanes whose current run is at least 2..6 modules long.
  let ge2 = 0
  let ge3 = 0
  let ge4 = 0
  let ge5 = 0
  let ge6 = 0
  let last = 0
  // N1 points per lane: a line's total is at most its length (< 256), so one byte counter holds it.
  let runLo = 0
  let runHi = 0
  let finderLo = 0
  let finderHi = 0
  // The last 11 modules, w0 the oldest.
  let w0 = 0
  let w1 = 0
  let w2 = 0
  let w3 = 0
  let w4 = 0
  let w5 = 0
  let w6 = 0
  let w7 = 0
  let w8 = 0
  let w9 = 0
  for (let k = 0, at = from; k < size; k++, at += step) {
    const v = lanes[at]
    const same = k === 0 ? 0 : ~(v ^ last) & 0xff
    last = v
    ge6 = same & ge5
    ge5 = same & ge4
    ge4 = same & ge3
    ge3 = same & ge2
    ge2 = same
    const five = ge5 & ~ge6
    runLo += SPREAD[five & 15] * 3 + SPREAD[ge6 & 15]
    runHi += SPREAD[five >> 4] * 3 + SPREAD[ge6 >> 4]
    if (k >= 10) {
      const n = ~v
      // 1011101 then 0000, or 0000 then 1011101 (exclusive: they differ in the first module).
      const finder =
        (w0 & ~w1 & w2 & w3 & w4 & ~w5 & w6 & ~(w7 | w8 | w9) & n) |
        (~(w0 | w1 | w2 | w3) & w4 & ~w5 & w6 & w7 & w8 & ~w9 & v)
      finderLo += SPREAD[finder & 15]
      finderHi += SPREAD[(finder >> 4) & 15]
    }
    w0 = w1
    w1 = w2
    w2 = w3
    w3 = w4
    w4 = w5
    w5 = w6
    w6 = w7
    w7 = w8
    w8 = w9
    w9 = v
  }
  flush(totals, runLo, runHi, 1)
  flush(totals, finderLo, finderHi, 40)
}

/**
 * Penalty of each of the 8 masks by the rules `qrcode` applies (N1 runs of 5+, N2 2x2 blocks,
 * N3 finder-like patterns, N4 dark proportion), so that the mask chosen is the one `qrcode`
 * would choose. `lanes` holds the symbol by rows.
 */
const penalties = (lanes: Uint8Array, size: number): Float64Array => {
  const totals = new Float64Array(8)
  for (let line = 0; line < size; line++) {
    linePenalty(lanes, line * size, 1, size, totals)
    linePenalty(lanes, line, size, size, totals)
  }
  const dark = new Float64Array(8)
  for (let row = 0; row < size; row++) {
    let darkLo = 0
    let darkHi = 0
    let blockLo = 0
    let blockHi = 0
    const start = row * size
    for (let at = start, end = start + size; at < end; at++) {
      const a = lanes[at]
      darkLo += SPREAD[a & 15]
      darkHi += SPREAD[a >> 4]
      if (row < size - 1 && at < end - 1) {
        const b = lanes[at + 1]
        const c = lanes[at + size]
        const d = lanes[at + size + 1]
        const uniform = (a & b & c & d) | (~(a | b | c | d) & 0xff)
        blockLo += SPREAD[uniform & 15]
        blockHi += SPREAD[uniform >> 4]
      }
    }
    flush(dark, darkLo, darkHi, 1)
    flush(totals, blockLo, blockHi, 3)
  }
  const total = size * size
  for (let mask = 0; mask < 8; mask++) {
    totals[mask] += Math.abs(Math.ceil((dark[mask] * 100) / total / 5) - 10) * 10
  }
  return totals
}

/** Code points of `text` with their UTF-16 start; a lone surrogate stands for U+FFFD, as in UTF-8. */
const codePoints = (text: string): { points: Int32Array; starts: Int32Array; count: number } => {
  const points = new Int32Array(text.length)
  const starts = new Int32Array(text.length + 1)
  let count = 0
  for (let i = 0; i < text.length; i++) {
    let cp = text.charCodeAt(i)
    starts[count] = i
    if (cp >= 0xd800 && cp <= 0xdbff && i + 1 < text.length) {
      const low = text.charCodeAt(i + 1)
      if (low >= 0xdc00 && low <= 0xdfff) {
        cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00)
        i++
      }
    }
    if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xfffd
    points[count++] = cp
  }
  starts[count] = text.length
  return { points, starts, count }
}

const utf8Length = (cp: number) => (cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4)

interface Run {
  readonly mode: number
  readonly from: number
  readonly to: number
}

/**
 * The segmentation with the fewest bits for a version group (dynamic programming over code
 * points in sixths of a bit, as in Nayuki's QR Code generator), as runs of code point indices.
 */
const optimalRuns = (points: Int32Array, count: number, group: number): Array<Run> => {
  const headByte = (4 + countBits[BYTE][group]) * 6
  const headAlnum = (4 + countBits[ALNUM][group]) * 6
  const headNumeric = (4 + countBits[NUMERIC][group]) * 6
  const head = [headByte, headAlnum, headNumeric]
  // from[i * 3 + j]: the mode code point i is in when the state after it is mode j.
  const from = new Int8Array(count * 3)
  let prevByte = headByte
  let prevAlnum = headAlnum
  let prevNumeric = headNumeric
  const cost = [0, 0, 0]
  const via = [0, 0, 0]
  for (let i = 0; i < count; i++) {
    const cp = points[i]
    cost[BYTE] = prevByte + utf8Length(cp) * 48
    via[BYTE] = BYTE
    const alnum = cp < 128 && ALNUM_VALUE[cp] >= 0
    cost[ALNUM] = alnum ? prevAlnum + 33 : Infinity
    via[ALNUM] = alnum ? ALNUM : -1
    const numeric = cp >= 48 && cp <= 57
    cost[NUMERIC] = numeric ? prevNumeric + 20 : Infinity
    via[NUMERIC] = numeric ? NUMERIC : -1
    // Or end the segment after this code point and start one in another mode.
    const endByte = Math.ceil(cost[BYTE] / 6) * 6
    const endAlnum = Math.ceil(cost[ALNUM] / 6) * 6
    const endNumeric = Math.ceil(cost[NUMERIC] / 6) * 6
    for (let to = 0; to < 3; to++) {
      const h = head[to]
      if (endByte + h < cost[to]) {
        cost[to] = endByte + h
        via[to] = BYTE
      }
      if (alnum && endAlnum + h < cost[to]) {
        cost[to] = endAlnum + h
        via[to] = ALNUM
      }
      if (numeric && endNumeric + h < cost[to]) {
        cost[to] = endNumeric + h
        via[to] = NUMERIC
      }
    }
    from[i * 3] = via[0]
    from[i * 3 + 1] = via[1]
    from[i * 3 + 2] = via[2]
    prevByte = cost[0]
    prevAlnum = cost[1]
    prevNumeric = cost[2]
  }
  const final = [prevByte, prevAlnum, prevNumeric]
  let state = 0
  for (let j = 1; j < 3; j++) if (final[j] < final[state]) state = j
  const modes = new Int8Array(count)
  for (let i = count - 1; i >= 0; i--) {
    state = from[i * 3 + state]
    modes[i] = state
  }
  const runs: Array<Run> = []
  for (let i = 0; i < count; ) {
    let j = i + 1
    while (j < count && modes[j] === modes[i]) j++
    runs.push({ mode: modes[i], from: i, to: j })
    i = j
  }
  return runs
}

const runBits = (run: Run, points: Int32Array, group: number): number => {
  const n = run.to - run.from
  const header = 4 + countBits[run.mode][group]
  if (run.mode === NUMERIC) return header + 10 * Math.floor(n / 3) + [0, 4, 7][n % 3]
  if (run.mode === ALNUM) return header + 11 * Math.floor(n / 2) + 6 * (n % 2)
  let bytes = 0
  for (let i = run.from; i < run.to; i++) bytes += utf8Length(points[i])
  return header + bytes * 8
}

/** Smallest version (and its segmentation) whose level-M capacity holds `text`. */
const plan = (text: string) => {
  const { points, starts, count } = codePoints(text)
  for (let group = 0; group < 3; group++) {
    const runs = optimalRuns(points, count, group)
    let bits = 0
    for (const run of runs) bits += runBits(run, points, group)
    for (let version = groupFirst[group]; version <= groupLast[group]; version++) {
      if (bits <= dataCodewords(version) * 8) return { version, runs, points, starts, group }
    }
  }
  throw new RangeError(`text of ${text.length} characters does not fit in a QR code at level M`)
}

/** The segments the symbol of `text` is made of (what a decoder reads back, in order). */
export const segments = (text: string): Array<Segment> => {
  const { runs, starts } = plan(text)
  return runs.map((run) => ({
    mode: modeNames[run.mode],
    text: text.slice(starts[run.from], starts[run.to])
  }))
}

/** Data codewords of `runs` for `version`, terminated and padded to capacity. */
const dataBytes = (runs: ReadonlyArray<Run>, points: Int32Array, version: number, group: number) => {
  const out = new Uint8Array(totalCodewords(version))
  const capacity = dataCodewords(version)
  let acc = 0
  let accBits = 0
  let at = 0
  const put = (value: number, length: number) => {
    for (let i = length - 1; i >= 0; i--) {
      acc = (acc << 1) | ((value >>> i) & 1)
      if (++accBits === 8) {
        out[at++] = acc
        acc = 0
        accBits = 0
      }
    }
  }
  for (const run of runs) {
    put(modeIndicator[run.mode], 4)
    const cc = countBits[run.mode][group]
    if (run.mode === NUMERIC) {
      put(run.to - run.from, cc)
      for (let i = run.from; i < run.to; i += 3) {
        const n = Math.min(3, run.to - i)
        let value = 0
        for (let k = 0; k < n; k++) value = value * 10 + points[i + k] - 48
        put(value, n === 3 ? 10 : n === 2 ? 7 : 4)
      }
    } else if (run.mode === ALNUM) {
      put(run.to - run.from, cc)
      for (let i = run.from; i < run.to; i += 2) {
        if (i + 1 < run.to) put(ALNUM_VALUE[points[i]] * 45 + ALNUM_VALUE[points[i + 1]], 11)
        else put(ALNUM_VALUE[points[i]], 6)
      }
    } else {
      let bytes = 0
      for (let i = run.from; i < run.to; i++) bytes += utf8Length(points[i])
      put(bytes, cc)
      for (let i = run.from; i < run.to; i++) {
        const cp = points[i]
        if (cp < 0x80) put(cp, 8)
        else if (cp < 0x800) put(((0xc0 | (cp >> 6)) << 8) | 0x80 | (cp & 0x3f), 16)
        else if (cp < 0x10000)
          put(((0xe0 | (cp >> 12)) << 16) | ((0x80 | ((cp >> 6) & 0x3f)) << 8) | 0x80 | (cp & 0x3f), 24)
        else {
          put(0xf0 | (cp >> 18), 8)
          put(
            ((0x80 | ((cp >> 12) & 0x3f)) << 16) | ((0x80 | ((cp >> 6) & 0x3f)) << 8) | 0x80 | (cp & 0x3f),
            24
          )
        }
      }
    }
  }
  // Terminator (up to 4 zero bits), zero bits to a byte boundary, then the pad codewords.
  if (at * 8 + accBits + 4 <= capacity * 8) put(0, 4)
  if (accBits > 0) put(0, 8 - accBits)
  for (let pad = 0xec; at < capacity; pad ^= 0xec ^ 0x11) out[at++] = pad
  return out
}

/** Data and error correction codewords, split into blocks and interleaved. */
const codewords = (data: Uint8Array, version: number): Uint8Array => {
  const total = totalCodewords(version)
  const blocks = BLOCKS[version]
  const ecc = ECC_PER_BLOCK[version]
  const shortBlocks = blocks - (total % blocks)
  const shortData = Math.floor(total / blocks) - ecc
  const eccOut = new Uint8Array(blocks * ecc) // zeros: each block's register starts empty
  const starts = new Int32Array(blocks + 1)
  for (let b = 0; b < blocks; b++) starts[b + 1] = starts[b] + shortData + (b < shortBlocks ? 0 : 1)
  for (let b = 0; b < blocks; b++) reedSolomon(data, starts[b], starts[b + 1], ecc, eccOut, b * ecc)
  const out = new Uint8Array(total)
  let at = 0
  for (let i = 0; i <= shortData; i++) {
    for (let b = 0; b < blocks; b++) {
      if (i < shortData || b >= shortBlocks) out[at++] = data[starts[b] + i]
    }
  }
  for (let i = 0; i < ecc; i++) for (let b = 0; b < blocks; b++) out[at++] = eccOut[b * ecc + i]
  return out
}

/**
 * The QR symbol of `text` at level M: smallest version, optimal segmentation, lowest-penalty
 * mask (or `options.mask`). Throws a RangeError if the text does not fit in version 40.
 */
export const encode = (text: string, options?: { readonly mask?: number }): Matrix => {
  const { version, runs, points, group } = plan(text)
  const bytes = codewords(dataBytes(runs, points, version, group), version)
  const { size, base, order, flips, format } = template(version)
  const placed = base.slice()
  for (let k = 0, n = Math.min(order.length, bytes.length * 8); k < n; k++) {
    placed[order[k]] = (bytes[k >> 3] >> (7 - (k & 7))) & 1
  }
  // The symbol under all 8 masks at once: bit p of a module's byte is its colour under mask p.
  const lanes = new Uint8Array(placed.length)
  for (let i = 0; i < placed.length; i++) lanes[i] = (-placed[i] & 0xff) ^ flips[i]
  for (let i = 0; i < 15; i++) {
    lanes[format[i]] = FORMAT_LANES[i]
    lanes[format[15 + i]] = FORMAT_LANES[i]
  }
  let mask = options?.mask ?? -1
  if (mask === -1) {
    const scores = penalties(lanes, size)
    mask = 0
    for (let candidate = 1; candidate < 8; candidate++) if (scores[candidate] < scores[mask]) mask = candidate
  } else if (!Number.isInteger(mask) || mask < 0 || mask > 7) {
    throw new RangeError(`mask must be an integer from 0 to 7, got ${mask}`)
  }
  const modules = new Uint8Array(lanes.length)
  for (let i = 0; i < lanes.length; i++) modules[i] = (lanes[i] >> mask) & 1
  return { version, mask, size, modules }
}
