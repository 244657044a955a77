/**
 * The standalone server: node:http serving the public API, the admin router under `/admin`
 * (for stored admin tokens, and `adminToken` when given; 404 while there is none) on a store
 * chosen by database URL, and at `/` a short index of
 * where the docs are (JSON, or a page for a browser). Migrations run at start; one
 * JSON line reports the URL. `close()` drains: it stops accepting connections, answers requests
 * in flight (and any that still arrive on open connections) with `Connection: close`, closes
 * keep-alive connections once idle, cuts what is left after `shutdownTimeoutMs`, then stops the
 * job worker (which lets its running jobs finish, see `Worker.runWith`) and closes the store.
 * Connection limits and the drain itself are in `Connections.ts`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import type { Duplex } from "node:stream"
import { Engine, GatewayPlugin } from "@pixgate/core"
import { type ClientAddress, NodeHostResolver } from "@pixgate/core/node"
import { type ApiErrors, Log, type RateLimit, Router } from "@pixgate/http"
import { Pixgate } from "@pixgate/http/node"
import { Duration, Effect, Fiber, Ref, Schedule } from "effect"
import * as AdminGate from "./AdminGate.js"
import * as Connections from "./Connections.js"
import * as Database from "./Database.js"
import * as Gateways from "./Gateways.js"
import * as Smtp from "./Smtp.js"
import type { TelemetryOptions } from "./Telemetry.js"
import * as Telemetry from "./TelemetryLoader.js"

/**
 * Standalone server settings (the CLI reads them from the environment), with the connection
 * limits of `Connections.ConnectionOptions` (keep-alive, header and request time-outs, cap).
 */
