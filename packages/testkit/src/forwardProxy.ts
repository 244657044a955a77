/**
 * A tiny forward HTTP proxy on 127.0.0.1 for the webhook-proxy tests: CONNECT tunnels (what
 * undici's ProxyAgent asks for, plain-http targets too) and absolute-form requests, each target
 * recorded (`CONNECT host:port` or the absolute URL).
 */
import { createServer, request as httpRequest, type IncomingMessage } from "node:http"
import { type AddressInfo, connect, type Socket } from "node:net"

/** A running proxy: its URL, the targets it was asked for, and how to stop it. */
export interface ForwardProxy {
  readonly url: string
  readonly targets: ReadonlyArray<string>
  /** Closes the listener and every tunnel still open. */
  readonly close: () => Promise<void>
}

/** Starts a forward proxy on a free loopback port. */
export const startForwardProxy = async (): Promise<ForwardProxy> => {
  const targets: Array<string> = []
  const sockets = new Set<Socket>()
  const server = createServer((req: IncomingMessage, res) => {
    targets.push(String(req.url))
    const target = new URL(String(req.url))
    const upstream = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: req.method,
        headers: req.headers
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      }
    )
    upstream.on("error", () => res.writeHead(502).end())
    req.pipe(upstream)
  })
  server.on("connect", (req: IncomingMessage, client: Socket, head: Buffer) => {
    targets.push(`CONNECT ${req.url}`)
    const [host, port] = String(req.url).split(":")
    const upstream = connect(Number(port), host, () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n")
      upstream.write(head)
      upstream.pipe(client)
      client.pipe(upstream)
    })
    for (const s of [client, upstream]) {
      sockets.add(s)
      s.on("error", () => undefined)
      s.on("close", () => sockets.delete(s))
    }
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    targets,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy()
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
