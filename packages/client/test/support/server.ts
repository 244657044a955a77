/**
 * A real Pixgate for the client's tests: the engine on in-memory SQLite behind node:http on a free
 * port of 127.0.0.1, merchants made through the engine's admin API, and a webhook receiver that
 * keeps every request's raw body and headers.
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { Engine } from "@pixgate/core"
import { Pixgate } from "@pixgate/server"
import { testWaitMs } from "@pixgate/testkit/wait"
import { Effect } from "effect"

/** A running server. */
export interface TestServer {
  readonly baseUrl: string
  readonly engine: <A, E>(f: (engine: Engine.EngineShape) => Effect.Effect<A, E>) => Promise<A>
  readonly merchant: (name?: string) => Promise<{ merchantId: string; testKey: string; liveKey: string }>
  readonly close: () => Promise<void>
}

const listen = async (server: Server): Promise<string> => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

const close = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections()
    server.close(() => resolve())
  })

/** Starts Pixgate on `sqlite::memory:` (`options` override). */
export const startServer = async (options: Partial<Pixgate.PixgateOptions> = {}): Promise<TestServer> => {
  const pixgate = await Pixgate.make({ database: "sqlite::memory:", log: { level: "none" }, ...options })
  const server = createServer((req, res) => pixgate.nodeHandler(req, res))
  const baseUrl = await listen(server)
  const engine = <A, E>(f: (engine: Engine.EngineShape) => Effect.Effect<A, E>) =>
    pixgate.runtime.runPromise(Effect.flatMap(Engine.Engine, f))
  return {
    baseUrl,
    engine,
    merchant: (name = "Loja Cliente") => engine((e) => e.admin.createMerchant({ name })),
    close: async () => {
      await close(server)
      await pixgate.dispose()
    }
  }
}

/** One request a receiver got. */
export interface Delivery {
  readonly headers: IncomingHttpHeaders
  /** The body's exact bytes. */
  readonly raw: Buffer
}

/** A webhook receiver answering 200 to every POST. */
export interface Receiver {
  readonly url: string
  readonly deliveries: Array<Delivery>
  /** Waits (up to `timeoutMs`, one base wait by default) for a delivery that `match` accepts. */
  readonly next: (match: (delivery: Delivery) => boolean, timeoutMs?: number) => Promise<Delivery>
  readonly close: () => Promise<void>
}

/** Starts a receiver on a free port of 127.0.0.1. */
export const startReceiver = async (): Promise<Receiver> => {
  const deliveries: Array<Delivery> = []
  const server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      deliveries.push({ headers: req.headers, raw: Buffer.concat(chunks) })
      res.writeHead(200).end("ok")
    })
  })
  const url = `${await listen(server)}/hooks/pixgate`
  return {
    url,
    deliveries,
    next: async (match, timeoutMs = testWaitMs) => {
      const deadline = Date.now() + timeoutMs
      while (Date.now() < deadline) {
        const found = deliveries.find(match)
        if (found !== undefined) return found
        await new Promise((resolve) => setTimeout(resolve, 25))
      }
      throw new Error(`no matching delivery within ${timeoutMs} ms (got ${deliveries.length})`)
    },
    close: () => close(server)
  }
}