export interface ServerOptions extends Connections.ConnectionOptions {
  /** Default 3000; 0 picks a free port. */
  readonly port?: number
  /** Default 127.0.0.1. */
  readonly host?: string
  /** Database URL (default `sqlite:./data/pixgate.db`). */
  readonly database?: string
  /** Directory relative SQLite paths start from (default: the process's). */
  readonly cwd?: string
  /**
   * Bounds on a Postgres database's waits (statement, idle transaction, keep-alive; the CLI
   * reads `PIXGATE_PG_*`); unset: `@pixgate/store-pg`'s defaults.
   */
  readonly postgres?: Database.PostgresWaits
  /**
   * An admin token of full scope (named `env`; the CLI reads `PIXGATE_ADMIN_TOKEN`), valid beside
   * the stored ones (`pixgate admin-token create`). Without it and without a stored token, `/admin`
   * answers 404.
   */
  readonly adminToken?: string
  readonly maxBodySize?: number
  readonly rateLimit?: RateLimit.RateLimitOptions | false
  readonly log?: Log.LogOptions
  /** Serve the merchant panel under `/panel` when `@pixgate/panel` is installed (default true). */
  readonly panel?: boolean
  /**
   * The live bank's gateway plugin and the secret of its callback route
   * `/bank/callbacks/<secret>`; without it, live keys answer 502.
   */
  readonly live?: LiveOptions
  /**
   * Longest wait for requests in flight at shutdown before their connections are cut (10 s;
   * the CLI reads `PIXGATE_SHUTDOWN_TIMEOUT_MS`), and then again for the job worker's running
   * jobs before they are interrupted (each runs again after its lease).
   */
  readonly shutdownTimeoutMs?: number
  /**
   * Accept plain `http:` webhook URLs in live mode (the engine's `allowInsecureLiveWebhooks`;
   * the CLI reads `PIXGATE_ALLOW_INSECURE_LIVE_WEBHOOKS=1`). Off: live mode wants https.
   */
  readonly allowInsecureLiveWebhooks?: boolean
  /**
   * `production` (default) or `development`: a trial on one machine, the only profile that
   * takes `allowPrivateLiveWebhooks` (the CLI reads `PIXGATE_PROFILE`).
   */
  readonly profile?: "production" | "development"
  /**
   * Live-mode webhooks to loopback and private addresses, for a local trial (the engine's
   * `allowPrivateWebhookUrls`; the CLI reads `PIXGATE_ALLOW_PRIVATE_WEBHOOKS=1`). Refused at
   * start unless `profile` is `development`; logged as a warning when on.
   */
  readonly allowPrivateLiveWebhooks?: boolean
  /**
   * Test-mode webhooks to loopback and private addresses (default true: a developer's local
   * receiver; the CLI reads `PIXGATE_WEBHOOK_PRIVATE_TARGETS=deny` as false, for a platform
   * hosting many merchants). Link-local and metadata addresses are refused in every mode.
   */
  readonly allowPrivateTestWebhooks?: boolean
  /**
   * Longest wait of `/api/health/ready`'s database ping before it answers 503 `timeout` (2 s;
   * the CLI reads `PIXGATE_READINESS_TIMEOUT_MS`).
   */
  readonly readinessTimeoutMs?: number
  /**
   * The master keys personal data and secrets are sealed with (`PIXGATE_DATA_KEY`,
   * `PIXGATE_DATA_KEYS_RETIRED`); without them a SQLite file keeps its own key beside it and
   * Postgres is refused (docs/operations.md, "Personal data at rest").
   */
  readonly dataKeys?: Database.DataKeyText
  /**
   * Days a transaction's personal data is kept (`PIXGATE_PERSONAL_DATA_RETENTION_DAYS`): older
   * data is erased at start and every hour after. 0 or absent: kept.
   */
  readonly retentionDays?: number
  /**
   * The most attempts of one healthy webhook endpoint in flight at once (the engine's
   * `webhookEndpointMaxConcurrency`, 48; the CLI reads `PIXGATE_WEBHOOK_ENDPOINT_MAX_CONCURRENCY`).
   */
  readonly webhookEndpointMaxConcurrency?: number
  /**
   * Webhook operations (docs/operations.md, "Webhook operations"): the HTTP proxy deliveries go
   * through (`PIXGATE_WEBHOOK_PROXY`), hours an endpoint may fail before it is disabled
   * (`PIXGATE_WEBHOOK_DISABLE_AFTER_HOURS`, 120) and first attempts a resend starts per second
   * (`PIXGATE_WEBHOOK_RESEND_RATE`, 10).
   */
  readonly webhookProxy?: string
  readonly webhookDisableAfterHours?: number
  readonly webhookResendRate?: number
  /** Metrics at `/metrics` and OTLP export (`Telemetry`; the CLI reads docs/operations.md's variables). */
  readonly telemetry?: TelemetryOptions
  /**
   * The proxies trusted to report the client (as Express's `trust proxy`; the CLI reads
   * `PIXGATE_TRUST_PROXY`): its address in the access lines, the panel's sign-in throttle,
   * sessions and audit log; HTTPS per their `X-Forwarded-Proto` for the panel's cookies and HSTS.
   */
  readonly trustProxy?: ClientAddress.TrustProxy
  /** E-mail over SMTP (`PIXGATE_SMTP_URL`...): the panel's invitations, password resets, notifications. */
  readonly mail?: Smtp.MailOptions
}

/** A running server. */
export interface RunningServer {
  readonly url: string
  readonly pixgate: Pixgate.Pixgate
  /** Graceful stop; safe to call more than once. */
  readonly close: () => Promise<void>
}

/** Where the admin router is mounted. */
export const adminPath = "/admin"

/** Where the merchant panel is mounted. */
export const panelPath = "/panel"

const listen = (server: Server, port: number, host: string) =>
  new Promise<AddressInfo>((resolve, reject) => {
    server.once("error", reject)
    server.listen(port, host, () => {
      server.off("error", reject)
      resolve(server.address() as AddressInfo)
    })
  })

/** A code the server answers with before any route runs, declared once in `ApiErrors.serverCodes`. */
type ServerCode = (typeof ApiErrors.serverCodes)[number]

/** Each server code's status, reason phrase and message (every code of the contract, no other). */
const serverAnswers = {
  bad_request: [400, "Bad Request", "Bad request"],
  request_timeout: [408, "Request Timeout", "Request timeout"],
  headers_too_large: [431, "Request Header Fields Too Large", "Request header fields too large"]
} as const satisfies Record<ServerCode, readonly [number, string, string]>

/** The code of a refusal of Node's parser, by its error code; any other is `bad_request`. */
const clientErrors: Readonly<Record<string, ServerCode>> = {
  HPE_HEADER_OVERFLOW: "headers_too_large",
  ERR_HTTP_REQUEST_TIMEOUT: "request_timeout"
}

