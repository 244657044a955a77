/**
 * The merchant panel inside a platform's own Express app: the platform already signs its users
 * in, so it passes `authenticate(request)`, which answers the merchant the request acts for (here
 * from the platform's own session cookie), and mounts the panel under its prefix.
 * PORT=3000 pnpm exec tsx --conditions=@pixgate/source examples/panel-embedded.ts
 */
import { Pixgate } from "@pixgate/http/node"
import { SqliteStore } from "@pixgate/store-sqlite"
import express from "express"

/** The platform's sessions: its cookie value -> the merchant its user works for. */
export const platformSessions = new Map<string, string>()

const platformSession = (request: Request): string | undefined => {
  const match = /(?:^|;\s*)platform_session=([^;]+)/.exec(request.headers.get("cookie") ?? "")
  return match?.[1] === undefined ? undefined : platformSessions.get(match[1])
}

export const start = async (port = Number(process.env.PORT ?? 3000), filename = "./data/pixgate.db") => {
  const pixgate = await Pixgate.make({
    store: SqliteStore.layer({ filename }),
    panel: {
      basePath: "/payments/dashboard",
      authenticate: (request) => platformSession(request) ?? null
    }
  })
  const panel = pixgate.panel!
  const app = express()
  app.get("/", (_req, res) => void res.json({ platform: "open" }))
  // Express strips the mount path from req.url; the panel reads the full path from originalUrl.
  app.use("/payments/dashboard", (req, res) => panel.nodeHandler(req, res))
  const server = app.listen(port, "127.0.0.1")
  await new Promise<void>((listening) => server.once("listening", listening))
  const close = () => new Promise<void>((done) => server.close(() => pixgate.dispose().then(done)))
  return { pixgate, url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, close }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { close } = await start()
  for (const signal of ["SIGINT", "SIGTERM"]) process.once(signal, close)
}
