/**
 * The `pixgate` command's environment as `effect/Config`: every variable it reads (`serve`'s
 * settings, the database, the admin token, the live gateway's choice and callback secret, the
 * webhook secret), with its default and its check; the live gateway's own `PIXGATE_LIVE_*`
 * settings are its plugin's (`Gateways.ts`, `GatewayPlugin.read`). An empty variable counts as unset. A malformed value
 * fails with one message naming the variable (the CLI prints it as a usage error, exit 2).
 * Secrets are read as `Redacted`, so they never show in a log or an error.
 */
import { ClientAddress } from "@pixgate/core/node"
import { Log } from "@pixgate/http"
import { Cause, Config, ConfigError, ConfigProvider, Either, Option, Redacted } from "effect"
import * as Connections from "./Connections.js"
import * as Database from "./Database.js"
import * as Sampler from "./Sampler.js"
import type { TelemetryOptions } from "./Telemetry.js"

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

/** `1` or `0` (unset: `fallback`, off unless given). */
const switchedOn = (name: string, fallback = false): Config.Config<boolean> =>
  Config.mapOrFail(text(name), (value) =>
    value === ""
      ? Either.right(fallback)
      : value === "0"
        ? Either.right(false)
        : value === "1"
          ? Either.right(true)
          : invalid(`${name} must be 1 or 0`)
  )

/** `PIXGATE_DATABASE`: the database URL (default `sqlite:./data/pixgate.db`). */
export const database: Config.Config<string> = Config.map(text("PIXGATE_DATABASE"), (value) =>
  value === "" ? Database.defaultUrl : value
)

/** Whether text is base64 (standard or URL alphabet) of exactly 32 bytes. */
const isKey = (text: string): boolean => {
  const plain = text.trim().replace(/-/g, "+").replace(/_/g, "/").replace(/=+$/, "")
  return /^[A-Za-z0-9+/]{43}$/.test(plain)
}

/**
 * `PIXGATE_DATA_KEY` (the master key new values are sealed under) and `PIXGATE_DATA_KEYS_RETIRED`
 * (older master keys, comma-separated, still read): base64 of 32 bytes each. Unset: a SQLite file
 * keeps its own key beside it, Postgres refuses to start (docs/operations.md).
 */
