/**
 * The start-up check: the settings as the schema says (an API key, a `cus_` customer id, a
 * webhook token of at least 32 characters), an absolute `https:` base URL without credentials,
 * query or fragment, and a CA that parses and is valid today. `probe` then asks Asaas itself
 * whether the key and the customer work, for a caller that wants that answer before serving.
 */
import { X509Certificate } from "node:crypto"
import { Effect, Either, Option, Schema } from "effect"
import type { AsaasClient } from "./Client.js"
import { AsaasSettings, envNames, SettingsError, settingsError } from "./Settings.js"
import * as Wire from "./Wire.js"

/** How a setting is named in messages: its field (code) or its variable (`serve`). */
export type Naming = "field" | "env"

const fail = (setting: keyof typeof envNames, problem: string, naming: Naming) =>
  Either.left(
    new SettingsError({ setting, message: `${naming === "env" ? envNames[setting] : setting}: ${problem}` })
  )

const baseUrlProblem = (url: string): string | undefined => {
  if (!URL.canParse(url)) return `"${url}" is not an absolute URL (e.g. https://api.asaas.com/v3)`
  const parsed = new URL(url)
  if (parsed.protocol !== "https:") return `must be an https URL, not ${parsed.protocol}`
  if (parsed.username !== "" || parsed.password !== "") return "must not carry credentials"
  if (parsed.search !== "" || parsed.hash !== "") return "must not have a query or a fragment"
  return undefined
}

const caProblem = (ca: string, now: number): string | undefined => {
  try {
    const cert = new X509Certificate(ca)
    if (Date.parse(cert.validTo) < now) return `the certificate expired on ${cert.validTo}`
    if (Date.parse(cert.validFrom) > now) return `the certificate is not valid before ${cert.validFrom}`
    return undefined
  } catch (error) {
    return `not a PEM certificate (${error instanceof Error ? error.message.split("\n")[0] : String(error)})`
  }
}

/** Checks the settings as the gateway will use them: the first problem, naming its setting. */
export const check = (
  settings: AsaasSettings,
  naming: Naming = "field",
  now: number = Date.now()
): Either.Either<AsaasSettings, SettingsError> => {
  const valid = Schema.validateEither(AsaasSettings)(settings)
  if (Either.isLeft(valid)) return Either.left(settingsError(valid.left, naming))
  const url = baseUrlProblem(settings.baseUrl)
  if (url !== undefined) return fail("baseUrl", url, naming)
  const ca = settings.ca === undefined ? undefined : caProblem(settings.ca, now)
  if (ca !== undefined) return fail("ca", ca, naming)
  return Either.right(settings)
}

/** `check` as an Effect (the layers' first step). */
export const checked = (settings: AsaasSettings): Effect.Effect<AsaasSettings, SettingsError> =>
  Effect.suspend(() => check(settings))

/**
 * Asks Asaas whether the settings work: the customer read with the key
 * (`GET /customers/{customerId}`). A 401 names the API key, a 404 or a removed customer the
 * customer; no answer says so without blaming a setting.
 */
export const probe = (settings: AsaasSettings, client: AsaasClient): Effect.Effect<void, SettingsError> =>
  Effect.gen(function* () {
    const asked = yield* Effect.either(
      client.call({ method: "GET", path: `/customers/${encodeURIComponent(settings.customerId)}` })
    )
    if (asked._tag === "Left")
      return yield* new SettingsError({
        setting: "baseUrl",
        message: `baseUrl: Asaas did not answer (${asked.left.message})`
      })
    const { status, body } = asked.right
    if (status === 401)
      return yield* new SettingsError({
        setting: "apiKey",
        message: "apiKey: Asaas refused the API key (HTTP 401)"
      })
    const removed = Option.getOrElse(Wire.booleanField(body, "deleted"), () => false)
    if (status === 404 || (status === 200 && removed))
      return yield* new SettingsError({
        setting: "customerId",
        message: `customerId: Asaas has no customer ${settings.customerId}`
      })
    if (status !== 200)
      return yield* new SettingsError({
        setting: "baseUrl",
        message: `baseUrl: Asaas answered ${Wire.describe(status, body)}`
      })
  })
