/**
 * The sealed-column format (packages/store-sql/src/internal/vault.ts) over node:crypto: a salt's
 * key serves up to `valuesPerSalt` values and each value has an IV of its own; values sealed
 * with a salt of their own (how every earlier value was sealed) open as before; a value opens in
 * another vault holding the same keys; it opens only in its own column; what is not a sealed
 * value is refused as malformed.
 */
import { createCipheriv, createHmac, randomBytes } from "node:crypto"
import { describe, expect, it } from "@effect/vitest"
import { NodeDataCipher } from "@pixgate/core/node"
import { prefix, Vault, valuesPerSalt } from "../src/internal/vault.js"

const dataKey = randomBytes(32)
const vault = () => new Vault(NodeDataCipher.cipher, new Map([["dk_a", dataKey]]), "dk_a", randomBytes(32))

/** The parts of a sealed value: its salt and IV as hex. */
const parts = (sealed: string) => {
  const bytes = Buffer.from(sealed.slice(`${prefix}dk_a.`.length), "base64url")
  return { salt: bytes.subarray(0, 16).toString("hex"), iv: bytes.subarray(16, 28).toString("hex") }
}

/** A value sealed with a fresh salt of its own, as every value was before salts served many. */
const sealedAlone = (column: string, text: string) => {
  const salt = randomBytes(16)
  const iv = randomBytes(12)
  const cipher = createCipheriv("aes-256-gcm", createHmac("sha256", dataKey).update(salt).digest(), iv)
  cipher.setAAD(Buffer.from(column))
  const body = Buffer.concat([cipher.update(text, "utf8"), cipher.final(), cipher.getAuthTag()])
  return `${prefix}dk_a.${Buffer.concat([salt, iv, body]).toString("base64url")}`
}

describe("Vault", () => {
  it("a salt serves valuesPerSalt values, each with an IV of its own, then a new salt is drawn", () => {
    const v = vault()
    const sealed = Array.from({ length: valuesPerSalt + 2 }, (_, i) =>
      v.seal("transactions.pix_key", `key ${i}`)
    )
    const all = sealed.map(parts)
    expect(new Set(all.slice(0, valuesPerSalt).map((p) => p.salt)).size).toBe(1)
    expect(all[valuesPerSalt].salt).not.toBe(all[0].salt)
    expect(all[valuesPerSalt + 1].salt).toBe(all[valuesPerSalt].salt)
    expect(new Set(all.map((p) => p.iv)).size).toBe(all.length)
    for (const i of [0, 1, valuesPerSalt - 1, valuesPerSalt, valuesPerSalt + 1])
      expect(v.open("transactions.pix_key", sealed[i])).toBe(`key ${i}`)
  })

  it("values sealed with a salt each open, more of them than the keys opening keeps, twice", () => {
    const v = vault()
    const values = Array.from({ length: 1_500 }, (_, i) => ({ text: `Maria ${i} ção`, sealed: "" }))
    for (const value of values) value.sealed = sealedAlone("transactions.client_name", value.text)
    for (let round = 0; round < 2; round++)
      for (const { text, sealed } of values) expect(v.open("transactions.client_name", sealed)).toBe(text)
  })

  it("a value opens in another vault with the same keys, and in its own column only", () => {
    const sealed = vault().seal("events.data", '{"amount":100}')
    const other = vault()
    expect(other.open("events.data", sealed)).toBe('{"amount":100}')
    expect(() => other.open("transactions.pix_key", sealed)).toThrow()
    const tampered = `${sealed.slice(0, -2)}${sealed.endsWith("AA") ? "AB" : "AA"}`
    expect(() => other.open("events.data", tampered)).toThrow()
  })

  it("an endpoint's secret opened once is kept; a tampered one is still refused, in any column", () => {
    const v = vault()
    const secret = v.seal("webhook_endpoints.secret", "whsec_abc")
    for (let i = 0; i < 3; i++) expect(v.open("webhook_endpoints.secret", secret)).toBe("whsec_abc")
    expect(() => v.open("webhook_endpoints.signing_key", secret)).toThrow()
    const tampered = `${secret.slice(0, -2)}${secret.endsWith("AA") ? "AB" : "AA"}`
    expect(() => v.open("webhook_endpoints.secret", tampered)).toThrow()
    const many = Array.from({ length: 1_100 }, (_, i) => v.seal("webhook_endpoints.signing_key", `key ${i}`))
    for (let round = 0; round < 2; round++)
      expect(many.map((sealed) => v.open("webhook_endpoints.signing_key", sealed))).toEqual(
        many.map((_, i) => `key ${i}`)
      )
  })

  it("what is not a sealed value's base64url is malformed; plain text reads as it is", () => {
    const v = vault()
    const sealed = v.seal("events.data", "x")
    const body = sealed.slice(`${prefix}dk_a.`.length)
    for (const bad of [`${body.slice(0, 10)}!${body.slice(11)}`, `${body}=`, body.slice(0, 40), `${body}A`])
      expect(() => v.open("events.data", `${prefix}dk_a.${bad}`), bad).toThrow(/malformed/)
    expect(v.open("events.data", "plain")).toBe("plain")
    expect(() => v.open("events.data", `${prefix}dk_other.${body}`)).toThrow(/does not hold/)
  })
})