export const dataKeys: Config.Config<Option.Option<Database.DataKeyText>> = Config.mapOrFail(
  Config.all({ active: secret("PIXGATE_DATA_KEY"), retired: secret("PIXGATE_DATA_KEYS_RETIRED") }),
  ({ active, retired }) => {
    const list = Option.match(retired, {
      onNone: () => [],
      onSome: (r) =>
        Redacted.value(r)
          .split(",")
          .map((k) => k.trim())
          .filter((k) => k !== "")
    })
    if (Option.isNone(active))
      return list.length > 0
        ? invalid("PIXGATE_DATA_KEYS_RETIRED needs PIXGATE_DATA_KEY (the active key)")
        : Either.right(Option.none())
    if (!isKey(Redacted.value(active.value)))
      return invalid("PIXGATE_DATA_KEY must be base64 of 32 bytes (e.g. `openssl rand -base64 32`)")
    if (!list.every(isKey))
      return invalid("PIXGATE_DATA_KEYS_RETIRED must be base64 keys of 32 bytes, comma-separated")
    return Either.right(Option.some({ active: active.value, retired: list.map((k) => Redacted.make(k)) }))
  }
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

/**
 * `PIXGATE_TRUST_PROXY`: the proxies trusted to report the client (`X-Forwarded-For`, `-Proto`,
 * `-Host`), as Express's `trust proxy`: `true`, a number of hops, or comma-separated addresses,
 * CIDRs and `loopback`/`linklocal`/`uniquelocal`. Unset: none.
 */
const trustProxy: Config.Config<ClientAddress.TrustProxy | undefined> = Config.mapOrFail(
  text("PIXGATE_TRUST_PROXY"),
  (value) => {
    try {
      return Either.right(ClientAddress.parse(value))
    } catch (error) {
      return invalid(
        `PIXGATE_TRUST_PROXY must be true, a number of hops, or addresses and CIDRs (${
          error instanceof Error ? error.message : String(error)
        })`
      )
    }
  }
)

/**
 * E-mail (docs/operations.md, "E-mail"): `PIXGATE_SMTP_URL` (`smtp://user:pass@host:587` or
 * `smtps://...:465`; a secret: it holds the password), with `PIXGATE_MAIL_FROM` (the sender) and
 * `PIXGATE_PANEL_URL` (the panel's public address, for links) both required with it; DKIM when
 * `PIXGATE_MAIL_DKIM_DOMAIN`, `PIXGATE_MAIL_DKIM_SELECTOR` and `PIXGATE_MAIL_DKIM_PRIVATE_KEY` (PEM)
 * are all set. Undefined without `PIXGATE_SMTP_URL`: no e-mail is sent.
 */
export const mail = Config.mapOrFail(
  Config.all({
    url: secret("PIXGATE_SMTP_URL"),
    from: text("PIXGATE_MAIL_FROM"),
    panelUrl: text("PIXGATE_PANEL_URL"),
    dkimDomain: text("PIXGATE_MAIL_DKIM_DOMAIN"),
    dkimSelector: text("PIXGATE_MAIL_DKIM_SELECTOR"),
    dkimKey: secret("PIXGATE_MAIL_DKIM_PRIVATE_KEY")
  }),
  (m) => {
    if (Option.isNone(m.url)) return Either.right(undefined)
    const url = Redacted.value(m.url.value)
    if (!/^smtps?:\/\/[^\s]+$/.test(url))
      return invalid("PIXGATE_SMTP_URL must be an smtp:// or smtps:// URL")
    if (!m.from.includes("@"))
      return invalid("PIXGATE_MAIL_FROM must be the sender's address (e.g. Loja <no-reply@loja.com.br>)")
    if (!/^https?:\/\/[^\s]+$/.test(m.panelUrl))
      return invalid(
        "PIXGATE_PANEL_URL must be the panel's public address (e.g. https://pay.loja.com.br/panel)"
      )
    const dkimGiven = [m.dkimDomain !== "", m.dkimSelector !== "", Option.isSome(m.dkimKey)]
    if (dkimGiven.some(Boolean) && !dkimGiven.every(Boolean))
      return invalid(
        "PIXGATE_MAIL_DKIM_DOMAIN, PIXGATE_MAIL_DKIM_SELECTOR and PIXGATE_MAIL_DKIM_PRIVATE_KEY go together"
      )
    return Either.right({
      url,
      from: m.from,
      panelUrl: m.panelUrl,
      ...(Option.isSome(m.dkimKey)
        ? {
            dkim: {
              domainName: m.dkimDomain,
              keySelector: m.dkimSelector,
              privateKey: Redacted.value(m.dkimKey.value).replace(/\\n/g, "\n")
            }
          }
        : {})
    })
  }
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
  rateLimitShared: switchedOn("PIXGATE_RATE_LIMIT_SHARED", true),
  logLevel,
  allowInsecureLiveWebhooks: Config.suspend(() => allowInsecureLiveWebhooks),
  shutdownTimeoutMs: integer("PIXGATE_SHUTDOWN_TIMEOUT_MS", defaultShutdownTimeoutMs, 0, 3_600_000),
  webhookAddresses: Config.suspend(() => webhookAddresses),
  readinessTimeoutMs: integer("PIXGATE_READINESS_TIMEOUT_MS", 2_000, 1, 60_000),
  // The engine's default (48) when unset; at most the webhook lane (64), which bounds it anyway.
  webhookEndpointMaxConcurrency: integer("PIXGATE_WEBHOOK_ENDPOINT_MAX_CONCURRENCY", 48, 1, 64),
  // Webhook operations (docs/operations.md): an endpoint failing this long is disabled (5 days),
  // a resend starts this many first attempts a second, deliveries may go through a proxy.
  webhookDisableAfterHours: integer("PIXGATE_WEBHOOK_DISABLE_AFTER_HOURS", 120, 1, 24 * 365),
  webhookResendRate: integer("PIXGATE_WEBHOOK_RESEND_RATE", 10, 1, 1_000),
  webhookProxy: Config.mapOrFail(text("PIXGATE_WEBHOOK_PROXY"), (value) =>
    value === "" || /^https?:\/\/[^\s]+$/.test(value)
      ? Either.right(value)
      : invalid("PIXGATE_WEBHOOK_PROXY must be an http:// or https:// URL of the proxy")
  ),
  keepAliveTimeoutMs: integer(
    "PIXGATE_KEEP_ALIVE_TIMEOUT_MS",
    Connections.defaults.keepAliveTimeoutMs,
    1,
    3_600_000
  ),
  maxConnections: integer("PIXGATE_MAX_CONNECTIONS", Connections.defaults.maxConnections, 1, 1_000_000),
  probeConnections: integer("PIXGATE_PROBE_CONNECTIONS", Connections.defaults.probeConnections, 0, 10_000),
  timeouts: timeouts,
  dataKeys,
  // Days personal data is kept (0, the default: for ever); `serve` erases older data every hour.
  retentionDays: integer("PIXGATE_PERSONAL_DATA_RETENTION_DAYS", 0, 0, 36_500),
  trustProxy,
  mail: Config.suspend(() => mail)
})

