import type { IncomingMessage, ServerResponse } from "node:http"
import { type Bank, ControlError, cobJson, pixJson, sendJson } from "./Bank.js"
import type { CallbackMode } from "./Callbacks.js"
import { type Fault, routeNames } from "./Faults.js"
import { infracaoJson } from "./Infracoes.js"
import type { PspSimulator } from "./PspSimulator.js"
import { asObject } from "./Route.js"
import { recurringControl } from "./rec/Control.js"

class BadControl extends Error {}

const callbackMode = (value: unknown): CallbackMode | undefined => {
  if (value === undefined) return undefined
  if (value === "now" || value === "twice" || value === "never" || value === "hold") return value
  const delayMs = asObject(value)?.delayMs
  if (typeof delayMs === "number" && delayMs >= 0) return { delayMs }
  throw new BadControl('callback must be "now", "twice", "never", "hold" or { "delayMs": n }')
}

const optionalString = (body: Record<string, unknown>, name: string) => {
  const value = body[name]
  if (value === undefined) return undefined
  if (typeof value !== "string") throw new BadControl(`${name} must be a string`)
  return value
}

const fault = (body: Record<string, unknown>): Fault => {
  const route = body.route
  if (route !== "*" && !routeNames.includes(route as never)) {
    throw new BadControl(`route must be "*" or one of ${routeNames.join(", ")}`)
  }
  const times = body.times
  if (times !== undefined && !(typeof times === "number" && Number.isInteger(times) && times > 0)) {
    throw new BadControl("times must be a positive integer")
  }
  const common = {
    route: route as Fault["route"],
    ...(times === undefined ? {} : { times: times as number }),
    ...(body.after === true ? { after: true } : {})
  }
  switch (body.kind) {
    case "latency":
      if (typeof body.ms !== "number" || body.ms < 0) throw new BadControl("latency needs ms")
      return { ...common, kind: "latency", ms: body.ms }
    case "status":
      if (
        body.status !== undefined &&
        !(typeof body.status === "number" && body.status >= 400 && body.status < 600)
      ) {
        throw new BadControl("status must be 400 to 599")
      }
      if (
        body.retryAfter !== undefined &&
        !(typeof body.retryAfter === "number" && Number.isInteger(body.retryAfter) && body.retryAfter >= 0)
      ) {
        throw new BadControl("retryAfter must be a whole number of seconds")
      }
      return {
        ...common,
        kind: "status",
        ...(body.status === undefined ? {} : { status: body.status as number }),
        ...(body.retryAfter === undefined ? {} : { retryAfter: body.retryAfter as number })
      }
    case "expireToken":
    case "reset":
    case "timeout":
      return { ...common, kind: body.kind }
    default:
      throw new BadControl("kind must be latency, status, expireToken, reset or timeout")
  }
}

const read = (request: IncomingMessage) =>
  new Promise<Record<string, unknown>>((resolve, reject) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8")
      if (text.trim().length === 0) return resolve({})
      try {
        const body = asObject(JSON.parse(text))
        if (body) resolve(body)
        else reject(new BadControl("the body must be a JSON object"))
      } catch {
        reject(new BadControl("the body must be JSON"))
      }
    })
    request.on("error", reject)
  })

/** One control request: its method, path, path segments and JSON body. */
interface ControlRequest {
  readonly method: string
  readonly path: string
  readonly segments: ReadonlyArray<string>
  readonly first: string | undefined
  readonly id: string | undefined
  readonly action: string | undefined
  readonly body: Record<string, unknown>
}

type ControlReply = [number, unknown]

/** What the simulator's state looks like, for `GET /state`. */
const stateOf = (simulator: PspSimulator, bank: Bank) => ({
  cobs: [...bank.state.cobs.values()].map((cob) => cobJson(cob, bank.state)),
  pix: [...bank.state.pix.values()].map(pixJson),
  sends: [...bank.state.sends.values()].map(sendJson),
  webhooks: [...bank.state.webhooks.values()],
  faults: simulator.faults(),
  held: simulator.held,
  deliveries: simulator.deliveries,
  requests: simulator.requests
})

