import { describe, expect, it } from "vitest"
import * as BrCode from "../src/BrCode.js"

describe("BrCode", () => {
  it("CRC-16/CCITT-FALSE matches the algorithm's check value", () => {
    expect(BrCode.crc16("123456789")).toBe("29B1")
  })

  it("a dynamic BR Code carries the location and ends with the CRC of everything before it", () => {
    const code = BrCode.dynamic({
      location: "psp.example/qr/v2/abc",
      merchantName: "LOJA",
      merchantCity: "RIO"
    })
    expect(code).toContain("0014br.gov.bcb.pix2521psp.example/qr/v2/abc")
    expect(code.slice(-4)).toBe(BrCode.crc16(code.slice(0, -4)))
    expect(code.slice(-8, -4)).toBe("6304")
  })
})
