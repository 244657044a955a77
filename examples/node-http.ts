/**
 * Pixgate in a plain node:http server, on SQLite. From the repository root:
 *   PORT=3000 pnpm exec tsx --conditions=@pixgate/source examples/node-http.ts
 * and create a merchant in the same ./data/pixgate.db: pnpm pixgate merchant create --name Shop
 */

import { once } from "node:events"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { pathToFileURL } from "node:url"
import { Pixgate } from "@pixgate/server"

export const start = async (
  port = Number(process.env.PORT ?? 3000),
  database = "sqlite:./data/pixgate.db"
) => {
  const pixgate = await Pixgate.make({ database })
  const server = createServer(pixgate.nodeHandler).listen(port, "127.0.0.1")
  await once(server, "listening")
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const close = () => new Promise<void>((done) => server.close(() => pixgate.dispose().then(done)))
  return { pixgate, url, close }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { url, close } = await start()
  console.log(`Pixgate API on ${url}/api/v1 (docs: ${url}/api/docs)`)
  for (const signal of ["SIGINT", "SIGTERM"]) process.once(signal, close)
}
