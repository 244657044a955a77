/**
 * What the Asaas gateway reads, as one `effect/Schema` (so help texts, checks and docs come from
 * one place): the API's base URL, the API key (sent as `access_token`), the customer charges
 * without a payer are made out to, the token Asaas sends back in `asaas-access-token`, and the
 * gateway's waits. Secrets are `Redacted`: they never show in logs or errors. `fromEnv` reads
 * the same from `PIXGATE_ASAAS_*` variables.
 */
import { Either, ParseResult, Schema } from "effect"

const millis = (what: string) =>
  Schema.optional(Schema.Int.pipe(Schema.positive()).annotations({ description: `${what} (ms)` }))

/** Settings of one Asaas account. */
export const AsaasSettings = Schema.Struct({
  baseUrl: Schema.String.annotations({
    description:
      "The API's base URL with its version: https://api.asaas.com/v3 (production) or https://sandbox.asaas.com/api/v3 (sandbox)"
  }),
  apiKey: Schema.Redacted(Schema.String.pipe(Schema.minLength(1))).annotations({
    description: "The account's API key, sent as the access_token header of every call"
  }),
  customerId: Schema.String.pipe(Schema.pattern(/^cus_[A-Za-z0-9]+$/)).annotations({
    description:
      "The Asaas customer (cus_...) a charge without clientName and clientDoc is made out to; charges with them get their payer's own customer"
  }),
  webhookToken: Schema.optional(
    Schema.Redacted(Schema.String.pipe(Schema.minLength(32))).annotations({
      description:
        "The webhook's authentication token (at least 32 characters): Asaas sends it as asaas-access-token and callbacks without it are refused"
    })
  ),
  userAgent: Schema.optional(
    Schema.String.annotations({
      description: "The User-Agent Asaas requires on every call (default pixgate)"
    })
  ),
  ca: Schema.optional(
    Schema.String.annotations({ description: "CAs (PEM) of the API's certificate, when not in Node's roots" })
  ),
  timeoutMs: millis("Deadline of one call on the whole exchange; default 10 s"),
  connectTimeoutMs: millis("A new connection (TCP and TLS) must be up within this; default 5 s"),
  pollDelayMs: millis("Wait before asking again about a transfer or refund not final yet; default 30 s"),
  sendBudgetMs: Schema.optional(
    Schema.Int.pipe(Schema.nonNegative()).annotations({
      description: "How long a payout's creation waits for its transfer's answer (ms); default 3 s, 0: never"
    })
  ),
  reconcileIntervalMs: millis("Reconciliation interval, and the check of each pending charge; default 5 min"),
  reconcileWindowMs: millis("How far back reconciliation reads received payments; default 2 h (whole days)"),
  unknownChargeWindowMs: millis(
    "How long a charge whose creation had an unknown outcome waits for its retry before its payment is removed; default 15 min"
  )
})

/** Settings of one Asaas account (the schema's type). */
export interface AsaasSettings extends Schema.Schema.Type<typeof AsaasSettings> {}

/** The defaults of the optional settings. */
export const defaults = {
  userAgent: "pixgate",
  timeoutMs: 10_000,
  connectTimeoutMs: 5_000,
  pollDelayMs: 30_000,
  sendBudgetMs: 3_000,
  reconcileIntervalMs: 5 * 60_000,
  reconcileWindowMs: 2 * 60 * 60_000,
  unknownChargeWindowMs: 15 * 60_000
} as const

/** The settings with every default applied. */
export interface Resolved extends AsaasSettings {
  readonly baseUrl: string
  readonly userAgent: string
  readonly timeoutMs: number
  readonly connectTimeoutMs: number
  readonly pollDelayMs: number
  readonly sendBudgetMs: number
  readonly reconcileIntervalMs: number
  readonly reconcileWindowMs: number
  readonly unknownChargeWindowMs: number
}

