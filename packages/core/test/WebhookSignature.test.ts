import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, FastCheck as fc } from "effect"
import * as WebhookSignature from "../src/webhooks/WebhookSignature.js"

/** The signature as Web Crypto computes it (how `sign` computed it before `Sha256`). */
const webSign = (secret: string, id: string, timestamp: number, payload: Uint8Array) =>
  Effect.promise(async () => {
    const subtle = globalThis.crypto.subtle
    const key = await subtle.importKey(
      "raw",
      WebhookSignature.signingKey(secret),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign"]
    )
    const prefix = new TextEncoder().encode(`${id}.${timestamp}.`)
    const message = new Uint8Array(prefix.length + payload.length)
    message.set(prefix)
    message.set(payload, prefix.length)
    const mac = new Uint8Array(await subtle.sign("HMAC", key, message))
    return `v1,${btoa(String.fromCharCode(...mac))}`
  })

const secret = fc.oneof(
  fc.string({ minLength: 8, maxLength: 256 }),
  fc.fullUnicodeString({ minLength: 8, maxLength: 64 }),
  fc.uint8Array({ minLength: 1, maxLength: 100 }).map((key) => `whsec_${btoa(String.fromCharCode(...key))}`)
)

describe("WebhookSignature.sign", () => {
  it.effect.prop(
    "is the Web Crypto signature, byte for byte",
    {
      secret,
      id: fc.string({ maxLength: 40 }),
      timestamp: fc.integer({ min: 0, max: 4_102_444_800 }),
      payload: fc.uint8Array({ maxLength: 600 })
    },
    ({ secret, id, timestamp, payload }) =>
      Effect.gen(function* () {
        expect(yield* WebhookSignature.sign(secret, id, timestamp, payload)).toBe(
          yield* webSign(secret, id, timestamp, payload)
        )
      })
  )

  it.effect("refuses an empty key, as Web Crypto did", () =>
    Effect.gen(function* () {
      const result = yield* Effect.either(WebhookSignature.sign("", "evt_1", 1, new Uint8Array(1)))
      expect(Either.isLeft(result) && result.left._tag).toBe("SignatureError")
    })
  )
})