/** Requests Node's own parser refuses never reach Pixgate: answer them with the error body too. */
const answerClientError = (error: NodeJS.ErrnoException, socket: Duplex) => {
  if (error.code === "ECONNRESET" || !socket.writable) return socket.destroy()
  const code = clientErrors[error.code ?? ""] ?? "bad_request"
  const [status, reason, message] = serverAnswers[code]
  const body = JSON.stringify({ error: message, code })
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  )
}

const isRoot = (url: string) => url === "/" || url.startsWith("/?")

/** The health probes, which the connections of the probes' reserve still serve at the cap. */
const probePaths = new Set(["/api/health", "/api/health/live", "/api/health/ready"])

const isProbe = (req: IncomingMessage) =>
  (req.method === "GET" || req.method === "HEAD") && probePaths.has(Router.pathOf(req.url ?? "/"))

const busyBody = JSON.stringify({ error: "Service temporarily unavailable", code: "service_unavailable" })

/** What a request other than a probe gets on a connection of the probes' reserve. */
const answerBusy = (res: ServerResponse) => {
  res.shouldKeepAlive = false
  res.writeHead(503, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(busyBody),
    "retry-after": "1"
  })
  res.end(busyBody)
}

const adminSubpath = `${adminPath}/`
const adminQuery = `${adminPath}?`
const isAdmin = (url: string) =>
  url.startsWith(adminPath) &&
  (url === adminPath || url.startsWith(adminSubpath) || url.startsWith(adminQuery))

/** Where things are, for whoever opens the server's root: JSON, or a small page for a browser. */
const answerIndex = (req: IncomingMessage, res: ServerResponse, admin: boolean, panel: boolean) => {
  const links = {
    name: "Pixgate",
    docs: "/api/docs",
    openapi: "/api/openapi.json",
    health: "/api/health",
    api: "/api/v1",
    ...(admin ? { admin: adminPath } : {}),
    ...(panel ? { panel: panelPath } : {})
  }
  const browser = /\btext\/html\b/.test(req.headers.accept ?? "")
  const body = browser
    ? `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Pixgate</title></head><body>` +
      `<h1>Pixgate</h1><ul>` +
      `<li><a href="/api/docs">API reference</a> (/api/docs)</li>` +
      `<li><a href="/api/openapi.json">OpenAPI document</a> (/api/openapi.json)</li>` +
      `<li><a href="/api/health">Health</a> (/api/health)</li>` +
      `<li>The API: /api/v1 (every call takes an <code>x-api-key</code> header)</li>` +
      (panel ? `<li><a href="${panelPath}/">Merchant panel</a> (${panelPath})</li>` : "") +
      `</ul></body></html>`
    : JSON.stringify(links)
  res.writeHead(200, {
    "content-type": browser ? "text/html; charset=utf-8" : "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(body),
    vary: "accept"
  })
  res.end(req.method === "HEAD" ? undefined : body)
}

/**
 * The live gateway: a configured plugin (`GatewayPlugin.configure`), or a plugin by name (a
 * built-in, a module's path from `cwd`, or a package; default `efi`) with its settings in code,
 * which its start-up check names by field. With the secret of the bank's callback route.
 */
export type LiveOptions =
  | {
      readonly gateway: GatewayPlugin.Configured
      readonly callbackSecret: string
      /**
       * More live gateways an operator can assign merchants to (`PIXGATE_GATEWAYS`), each
       * taking its callbacks at `/bank/callbacks/<secret>/gateways/<name>`.
       */
      readonly gateways?: ReadonlyArray<GatewayPlugin.Configured>
    }
  | { readonly plugin?: string; readonly settings: unknown; readonly callbackSecret: string }

/** Default of `ServerOptions.shutdownTimeoutMs`. */
export const defaultShutdownTimeoutMs = 10_000

/** The live gateway, its settings checked first (the plugin's start-up check): a wrong one throws. */
const liveGateway = async (live: LiveOptions, cwd: string) => {
  const gateway =
    "gateway" in live
      ? live.gateway
      : GatewayPlugin.configure(
          await Gateways.load(live.plugin ?? Gateways.defaultGateway, cwd),
          live.settings
        )
  const more = "gateways" in live ? (live.gateways ?? []) : []
  for (const each of [gateway, ...more]) {
    const checked = await Effect.runPromise(Effect.either(each.check))
    if (checked._tag === "Left") throw new Error(checked.left.message)
  }
  return { gateway, bankCallbacks: { secret: live.callbackSecret }, more }
}

