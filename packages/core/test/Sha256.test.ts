import { describe, expect, it } from "@effect/vitest"
import { Effect, FastCheck as fc } from "effect"
import * as Sha256 from "../src/domain/Sha256.js"

const toHex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")
const fromHex = (hex: string) => Uint8Array.from(hex.match(/../g) ?? [], (h) => Number.parseInt(h, 16))
const utf8 = (text: string) => new TextEncoder().encode(text)
const concat = (...parts: ReadonlyArray<Uint8Array>) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}

const subtle = globalThis.crypto.subtle
const webDigest = (data: Uint8Array) =>
  Effect.promise(() => subtle.digest("SHA-256", Uint8Array.from(data))).pipe(
    Effect.map((d) => new Uint8Array(d))
  )
const webHmac = (key: Uint8Array, data: Uint8Array) =>
  Effect.promise(async () => {
    const k = await subtle.importKey("raw", Uint8Array.from(key), { name: "HMAC", hash: "SHA-256" }, false, [
      "sign"
    ])
    return new Uint8Array(await subtle.sign("HMAC", k, Uint8Array.from(data)))
  })

/** 0..300 bytes, with the padding edges (55/56 bytes leave room for the length or not; 64 is a block). */
const length = fc.oneof(
  fc.integer({ min: 0, max: 300 }),
  fc.constantFrom(0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 121, 127, 128, 129, 183, 184, 192, 300)
)
const bytes = length.chain((n) => fc.uint8Array({ minLength: n, maxLength: n }))
/** ASCII, any code point, and raw UTF-16 code units (lone surrogates included). */
const text = fc.oneof(
  fc.string({ maxLength: 300 }),
  fc.fullUnicodeString({ maxLength: 100 }),
  fc
    .array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 120 })
    .map((units) => String.fromCharCode(...units))
)
/** HMAC keys up to 200 bytes: shorter than, exactly and longer than a 64-byte block. */
const key = fc.oneof(
  fc.uint8Array({ minLength: 1, maxLength: 200 }),
  fc.constantFrom(63, 64, 65).chain((n) => fc.uint8Array({ minLength: n, maxLength: n }))
)

