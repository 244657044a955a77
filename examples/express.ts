/** Pixgate under /payments in Express 5 (Express strips the prefix). Mount it before express.json(), though a
 * body a parser already read is reused; pixgate.errorHandler answers a parser's malformed-body error with
 * Pixgate's JSON error when express.json() comes first. PORT=3000 pnpm exec tsx --conditions=@pixgate/source examples/express.ts */

import { once } from "node:events"
import type { AddressInfo } from "node:net"
import { pathToFileURL } from "node:url"
import { Pixgate } from "@pixgate/server"
import express from "express"

export const start = async (
  port = Number(process.env.PORT ?? 3000),
  database = "sqlite:./data/pixgate.db"
) => {
  const pixgate = await Pixgate.make({ database })
  const app = express()
  app.use("/payments", pixgate.nodeHandler, pixgate.errorHandler)
  app.use(express.json())
  app.get("/", (_req, res) => void res.json({ shop: "open", payments: "/payments/api/docs" }))
  const server = app.listen(port, "127.0.0.1")
  await once(server, "listening")
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const close = () => new Promise<void>((done) => server.close(() => pixgate.dispose().then(done)))
  return { pixgate, url, close }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const { url, close } = await start()
  console.log(`Shop on ${url}, Pixgate under ${url}/payments/api/v1`)
  for (const signal of ["SIGINT", "SIGTERM"]) process.once(signal, close)
}
