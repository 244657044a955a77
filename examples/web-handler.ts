/** Pixgate's `(Request) => Promise<Response>` handler, as Deno.serve, Bun.serve({ fetch }) or Hono take it;
 * here node:http adapted to it. PORT=3000 pnpm exec tsx --conditions=@pixgate/source examples/web-handler.ts */

import { createServer, type IncomingMessage } from "node:http"
import { Readable } from "node:stream"
import { pathToFileURL } from "node:url"
import { Pixgate } from "@pixgate/http"
import { SqliteStore } from "@pixgate/store-sqlite"

const toRequest = (req: IncomingMessage) => {
  const body = req.method === "GET" || req.method === "HEAD" ? undefined : Readable.toWeb(req)
  const init = { method: req.method, headers: req.headers, body, duplex: "half" }
  return new Request(`http://${req.headers.host}${req.url}`, init as RequestInit)
}

export const start = async (port = Number(process.env.PORT ?? 3000), filename = "./data/pixgate.db") => {
  const pixgate = await Pixgate.make({ store: SqliteStore.layer({ filename }) })
  const server = createServer(async (req, res) => {
    const response = await pixgate.webHandler(toRequest(req))
    res.setHeaders(response.headers)
    res.writeHead(response.status).end(Buffer.from(await response.arrayBuffer()))
  })
  await new Promise<void>((listening) => server.listen(port, "127.0.0.1", listening))
  const close = () => new Promise<void>((done) => server.close(() => pixgate.dispose().then(done)))
  return { pixgate, url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, close }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { url, close } = await start()
  console.log(`Pixgate API on ${url}/api/v1 (docs: ${url}/api/docs)`)
  for (const signal of ["SIGINT", "SIGTERM"]) process.once(signal, close)
}
