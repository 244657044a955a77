/**
 * The `pixgate` command's environment as `effect/Config`: every variable it reads (`serve`'s
 * settings, the database, the admin token, the live gateway's `PIXGATE_LIVE_*`, the webhook
 * secret), with its default and its check. An empty variable counts as unset. A malformed value
 * fails with one message naming the variable (the CLI prints it as a usage error, exit 2).
 * Secrets are read as `Redacted`, so they never show in a log or an error.
 */
import { Log } from "@pixgate/http"
import { Cause, Config, ConfigError, ConfigProvider, Either, Option, Redacted } from "effect"
import * as Connections from "./Connections.js"
import * as Database from "./Database.js"

/** A variable's text; "" when unset or empty. */
const text = (name: string): Config.Config<string> => Config.string(name).pipe(Config.withDefault(""))

/** A variable's text, when set and not empty. */
const optionalText = (name: string): Config.Config<Option.Option<string>> =>
  Config.map(text(name), (value) => (value === "" ? Option.none() : Option.some(value)))

/** A secret, when set and not empty. */
const secret = (name: string): Config.Config<Option.Option<Redacted.Redacted<string>>> =>
  Config.map(optionalText(name), Option.map(Redacted.make))

const invalid = (message: string) => Either.left(ConfigError.InvalidData([], message))

/** A whole number from `min` to `max`, `fallback` when unset. */
const integer = (name: string, fallback: number, min: number, max: number): Config.Config<number> =>
  Config.mapOrFail(text(name), (value) => {
    if (value === "") return Either.right(fallback)
    const n = Number(value)
    return /^\d+$/.test(value) && n >= min && n <= max
      ? Either.right(n)
      : invalid(`${name} must be an integer from ${min} to ${max}`)
  })

/** `1` or `0` (unset: off). */
const switchedOn = (name: string): Config.Config<boolean> =>
  Config.mapOrFail(text(name), (value) =>
    value === "" || value === "0"
      ? Either.right(false)
      : value === "1"
        ? Either.right(true)
        : invalid(`${name} must be 1 or 0`)
  )

/** `PIXGATE_DATABASE`: the database URL (default `sqlite:./data/pixgate.db`). */
export const database: Config.Config<string> = Config.map(text("PIXGATE_DATABASE"), (value) =>
  value === "" ? Database.defaultUrl : value
)

/** `PIXGATE_LOG_LEVEL`: debug, info (default), warning, error or none. */
const logLevel: Config.Config<Log.Level> = Config.mapOrFail(text("PIXGATE_LOG_LEVEL"), (value) => {
  if (value === "") return Either.right("info" as const)
  const level = Log.parseLevel(value)
  return level === undefined
    ? invalid("PIXGATE_LOG_LEVEL must be debug, info, warning, error or none")
    : Either.right(level)
})

/** Default of `PIXGATE_SHUTDOWN_TIMEOUT_MS` (the server's own). */
const defaultShutdownTimeoutMs = 10_000

/**
 * `PIXGATE_HEADERS_TIMEOUT_MS` and `PIXGATE_REQUEST_TIMEOUT_MS`; Node refuses a header time-out
 * above the request time-out, so that is refused here, as a usage error naming both.
 */
const timeouts = Config.mapOrFail(
  Config.all({
    headersTimeoutMs: integer(
      "PIXGATE_HEADERS_TIMEOUT_MS",
      Connections.defaults.headersTimeoutMs,
      1,
      3_600_000
    ),
    requestTimeoutMs: integer(
      "PIXGATE_REQUEST_TIMEOUT_MS",
      Connections.defaults.requestTimeoutMs,
      1,
      3_600_000
    )
  }),
  (t) =>
    t.headersTimeoutMs <= t.requestTimeoutMs
      ? Either.right(t)
      : invalid("PIXGATE_HEADERS_TIMEOUT_MS must be at most PIXGATE_REQUEST_TIMEOUT_MS")
)

