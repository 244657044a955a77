/**
 * Verifying a Pixgate webhook the Standard Webhooks way (https://www.standardwebhooks.com):
 * `webhook-signature` holds one or more `v1,<base64 HMAC-SHA256>` of `id.timestamp.body`, keyed
 * by the endpoint's signing key (`whsec_...`, shown once when the endpoint is set or rotated).
 * The check runs on any runtime (the HMAC is core's pure-TypeScript one), synchronously.
 */
import { Events, Sha256, WebhookSignature } from "@pixgate/core"
import { Clock, Data, Effect, Either, ParseResult, Schema } from "effect"

/** Why a webhook was refused. */
export type VerificationReason =
  | "missing_header"
  | "invalid_timestamp"
  | "stale_timestamp"
  | "invalid_signature"
  | "malformed_payload"

/** A refused webhook: `reason` for code, `message` for people. Answer such a request with 400/401. */
export class WebhookVerificationError extends Data.TaggedError("WebhookVerificationError")<{
  readonly reason: VerificationReason
  readonly message: string
}> {}

/** The event a verified webhook carries, decoded with core's schema. */
export type WebhookEvent = typeof Events.WebhookEvent.Type

/** Request headers as hosts give them: a `Headers` object or node's `IncomingHttpHeaders`. */
export type HeadersInput = Headers | { readonly [name: string]: string | ReadonlyArray<string> | undefined }

/** What `verify` needs. */
export type VerifyOptions = {
  /** The raw body exactly as received (parsing and re-serialising it breaks the signature). */
  readonly payload: string | Uint8Array
  readonly headers: HeadersInput
  /** Accepted timestamp skew in seconds, both ways (default 300: five minutes). */
  readonly toleranceSeconds?: number
} & (
  | {
      /** The endpoint's signing key (`whsec_...`). */
      readonly secret: string
    }
  | {
      /** Several signing keys, e.g. the old and the new during a rotation: any one may match. */
      readonly secrets: ReadonlyArray<string>
    }
)

/** The default tolerance between `webhook-timestamp` and now: five minutes. */
export const defaultToleranceSeconds = 300

const utf8Encoder = new TextEncoder()
const utf8Decoder = new TextDecoder("utf-8", { fatal: true })

const refuse = (reason: VerificationReason, message: string) =>
  new WebhookVerificationError({ reason, message })

const header = (headers: HeadersInput, name: string): string | undefined => {
  if (typeof Headers !== "undefined" && headers instanceof Headers) return headers.get(name) ?? undefined
  const record = headers as { readonly [name: string]: string | ReadonlyArray<string> | undefined }
  for (const key of Object.keys(record)) {
    if (key.toLowerCase() !== name) continue
    const value = record[key]
    return typeof value === "string" ? value : value?.join(", ")
  }
  return undefined
}

const decodeEvent = Schema.decodeUnknownEither(Schema.parseJson(Events.WebhookEvent))

/**
 * Checks the headers, the timestamp's freshness and the signature, then decodes the body with
 * the event schema, against the clock of the running Effect (TestClock in tests).
 */
export const verifyEffect = (options: VerifyOptions): Effect.Effect<WebhookEvent, WebhookVerificationError> =>
  Effect.gen(function* () {
    const secrets = "secrets" in options ? options.secrets : [options.secret]
    const id = header(options.headers, "webhook-id")
    const timestampText = header(options.headers, "webhook-timestamp")
    const signatures = header(options.headers, "webhook-signature")
    for (const [name, value] of [
      ["webhook-id", id],
      ["webhook-timestamp", timestampText],
      ["webhook-signature", signatures]
    ] as const) {
      if (value === undefined || value === "") {
        return yield* refuse("missing_header", `Missing ${name} header`)
      }
    }
    if (!/^\d{1,15}$/.test(timestampText ?? "")) {
      return yield* refuse(
        "invalid_timestamp",
        "webhook-timestamp must be whole seconds since the Unix epoch"
      )
    }
    const timestamp = Number(timestampText)
    const tolerance = options.toleranceSeconds ?? defaultToleranceSeconds
    const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
    if (now - timestamp > tolerance) {
      return yield* refuse("stale_timestamp", `webhook-timestamp is more than ${tolerance} seconds old`)
    }
    if (timestamp - now > tolerance) {
      return yield* refuse(
        "stale_timestamp",
        `webhook-timestamp is more than ${tolerance} seconds in the future`
      )
    }
    const payload =
      typeof options.payload === "string" ? utf8Encoder.encode(options.payload) : options.payload
    const presented = (signatures ?? "").split(" ").filter((part) => part.startsWith("v1,"))
    let matched = false
    for (const secret of secrets) {
      const expected = yield* Effect.orElseSucceed(
        WebhookSignature.sign(secret, id ?? "", timestamp, payload),
        () => null
      )
      // Every presented signature is compared, so the time taken does not say which one matched.
      for (const signature of presented) {
        if (expected !== null && Sha256.sameSecret(signature, expected)) matched = true
      }
    }
    if (!matched) return yield* refuse("invalid_signature", "No webhook-signature matches the payload")
    let text: string
    try {
      text = typeof options.payload === "string" ? options.payload : utf8Decoder.decode(options.payload)
    } catch {
      return yield* refuse("malformed_payload", "The payload is not UTF-8 text")
    }
    const decoded = decodeEvent(text)
    if (Either.isLeft(decoded)) {
      return yield* refuse(
        "malformed_payload",
        `The payload is not a Pixgate event: ${ParseResult.TreeFormatter.formatErrorSync(decoded.left)}`
      )
    }
    return decoded.right
  })

/**
 * Verifies a webhook request and returns its decoded event, or throws `WebhookVerificationError`
 * (reasons: `missing_header`, `invalid_timestamp`, `stale_timestamp`, `invalid_signature`,
 * `malformed_payload`).
 */
export const verify = (options: VerifyOptions): WebhookEvent => {
  const result = Effect.runSync(Effect.either(verifyEffect(options)))
  if (Either.isLeft(result)) throw result.left
  return result.right
}