/**
 * The stop's last line, with its figures: requests in flight when it began, how long the
 * drain took, connections cut at its time-out, and the whole stop. Written after the engine's
 * runtime (and its logger) is gone, through a writer of its own on the same output.
 */
const stopped = (options: Log.LogOptions | undefined, fields: Record<string, unknown>) => {
  const writer = Log.writer(options)
  Effect.runSync(
    Effect.logInfo("Pixgate stopped").pipe(Effect.annotateLogs(fields), Effect.provide(Log.layer(writer)))
  )
  writer.flush()
}

/**
 * Erases personal data older than `days` now and every hour (a fiber of the engine's runtime;
 * each instance on a database does it, and erasing what is erased finds nothing). 0: none.
 */
const retain = (pixgate: Pixgate.Pixgate, days: number) =>
  pixgate.runtime.runFork(
    days === 0
      ? Effect.void
      : Effect.flatMap(Engine.Engine, (engine) =>
          engine.erasure.eraseOlderThan(Duration.days(days)).pipe(
            Effect.tap(({ transactions }) =>
              transactions === 0
                ? Effect.void
                : Effect.logInfo("Personal data past retention erased").pipe(
                    Effect.annotateLogs({ transactions, retentionDays: days })
                  )
            ),
            Effect.catchAll((e) => Effect.logWarning("Retention erasure failed; retried in an hour", e)),
            Effect.repeat(Schedule.spaced(Duration.hours(1)))
          )
        )
  )

/** Private live webhooks are a local trial's: refused outside the development profile. */
const checkProfile = (options: ServerOptions) => {
  if (options.allowPrivateLiveWebhooks && options.profile !== "development")
    throw new Error(
      "allowPrivateLiveWebhooks (PIXGATE_ALLOW_PRIVATE_WEBHOOKS=1) needs the development profile " +
        "(PIXGATE_PROFILE=development): live webhooks could reach the server's own network"
    )
}

/** The engine's settings the server's options change. */
const engineConfig = (options: ServerOptions) => ({
  ...(options.allowInsecureLiveWebhooks ? { allowInsecureLiveWebhooks: true } : {}),
  ...(options.allowPrivateLiveWebhooks ? { allowPrivateWebhookUrls: true } : {}),
  ...(options.allowPrivateTestWebhooks === false ? { allowPrivateTestWebhookUrls: false } : {}),
  ...(options.readinessTimeoutMs === undefined
    ? {}
    : { readinessTimeout: Duration.millis(options.readinessTimeoutMs) }),
  ...(options.webhookEndpointMaxConcurrency === undefined
    ? {}
    : { webhookEndpointMaxConcurrency: options.webhookEndpointMaxConcurrency }),
  ...(options.webhookDisableAfterHours === undefined
    ? {}
    : { webhookDisableAfter: Duration.hours(options.webhookDisableAfterHours) }),
  ...(options.webhookResendRate === undefined ? {} : { webhookResendRate: options.webhookResendRate })
})

type Live = Awaited<ReturnType<typeof liveGateway>>

/** The engine and its HTTP front, on the store of `target`. */
const makePixgate = (
  options: ServerOptions,
  target: Database.Target,
  live: Live | undefined,
  telemetry: Telemetry.Loaded,
  withPanel: boolean
) =>
  Pixgate.make({
    ...(withPanel ? { panel: { basePath: panelPath } } : {}),
    store: Database.layer(target, options.dataKeys, options.postgres),
    ...(options.mail === undefined ? {} : { mailer: Smtp.layer(options.mail) }),
    engine: {
      hostResolver: NodeHostResolver.layer,
      // After the HTTP drain, running jobs get the same bound to finish (then they are
      // interrupted and run again after their lease).
      workerOptions: { shutdownGrace: options.shutdownTimeoutMs ?? defaultShutdownTimeoutMs },
      config: engineConfig(options),
      ...(live === undefined || live.more.length === 0 ? {} : { gateways: live.more })
    },
    ...(options.webhookProxy ? { webhookProxy: options.webhookProxy } : {}),
    admin: { basePath: adminPath, ...(options.adminToken ? { token: options.adminToken } : {}) },
    ...(options.maxBodySize === undefined ? {} : { maxBodySize: options.maxBodySize }),
    ...(options.rateLimit === undefined ? {} : { rateLimit: options.rateLimit }),
    ...(options.log === undefined ? {} : { log: options.log }),
    ...(options.trustProxy === undefined ? {} : { trustProxy: options.trustProxy }),
    ...telemetry.engine,
    ...(live === undefined ? {} : { gateway: live.gateway, bankCallbacks: live.bankCallbacks })
  })

