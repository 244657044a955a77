/**
 * What a webhook request carries: the JSON body and the Standard Webhooks signature
 * (https://www.standardwebhooks.com). HMAC is the pure-TypeScript `Sha256.hmac`, so any runtime
 * signs the same way, synchronously.
 */
import { Data, Effect } from "effect"
import type { Event } from "../domain/Domain.js"
import * as Sha256 from "../domain/Sha256.js"
import { base64 } from "../internal/base64.js"

const utf8 = new TextEncoder()

/** Signing failed: the key is empty (which Web Crypto, the former signer, refuses too). */
export class SignatureError extends Data.TaggedError("SignatureError")<{ readonly message: string }> {}

/**
 * The body of every attempt of a delivery of `event`: `{ id, event, data, timestamp }`, with
 * `timestamp` the event's time, so each attempt (and each redelivery) sends the same bytes.
 */
export const body = (event: Event): Uint8Array<ArrayBuffer> =>
  utf8.encode(
    JSON.stringify({
      id: event.id,
      event: event.type,
      data: event.data,
      timestamp: new Date(event.createdAt).toISOString()
    })
  )

/**
 * The HMAC key of a webhook secret. A secret written the Standard Webhooks way (`whsec_` +
 * base64) signs with the decoded bytes, as their libraries expect; any other secret (and a
 * `whsec_` one whose rest is not base64) signs with its UTF-8 bytes.
 */
export const signingKey = (secret: string): Uint8Array<ArrayBuffer> => {
  const rest = secret.startsWith("whsec_") ? secret.slice("whsec_".length) : null
  if (rest !== null && rest.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(rest)) {
    const binary = atob(rest)
    // A plain loop: `Uint8Array.from(binary, mapFn)` costs microseconds per call.
    const key = new Uint8Array(binary.length)
    for (let i = 0; i < binary.length; i++) key[i] = binary.charCodeAt(i)
    return key
  }
  return utf8.encode(secret)
}

/** `webhook-signature`: `v1,` + base64(HMAC-SHA256(key, `${id}.${timestamp}.${body}`)). */
export const sign = (
  secret: string,
  id: string,
  timestamp: number,
  payload: Uint8Array
): Effect.Effect<string, SignatureError> =>
  Effect.suspend(() => {
    const key = signingKey(secret)
    // An empty HMAC key is legal in RFC 2104 but Web Crypto rejects it; keep refusing it.
    if (key.length === 0) {
      return Effect.fail(new SignatureError({ message: "cannot sign: Zero-length key is not supported" }))
    }
    return Effect.succeed(`v1,${base64(Sha256.hmac(key, [`${id}.${timestamp}.`, payload]))}`)
  })

/** `serviceName` reduced to an HTTP token (letters, digits, `-`), for header names and the User-Agent. */
export const token = (serviceName: string): string => serviceName.replace(/[^A-Za-z0-9-]/g, "") || "Pixgate"
