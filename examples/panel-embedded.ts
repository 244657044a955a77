/**
 * The merchant panel inside a platform's own Express app: the platform already signs its users
 * in, so it passes `authenticate(request)`, which answers the merchant the request acts for (here
 * from the platform's own session cookie), and mounts the panel under its prefix.
 *
 *   PORT=3000 pnpm exec tsx --conditions=@pixgate/source examples/panel-embedded.ts
 *
 * Run as a script, it makes a demo merchant and prints where the panel is and a one-time
 * sign-in link: the platform's own sign-in, reduced to that link for the example (a real
 * platform signs its user in with its own form, then sets the same session cookie).
 */
import { randomBytes } from "node:crypto"
import { Engine } from "@pixgate/core"
import { Pixgate } from "@pixgate/http/node"
import { SqliteStore } from "@pixgate/store-sqlite"
import { Effect } from "effect"
import express from "express"

/** The platform's sessions: its cookie value -> the merchant its user works for. */
export const platformSessions = new Map<string, string>()

/** One-time sign-in links of the example: token -> the merchant it signs in as. */
export const signInLinks = new Map<string, string>()

const platformSession = (request: Request): string | undefined => {
  const match = /(?:^|;\s*)platform_session=([^;]+)/.exec(request.headers.get("cookie") ?? "")
  return match?.[1] === undefined ? undefined : platformSessions.get(match[1])
}

/** Where the panel is mounted in the platform's app. */
export const panelPath = "/payments/dashboard"

export const start = async (port = Number(process.env.PORT ?? 3000), filename = "./data/pixgate.db") => {
  const pixgate = await Pixgate.make({
    store: SqliteStore.layer({ filename }),
    panel: {
      basePath: panelPath,
      authenticate: (request) => platformSession(request) ?? null
    }
  })
  const panel = pixgate.panel
  if (panel === undefined) throw new Error("the panel is configured above")
  const app = express()
  app.get("/", (_req, res) => void res.json({ platform: "open" }))
  // The platform's sign-in, reduced to a one-time link: it opens a session for the link's
  // merchant (an HttpOnly cookie) and sends the browser to the panel.
  app.get("/signin/:token", (req, res) => {
    const merchantId = signInLinks.get(req.params.token)
    if (merchantId === undefined) return void res.status(404).json({ error: "unknown or used sign-in link" })
    signInLinks.delete(req.params.token)
    const session = randomBytes(24).toString("base64url")
    platformSessions.set(session, merchantId)
    res.cookie("platform_session", session, { httpOnly: true, sameSite: "lax", path: "/" })
    res.redirect(303, `${panelPath}/`)
  })
  // Express strips the mount path from req.url; the panel reads the full path from originalUrl.
  app.use(panelPath, (req, res) => panel.nodeHandler(req, res))
  const server = app.listen(port, "127.0.0.1")
  await new Promise<void>((listening) => server.once("listening", listening))
  const close = () => new Promise<void>((done) => server.close(() => pixgate.dispose().then(done)))
  return { pixgate, url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, close }
}

/** Makes a merchant and a one-time sign-in link for it; answers the lines to print. */
export const demo = async (started: Awaited<ReturnType<typeof start>>): Promise<ReadonlyArray<string>> => {
  const { merchantId } = await started.pixgate.runtime.runPromise(
    Effect.flatMap(Engine.Engine, (e) => e.admin.createMerchant({ name: "Demo Shop" }))
  )
  const token = randomBytes(24).toString("base64url")
  signInLinks.set(token, merchantId)
  return [
    `Platform running at ${started.url}`,
    `Merchant panel: ${started.url}${panelPath}/ (behind the platform's sign-in: 401 without it)`,
    `Sign in as the demo merchant ${merchantId}: open ${started.url}/signin/${token} (works once)`,
    "Stop with Ctrl-C."
  ]
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const started = await start()
  for (const line of await demo(started)) console.log(line)
  for (const signal of ["SIGINT", "SIGTERM"]) process.once(signal, () => void started.close())
}
