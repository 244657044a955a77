import type { IncomingMessage, ServerResponse } from "node:http"
import type { Socket } from "node:net"
import type { Bank } from "./Bank.js"
import type { FaultKind, Faults, RouteName } from "./Faults.js"
import type { Token } from "./Model.js"
import { authorize, bearer, unauthorized } from "./OAuth.js"
import { problem, type Reply } from "./Reply.js"
import type { Route } from "./Route.js"

/** One request the API server received, as recorded for tests and the control API. */
export interface RequestRecord {
  readonly at: Date
  readonly method: string
  readonly path: string
  /** The matched route; undefined for an unknown path. */
  readonly route?: RouteName
  /** The status answered, or the fault that replaced the answer (`reset`, `timeout`). */
  readonly outcome: number | "reset" | "timeout"
}

const maxBody = 1024 * 1024

interface CompiledRoute {
  readonly route: Route
  readonly pattern: RegExp
  readonly names: ReadonlyArray<string>
}

const compile = (route: Route): CompiledRoute => {
  const names: Array<string> = []
  const source = route.path
    .split("/")
    .map((segment) => {
      if (!segment.startsWith(":")) return segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
      names.push(segment.slice(1))
      return "([^/]+)"
    })
    .join("/")
  return { route, pattern: new RegExp(`^${source}$`), names }
}

/** The whole body of a request (up to 1 MiB: a larger one destroys the request). */
export const readBody = (request: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    const chunks: Array<Buffer> = []
    let size = 0
    request.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size > maxBody) request.destroy(new Error("body too large"))
      else chunks.push(chunk)
    })
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    request.on("error", reject)
  })

/** A body as JSON; `undefined` when empty or not JSON. */
export const parseJson = (text: string): unknown => {
  if (text.length === 0) return undefined
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** Destroys a socket with a TCP reset where Node allows it (plain TCP), else closes it. */
export const resetSocket = (socket: Socket) => {
  try {
    socket.resetAndDestroy()
  } catch {
    socket.destroy()
  }
}

const faultStatus = (status: number, retryAfter: number | undefined): Reply => {
  const reply =
    status === 503
      ? problem(503, "ServicoIndisponivel", "Service unavailable.", "The simulated PSP is unavailable.")
      : status === 429
        ? problem(429, "LimiteDeRequisicoes", "Too many requests.", "The simulated PSP throttled the caller.")
        : problem(status, "ErroInternoDoServidor", "Internal server error.", "The simulated PSP failed.")
  return retryAfter === undefined ? reply : { ...reply, headers: { "retry-after": String(retryAfter) } }
}

/** What the API's request handler serves and records. */
interface HandlerSettings {
  readonly routes: ReadonlyArray<Route>
  readonly bank: Bank
  readonly faults: Faults
  readonly tokens: Map<string, Token>
  readonly now: () => Date
  readonly requests: Array<RequestRecord>
  /** Waits `ms` (latency faults); the simulator cancels pending waits when it closes. */
  readonly sleep: (ms: number) => Promise<void>
}

/** Applies struck faults; true when one of them took over the answer. */
const strike = async (
  settings: HandlerSettings,
  struck: ReadonlyArray<FaultKind>,
  request: IncomingMessage,
  response: ServerResponse,
  record: (outcome: RequestRecord["outcome"]) => void
) => {
  for (const fault of struck) if (fault.kind === "latency") await settings.sleep(fault.ms)
  const terminal = struck.find((fault) => fault.kind !== "latency")
  if (!terminal) return false
  switch (terminal.kind) {
    case "status": {
      const reply = faultStatus(terminal.status ?? 500, terminal.retryAfter)
      record(reply.status)
      write(response, reply)
      return true
    }
    case "expireToken": {
      const value = bearer(request.headers)
      const token = value === undefined ? undefined : settings.tokens.get(value)
      if (token) token.expiresAt = settings.now().getTime()
      record(401)
      write(response, unauthorized())
      return true
    }
    case "reset":
      record("reset")
      resetSocket(request.socket)
      return true
    case "timeout":
      record("timeout")
      return true
    default:
      return false
  }
}

/** The route a request matches, with the path's parameters. */
const findRoute = (compiled: ReadonlyArray<ReturnType<typeof compile>>, method: string, url: URL) => {
  let params: Record<string, string> = {}
  const found = compiled.find((candidate) => {
    if (candidate.route.method !== method) return false
    const match = candidate.pattern.exec(url.pathname)
    if (!match) return false
    params = Object.fromEntries(
      candidate.names.map((name, index) => [name, decodeURIComponent(match[index + 1])])
    )
    return true
  })
  return { found, params }
}

/** The request handler of the simulated PSP's API: routing, faults, OAuth2 and the routes. */
export const makeHandler = (settings: HandlerSettings) => {
  const compiled = settings.routes.map(compile)

  const serve = async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? "/", "https://psp.local")
    const method = request.method ?? "GET"
    let text: string
    try {
      text = await readBody(request)
    } catch {
      return
    }
    const { found, params } = findRoute(compiled, method, url)
    const record = (outcome: RequestRecord["outcome"]) =>
      settings.requests.push({
        at: settings.now(),
        method,
        path: url.pathname,
        ...(found ? { route: found.route.name } : {}),
        outcome
      })
    if (!found) {
      const reply = problem(404, "NaoEncontrado", "Not found.", `No route for ${method} ${url.pathname}.`)
      record(reply.status)
      return write(response, reply)
    }
    const { route } = found
    if (await strike(settings, settings.faults.take(route.name, false), request, response, record)) return
    const denied =
      route.scope === undefined
        ? undefined
        : authorize(request.headers, route.scope, settings.tokens, settings.now)
    const reply =
      denied ??
      route.handle({
        params,
        query: url.searchParams,
        body: parseJson(text),
        text,
        headers: request.headers,
        bank: settings.bank
      })
    if (await strike(settings, settings.faults.take(route.name, true), request, response, record)) return
    record(reply.status)
    write(response, reply)
  }

  // A malformed escape in the path, or a bug, answers a problem instead of taking the process down.
  return (request: IncomingMessage, response: ServerResponse) =>
    serve(request, response).catch((error: unknown) =>
      write(
        response,
        error instanceof URIError
          ? problem(400, "RequisicaoInvalida", "Invalid request.", "The path has a malformed escape.")
          : problem(500, "ErroInternoDoServidor", "Internal server error.", String(error))
      )
    )
}

/** Writes a reply as JSON, unless the response is gone or already started. */
export const write = (response: ServerResponse, reply: Reply) => {
  if (response.destroyed || response.headersSent) return
  const payload = reply.body === undefined ? undefined : JSON.stringify(reply.body)
  response.writeHead(reply.status, {
    ...(payload === undefined ? {} : { "content-type": reply.contentType ?? "application/json" }),
    ...reply.headers
  })
  response.end(payload)
}
