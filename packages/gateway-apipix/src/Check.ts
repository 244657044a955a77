/**
 * The start-up check of the live settings: the base URL, the client certificate and its key
 * (and that they belong together), the PKCS#12 file and its passphrase, the CA and the PIX key
 * are loaded the way the TLS client will load them (`node:tls` / `node:crypto`), so a wrong
 * file or passphrase stops the server at start with one line naming the setting, instead of
 * every live charge failing later.
 */
import { createPrivateKey, X509Certificate } from "node:crypto"
import { createSecureContext } from "node:tls"
import { GatewayPlugin, PixKey } from "@pixgate/core"
import { Data, Effect, Either, Redacted } from "effect"
import { type ApiPixSettings, envNames } from "./Settings.js"

/** The settings a check can name. */
export type Setting = "baseUrl" | "cert" | "key" | "pfx" | "passphrase" | "ca" | "pixKey"

/** How a setting is called in code (`ApiPixSettings`) and in the environment (`fromEnv`). */
export const names: Readonly<Record<Setting, { readonly field: string; readonly env: string }>> = {
  baseUrl: { field: "baseUrl", env: envNames.baseUrl },
  cert: { field: "certificate.cert", env: envNames.certFile },
  key: { field: "certificate.key", env: envNames.keyFile },
  pfx: { field: "certificate.pfx", env: envNames.pfxFile },
  passphrase: { field: "certificate.passphrase", env: envNames.pfxPassphrase },
  ca: { field: "ca", env: envNames.caFile },
  pixKey: { field: "pixKey", env: envNames.pixKey }
}

/** A setting's variable under another prefix than `PIXGATE_LIVE_` (`prefix` + `BASE_URL`). */
const variableOf = (setting: Setting, prefix: string) =>
  `${prefix}${names[setting].env.slice(GatewayPlugin.defaultPrefix.length)}`

/** A setting the gateway cannot work with; `message` is one line naming it. */
export class SettingsError extends Data.TaggedError("SettingsError")<{
  readonly setting: Setting
  readonly problem: string
  readonly message: string
}> {}

/**
 * How a setting is named in the error's message: its field (code), its variable (`serve`), or
 * its variable under another prefix (a gateway configured under its own).
 */
export type Naming = "field" | "env" | { readonly prefix: string }

const nameOf = (setting: Setting, naming: Naming) =>
  typeof naming === "string" ? names[setting][naming] : variableOf(setting, naming.prefix)

const problem = (setting: Setting, text: string, naming: Naming) =>
  new SettingsError({ setting, problem: text, message: `${nameOf(setting, naming)}: ${text}` })

/** OpenSSL's reason without its code prefix ("error:0480006C:PEM routines::no start line"). */
const reason = (error: unknown): string =>
  (error instanceof Error ? error.message : String(error))
    .split("\n")[0]
    .replace(/^error:[0-9A-F]+:/, "")
    .replace(/^[^:]*routines::/, "")

const attempt = <A>(f: () => A): Either.Either<A, string> => {
  try {
    return Either.right(f())
  } catch (error) {
    return Either.left(reason(error))
  }
}

/** A certificate that is not valid now: why; undefined when it is. */
const outOfDate = (cert: X509Certificate, now: number): string | undefined => {
  if (Date.parse(cert.validTo) < now) return `the certificate expired on ${cert.validTo}`
  if (Date.parse(cert.validFrom) > now) return `the certificate is not valid before ${cert.validFrom}`
  return undefined
}

const checkBaseUrl = (url: string): string | undefined => {
  if (!URL.canParse(url)) return `"${url}" is not an absolute URL (e.g. https://pix.example-bank.com.br)`
  const parsed = new URL(url)
  if (parsed.protocol !== "https:")
    return `must be an https URL (the PSP is reached over mTLS), not ${parsed.protocol}`
  if (parsed.username !== "" || parsed.password !== "") return "must not carry credentials"
  if (parsed.search !== "" || parsed.hash !== "") return "must not have a query or a fragment"
  return undefined
}

/**
 * Checks the settings as the gateway will use them; the first problem found, naming its
 * setting by `naming`. `now` dates the certificate's validity (default: the system clock).
 */
export const check = (
  settings: ApiPixSettings,
  naming: Naming = "field",
  now: number = Date.now()
): Either.Either<ApiPixSettings, SettingsError> => {
  const fail = (setting: Setting, text: string) => Either.left(problem(setting, text, naming))
  const url = checkBaseUrl(settings.baseUrl)
  if (url !== undefined) return fail("baseUrl", url)
  const key = PixKey.parse(settings.pixKey)
  if (Either.isLeft(key)) return fail("pixKey", `not a PIX key: ${key.left}`)
  const certificate = settings.certificate
  if (certificate._tag === "Pem") {
    const cert = attempt(() => new X509Certificate(certificate.cert))
    if (Either.isLeft(cert)) return fail("cert", `not a PEM certificate (${cert.left})`)
    const stale = outOfDate(cert.right, now)
    if (stale !== undefined) return fail("cert", stale)
    const privateKey = attempt(() => createPrivateKey(Redacted.value(certificate.key)))
    if (Either.isLeft(privateKey)) return fail("key", `not a PEM private key (${privateKey.left})`)
    if (!cert.right.checkPrivateKey(privateKey.right))
      return fail("key", `is not the key of the certificate in ${nameOf("cert", naming)}`)
  } else {
    const loaded = attempt(() =>
      createSecureContext({ pfx: certificate.pfx, passphrase: Redacted.value(certificate.passphrase) })
    )
    if (Either.isLeft(loaded))
      return loaded.left === "mac verify failure"
        ? fail("passphrase", `wrong passphrase for ${nameOf("pfx", naming)} (mac verify failure)`)
        : fail("pfx", `not a readable PKCS#12 file (${loaded.left})`)
  }
  if (settings.ca !== undefined) {
    const ca = settings.ca
    const parsed = attempt(() => new X509Certificate(ca))
    if (Either.isLeft(parsed)) return fail("ca", `not a PEM certificate (${parsed.left})`)
    const stale = outOfDate(parsed.right, now)
    if (stale !== undefined) return fail("ca", stale)
  }
  return Either.right(settings)
}

/** `check` as an Effect (the layers' first step). */
export const checked = (settings: ApiPixSettings): Effect.Effect<ApiPixSettings, SettingsError> =>
  Effect.suspend(() => check(settings))
