import { createHash } from "node:crypto"
import { describe, expect, it, vi } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import * as Ids from "../src/domain/Ids.js"

const originalGetRandomValues = globalThis.crypto.getRandomValues.bind(globalThis.crypto)
const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
const ULID_TIME_MAX = 2 ** 48 - 1
const decodeTime = (id: string) =>
  [...id.slice(id.indexOf("_") + 1, id.indexOf("_") + 11)].reduce(
    (acc, c) => acc * 32 + CROCKFORD.indexOf(c),
    0
  )
const decodeTail = (id: string) =>
  [...id.slice(-16)].reduce((acc, c) => acc * 32n + BigInt(CROCKFORD.indexOf(c)), 0n)
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

    it.prop(
      "sorts in creation order within and across milliseconds",
      {
        start: times,
        steps: fc.array(fc.constantFrom(0, 0, 0, 1, 2, 1_000), { minLength: 1, maxLength: 300 })
      },
      ({ start, steps }) => {
        let ms = start
        const ids = steps.map((step) => {
          ms += step
          return Ids.newId("evt", ms)
        })
        for (let i = 1; i < ids.length; i++)
          expect(ids[i - 1] < ids[i], `${ids[i - 1]} < ${ids[i]}`).toBe(true)
        expect(decodeTime(ids[ids.length - 1])).toBe(ms)
      }
    )

    it.prop(
      "draws a tail below 2^79 in a new millisecond, then adds exactly one per id in it",
      { ms: times, count: fc.integer({ min: 2, max: 600 }), prefix: fc.stringMatching(/^[a-z]{1,5}$/) },
      ({ ms, count, prefix }) => {
        Ids.newId(prefix, ms - 1)
        const ids = draw(count, () => Ids.newId(prefix, ms))
        for (const id of ids) expect(id).toMatch(new RegExp(`^${prefix}_[0-7][0-9A-HJKMNP-TV-Z]{25}$`))
        const tails = ids.map(decodeTail)
        expect(tails[0] < 2n ** 79n).toBe(true)
        for (let i = 1; i < tails.length; i++) expect(tails[i] - tails[i - 1]).toBe(1n)
      }
    )

    it("carries the increment across bytes", () => {
      // 70,000 ids in one millisecond wrap the low byte hundreds of times and the low 16 bits once.
      Ids.newId("txn", 1_767_225_599_999)
      const tails = draw(70_000, () => Ids.newId("txn", 1_767_225_600_000)).map(decodeTail)
      for (let i = 1; i < tails.length; i++) expect(tails[i] - tails[i - 1]).toBe(1n)
      expect(tails.filter((t) => t % 256n === 0n).length).toBeGreaterThan(250)
      expect(tails.some((t) => t % 65_536n === 0n)).toBe(true)
    })
  })

  describe("txid", () => {
    it("is 32 alphanumerics, unique over many draws", () => {
      const txids = draw(10_000, () => Ids.newTxid(1_767_225_600_000))
      for (const txid of txids) {
        expect(txid).toMatch(/^[a-zA-Z0-9]{32}$/)
        expect(Ids.isTxid(txid)).toBe(true)
      }
      expect(new Set(txids).size).toBe(txids.length)
    })

    it.prop(
      "sorts by creation time (by code unit, as the databases' indexes do); the 24 after the time are random",
      { a: times, b: times },
      ({ a, b }) => {
        const [x, y] = [Ids.newTxid(a), Ids.newTxid(b)]
        if (a < b) expect(x < y).toBe(true)
        if (a > b) expect(x > y).toBe(true)
        if (a === b) expect(x.slice(0, 8)).toBe(y.slice(0, 8))
        expect(x.slice(8)).not.toBe(Ids.newTxid(a).slice(8))
      }
    )

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

    it.prop(
      "sorts by creation time to the millisecond; the last 8 characters are random",
      { a: times, b: times },
      ({ a, b }) => {
        const [x, y] = [Ids.newEndToEndId("18236120", a), Ids.newEndToEndId("18236120", b)]
        if (a < b) expect(x < y).toBe(true)
        if (a > b) expect(x > y).toBe(true)
        if (a === b) expect(x.slice(0, 24)).toBe(y.slice(0, 24))
        expect(x.slice(24)).not.toBe(Ids.newEndToEndId("18236120", a).slice(24))
      }
    )

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

    it.prop(
      "stamps the UTC minute of each call, however calls move within and across minutes",
      {
        times: fc.array(
          fc.oneof(
            times,
            fc.integer({ min: -120_000, max: 120_000 }).map((d) => 1_767_225_600_000 + d),
            fc.double({ min: -200_000, max: 200_000, noNaN: true })
          ),
          { minLength: 1, maxLength: 50 }
        )
      },
      ({ times }) => {
        for (const ms of times) {
          const stamp = new Date(ms).toISOString().replace(/\D/g, "").slice(0, 12)
          expect(Ids.newEndToEndId("18236120", ms).slice(9, 21), `${ms}`).toBe(stamp)
        }
      }
    )

    it("truncates a fractional time toward zero, as Date does, also before 1970", () => {
      for (const [ms, stamp] of [
        [-30_000, "196912312359"],
        [-0.5, "197001010000"],
        [59_999.5, "197001010000"],
        [-60_000.5, "196912312359"],
        [-60_001, "196912312358"]
      ] as const) {
        expect(Ids.newEndToEndId("18236120", ms).slice(9, 21), `${ms}`).toBe(stamp)
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

    it.prop(
      "draw exactly n base62 characters, across the 256-character chunks",
      { n: fc.integer({ min: 0, max: 600 }) },
      ({ n }) => {
        expect(Ids.randomBase62(n)).toMatch(new RegExp(`^[0-9A-Za-z]{${n}}$`))
      }
    )

    it("draw base62 characters uniformly (chi-square over 620,000 draws)", () => {
      const counts = new Map<string, number>()
      for (let i = 0; i < 20_000; i++) {
        for (const c of Ids.randomBase62(31)) counts.set(c, (counts.get(c) ?? 0) + 1)
      }
      expect(counts.size).toBe(62)
      const chiSquare = [...counts.values()].reduce((sum, n) => sum + (n - 10_000) ** 2 / 10_000, 0)
      // 61 degrees of freedom: mean 61; above 140 has odds below 1e-7. Without the redraw of
      // bytes >= 248 the first 8 characters come 25% more often, and this is in the thousands.
      expect(chiSquare).toBeLessThan(140)
    })
  })

  describe("secrets", () => {
    it("API keys come from fresh CSPRNG bytes for each key, never the pooled buffer of ids", () => {
      const crypto = globalThis.crypto
      const lengths: Array<number> = []
      const spy = vi.spyOn(crypto, "getRandomValues").mockImplementation((array) => {
        lengths.push(array === null ? 0 : array.byteLength)
        return originalGetRandomValues(array)
      })
      try {
        Ids.randomBase62(8) // the id pool may refill here: not a secret
        lengths.length = 0
        for (let i = 0; i < 5; i++) Ids.newApiKey("live")
      } finally {
        spy.mockRestore()
      }
      // One draw per key at least, each a fresh array of about the key's size (the pool is 4 KiB).
      expect(lengths.length).toBeGreaterThanOrEqual(5)
      for (const n of lengths) expect(n).toBeLessThan(100)
    })

    it.prop(
      "secretBase62 gives exactly n base62 characters",
      { n: fc.integer({ min: 1, max: 600 }) },
      ({ n }) => {
        expect(Ids.secretBase62(n)).toMatch(new RegExp(`^[0-9A-Za-z]{${n}}$`))
      }
    )

    it("secretBase62 draws characters uniformly (chi-square over 620,000 draws)", () => {
      const counts = new Map<string, number>()
      for (let i = 0; i < 20_000; i++) {
        for (const c of Ids.secretBase62(31)) counts.set(c, (counts.get(c) ?? 0) + 1)
      }
      expect(counts.size).toBe(62)
      const chiSquare = [...counts.values()].reduce((sum, n) => sum + (n - 10_000) ** 2 / 10_000, 0)
      expect(chiSquare).toBeLessThan(140)
    })

    it("secretBytes gives a fresh array each call and refuses silly lengths", () => {
      const a = Ids.secretBytes(24)
      const b = Ids.secretBytes(24)
      expect(a.length).toBe(24)
      expect(a).not.toBe(b)
      expect(a.buffer).not.toBe(b.buffer)
      expect(Buffer.from(a).equals(Buffer.from(b))).toBe(false)
      for (const n of [0, -1, 1.5, 65_537, Number.NaN]) expect(() => Ids.secretBytes(n)).toThrow(RangeError)
      expect(() => Ids.secretBase62(0)).toThrow(RangeError)
    })
  })

  describe("hashing", () => {
    it("matches the SHA-256 test vectors", () => {
      expect(Ids.hashApiKey("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
      expect(Ids.hashApiKey("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    })

    it.prop(
      "is 64 lowercase hex chars, stable, and hashes UTF-8",
      { text: fc.fullUnicodeString() },
      ({ text }) => {
        const hash = Ids.hashApiKey(text)
        expect(hash).toMatch(/^[0-9a-f]{64}$/)
        expect(Ids.hashApiKey(text)).toBe(hash)
        expect(hash).toBe(createHash("sha256").update(text, "utf8").digest("hex"))
      }
    )
  })
})