// What a benchmark reads after a load: calls per route and callbacks, without the books.
const countsOf = (simulator: PspSimulator) => {
  const routes: Record<string, number> = {}
  for (const request of simulator.requests) {
    const name = request.route ?? "unknown"
    routes[name] = (routes[name] ?? 0) + 1
  }
  return { requests: simulator.requests.length, routes, deliveries: simulator.deliveries.length }
}

/** `GET /tls`: the certificates a client needs to call the simulator. */
const tlsRoute = (simulator: PspSimulator, { method, path }: ControlRequest): ControlReply | undefined => {
  if (method === "GET" && path === "/tls") {
    const { caPem, clientCertPem, clientKeyPem, clientPkcs12, clientPkcs12Passphrase } = simulator.tls
    return [
      200,
      {
        caPem,
        clientCertPem,
        clientKeyPem,
        clientPkcs12Base64: clientPkcs12.toString("base64"),
        clientPkcs12Passphrase
      }
    ]
  }
  return undefined
}

/** The controls of cobs and sends: pay, read, remove, settle, reject. */
const cobAndSendRoutes = async (
  simulator: PspSimulator,
  bank: Bank,
  { method, segments, first, id, action, body }: ControlRequest
): Promise<ControlReply | undefined> => {
  if (method === "POST" && first === "cobs" && id && action === "pay" && segments.length === 3) {
    const callback = callbackMode(body.callback)
    const valor = optionalString(body, "valor")
    const endToEndId = optionalString(body, "endToEndId")
    const pix = await simulator.payCob(id, {
      ...(valor === undefined ? {} : { valor }),
      ...(endToEndId === undefined ? {} : { endToEndId }),
      ...(callback === undefined ? {} : { callback }),
      ...(body.force === true ? { force: true } : {})
    })
    return [200, pixJson(pix)]
  }
  if (method === "GET" && first === "cobs" && id && segments.length === 2) {
    const cob = bank.state.cobs.get(id)
    if (!cob) throw new ControlError(404, `no cob with txid ${id}`)
    return [200, cobJson(cob, bank.state)]
  }
  if (method === "POST" && first === "cobs" && id && action === "remove" && segments.length === 3) {
    return [200, cobJson(simulator.removeCob(id), bank.state)]
  }
  if (method === "POST" && first === "sends" && id && (action === "settle" || action === "reject")) {
    const callback = callbackMode(body.callback)
    const motivo = optionalString(body, "motivo")
    const options = {
      ...(callback === undefined ? {} : { callback }),
      ...(motivo === undefined ? {} : { motivo })
    }
    const send = await (action === "settle"
      ? simulator.settleSend(id, options)
      : simulator.rejectSend(id, options))
    return [200, sendJson(send)]
  }
  return undefined
}

/** The controls of infractions (MED): open, conclude, expire, list. */
const infractionRoutes = async (
  simulator: PspSimulator,
  { method, path, segments, first, id, action, body }: ControlRequest
): Promise<ControlReply | undefined> => {
  if (method === "POST" && first === "pix" && id && action === "infracoes" && segments.length === 3) {
    const tipo = body.tipo
    if (tipo !== undefined && tipo !== "fraude" && tipo !== "falha_operacional")
      throw new BadControl('tipo must be "fraude" or "falha_operacional"')
    const prazoMs = body.prazoMs
    if (prazoMs !== undefined && !(typeof prazoMs === "number" && prazoMs >= 0))
      throw new BadControl("prazoMs must be a number of milliseconds")
    const motivo = optionalString(body, "motivo")
    const valor = optionalString(body, "valor")
    const valorBloqueio = optionalString(body, "valorBloqueio")
    const infracao = simulator.openInfraction(id, {
      ...(tipo === undefined ? {} : { tipo }),
      ...(motivo === undefined ? {} : { motivo }),
      ...(valor === undefined ? {} : { valor }),
      ...(valorBloqueio === undefined ? {} : { valorBloqueio }),
      ...(body.bloqueio === false ? { bloqueio: false } : {}),
      ...(prazoMs === undefined ? {} : { prazoMs: prazoMs as number })
    })
    return [200, infracaoJson(infracao)]
  }
  if (method === "POST" && first === "infracoes" && id && action === "concluir" && segments.length === 3) {
    const status = body.status
    if (status !== "ACEITA" && status !== "REJEITADA" && status !== "CANCELADA")
      throw new BadControl('status must be "ACEITA", "REJEITADA" or "CANCELADA"')
    const valorDevolvido = optionalString(body, "valorDevolvido")
    const callback = callbackMode(body.callback)
    const infracao = await simulator.concludeInfraction(id, {
      status,
      ...(valorDevolvido === undefined ? {} : { valorDevolvido }),
      ...(callback === undefined ? {} : { callback })
    })
    return [200, infracaoJson(infracao)]
  }
  if (method === "POST" && first === "infracoes" && id && action === "expirar" && segments.length === 3) {
    return [200, infracaoJson(simulator.expireInfraction(id))]
  }
  if (method === "GET" && path === "/infracoes") {
    return [200, { infracoes: [...simulator.infracoes.values()].map(infracaoJson) }]
  }
  return undefined
}