/** What a request goes to: the probes' reserve, `/metrics`, the index, the admin router, the panel, the API. */
const router = (
  options: ServerOptions,
  pixgate: Pixgate.Pixgate,
  telemetry: Telemetry.Loaded,
  connections: ReturnType<typeof Connections.tracker>,
  busy: () => void
) => {
  const { admin, panel } = pixgate
  return (req: IncomingMessage, res: ServerResponse) => {
    connections.track(req, res)
    if (connections.reserved(req) && !isProbe(req)) {
      busy()
      return answerBusy(res)
    }
    const url = req.url ?? "/"
    if (telemetry.handle(req, res)) return
    if (isRoot(url) && (req.method === "GET" || req.method === "HEAD"))
      return answerIndex(req, res, Boolean(options.adminToken), panel !== undefined)
    if (admin !== undefined && isAdmin(url)) {
      // Without any admin token every /admin path is unknown (404), as if it were not mounted;
      // a database that does not answer leaves the admin router to say so (503).
      if (options.adminToken) admin.nodeHandler(req, res)
      else
        void AdminGate.anyToken(pixgate, true).then((open) =>
          open ? admin.nodeHandler(req, res) : pixgate.nodeHandler(req, res)
        )
    } else if (panel?.matches(Router.pathOf(url))) panel.nodeHandler(req, res)
    else pixgate.nodeHandler(req, res)
  }
}

/**
 * Connections beyond `maxConnections` and the probes' reserve are closed unread, and requests
 * other than probes on the reserve answered 503: a warning at the first, then at most one per
 * 10 s, each with how many were refused since the one before; none once the server is closing.
 */
const refusalWarnings = (
  pixgate: Pixgate.Pixgate,
  limits: Required<Connections.ConnectionOptions>,
  closing: () => boolean
) => {
  let refused = 0
  let busy = 0
  let warnedAt = Number.NEGATIVE_INFINITY
  const warn = () => {
    if (closing() || Date.now() - warnedAt < 10_000) return
    warnedAt = Date.now()
    const fields = {
      refused,
      busy,
      maxConnections: limits.maxConnections,
      probeConnections: limits.probeConnections
    }
    refused = 0
    busy = 0
    void pixgate.runtime.runPromise(
      Effect.logWarning("Connections refused: maxConnections reached").pipe(Effect.annotateLogs(fields))
    )
  }
  return {
    /** A request other than a probe on the reserve, answered 503. */
    busy: () => {
      busy++
      warn()
    },
    /** A connection beyond the cap and the reserve, closed unread. */
    dropped: () => {
      refused++
      warn()
    }
  }
}

const logInfo = (pixgate: Pixgate.Pixgate, message: string, fields: Record<string, unknown>) =>
  pixgate.runtime.runPromise(Effect.logInfo(message).pipe(Effect.annotateLogs(fields)))

/** The start's log: where the server listens and what it serves; the private webhooks' warning. */
const announce = async (
  options: ServerOptions,
  pixgate: Pixgate.Pixgate,
  url: string,
  target: Database.Target,
  live: Live | undefined,
  telemetry: Telemetry.Loaded
) => {
  await logInfo(pixgate, "Pixgate listening", {
    url,
    database: Database.describe(target),
    admin: Boolean(options.adminToken) || (await AdminGate.anyToken(pixgate, false)),
    live:
      live === undefined
        ? "not configured (live keys answer 502)"
        : (live.gateway.summary ?? live.gateway.name),
    ...(live === undefined ? {} : { gateway: live.gateway.name }),
    ...(live === undefined || live.more.length === 0 ? {} : { gateways: live.more.map((g) => g.name) }),
    panel: pixgate.panel === undefined ? null : `${url}${panelPath}`,
    metrics: telemetry.metricsUrl
  })
  if (options.allowPrivateLiveWebhooks)
    await pixgate.runtime.runPromise(
      Effect.logWarning(
        "Live-mode webhooks may go to loopback and private addresses (PIXGATE_ALLOW_PRIVATE_WEBHOOKS=1, " +
          "development profile): for a local trial only"
      )
    )
}

