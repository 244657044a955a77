import { createHash } from "node:crypto"
import { describe, expect, it } from "@effect/vitest"
import { Effect, FastCheck as fc } from "effect"
import * as Ids from "../src/Ids.js"

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
const ULID_TIME_MAX = 2 ** 48 - 1
const decodeTime = (id: string) =>
  [...id.slice(id.indexOf("_") + 1, id.indexOf("_") + 11)].reduce(
    (acc, c) => acc * 32 + CROCKFORD.indexOf(c),
    0
  )
const draw = <A>(n: number, f: () => A) => Array.from({ length: n }, f)
/** 2000-01-01 to 2099-12-31 UTC, in milliseconds. */
const times = fc.integer({ min: 946_684_800_000, max: 4_102_444_799_999 })

describe("Ids", () => {
  describe("newId", () => {
    it.prop(
      "is the prefix and a 26-char ULID encoding the time",
      { ms: fc.integer({ min: 0, max: ULID_TIME_MAX }) },
      ({ ms }) => {
        const id = Ids.newId("txn", ms)
        expect(id).toMatch(/^txn_[0-7][0-9A-HJKMNP-TV-Z]{25}$/)
        expect(decodeTime(id)).toBe(ms)
      }
    )

    it.prop("sorts in time order", { a: times, b: times }, ({ a, b }) => {
      const [first, second] = [Ids.newId("txn", a), Ids.newId("txn", b)]
      expect(first < second).toBe(a <= b)
    })

    it("is unique and increasing within one millisecond (monotonic tail)", () => {
      const ids = draw(10_000, () => Ids.newId("txn", 1_767_225_600_000))
      expect(new Set(ids).size).toBe(ids.length)
      expect([...ids].sort()).toEqual(ids)
    })

    it("refuses a time a ULID cannot hold", () => {
      for (const ms of [-1, 1.5, 2 ** 48, Number.NaN]) {
        expect(() => Ids.newId("txn", ms)).toThrow(RangeError)
      }
    })
  })

  describe("txid", () => {
    it("is 32 alphanumerics, unique over many draws", () => {
      const txids = draw(10_000, Ids.newTxid)
      for (const txid of txids) {
        expect(txid).toMatch(/^[a-zA-Z0-9]{32}$/)
        expect(Ids.isTxid(txid)).toBe(true)
      }
      expect(new Set(txids).size).toBe(txids.length)
    })

    it("accepts 26 to 35 alphanumerics only", () => {
      expect(Ids.isTxid("a".repeat(26))).toBe(true)
      expect(Ids.isTxid("Z9".repeat(17) + "x")).toBe(true)
      for (const bad of ["a".repeat(25), "a".repeat(36), `${"a".repeat(31)}-`, `${"a".repeat(31)}ç`, ""]) {
        expect(Ids.isTxid(bad)).toBe(false)
      }
    })
  })

  describe("endToEndId", () => {
    it.prop("is 32 chars: E, ISPB, UTC yyyyMMddHHmm, 11 alphanumerics", { ms: times }, ({ ms }) => {
      const id = Ids.newEndToEndId("18236120", ms)
      expect(id).toHaveLength(32)
      expect(id).toMatch(/^E18236120\d{12}[a-zA-Z0-9]{11}$/)
      const iso = new Date(ms).toISOString()
      expect(id.slice(9, 21)).toBe(iso.slice(0, 16).replace(/\D/g, ""))
      expect(Ids.isEndToEndId(id)).toBe(true)
    })

    it("embeds the UTC minute, whatever the local time zone", () => {
      const id = Ids.newEndToEndId("00000000", Date.UTC(2026, 0, 31, 23, 59, 59, 999))
      expect(id.slice(0, 21)).toBe("E00000000202601312359")
    })

    it("is unique over many draws", () => {
      const ids = draw(10_000, () => Ids.newEndToEndId("18236120", 1_767_225_600_000))
      expect(new Set(ids).size).toBe(ids.length)
    })

    it("refuses malformed ids and impossible timestamps", () => {
      const tail = "abcDEF12345"
      expect(Ids.isEndToEndId(`E18236120202602281200${tail}`)).toBe(true)
      for (const bad of [
        `E18236120202602301200${tail}`,
        `E18236120202613011200${tail}`,
        `E18236120202602282400${tail}`,
        `E18236120202602281260${tail}`,
        `e18236120202602281200${tail}`,
        `E1823612202602281200${tail}`,
        `E18236120202602281200${tail}0`,
        `E18236120202602281200abcDEF1234-`
      ]) {
        expect(Ids.isEndToEndId(bad), bad).toBe(false)
      }
    })

    it("refuses an ISPB that is not 8 digits", () => {
      expect(() => Ids.newEndToEndId("1823612", 0)).toThrow(RangeError)
      expect(() => Ids.newEndToEndId("1823612X", 0)).toThrow(RangeError)
    })
  })

  describe("API keys", () => {
    it("are the mode prefix and 40 base62 chars, unique, and their mode is read back", () => {
      for (const mode of ["test", "live"] as const) {
        const keys = draw(2_000, () => Ids.newApiKey(mode))
        for (const key of keys) {
          expect(key).toMatch(new RegExp(`^sk_${mode}_[0-9A-Za-z]{40}$`))
          expect(Ids.apiKeyMode(key)).toBe(mode)
        }
        expect(new Set(keys).size).toBe(keys.length)
      }
    })

    it("have no mode unless well formed (32 to 128 base62 chars after the prefix)", () => {
      expect(Ids.apiKeyMode(`sk_test_${"a".repeat(32)}`)).toBe("test")
      expect(Ids.apiKeyMode(`sk_live_${"Z".repeat(128)}`)).toBe("live")
      for (const bad of [
        "",
        `sk_test_${"a".repeat(31)}`,
        `sk_live_${"a".repeat(129)}`,
        `sk_prod_${"a".repeat(40)}`,
        `pk_test_${"a".repeat(40)}`,
        `SK_TEST_${"a".repeat(40)}`,
        `sk_test_${"a".repeat(39)}-`,
        ` sk_test_${"a".repeat(40)}`
      ]) {
        expect(Ids.apiKeyMode(bad), bad).toBeUndefined()
      }
    })

    it("draw base62 characters uniformly", () => {
      const counts = new Map<string, number>()
      for (const c of Ids.randomBase62(124_000)) counts.set(c, (counts.get(c) ?? 0) + 1)
      expect(counts.size).toBe(62)
      // 2,000 expected each (sd about 44); a plain byte % 62 would give the first 8 about 2,420.
      for (const n of counts.values()) expect(Math.abs(n - 2_000)).toBeLessThan(250)
    })
  })

  describe("hashing", () => {
    it.effect("matches the SHA-256 test vectors", () =>
      Effect.gen(function* () {
        expect(yield* Ids.sha256Hex("")).toBe(
          "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        )
        expect(yield* Ids.hashApiKey("abc")).toBe(
          "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        )
      })
    )

    it.effect.prop(
      "is 64 lowercase hex chars, stable, and hashes UTF-8",
      { text: fc.fullUnicodeString() },
      ({ text }) =>
        Effect.gen(function* () {
          const hash = yield* Ids.hashApiKey(text)
          expect(hash).toMatch(/^[0-9a-f]{64}$/)
          expect(yield* Ids.hashApiKey(text)).toBe(hash)
          expect(hash).toBe(createHash("sha256").update(text, "utf8").digest("hex"))
        })
    )
  })
})
