import { crc32 } from "node:zlib"
import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck as fc } from "effect"
import jsqrModule from "jsqr"
import { PNG } from "pngjs"
import { create } from "qrcode"
import * as BrCode from "../src/pix/BrCode.js"
import * as QrImage from "../src/pix/QrImage.js"
import * as QrMatrix from "../src/pix/QrMatrix.js"

const brCode = (input: BrCode.BrCodeInput): string => Either.getOrThrow(BrCode.encode(input))

const codes = {
  "BCB static example":
    "00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D",
  "BCB dynamic example":
    "00020101021226700014br.gov.bcb.pix2548pix.example.com/8b3da2f39a4140d1a91abd93113bd4415204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***630464E4",
  "Pixgate charge": brCode({
    kind: "dynamic",
    location: "pix.pixgate.dev/v2/cob/7d9f0335-8dcc-4054-9bf9-0dbd61d36906",
    amountCents: 1050,
    merchantName: "Loja São João",
    merchantCity: "São Paulo"
  }),
  "long dynamic (77-character location, large amount)": brCode({
    kind: "dynamic",
    location: `pix.pixgate.dev/v2/cob/${"a1b2c3d4e5".repeat(5)}abcd`,
    amountCents: 999_999_999_999,
    merchantName: "Comércio de Alimentos Saudáveis",
    merchantCity: "Florianópolis SC",
    mcc: "5812"
  }),
  "static with description and reference": brCode({
    kind: "static",
    pixKey: "fulano.de.tal@example.com.br",
    description: "Mensalidade de março",
    amountCents: 12_990,
    merchantName: "Fulano de Tal",
    merchantCity: "Recife",
    reference: "MENSALIDADE0325"
  })
}

// jsqr is CommonJS typed as `export default`: Node hands over the function itself as the default
// import, while TypeScript (NodeNext) sees a module object holding it under `default`.
const jsQR = jsqrModule as unknown as typeof jsqrModule.default

const read = (bytes: Uint8Array) => PNG.sync.read(Buffer.from(bytes))

const scan = (bytes: Uint8Array): string | undefined => {
  const image = read(bytes)
  return jsQR(new Uint8ClampedArray(image.data), image.width, image.height)?.data
}

describe("png", () => {
  it.each(Object.entries(codes))("%s decodes back to exactly the text (pngjs + jsQR)", (_name, code) => {
    expect(scan(QrImage.png(code))).toBe(code)
  })

  it("reads back through pngBase64 as well", () => {
    const code = codes["long dynamic (77-character location, large amount)"]
    expect(scan(Buffer.from(QrImage.pngBase64(code), "base64"))).toBe(code)
  })

  it("is a 1-bit grayscale PNG of (modules + 2 x margin) x scale pixels", () => {
    const code = codes["Pixgate charge"]
    const bytes = QrImage.png(code)
    expect([...bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
    expect(new TextDecoder().decode(bytes.subarray(12, 16))).toBe("IHDR")
    expect(bytes[24]).toBe(1) // bit depth
    expect(bytes[25]).toBe(0) // color type: grayscale
    expect(new TextDecoder().decode(bytes.subarray(bytes.length - 8, bytes.length - 4))).toBe("IEND")
    const side =
      (create(code, { errorCorrectionLevel: "M" }).modules.size + 2 * QrImage.defaultMargin) *
      QrImage.defaultScale
    const image = read(bytes)
    expect([image.width, image.height]).toEqual([side, side])
    expect(QrImage.defaultScale).toBe(6)
    expect(QrImage.defaultMargin).toBe(4)
  })

  it("has valid chunk CRCs (node:zlib crc32) in the order IHDR, IDAT, IEND", () => {
    const bytes = Buffer.from(QrImage.png(codes["BCB static example"]))
    const chunks: Array<string> = []
    for (let at = 8; at < bytes.length; ) {
      const length = bytes.readUInt32BE(at)
      const typeAndData = bytes.subarray(at + 4, at + 8 + length)
      expect(bytes.readUInt32BE(at + 8 + length)).toBe(crc32(typeAndData))
      chunks.push(typeAndData.subarray(0, 4).toString("latin1"))
      at += 12 + length
    }
    expect(chunks).toEqual(["IHDR", "IDAT", "IEND"])
  })

  it("is refused by pngjs once a chunk CRC is corrupted, so its CRC check is live", async () => {
    const bytes = QrImage.png(codes["BCB static example"])
    const parse = (data: Uint8Array) =>
      new Promise<void>((resolve, reject) =>
        new PNG().parse(Buffer.from(data), (error) => (error ? reject(error) : resolve()))
      )
    await expect(parse(bytes)).resolves.toBeUndefined()
    for (const at of [8 + 8 + 13, bytes.length - 12 - 4]) {
      const corrupted = Uint8Array.from(bytes)
      corrupted[at] = corrupted[at] ^ 0x01
      await expect(parse(corrupted)).rejects.toThrow(/Crc error/)
    }
  })

  it.each([
    [{ scale: 0 }, "scale must be an integer from 1 to 64, got 0"],
    [{ scale: 1.5 }, "scale must be an integer from 1 to 64, got 1.5"],
    [{ scale: 65 }, "scale must be an integer from 1 to 64, got 65"],
    [{ margin: -1 }, "margin must be an integer from 0 to 64, got -1"]
  ])("refuses options %j", (options, message) => {
    expect(() => QrImage.png("x", options)).toThrow(new RangeError(message))
  })

  it.prop(
    "every pixel is the colour of its module, for any text, scale and margin",
    [
      fc.string({ unit: "binary", minLength: 1, maxLength: 300 }),
      fc.integer({ min: 1, max: 5 }),
      fc.integer({ min: 0, max: 6 })
    ],
    ([text, scale, margin]) => {
      // The matrix the image is drawn from (test/QrMatrix.test.ts holds it to qrcode and to decoders).
      const { size, modules: data } = QrMatrix.encode(text)
      const bytes = QrImage.png(text, { scale, margin })
      expect(QrImage.pngBase64(text, { scale, margin })).toBe(Buffer.from(bytes).toString("base64"))
      const image = read(bytes)
      const side = (size + 2 * margin) * scale
      expect([image.width, image.height]).toEqual([side, side])
      const wrong: Array<[number, number]> = []
      for (let y = 0; y < side; y++) {
        const row = Math.floor(y / scale) - margin
        for (let x = 0; x < side; x++) {
          const col = Math.floor(x / scale) - margin
          const dark = row >= 0 && row < size && col >= 0 && col < size && data[row * size + col] === 1
          const offset = (y * side + x) * 4
          if (image.data[offset] !== (dark ? 0 : 255) || image.data[offset + 3] !== 255) wrong.push([x, y])
        }
      }
      expect(wrong.slice(0, 5)).toEqual([])
    },
    { fastCheck: { numRuns: 60 } }
  )
})