/**
 * Bounds on Postgres waits (docs/operations.md, "Bounded database waits"), in milliseconds, 0 for
 * none: `PIXGATE_PG_STATEMENT_TIMEOUT_MS` (30 000; also bounds the wait for a server that stopped
 * answering), `PIXGATE_PG_IDLE_IN_TRANSACTION_TIMEOUT_MS` (60 000) and `PIXGATE_PG_KEEPALIVE_MS`
 * (TCP keep-alive's first probe after this much idle time, 10 000).
 */
export const postgresWaits = Config.all({
  statementTimeoutMs: integer("PIXGATE_PG_STATEMENT_TIMEOUT_MS", 30_000, 0, 86_400_000),
  idleInTransactionTimeoutMs: integer("PIXGATE_PG_IDLE_IN_TRANSACTION_TIMEOUT_MS", 60_000, 0, 86_400_000),
  keepAliveMs: integer("PIXGATE_PG_KEEPALIVE_MS", 10_000, 0, 86_400_000)
})

/** `PIXGATE_ALLOW_INSECURE_LIVE_WEBHOOKS=1`: plain-http live webhook URLs (serve and `webhook set`). */
export const allowInsecureLiveWebhooks = switchedOn("PIXGATE_ALLOW_INSECURE_LIVE_WEBHOOKS")

/** `PIXGATE_PROFILE`: `production` (default) or `development` (a trial on one machine). */
const profile: Config.Config<"production" | "development"> = Config.mapOrFail(
  text("PIXGATE_PROFILE"),
  (value) =>
    value === "" || value === "production" || value === "development"
      ? Either.right(value === "development" ? "development" : "production")
      : invalid("PIXGATE_PROFILE must be production or development")
)

/**
 * Where webhooks may go (docs/operations.md, "Webhook address policy"): `PIXGATE_WEBHOOK_PRIVATE_TARGETS`
 * (`allow`, the default, or `deny`) for test-mode endpoints on loopback and private addresses,
 * and `PIXGATE_ALLOW_PRIVATE_WEBHOOKS=1` for live-mode ones, a local trial: refused unless
 * `PIXGATE_PROFILE=development`.
 */
export const webhookAddresses = Config.mapOrFail(
  Config.all({
    profile,
    privateTestTargets: text("PIXGATE_WEBHOOK_PRIVATE_TARGETS"),
    allowPrivateLive: switchedOn("PIXGATE_ALLOW_PRIVATE_WEBHOOKS")
  }),
  ({ profile, privateTestTargets, allowPrivateLive }) => {
    if (!["", "allow", "deny"].includes(privateTestTargets))
      return invalid("PIXGATE_WEBHOOK_PRIVATE_TARGETS must be allow or deny")
    if (allowPrivateLive && profile !== "development")
      return invalid(
        "PIXGATE_ALLOW_PRIVATE_WEBHOOKS=1 is for a local trial: it needs PIXGATE_PROFILE=development " +
          "(never set it in production: live webhooks could reach the server's own network)"
      )
    return Either.right({
      profile,
      allowPrivateTestWebhooks: privateTestTargets !== "deny",
      allowPrivateLive
    })
  }
)

/** The OTLP protocol: OpenTelemetry's default `http/protobuf`, or `http/json`. */
const otlpProtocol = Config.mapOrFail(text("OTEL_EXPORTER_OTLP_PROTOCOL"), (value) =>
  value === "" || value === "http/protobuf"
    ? Either.right("http/protobuf" as const)
    : value === "http/json"
      ? Either.right("http/json" as const)
      : invalid("OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf or http/json")
)

