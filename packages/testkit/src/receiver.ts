/**
 * A local webhook receiver for the tests that run engines in other processes: it answers 200 to
 * every request and records which event arrived, from which engine, and when.
 */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"

/** One request the receiver answered. */
export interface Hit {
  /** The `webhook-id` header: the event's id. */
  readonly id: string
  /** The `User-Agent` header: `<serviceName>-Webhooks/1.0`, so it names the sending engine. */
  readonly agent: string
  /** Arrival time (epoch ms). */
  readonly at: number
}

/** A webhook receiver on 127.0.0.1 that answers 200 to everything and records each request. */
export const startReceiver = async () => {
  const hits: Array<Hit> = []
  const server = createServer((request, response) => {
    request.resume()
    request.on("end", () => {
      hits.push({
        id: String(request.headers["webhook-id"]),
        agent: String(request.headers["user-agent"]),
        at: Date.now()
      })
      response.writeHead(200, { "content-type": "text/plain" })
      response.end("ok")
    })
  })
  // Longer than the client's keep-alive, so the server never closes a connection the client
  // is about to reuse (that race would show up as a failed attempt and a retry).
  server.keepAliveTimeout = 30_000
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
