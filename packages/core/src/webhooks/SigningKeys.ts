/**
 * Webhook signing keys and secrets. Each endpoint has a secret, which the merchant chooses and
 * every request carries as is (`X-<Service>-Signature`, the spec's scheme), and a signing key,
 * which the engine makes and which only keys the Standard Webhooks `webhook-signature` HMAC:
 * whoever sees a delivery learns the secret, never the key, so cannot forge signed ones.
 */
import type { WebhookEndpoint } from "../domain/Domain.js"
import * as Ids from "../domain/Ids.js"
import { base64 } from "../internal/base64.js"

/** Random bytes in a signing key (Standard Webhooks asks for 24 to 64). */
export const keyBytes = 32

/** Default overlap of a rotation: the replaced key keeps signing for this long. */
export const defaultOverlapSeconds = 24 * 60 * 60

/** The longest overlap a rotation accepts (7 days). */
export const maxOverlapSeconds = 7 * 24 * 60 * 60

/**
 * A new signing key: `whsec_` + base64 of 32 bytes straight from the platform's CSPRNG
 * (`Ids.secretBytes`: Web Crypto's `getRandomValues`), never from the id pool.
 */
export const newSigningKey = (): string => `whsec_${base64(Ids.secretBytes(keyBytes))}`

/**
 * The keys that sign an attempt at `now`: the endpoint's key, then the key a rotation replaced
 * while its overlap lasts (Standard Webhooks sends one `v1,<sig>` per key, space-separated).
 */
export const activeKeys = (
  endpoint: Pick<WebhookEndpoint, "signingKey" | "previousSigningKey" | "previousKeyExpiresAt">,
  now: number
): ReadonlyArray<string> =>
  endpoint.previousSigningKey !== null &&
  endpoint.previousKeyExpiresAt !== null &&
  now < endpoint.previousKeyExpiresAt
    ? [endpoint.signingKey, endpoint.previousSigningKey]
    : [endpoint.signingKey]

/** Shortest and longest secret. */
export const secretLength = { min: 8, max: 256 } as const

/**
 * Why `secret` cannot be an endpoint's secret, or null when it can. It travels as an HTTP
 * header value, compared byte for byte by the receiver: printable ASCII only (0x20-0x7E: no
 * line breaks, control or non-ASCII characters, which Node refuses to send), no leading or
 * trailing space (receivers see header values trimmed), 8 to 256 characters.
 */
export const secretProblem = (secret: string): string | null => {
  if (secret.length < secretLength.min || secret.length > secretLength.max)
    return `secret must be ${secretLength.min} to ${secretLength.max} characters`
  if (!/^[\x20-\x7e]*$/.test(secret))
    return "secret must be printable ASCII characters (no line breaks, control or non-ASCII characters)"
  if (secret.trim() !== secret) return "secret must not start or end with a space"
  return null
}