/** `settings` with its defaults, and its base URL without a trailing slash. */
export const resolve = (settings: AsaasSettings): Resolved => ({
  ...settings,
  baseUrl: settings.baseUrl.replace(/\/+$/, ""),
  userAgent: settings.userAgent ?? defaults.userAgent,
  timeoutMs: settings.timeoutMs ?? defaults.timeoutMs,
  connectTimeoutMs: settings.connectTimeoutMs ?? defaults.connectTimeoutMs,
  pollDelayMs: settings.pollDelayMs ?? defaults.pollDelayMs,
  sendBudgetMs: settings.sendBudgetMs ?? defaults.sendBudgetMs,
  reconcileIntervalMs: settings.reconcileIntervalMs ?? defaults.reconcileIntervalMs,
  reconcileWindowMs: settings.reconcileWindowMs ?? defaults.reconcileWindowMs,
  unknownChargeWindowMs: settings.unknownChargeWindowMs ?? defaults.unknownChargeWindowMs
})

/** The environment variables `fromEnv` reads, by setting. */
export const envNames = {
  baseUrl: "PIXGATE_ASAAS_BASE_URL",
  apiKey: "PIXGATE_ASAAS_API_KEY",
  customerId: "PIXGATE_ASAAS_CUSTOMER_ID",
  webhookToken: "PIXGATE_ASAAS_WEBHOOK_TOKEN",
  userAgent: "PIXGATE_ASAAS_USER_AGENT",
  ca: "PIXGATE_ASAAS_CA_FILE",
  timeoutMs: "PIXGATE_ASAAS_TIMEOUT_MS",
  connectTimeoutMs: "PIXGATE_ASAAS_CONNECT_TIMEOUT_MS",
  pollDelayMs: "PIXGATE_ASAAS_POLL_MS",
  sendBudgetMs: "PIXGATE_ASAAS_SEND_BUDGET_MS",
  reconcileIntervalMs: "PIXGATE_ASAAS_RECONCILE_INTERVAL_MS",
  reconcileWindowMs: "PIXGATE_ASAAS_RECONCILE_WINDOW_MS",
  unknownChargeWindowMs: "PIXGATE_ASAAS_UNKNOWN_CHARGE_WINDOW_MS"
} as const satisfies Record<keyof AsaasSettings, string>

/** A setting the gateway cannot work with: which one, and one line naming it. */
export class SettingsError extends Schema.TaggedError<SettingsError>()("SettingsError", {
  setting: Schema.String,
  message: Schema.String
}) {}

/** The first problem of a decoding, as a `SettingsError` naming the field or its variable. */
export const settingsError = (error: ParseResult.ParseError, naming: "field" | "env"): SettingsError => {
  const [issue] = ParseResult.ArrayFormatter.formatErrorSync(error)
  const field = String(issue?.path[0] ?? "settings")
  const name = naming === "env" && field in envNames ? envNames[field as keyof typeof envNames] : field
  return new SettingsError({ setting: field, message: `${name}: ${issue?.message ?? "invalid"}` })
}

const numeric = new Set<string>([
  "timeoutMs",
  "connectTimeoutMs",
  "pollDelayMs",
  "sendBudgetMs",
  "reconcileIntervalMs",
  "reconcileWindowMs",
  "unknownChargeWindowMs"
])

/**
 * The settings in `env` (`envNames`): `undefined` when `PIXGATE_ASAAS_BASE_URL` is unset (the
 * gateway is off), a `SettingsError` naming the variable when one is missing or wrong.
 * `readFile` reads the CA file.
 */
export const fromEnv = (
  env: Readonly<Record<string, string | undefined>>,
  readFile: (path: string) => string
): Either.Either<AsaasSettings | undefined, SettingsError> => {
  const given = (name: string) => (env[name] === undefined || env[name] === "" ? undefined : env[name])
  if (given(envNames.baseUrl) === undefined) return Either.right(undefined)
  const raw: Record<string, unknown> = {}
  for (const [field, name] of Object.entries(envNames)) {
    const value = given(name)
    if (value === undefined) continue
    if (field === "ca") {
      try {
        raw.ca = readFile(value)
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code
        return Either.left(
          new SettingsError({
            setting: "ca",
            message: `${name}: cannot read ${value}${code ? ` (${code})` : ""}`
          })
        )
      }
    } else raw[field] = numeric.has(field) && /^\d+$/.test(value) ? Number(value) : value
  }
  return Either.mapLeft(Schema.decodeUnknownEither(AsaasSettings)(raw), (e) => settingsError(e, "env"))
}
