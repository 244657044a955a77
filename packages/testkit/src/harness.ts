/**
 * A Pixgate on a real socket (node:http on 127.0.0.1, a free port) over MemoryStore unless told
 * otherwise, plus a small fetch client and direct access to the engine for set-up.
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { Engine, MemoryStore } from "@pixgate/core"
import { Pixgate } from "@pixgate/http/node"
import { Effect } from "effect"
import * as Contract from "./contract.js"
import { storeOf } from "./database.js"

/** A response as tests read it. */
export interface Answer {
  readonly status: number
  readonly headers: Headers
  readonly text: string
  // biome-ignore lint/suspicious/noExplicitAny: tests read bodies dynamically
  readonly body: any
}

/** What a request may carry. */
export interface Call {
  readonly key?: string
  /** An object or array is sent as JSON; a string as is. */
  readonly body?: unknown
  readonly headers?: Record<string, string>
}

/** A running test server. */
export interface Harness {
  readonly base: string
  readonly pixgate: Pixgate.Pixgate
  readonly logs: Array<string>
  readonly request: (method: string, path: string, call?: Call) => Promise<Answer>
  readonly engine: <A, E>(f: (engine: Engine.EngineShape) => Effect.Effect<A, E>) => Promise<A>
  readonly merchant: (name?: string) => Promise<{ merchantId: string; testKey: string; liveKey: string }>
  readonly close: () => Promise<void>
}

/**
 * Listens on a free port of 127.0.0.1. Idle keep-alive sockets stay open for a minute: with
 * Node's 5 s, a loaded machine's stalled event loop let the server close a socket just as the
 * test's next request (fetch's pool keeps them 4 s by a coarser clock) went out on it, a reset
 * the code under test had no part in.
 */
export const listen = async (server: Server): Promise<string> => {
  server.keepAliveTimeout = 60_000
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

/** Sends one request and reads the whole answer. */
export const send = async (base: string, method: string, path: string, call: Call = {}): Promise<Answer> => {
  const headers: Record<string, string> = { ...call.headers }
  if (call.key !== undefined) headers["x-api-key"] = call.key
  let body: string | undefined
  if (call.body !== undefined) {
    body = typeof call.body === "string" ? call.body : JSON.stringify(call.body)
    headers["content-type"] ??= "application/json"
  }
  const response = await fetch(`${base}${path}`, { method, headers, ...(body === undefined ? {} : { body }) })
  const text = await response.text()
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    parsed = undefined
  }
  const answer = { status: response.status, headers: response.headers, text, body: parsed }
  await Contract.check(`${base}${path}`, method, answer)
  return answer
}

/** Starts Pixgate on MemoryStore (options override) behind node:http. */
export const start = async ({
  database,
  ...options
}: Partial<Pixgate.PixgateOptions> & { readonly database?: string } = {}): Promise<Harness> => {
  const logs: Array<string> = []
  const pixgate = await Pixgate.make({
    store: database === undefined ? MemoryStore.layer : storeOf(database),
    log: { level: "info", write: (line) => logs.push(line) },
    ...options
  })
  const server = createServer((req, res) => pixgate.nodeHandler(req, res))
  const base = await listen(server)
  const engine = <A, E>(f: (engine: Engine.EngineShape) => Effect.Effect<A, E>) =>
    pixgate.runtime.runPromise(Effect.flatMap(Engine.Engine, f))
  return {
    base,
    pixgate,
    logs,
    request: (method, path, call) => send(base, method, path, call),
    engine,
    merchant: (name = "Loja Teste") => engine((e) => e.admin.createMerchant({ name })),
    close: async () => {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
      await pixgate.dispose()
    }
  }
}

/** A request to the admin API under `/admin` of `base()`, with `token` as its bearer. */
export const adminSender =
  (base: () => string, token: string) =>
  (method: string, path: string, call: Call = {}): Promise<Answer> =>
    send(base(), method, `/admin${path}`, {
      ...call,
      headers: { authorization: `Bearer ${token}`, ...call.headers }
    })
