/**
 * What a webhook request carries: the JSON body and the Standard Webhooks signature
 * (https://www.standardwebhooks.com). HMAC runs on Web Crypto, so any runtime signs the same way.
 */
import { Data, Effect } from "effect"
import type { Event } from "./Domain.js"

/** Signing failed (Web Crypto refused the key). */
export class SignatureError extends Data.TaggedError("SignatureError")<{ readonly message: string }> {}

/**
 * The body of every attempt of a delivery of `event`: `{ id, event, data, timestamp }`, with
 * `timestamp` the event's time, so each attempt (and each redelivery) sends the same bytes.
 */
export const body = (event: Event): Uint8Array<ArrayBuffer> =>
  new TextEncoder().encode(
    JSON.stringify({
      id: event.id,
      event: event.type,
      data: event.data,
      timestamp: new Date(event.createdAt).toISOString()
    })
  )

const base64 = (bytes: Uint8Array): string => btoa(String.fromCharCode(...bytes))

/**
 * The HMAC key of a webhook secret. A secret written the Standard Webhooks way (`whsec_` +
 * base64) signs with the decoded bytes, as their libraries expect; any other secret (and a
 * `whsec_` one whose rest is not base64) signs with its UTF-8 bytes.
 */
export const signingKey = (secret: string): Uint8Array<ArrayBuffer> => {
  const rest = secret.startsWith("whsec_") ? secret.slice("whsec_".length) : null
  if (rest !== null && rest.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(rest)) {
    return Uint8Array.from(atob(rest), (c) => c.charCodeAt(0))
  }
  return new TextEncoder().encode(secret)
}

/** `webhook-signature`: `v1,` + base64(HMAC-SHA256(key, `${id}.${timestamp}.${body}`)). */
export const sign = (
  secret: string,
  id: string,
  timestamp: number,
  payload: Uint8Array
): Effect.Effect<string, SignatureError> =>
  Effect.tryPromise({
    try: async () => {
      const subtle = globalThis.crypto.subtle
      const key = await subtle.importKey(
        "raw",
        signingKey(secret),
        { name: "HMAC", hash: "SHA-256" },
        false,
        ["sign"]
      )
      const prefix = new TextEncoder().encode(`${id}.${timestamp}.`)
      const message = new Uint8Array(prefix.length + payload.length)
      message.set(prefix)
      message.set(payload, prefix.length)
      return `v1,${base64(new Uint8Array(await subtle.sign("HMAC", key, message)))}`
    },
    catch: (cause) =>
      new SignatureError({ message: `cannot sign: ${cause instanceof Error ? cause.message : cause}` })
  })

/** `serviceName` reduced to an HTTP token (letters, digits, `-`), for header names and the User-Agent. */
export const token = (serviceName: string): string => serviceName.replace(/[^A-Za-z0-9-]/g, "") || "Pixgate"
