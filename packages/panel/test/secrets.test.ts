/** Secrets the panel generates pass the engine's own secret rule and are not in the signing key's form. */
import { SigningKeys } from "@pixgate/core"
import { describe, expect, it } from "vitest"
import { newSecret } from "../src/pages/Webhooks.js"

describe("generated webhook secrets", () => {
  it("pass SigningKeys.secretProblem, differ each time and do not look like a signing key", () => {
    const seen = new Set<string>()
    for (let i = 0; i < 2_000; i++) {
      const secret = newSecret()
      expect(SigningKeys.secretProblem(secret)).toBeNull()
      expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/)
      seen.add(secret)
    }
    expect(seen.size).toBe(2_000)
  })
})