/** The controls of the simulator's behaviour: callbacks, faults, tokens. */
const settingRoutes = async (
  simulator: PspSimulator,
  { method, path, body }: ControlRequest
): Promise<ControlReply | undefined> => {
  if (method === "POST" && path === "/callbacks/release") {
    const order = body.order ?? "held"
    if (order !== "held" && order !== "reverse") throw new BadControl('order must be "held" or "reverse"')
    await simulator.releaseCallbacks(order)
    return [200, { deliveries: simulator.deliveries }]
  }
  if (method === "PUT" && path === "/callbacks/mode") {
    const mode = callbackMode(body.mode)
    if (mode === undefined) throw new BadControl("mode is required")
    simulator.setCallbackMode(mode)
    return [200, { mode }]
  }
  if (method === "POST" && path === "/faults") {
    simulator.addFault(fault(body))
    return [200, { faults: simulator.faults() }]
  }
  if (method === "DELETE" && path === "/faults") {
    simulator.clearFaults()
    return [200, { faults: [] }]
  }
  if (method === "POST" && path === "/tokens/expire") {
    simulator.expireTokens()
    return [200, {}]
  }
  if (method === "PUT" && path === "/tokens/ttl") {
    const seconds = body.seconds
    if (!(typeof seconds === "number" && Number.isInteger(seconds) && seconds > 0)) {
      throw new BadControl("seconds must be a positive integer")
    }
    simulator.setTokenTtl(seconds)
    return [200, { seconds }]
  }
  return undefined
}

/** Answers one control request. */
const route = async (
  simulator: PspSimulator,
  bank: Bank,
  method: string,
  path: string,
  body: Record<string, unknown>
): Promise<ControlReply> => {
  const segments = path
    .split("/")
    .filter((segment) => segment.length > 0)
    .map(decodeURIComponent)
  const [first, id, action] = segments
  if (method === "GET" && path === "/state") return [200, stateOf(simulator, bank)]
  if (method === "GET" && path === "/requests/counts") return [200, countsOf(simulator)]
  const request: ControlRequest = { method, path, segments, first, id, action, body }
  const reply =
    tlsRoute(simulator, request) ??
    (await cobAndSendRoutes(simulator, bank, request)) ??
    (await infractionRoutes(simulator, request)) ??
    (await settingRoutes(simulator, request))
  if (reply) return reply
  const recurring = await recurringControl(
    simulator.recurring,
    method,
    segments,
    body,
    callbackMode(body.callback)
  )
  if (recurring) return recurring
  return [404, { error: `no control ${method} ${path}` }]
}

/**
 * The control API (plain HTTP, JSON): the same controls as the programmatic API, for a terminal.
 * See the package README for the list.
 */
export const makeControlHandler = (simulator: PspSimulator, bank: Bank) => {
  return (request: IncomingMessage, response: ServerResponse) => {
    const path = new URL(request.url ?? "/", "http://control.local").pathname
    void read(request)
      .then((body) => route(simulator, bank, request.method ?? "GET", path, body))
      .catch((error: unknown): [number, unknown] => {
        if (error instanceof ControlError) return [error.status, { error: error.message }]
        if (error instanceof BadControl) return [400, { error: error.message }]
        return [500, { error: error instanceof Error ? error.message : String(error) }]
      })
      .then(([status, body]) => {
        response.writeHead(status, { "content-type": "application/json" })
        response.end(JSON.stringify(body))
      })
  }
}
