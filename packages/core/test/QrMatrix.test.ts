import { describe, expect, it } from "@effect/vitest"
import { must } from "@pixgate/testkit/must"
import {
  BinaryBitmap,
  DecodeHintType,
  HybridBinarizer,
  QRCodeReader,
  ResultMetadataType,
  RGBLuminanceSource
} from "@zxing/library"
import { Either, FastCheck as fc } from "effect"
import jsqrModule from "jsqr"
import { PNG } from "pngjs"
import { create, type QRCodeMaskPattern, type QRCodeSegment } from "qrcode"
import * as BrCode from "../src/pix/BrCode.js"
import * as QrImage from "../src/pix/QrImage.js"
import * as QrMatrix from "../src/pix/QrMatrix.js"

// jsqr is CommonJS typed as `export default`: Node hands over the function itself.
const jsQR = jsqrModule as unknown as typeof jsqrModule.default

/** The PNG the API answers, read back into RGBA pixels (scale kept small for big versions). */
const image = (text: string) => {
  const version = QrMatrix.encode(text).version
  const png = PNG.sync.read(Buffer.from(QrImage.png(text, { scale: version > 20 ? 2 : 3 })))
  return { version, png }
}

/** jsQR's reading of the PNG: text, raw bytes and version. */
const readJsQr = (text: string) => {
  const { png } = image(text)
  const result = jsQR(new Uint8ClampedArray(png.data), png.width, png.height)
  return result === null
    ? undefined
    : { text: result.data, bytes: Uint8Array.from(result.binaryData), version: result.version }
}

/**
 * ZXing's reading of the PNG (UTF-8 for byte segments): text and error correction level.
 * `pure` skips ZXing's finder-pattern detector and reads the image as a bare symbol: its
 * detector misses a few symbols whatever their renderer (qrcode's own PNG of
 * "𒂼𼋃𵷎􃷵򈞝𰤩񨝦𪗹𿳲򙹉" at scale 3 is refused alike), so the random-payload property
 * reads that way while versions and BR Codes go through the detector.
 */
const readZxing = (text: string, pure = false) => {
  const { png } = image(text)
  const luminance = new Uint8ClampedArray(png.width * png.height)
  for (let i = 0; i < luminance.length; i++) luminance[i] = png.data[i * 4]
  const bitmap = new BinaryBitmap(
    new HybridBinarizer(new RGBLuminanceSource(luminance, png.width, png.height))
  )
  const hints = new Map<DecodeHintType, unknown>([[DecodeHintType.CHARACTER_SET, "UTF-8"]])
  if (pure) hints.set(DecodeHintType.PURE_BARCODE, true)
  const result = new QRCodeReader().decode(bitmap, hints)
  return {
    text: result.getText(),
    level: result.getResultMetadata().get(ResultMetadataType.ERROR_CORRECTION_LEVEL)
  }
}

/** Both decoders give back exactly `text`, from a level-M symbol. */
const expectDecodes = (text: string, pure = false) => {
  const js = readJsQr(text)
  expect(js?.text).toBe(text)
  expect(js?.bytes).toEqual(new TextEncoder().encode(text))
  const zx = readZxing(text, pure)
  expect(zx.text).toBe(text)
  expect(zx.level).toBe("M")
}

/** `qrcode` given the same segments and version (and mask, if asked): the oracle module for module. */
const oracle = (text: string, version: number, mask?: number) =>
  create(
    QrMatrix.segments(text).map(
      (s): QRCodeSegment =>
        s.mode === "byte"
          ? { mode: "byte", data: new TextEncoder().encode(s.text) }
          : s.mode === "numeric"
            ? { mode: "numeric", data: s.text }
            : { mode: "alphanumeric", data: s.text }
    ),
    mask === undefined
      ? { errorCorrectionLevel: "M", version }
      : { errorCorrectionLevel: "M", version, maskPattern: mask as QRCodeMaskPattern }
  )

const expectSameAsQrcode = (text: string, mask?: number) => {
  const ours = QrMatrix.encode(text, mask === undefined ? undefined : { mask })
  const theirs = oracle(text, ours.version, mask)
  expect(ours.size).toBe(theirs.modules.size)
  expect(ours.mask).toBe(theirs.maskPattern)
  expect(Buffer.from(ours.modules).equals(Buffer.from(theirs.modules.data))).toBe(true)
}

/** The longest text of lowercase letters (one byte segment) that fits in `version`. */
const fillVersion = (version: number): string => {
  let low = 1
  let high = 2400
  while (low < high) {
    const mid = (low + high + 1) >> 1
    const fits = (() => {
      try {
        return QrMatrix.encode("q".repeat(mid)).version <= version
      } catch {
        return false
      }
    })()
    if (fits) low = mid
    else high = mid - 1
  }
  const letters = "abcdefghijklmnopqrstuvwxyz"
  return Array.from({ length: low }, (_, i) => letters[(i * 7 + version) % 26]).join("")
}

const versions = Array.from({ length: 40 }, (_, i) => i + 1)
const filled = new Map(versions.map((v) => [v, fillVersion(v)]))

const brCode = (input: BrCode.BrCodeInput): string => Either.getOrThrow(BrCode.encode(input))