/** `OTEL_EXPORTER_OTLP_HEADERS`: `name=value,name2=value2` (values URL-encoded), as OpenTelemetry reads it. */
const otlpHeaders = Config.mapOrFail(secret("OTEL_EXPORTER_OTLP_HEADERS"), (given) => {
  if (Option.isNone(given)) return Either.right(undefined)
  const headers: Record<string, string> = {}
  for (const pair of Redacted.value(given.value).split(",")) {
    const at = pair.indexOf("=")
    if (at <= 0) return invalid("OTEL_EXPORTER_OTLP_HEADERS must be name=value pairs separated by commas")
    try {
      headers[pair.slice(0, at).trim()] = decodeURIComponent(pair.slice(at + 1).trim())
    } catch {
      return invalid("OTEL_EXPORTER_OTLP_HEADERS has a malformed value")
    }
  }
  return Either.right(headers)
})

const isSamplerName = (name: string): name is Sampler.SamplerName =>
  Sampler.names.some((known) => known === name)

/**
 * `OTEL_TRACES_SAMPLER` and `OTEL_TRACES_SAMPLER_ARG` (the ratio of the `traceidratio` samplers,
 * default 1), as OpenTelemetry reads them; a ratio given alone means `parentbased_traceidratio`.
 * None when neither is set: OpenTelemetry's default, `parentbased_always_on`.
 */
const sampling = Config.mapOrFail(
  Config.all({ name: text("OTEL_TRACES_SAMPLER"), arg: text("OTEL_TRACES_SAMPLER_ARG") }),
  ({ name, arg }): Either.Either<Option.Option<Sampler.Sampling>, ConfigError.ConfigError> => {
    if (name === "" && arg === "") return Either.right(Option.none())
    const sampler = name === "" ? "parentbased_traceidratio" : name
    if (!isSamplerName(sampler))
      return invalid(`OTEL_TRACES_SAMPLER must be one of ${Sampler.names.join(", ")}`)
    if (!sampler.endsWith("traceidratio")) return Either.right(Option.some({ sampler, ratio: 1 }))
    const ratio = arg === "" ? 1 : Number(arg)
    return /^(?:\d+(?:\.\d*)?|\.\d+)$/.test(arg === "" ? "1" : arg) && ratio <= 1
      ? Either.right(Option.some({ sampler, ratio }))
      : invalid("OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1")
  }
)

/** A URL given in `name`, checked. */
const url = (name: string): Config.Config<Option.Option<string>> =>
  Config.mapOrFail(optionalText(name), (value) =>
    Option.isNone(value) || /^https?:\/\/[^\s]+$/.test(value.value)
      ? Either.right(value)
      : invalid(`${name} must be an http:// or https:// URL`)
  )

/** OTLP's signal URL: its own variable, else the base endpoint plus the signal's path. */
const signalUrl = (base: Option.Option<string>, own: Option.Option<string>, path: string) =>
  Option.isSome(own)
    ? own.value
    : Option.isSome(base)
      ? `${base.value.replace(/\/+$/, "")}${path}`
      : undefined

/**
 * What `pixgate serve` exports (docs/operations.md): `PIXGATE_METRICS=1` serves Prometheus text
 * at `/metrics` behind the admin token, `PIXGATE_METRICS_PORT` (and `PIXGATE_METRICS_HOST`) on
 * a listener of its own instead; OpenTelemetry's `OTEL_EXPORTER_OTLP_*` variables push traces
 * and metrics by OTLP/HTTP; `PIXGATE_LEDGER_CHECK_INTERVAL_S` checks the ledger periodically.
 * Undefined when none is set: nothing is loaded or measured for export.
 */