/** What a running server's stop works on. */
interface Parts {
  readonly options: ServerOptions
  readonly url: string
  readonly pixgate: Pixgate.Pixgate
  readonly connections: ReturnType<typeof Connections.tracker>
  readonly retention: ReturnType<typeof retain>
  readonly stopLedgerChecks: () => Promise<void>
  readonly telemetry: Telemetry.Loaded
}

/** The graceful stop: readiness 503, the drain, then the retention, ledger checks, engine and telemetry. */
const stop = async ({
  options,
  url,
  pixgate,
  connections,
  retention,
  stopLedgerChecks,
  telemetry
}: Parts) => {
  // Holds the event loop open until the stop is complete: what the stop waits on (a worker
  // thread's exit, a pool's end) may not, and a process whose loop empties mid-await exits
  // before its store is closed.
  const hold = setInterval(() => {}, 60_000)
  const stopping = Date.now()
  try {
    Effect.runSync(Ref.set(pixgate.draining, true)) // readiness answers 503 from here on
    const drained = connections.drain(options.shutdownTimeoutMs ?? defaultShutdownTimeoutMs)
    const inFlight = connections.inFlight()
    await logInfo(pixgate, "Pixgate stopping", { url, inFlight })
    await drained
    const drainedMs = Date.now() - stopping
    await pixgate.runtime.runPromise(Fiber.interrupt(retention))
    await stopLedgerChecks()
    await pixgate.dispose()
    await telemetry.close()
    stopped(options.log, {
      url,
      inFlight,
      drainedMs,
      cutConnections: connections.cut(),
      stopMs: Date.now() - stopping
    })
  } finally {
    clearInterval(hold)
  }
}

/** Starts the server; rejects when the store cannot open or the port is taken. */
export const start = async (options: ServerOptions = {}): Promise<RunningServer> => {
  checkProfile(options)
  const limits = Connections.resolve(options)
  const target = Database.parse(options.database ?? Database.defaultUrl, options.cwd)
  const live =
    options.live === undefined ? undefined : await liveGateway(options.live, options.cwd ?? process.cwd())
  // `/metrics` on the main port takes any admin token: the engine (built below) checks it.
  let running: Pixgate.Pixgate | undefined
  const telemetry = await Telemetry.load(
    options.telemetry,
    AdminGate.metrics(options.adminToken, () => running)
  )
  const withPanel = options.panel !== false && (await Pixgate.panelModule()) !== undefined
  const pixgate = await makePixgate(options, target, live, telemetry, withPanel)
  running = pixgate
  const stopLedgerChecks = telemetry.watch(pixgate.runtime)
  const abandon = async () => {
    await stopLedgerChecks()
    await pixgate.dispose()
    await telemetry.close()
  }
  if (
    options.telemetry?.metrics === "admin" &&
    !options.adminToken &&
    !(await AdminGate.anyToken(pixgate, false))
  ) {
    await abandon()
    throw new TypeError(
      "Pixgate: metrics behind the admin token need an admin token: set PIXGATE_ADMIN_TOKEN, or create one with pixgate admin-token create"
    )
  }
  let closing: Promise<void> | undefined
  const refusals = refusalWarnings(pixgate, limits, () => closing !== undefined)
  const server = createServer(Connections.serverOptions(limits))
  // Node closes unread what is beyond the cap and the probes' reserve; the tracker marks the
  // reserve's connections, which serve health probes only.
  server.maxConnections = limits.maxConnections + limits.probeConnections
  const connections = Connections.tracker(server, limits.maxConnections)
  server.on("request", router(options, pixgate, telemetry, connections, refusals.busy))
  server.on("clientError", answerClientError)
  let address: AddressInfo
  try {
    address = await listen(server, options.port ?? 3000, options.host ?? "127.0.0.1")
  } catch (error) {
    await abandon()
    throw error
  }
  const url = `http://${address.family === "IPv6" ? `[${address.address}]` : address.address}:${address.port}`
  await announce(options, pixgate, url, target, live, telemetry)
  const retention = retain(pixgate, options.retentionDays ?? 0)
  server.on("drop", refusals.dropped)
  const parts: Parts = { options, url, pixgate, connections, retention, stopLedgerChecks, telemetry }
  const close = () => {
    closing ??= stop(parts)
    return closing
  }
  return { url, pixgate, close }
}