/** BR Codes from the shortest to the longest the engine can build (dynamic and static). */
const brCodes = [
  brCode({ kind: "dynamic", location: "a.b/c", merchantName: "X", merchantCity: "Y" }),
  brCode({
    kind: "dynamic",
    location: "pix.pixgate.dev/v2/cob/7d9f0335-8dcc-4054-9bf9-0dbd61d36906",
    amountCents: 1050,
    merchantName: "Loja São João",
    merchantCity: "São Paulo"
  }),
  brCode({
    kind: "dynamic",
    location: `pix.pixgate.dev/v2/cob/${"A1b2C3d4E5".repeat(5)}abcd`,
    amountCents: 999_999_999_999,
    merchantName: "Comércio de Alimentos Saudáveis",
    merchantCity: "Florianópolis SC",
    mcc: "5812"
  }),
  brCode({
    kind: "dynamic",
    location: "z".repeat(77),
    amountCents: 999_999_999_999,
    merchantName: "m".repeat(25),
    merchantCity: "c".repeat(15),
    mcc: "5812"
  }),
  brCode({
    kind: "static",
    pixKey: "k".repeat(77),
    amountCents: 999_999_999_999,
    merchantName: "m".repeat(25),
    merchantCity: "c".repeat(15),
    reference: "R".repeat(25),
    mcc: "5812"
  }),
  brCode({ kind: "static", pixKey: "+5511999998888", merchantName: "Fulano", merchantCity: "Recife" }),
  brCode({
    kind: "static",
    // Field 26 is at most 99 characters: GUI (18) + key (4 + 36) + description (4 + 37).
    pixKey: "123e4567-e12b-12d1-a456-426655440000",
    description: "d".repeat(37),
    amountCents: 999_999_999_999,
    merchantName: "m".repeat(25),
    merchantCity: "c".repeat(15),
    reference: "R".repeat(25),
    mcc: "5812"
  })
]

describe("QrMatrix", () => {
  it("reaches every version 1-40 with the lengths that fill them", () => {
    for (const version of versions) {
      const text = must(filled.get(version), "filled.get(version)")
      expect(QrMatrix.encode(text).version).toBe(version)
      if (version < 40) expect(QrMatrix.encode(`${text}q`).version).toBe(version + 1)
    }
    expect(() => QrMatrix.encode(`${filled.get(40)}q`)).toThrow(RangeError)
  })

  it.each(versions)("version %i decodes back exactly with jsQR and ZXing (level M)", (version) => {
    const text = must(filled.get(version), "filled.get(version)")
    expectDecodes(text)
    expect(readJsQr(text)?.version).toBe(version)
  })

  it.each(versions)("version %i is module for module what qrcode makes of the same segments", (version) => {
    expectSameAsQrcode(must(filled.get(version), "filled.get(version)"))
  })

  it.each([0, 1, 2, 3, 4, 5, 6, 7])(
    "mask %i is applied as qrcode applies it (versions 1, 7, 14, 40)",
    (mask) => {
      for (const version of [1, 7, 14, 40])
        expectSameAsQrcode(must(filled.get(version), "filled.get(version)"), mask)
    }
  )

  it("refuses a mask outside 0-7", () => {
    expect(() => QrMatrix.encode("x", { mask: 8 })).toThrow(
      new RangeError("mask must be an integer from 0 to 7, got 8")
    )
  })

  it.each(brCodes.map((code) => [code.length, code] as const))(
    "a BR Code of %i characters decodes back exactly and matches qrcode",
    (_length, code) => {
      expectDecodes(code)
      expectSameAsQrcode(code)
      // Never a bigger symbol than qrcode's own segmentation gives.
      expect(QrMatrix.encode(code).version).toBeLessThanOrEqual(
        create(code, { errorCorrectionLevel: "M" }).version
      )
    }
  )

  it("segments are the text in order, each in a mode that can hold it", () => {
    const text = "00020101021226700014br.gov.bcb.pix2548PIX.EXAMPLE.COM/8b3da2f3 é 😀 12345678901234567890"
    const segments = QrMatrix.segments(text)
    expect(segments.map((s) => s.text).join("")).toBe(text)
    for (const s of segments) {
      if (s.mode === "numeric") expect(s.text).toMatch(/^[0-9]+$/)
      if (s.mode === "alphanumeric") expect(s.text).toMatch(/^[0-9A-Z $%*+\-./:]+$/)
    }
    expect(new Set(segments.map((s) => s.mode))).toEqual(new Set(["numeric", "alphanumeric", "byte"]))
  })

  it.prop(
    "any text (code points of every range) decodes back exactly with jsQR and ZXing",
    [fc.string({ unit: "binary", minLength: 1, maxLength: 120 })],
    ([text]) => expectDecodes(text, true),
    { fastCheck: { numRuns: 25 } }
  )

  it.prop(
    "mixed numeric / alphanumeric / byte text decodes back exactly and matches qrcode",
    [
      fc.string({
        unit: fc.constantFrom(..."0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:abcxyz#é€"),
        minLength: 1,
        maxLength: 400
      })
    ],
    ([text]) => {
      expectDecodes(text, true)
      expectSameAsQrcode(text)
      expect(QrMatrix.encode(text).version).toBeLessThanOrEqual(
        create(text, { errorCorrectionLevel: "M" }).version
      )
    },
    { fastCheck: { numRuns: 40 } }
  )
})