describe("Sha256", () => {
  describe("digest (FIPS 180-4 examples)", () => {
    const vectors: ReadonlyArray<readonly [string, string]> = [
      ["", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"],
      ["abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"],
      [
        "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
      ],
      [
        "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
        "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
      ],
      ["a".repeat(1_000_000), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"]
    ]

    it("matches the examples, from text and from bytes, as bytes and as hex", () => {
      for (const [message, expected] of vectors) {
        expect(Sha256.hex(message)).toBe(expected)
        expect(Sha256.hex(utf8(message))).toBe(expected)
        expect(toHex(Sha256.digest(message))).toBe(expected)
      }
    })
  })

  describe("hmac (RFC 4231 test cases)", () => {
    const repeat = (byte: number, n: number) => new Uint8Array(n).fill(byte)
    const longKey = repeat(0xaa, 131)
    const cases: ReadonlyArray<readonly [Uint8Array, Uint8Array, string]> = [
      [
        repeat(0x0b, 20),
        utf8("Hi There"),
        "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
      ],
      [
        utf8("Jefe"),
        utf8("what do ya want for nothing?"),
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
      ],
      [
        repeat(0xaa, 20),
        repeat(0xdd, 50),
        "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"
      ],
      [
        Uint8Array.from({ length: 25 }, (_, i) => i + 1),
        repeat(0xcd, 50),
        "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"
      ],
      // Test case 5 publishes the first 128 bits only.
      [repeat(0x0c, 20), utf8("Test With Truncation"), "a3b6167473100ee06e0c796c2955552b"],
      [
        longKey,
        utf8("Test Using Larger Than Block-Size Key - Hash Key First"),
        "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
      ],
      [
        longKey,
        utf8(
          "This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm."
        ),
        "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"
      ]
    ]

    it("matches the test cases", () => {
      for (const [k, data, expected] of cases) {
        expect(toHex(Sha256.hmac(k, data)).slice(0, expected.length)).toBe(expected)
      }
    })

    it("signs an empty key and an empty message", () => {
      // Web Crypto refuses an empty key; RFC 2104 does not (value from Python's hmac module).
      expect(toHex(Sha256.hmac(new Uint8Array(0), ""))).toBe(
        "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad"
      )
    })
  })

  describe("against Web Crypto", () => {
    it.effect("digest agrees at every length from 0 to 300 bytes", () =>
      Effect.gen(function* () {
        for (let n = 0; n <= 300; n++) {
          const data = globalThis.crypto.getRandomValues(new Uint8Array(n))
          expect(toHex(Sha256.digest(data)), `${n} bytes`).toBe(toHex(yield* webDigest(data)))
        }
      })
    )

    it.effect.prop("digest agrees on bytes", { data: bytes }, ({ data }) =>
      Effect.gen(function* () {
        const expected = toHex(yield* webDigest(data))
        expect(toHex(Sha256.digest(data))).toBe(expected)
        expect(Sha256.hex(data)).toBe(expected)
      })
    )

    it.effect.prop(
      "digest reads a view at its offset, not the buffer under it",
      { data: bytes, before: fc.nat(70), after: fc.nat(70) },
      ({ data, before, after }) =>
        Effect.gen(function* () {
          const buffer = globalThis.crypto.getRandomValues(new Uint8Array(before + data.length + after))
          buffer.set(data, before)
          const view = buffer.subarray(before, before + data.length)
          expect(Sha256.hex(view)).toBe(toHex(yield* webDigest(data)))
        })
    )

    it.effect.prop("digest hashes text as its UTF-8 (lone surrogates as U+FFFD)", { text }, ({ text }) =>
      Effect.gen(function* () {
        expect(Sha256.hex(text)).toBe(toHex(yield* webDigest(utf8(text))))
      })
    )

    it.effect.prop(
      "digest of parts is the digest of their concatenation",
      { parts: fc.array(fc.oneof(bytes, text), { maxLength: 5 }) },
      ({ parts }) =>
        Effect.gen(function* () {
          const joined = concat(...parts.map((p) => (typeof p === "string" ? utf8(p) : p)))
          expect(Sha256.hex(parts)).toBe(toHex(yield* webDigest(joined)))
        })
    )

    it.effect.prop("hmac agrees on bytes", { key, data: bytes }, ({ key, data }) =>
      Effect.gen(function* () {
        expect(toHex(Sha256.hmac(key, data))).toBe(toHex(yield* webHmac(key, data)))
      })
    )

    it.effect.prop("hmac agrees on text and on parts", { key, text, data: bytes }, ({ key, text, data }) =>
      Effect.gen(function* () {
        expect(toHex(Sha256.hmac(key, text))).toBe(toHex(yield* webHmac(key, utf8(text))))
        expect(toHex(Sha256.hmac(key, [text, data]))).toBe(
          toHex(yield* webHmac(key, concat(utf8(text), data)))
        )
      })
    )
  })

  it("returns a fresh array each call (the shared state never leaks out)", () => {
    const first = Sha256.digest("abc")
    const second = Sha256.digest("abd")
    expect(first).not.toBe(second)
    expect(toHex(first)).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    expect(Sha256.hmac(fromHex("0b0b"), "x")).not.toBe(Sha256.hmac(fromHex("0b0b"), "x"))
  })

  it("compares secrets and byte strings whole: equal only when equal, whatever the lengths", () => {
    expect(Sha256.sameSecret("s3cret-value", "s3cret-value")).toBe(true)
    expect(Sha256.sameSecret("s3cret-value", "s3cret-valuf")).toBe(false)
    expect(Sha256.sameSecret("", "s3cret-value")).toBe(false)
    expect(Sha256.equalBytes(fromHex("0102"), fromHex("0102"))).toBe(true)
    expect(Sha256.equalBytes(fromHex("0102"), fromHex("010203"))).toBe(false)
    expect(Sha256.equalBytes(fromHex("010203"), fromHex("0102"))).toBe(false)
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => {
        expect(Sha256.sameSecret(a, b)).toBe(a === b)
      })
    )
  })
})