/** What `pixgate serve` reads. */
export const serve = Config.all({
  port: integer("PORT", 3000, 0, 65535),
  host: Config.map(text("HOST"), (value) => (value === "" ? "127.0.0.1" : value)),
  database,
  adminToken: secret("PIXGATE_ADMIN_TOKEN"),
  maxBodySize: integer("PIXGATE_MAX_BODY_BYTES", 64 * 1024, 1, 64 * 1024 * 1024),
  requestsPerSecond: integer("PIXGATE_RATE_LIMIT_RPS", 50, 0, 1_000_000),
  burst: integer("PIXGATE_RATE_LIMIT_BURST", 100, 1, 1_000_000),
  logLevel,
  allowInsecureLiveWebhooks: switchedOn("PIXGATE_ALLOW_INSECURE_LIVE_WEBHOOKS"),
  shutdownTimeoutMs: integer("PIXGATE_SHUTDOWN_TIMEOUT_MS", defaultShutdownTimeoutMs, 0, 3_600_000),
  keepAliveTimeoutMs: integer(
    "PIXGATE_KEEP_ALIVE_TIMEOUT_MS",
    Connections.defaults.keepAliveTimeoutMs,
    1,
    3_600_000
  ),
  maxConnections: integer("PIXGATE_MAX_CONNECTIONS", Connections.defaults.maxConnections, 1, 1_000_000),
  timeouts: timeouts
})

/**
 * The variables `Settings.fromEnv` of `@pixgate/gateway-apipix` reads (its `envNames`; a test
 * holds the two lists equal). Named here so that reading them does not load that package.
 */
export const liveNames = [
  "PIXGATE_LIVE_BASE_URL",
  "PIXGATE_LIVE_CLIENT_ID",
  "PIXGATE_LIVE_CLIENT_SECRET",
  "PIXGATE_LIVE_CERT_FILE",
  "PIXGATE_LIVE_KEY_FILE",
  "PIXGATE_LIVE_PFX_FILE",
  "PIXGATE_LIVE_PFX_PASSPHRASE",
  "PIXGATE_LIVE_CA_FILE",
  "PIXGATE_LIVE_PIX_KEY",
  "PIXGATE_LIVE_CALLBACK_SECRET",
  "PIXGATE_LIVE_API_PIX_PATH",
  "PIXGATE_LIVE_RECONCILE_INTERVAL_MS",
  "PIXGATE_LIVE_POLL_MS"
] as const

/**
 * The live gateway's `PIXGATE_LIVE_*` variables, as given: none when
 * `PIXGATE_LIVE_BASE_URL` is unset. `Settings.fromEnv` of `@pixgate/gateway-apipix` then checks
 * them and reads the certificate files (one check for the CLI and for embedders).
 */
export const live: Config.Config<Option.Option<Readonly<Record<string, string>>>> = Config.map(
  Config.all(
    Object.fromEntries(
      liveNames.map((name) => [
        name,
        name.includes("SECRET") || name.includes("PASSPHRASE")
          ? Config.map(secret(name), Option.map(Redacted.value))
          : optionalText(name)
      ])
    )
  ),
  (values) => {
    const given = Object.entries(values).flatMap(([name, value]) =>
      Option.isSome(value) ? [[name, value.value] as const] : []
    )
    return given.some(([name]) => name === "PIXGATE_LIVE_BASE_URL")
      ? Option.some(Object.fromEntries(given))
      : Option.none()
  }
)

/** A secret flag's variable (e.g. `PIXGATE_WEBHOOK_SECRET`), when set and not empty. */
export const secretOf = secret

/** The environment of a run as a ConfigProvider (empty values included: they count as unset). */
export const provider = (env: Readonly<Record<string, string | undefined>>): ConfigProvider.ConfigProvider =>
  ConfigProvider.fromMap(
    new Map(
      Object.entries(env).flatMap(([name, value]) => (value === undefined ? [] : [[name, value] as const]))
    )
  )

/** The message of a failed read: the first malformed or missing variable's. */
export const describe = (error: ConfigError.ConfigError): string => {
  const messages: Array<string> = []
  const walk = (e: ConfigError.ConfigError): void => {
    switch (e._op) {
      case "And":
      case "Or":
        walk(e.left)
        walk(e.right)
        break
      case "InvalidData":
      case "MissingData":
      case "SourceUnavailable":
      case "Unsupported":
        messages.push(e.message)
    }
  }
  walk(error)
  return messages[0] ?? Cause.pretty(Cause.fail(error))
}