export const telemetry = Config.map(
  Config.all({
    metrics: switchedOn("PIXGATE_METRICS"),
    metricsPort: integer("PIXGATE_METRICS_PORT", -1, 0, 65535),
    metricsHost: Config.map(text("PIXGATE_METRICS_HOST"), (value) => (value === "" ? "127.0.0.1" : value)),
    endpoint: url("OTEL_EXPORTER_OTLP_ENDPOINT"),
    traces: url("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"),
    metricsEndpoint: url("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"),
    protocol: otlpProtocol,
    headers: otlpHeaders,
    serviceName: optionalText("OTEL_SERVICE_NAME"),
    metricsIntervalMs: integer("OTEL_METRIC_EXPORT_INTERVAL", 60_000, 100, 86_400_000),
    tracesIntervalMs: integer("OTEL_BSP_SCHEDULE_DELAY", 5_000, 10, 3_600_000),
    sampling,
    ledgerCheckSeconds: integer("PIXGATE_LEDGER_CHECK_INTERVAL_S", 0, 0, 7 * 86_400)
  }),
  (env): TelemetryOptions | undefined => {
    const tracesUrl = signalUrl(env.endpoint, env.traces, "/v1/traces")
    const metricsUrl = signalUrl(env.endpoint, env.metricsEndpoint, "/v1/metrics")
    const metrics =
      env.metricsPort >= 0
        ? { port: env.metricsPort, host: env.metricsHost }
        : env.metrics
          ? "admin"
          : undefined
    const otlp =
      tracesUrl === undefined && metricsUrl === undefined
        ? undefined
        : {
            ...(tracesUrl === undefined ? {} : { tracesUrl }),
            ...(metricsUrl === undefined ? {} : { metricsUrl }),
            protocol: env.protocol,
            ...(env.headers === undefined ? {} : { headers: env.headers }),
            metricsIntervalMs: env.metricsIntervalMs,
            tracesIntervalMs: env.tracesIntervalMs,
            ...(Option.isSome(env.sampling) ? { sampling: env.sampling.value } : {})
          }
    if (metrics === undefined && otlp === undefined && env.ledgerCheckSeconds === 0) return undefined
    return {
      ...(env.ledgerCheckSeconds === 0 ? {} : { ledgerCheckIntervalMs: env.ledgerCheckSeconds * 1000 }),
      ...(metrics === undefined ? {} : { metrics }),
      ...(otlp === undefined ? {} : { otlp }),
      ...(Option.isSome(env.serviceName) ? { serviceName: env.serviceName.value } : {})
    }
  }
)

/** Where the live gateway's variables start (`PIXGATE_LIVE_BASE_URL`, `PIXGATE_LIVE_GATEWAY`, ...). */
export const livePrefix = "PIXGATE_LIVE_"

/** The live gateway the environment chooses, and the secret of its callback route. */
export interface LiveChoice {
  /** `PIXGATE_LIVE_GATEWAY`: a built-in's name, a module's path or a package; none: the default. */
  readonly gateway: Option.Option<string>
  readonly callbackSecret: Redacted.Redacted<string>
  /**
   * `PIXGATE_GATEWAYS`: more live gateways besides the default one, comma-separated (built-in
   * names, paths or packages), each reading its settings under `PIXGATE_<NAME>_` (its plugin's
   * name in capitals, dashes as underscores: `PIXGATE_ASAAS_API_KEY`). The default may be
   * listed too (it is skipped).
   */
  readonly more: ReadonlyArray<string>
}

/**
 * The live gateway: `PIXGATE_LIVE_GATEWAY` names a plugin; unset, the default one is chosen when
 * `PIXGATE_LIVE_BASE_URL` is set (the variable that turns live mode on for it), else there is
 * none (live keys answer 502). `PIXGATE_LIVE_CALLBACK_SECRET`, the secret path segment of the
 * bank's callbacks, is then required, 32 characters at least. The plugin's own `PIXGATE_LIVE_*`
 * variables are read by its settings schema, not here.
 */
export const live: Config.Config<Option.Option<LiveChoice>> = Config.mapOrFail(
  Config.all({
    gateway: optionalText(`${livePrefix}GATEWAY`),
    baseUrl: optionalText(`${livePrefix}BASE_URL`),
    callbackSecret: secret(`${livePrefix}CALLBACK_SECRET`),
    more: optionalText("PIXGATE_GATEWAYS")
  }),
  ({ gateway, baseUrl, callbackSecret, more }) => {
    const list = Option.match(more, {
      onNone: () => [],
      onSome: (text) =>
        text
          .split(",")
          .map((name) => name.trim())
          .filter((name) => name !== "")
    })
    if (Option.isNone(gateway) && Option.isNone(baseUrl))
      return list.length === 0
        ? Either.right(Option.none())
        : invalid(`PIXGATE_GATEWAYS needs ${livePrefix}GATEWAY (the default gateway) set too`)
    const name = `${livePrefix}CALLBACK_SECRET`
    const trigger = Option.isSome(gateway) ? `${livePrefix}GATEWAY` : `${livePrefix}BASE_URL`
    if (Option.isNone(callbackSecret)) return invalid(`${name} is required when ${trigger} is set`)
    if (Redacted.value(callbackSecret.value).length < 32)
      return invalid(`${name} must be at least 32 characters`)
    return Either.right(Option.some({ gateway, callbackSecret: callbackSecret.value, more: list }))
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
