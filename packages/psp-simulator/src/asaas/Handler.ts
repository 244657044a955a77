/**
 * The request handler of the simulated Asaas API: routing, the `access_token` header (401 in
 * Asaas's error shape when it is missing or wrong), the `User-Agent` Asaas requires of new
 * accounts, faults before or after the work, and a record of every request.
 */
import type { IncomingMessage, ServerResponse } from "node:http"
import type { FaultKind, Faults } from "../Faults.js"
import type { Reply } from "../Reply.js"
import { parseJson, readBody, resetSocket, write } from "../Server.js"
import type { Account } from "./Account.js"
import { type AsaasRoute, type AsaasRouteName, errors } from "./Route.js"

/** One request the simulated API received. */
export interface AsaasRequestRecord {
  readonly at: Date
  readonly method: string
  readonly path: string
  /** The query string, without its `?` ("" when none). */
  readonly query: string
  readonly route?: AsaasRouteName
  readonly outcome: number | "reset" | "timeout"
}

interface Compiled {
  readonly route: AsaasRoute
  readonly pattern: RegExp
  readonly names: ReadonlyArray<string>
}

const compile = (route: AsaasRoute): Compiled => {
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

/** A fault's answer: a 429 with Asaas's `RateLimit-*` headers, else an error in its shape. */
const faultReply = (status: number, retryAfter: number | undefined): Reply => {
  const reply =
    status === 429
      ? errors(429, "too_many_requests", "Limite de requisições excedido (simulado).")
      : errors(status, "internal_error", "O Asaas simulado falhou.")
  return status === 429
    ? {
        ...reply,
        headers: {
          "ratelimit-limit": "100",
          "ratelimit-remaining": "0",
          "ratelimit-reset": String(retryAfter ?? 60)
        }
      }
    : reply
}

/** Settings of the handler. */
export interface HandlerSettings {
  readonly routes: ReadonlyArray<AsaasRoute>
  readonly account: Account
  readonly faults: Faults<AsaasRouteName>
  readonly apiKey: () => string
  readonly requests: Array<AsaasRequestRecord>
  readonly sleep: (ms: number) => Promise<void>
}

/** Applies struck faults; true when one of them took over the answer. */
const strike = async (
  struck: ReadonlyArray<FaultKind>,
  sleep: (ms: number) => Promise<void>,
  request: IncomingMessage,
  response: ServerResponse,
  record: (outcome: AsaasRequestRecord["outcome"]) => void
) => {
  for (const fault of struck) if (fault.kind === "latency") await sleep(fault.ms)
  const terminal = struck.find((fault) => fault.kind !== "latency")
  if (terminal === undefined) return false
  if (terminal.kind === "reset") {
    record("reset")
    resetSocket(request.socket)
  } else if (terminal.kind === "timeout") record("timeout")
  else {
    const reply =
      terminal.kind === "status"
        ? faultReply(terminal.status ?? 500, terminal.retryAfter)
        : errors(401, "invalid_access_token", "A chave de API informada não pertence a este ambiente.")
    record(reply.status)
    write(response, reply)
  }
  return true
}

/** The route a request's method and path name, with its parameters. */
const find = (compiled: ReadonlyArray<Compiled>, method: string, path: string) => {
  for (const candidate of compiled) {
    if (candidate.route.method !== method) continue
    const match = candidate.pattern.exec(path)
    if (match === null) continue
    const params = Object.fromEntries(
      candidate.names.map((name, index) => [name, decodeURIComponent(match[index + 1] ?? "")])
    )
    return { route: candidate.route, params }
  }
  return undefined
}

/** The handler of the simulated Asaas API. */
export const makeHandler = (settings: HandlerSettings) => {
  const compiled = settings.routes.map(compile)

  const serve = async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? "/", "https://asaas.local")
    const method = request.method ?? "GET"
    let body: string
    try {
      body = await readBody(request)
    } catch {
      return
    }
    const found = find(compiled, method, url.pathname)
    const record = (outcome: AsaasRequestRecord["outcome"]) =>
      settings.requests.push({
        at: settings.account.settings.now(),
        method,
        path: url.pathname,
        query: url.search.slice(1),
        ...(found === undefined ? {} : { route: found.route.name }),
        outcome
      })
    if (found === undefined) {
      record(404)
      return write(response, errors(404, "not_found", `No route for ${method} ${url.pathname}.`))
    }
    if (
      await strike(settings.faults.take(found.route.name, false), settings.sleep, request, response, record)
    )
      return
    const reply =
      request.headers.access_token !== settings.apiKey()
        ? errors(401, "invalid_access_token", "A chave de API informada é inválida.")
        : (request.headers["user-agent"] ?? "") === ""
          ? errors(400, "invalid_user_agent", "Informe o header User-Agent.")
          : found.route.handle({
              params: found.params,
              query: url.searchParams,
              body: parseJson(body),
              account: settings.account
            })
    if (await strike(settings.faults.take(found.route.name, true), settings.sleep, request, response, record))
      return
    record(reply.status)
    write(response, reply)
  }

  return (request: IncomingMessage, response: ServerResponse) =>
    serve(request, response).catch((error: unknown) =>
      write(
        response,
        error instanceof URIError
          ? errors(400, "invalid_path", "The path has a malformed escape.")
          : errors(500, "internal_error", String(error))
      )
    )
}
