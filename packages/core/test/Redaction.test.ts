/** What logs may say: Pixgate-shaped secrets masked wherever they sit, URLs cut to their origin. */
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import * as AdminAccess from "../src/domain/AdminAccess.js"
import * as Ids from "../src/domain/Ids.js"
import * as Redaction from "../src/domain/Redaction.js"
import * as SigningKeys from "../src/webhooks/SigningKeys.js"

/** Every kind of Pixgate secret, freshly made. */
const secrets = fc.constantFrom(
  () => Ids.newApiKey("test"),
  () => Ids.newApiKey("live"),
  () => AdminAccess.newAdminToken(),
  () => SigningKeys.newSigningKey()
)

/** Text around a secret: anything, but not a character a secret is made of right next to it. */
const around = fc.string({ unit: "grapheme" }).map((s) => s.replace(/[A-Za-z0-9+/=_%-]+$/, ""))
const after = fc.string({ unit: "grapheme" }).map((s) => s.replace(/^[A-Za-z0-9+/=_%-]+/, ""))

describe("Redaction.mask", () => {
  it.prop(
    "removes every secret, whatever text holds it, and keeps the text around it",
    [secrets, around, after],
    ([make, before, rest]) => {
      fc.pre(!Redaction.looksSecret(before) && !Redaction.looksSecret(rest))
      const secret = make()
      const body = secret.slice(secret.lastIndexOf("_") + 1)
      const masked = Redaction.mask(`${before}${secret}${rest}`)
      expect(masked).not.toContain(body)
      expect(masked).toBe(`${before}${secret.slice(0, secret.length - body.length)}[redacted]${rest}`)
      expect(Redaction.mask(masked)).toBe(masked)
    }
  )

  it.prop("leaves text without a secret as it is", [fc.string({ unit: "grapheme" })], ([text]) => {
    fc.pre(!Redaction.looksSecret(text))
    expect(Redaction.mask(text)).toBe(text)
  })

  it("catches a key in a path, a header value, a request id, an error message, percent-encoded too", () => {
    const key = Ids.newApiKey("test")
    const token = AdminAccess.newAdminToken()
    expect(Redaction.mask(`/api/v1/transactions/${key}`)).toBe("/api/v1/transactions/sk_test_[redacted]")
    expect(Redaction.mask(`Bearer ${token}`)).toBe("Bearer pxa_[redacted]")
    expect(Redaction.mask(`/x/${key.replaceAll("_", "%5F")}`)).toBe("/x/sk%5Ftest%5F[redacted]")
    expect(Redaction.mask(`Invalid key "${key}"`)).toBe('Invalid key "sk_test_[redacted]"')
    expect(Redaction.looksSecret(key)).toBe(true)
    expect(Redaction.looksSecret("0f6c2a4e-1111-4b5b-9f7e-cd0c2d2e2b9a")).toBe(false)
  })
})

describe("Redaction.originOf and withOrigins", () => {
  it("keeps a URL's origin only: never its user info, path, query or fragment", () => {
    expect(Redaction.originOf("https://user:pw@shop.example:8443/hooks/t0k3n?key=abc#x")).toBe(
      "https://shop.example:8443"
    )
    expect(Redaction.originOf("not a url")).toBe("(unparsable URL)")
  })

  it("cuts the URLs inside a message to their origin", () => {
    expect(
      Redaction.withOrigins("Transport error (POST http://127.0.0.1:9/hooks/secret-path?token=abc): refused")
    ).toBe("Transport error (POST http://127.0.0.1:9): refused")
  })
})
