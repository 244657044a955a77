/**
 * The standalone server: node:http serving the public API (and the admin router under `/admin`
 * when a token is configured) on a store chosen by database URL. Migrations run at start; one
 * JSON line reports the URL. `close()` stops accepting, lets requests in flight finish, then
 * stops the job worker and closes the store.
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import type { Duplex } from "node:stream"
import { NodeHostResolver } from "@pixgate/core/node"
import { ApiPix, type Settings as ApiPixSettings } from "@pixgate/gateway-apipix"
import { Effect } from "effect"
import * as Database from "./Database.js"
import type * as Log from "./Log.js"
import * as Pixgate from "./Pixgate.js"
import type * as RateLimit from "./RateLimit.js"

/** Standalone server settings (the CLI reads them from the environment). */
export interface ServerOptions {
  /** Default 3000; 0 picks a free port. */
  readonly port?: number
  /** Default 127.0.0.1. */
  readonly host?: string
  /** Database URL (default `sqlite:./data/pixgate.db`). */
  readonly database?: string
  /** Directory relative SQLite paths start from (default: the process's). */
  readonly cwd?: string
  /** Enables the admin router under `/admin`. */
  readonly adminToken?: string
  readonly maxBodySize?: number
  readonly rateLimit?: RateLimit.RateLimitOptions | false
  readonly log?: Log.LogOptions
  /**
   * The live bank (`@pixgate/gateway-apipix` settings, e.g. from `Settings.fromEnv`) and the
   * secret of its callback route `/bank/callbacks/<secret>`; without it, live keys answer 502.
   */
  readonly live?: { readonly settings: ApiPixSettings.ApiPixSettings; readonly callbackSecret: string }
  /** Longest wait for requests in flight at shutdown before their connections are cut (10 s). */
  readonly shutdownTimeoutMs?: number
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

const listen = (server: Server, port: number, host: string) =>
  new Promise<AddressInfo>((resolve, reject) => {
    server.once("error", reject)
    server.listen(port, host, () => {
      server.off("error", reject)
      resolve(server.address() as AddressInfo)
    })
  })

const clientErrors: Readonly<Record<string, readonly [number, string, string, string]>> = {
  HPE_HEADER_OVERFLOW: [
    431,
    "Request Header Fields Too Large",
    "Request header fields too large",
    "headers_too_large"
  ],
  ERR_HTTP_REQUEST_TIMEOUT: [408, "Request Timeout", "Request timeout", "request_timeout"]
}

/** Requests Node's own parser refuses never reach Pixgate: answer them with the error body too. */
const answerClientError = (error: NodeJS.ErrnoException, socket: Duplex) => {
  if (error.code === "ECONNRESET" || !socket.writable) return socket.destroy()
  const [status, reason, message, code] = clientErrors[error.code ?? ""] ?? [
    400,
    "Bad Request",
    "Bad request",
    "bad_request"
  ]
  const body = JSON.stringify({ error: message, code })
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  )
}

const stop = (server: Server, timeoutMs: number) =>
  new Promise<void>((resolve) => {
    const idle = setInterval(() => server.closeIdleConnections(), 50)
    const force = setTimeout(() => server.closeAllConnections(), timeoutMs)
    server.close(() => {
      clearInterval(idle)
      clearTimeout(force)
      resolve()
    })
    server.closeIdleConnections()
  })

/** Starts the server; rejects when the store cannot open or the port is taken. */
export const start = async (options: ServerOptions = {}): Promise<RunningServer> => {
  const target = Database.parse(options.database ?? Database.defaultUrl, options.cwd)
  const pixgate = await Pixgate.make({
    store: Database.layer(target),
    engine: { hostResolver: NodeHostResolver.layer },
    ...(options.adminToken ? { admin: { token: options.adminToken, basePath: adminPath } } : {}),
    ...(options.maxBodySize === undefined ? {} : { maxBodySize: options.maxBodySize }),
    ...(options.rateLimit === undefined ? {} : { rateLimit: options.rateLimit }),
    ...(options.log === undefined ? {} : { log: options.log }),
    ...(options.live === undefined
      ? {}
      : {
          liveGateway: ApiPix.layerNode(options.live.settings),
          bankCallbacks: { secret: options.live.callbackSecret }
        })
  })
  const admin = pixgate.admin
  const server = createServer((req, res) => {
    const url = req.url ?? "/"
    const isAdmin = url === adminPath || url.startsWith(`${adminPath}/`) || url.startsWith(`${adminPath}?`)
    if (admin !== undefined && isAdmin) admin.nodeHandler(req, res)
    else pixgate.nodeHandler(req, res)
  })
  server.on("clientError", answerClientError)
  const host = options.host ?? "127.0.0.1"
  let address: AddressInfo
  try {
    address = await listen(server, options.port ?? 3000, host)
  } catch (error) {
    await pixgate.dispose()
    throw error
  }
  const url = `http://${address.family === "IPv6" ? `[${address.address}]` : address.address}:${address.port}`
  const log = (message: string, fields: Record<string, unknown>) =>
    pixgate.runtime.runPromise(Effect.logInfo(message).pipe(Effect.annotateLogs(fields)))
  await log("Pixgate listening", {
    url,
    database: Database.describe(target),
    admin: admin !== undefined,
    live: options.live === undefined ? "not configured (live keys answer 502)" : options.live.settings.baseUrl
  })

  let closing: Promise<void> | undefined
  const close = () => {
    closing ??= (async () => {
      await log("Pixgate stopping", { url })
      await stop(server, options.shutdownTimeoutMs ?? 10_000)
      await pixgate.dispose()
    })()
    return closing
  }
  return { url, pixgate, close }
}
