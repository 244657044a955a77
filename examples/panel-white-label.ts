/**
 * The merchant panel under a platform's own name, logo and colour, mounted under a prefix of its
 * plain node:http server: `/merchants/panel/...` goes to the panel, everything else to the
 * platform. The platform signs its users in itself and tells the panel which merchant a request
 * acts for (`authenticate`), here from its own session cookie.
 *
 *   PORT=3000 pnpm exec tsx --conditions=@pixgate/source examples/panel-white-label.ts
 *
 * Run as a script, it makes a demo merchant and prints the panel's address and a one-time
 * sign-in link (the platform's own sign-in, reduced to that link for the example).
 */
import { randomBytes } from "node:crypto"
import { createServer } from "node:http"
import { Engine } from "@pixgate/core"
import { Pixgate } from "@pixgate/http/node"
import { SqliteStore } from "@pixgate/store-sqlite"
import { Effect } from "effect"

/** Where the panel lives in the platform's URLs. */
export const panelPath = "/merchants/panel"

/** The platform's look: every option `Panel.make` checks at start-up (a bad one throws). */
export const brand = {
  productName: "Acme Pagamentos",
  // An inline SVG: the panel serves it itself at <panelPath>/assets/logo.svg (an https: URL
  // or a path on the same host works too; an https: URL's origin joins the policy's img-src).
  logo: '<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32" viewBox="0 0 32 32"><rect width="32" height="32" rx="8" fill="#6a1b9a"/><path d="M9 23l7-14 7 14" stroke="#fff" stroke-width="3" fill="none"/></svg>',
  // Any opaque CSS colour in #hex, rgb() or hsl(): links darken until they read 4.5:1 on white.
  primaryColor: "#6a1b9a",
  supportUrl: "mailto:suporte@acme.example"
} as const

/** The platform's sessions: its cookie value -> the merchant its user works for. */
export const platformSessions = new Map<string, string>()

/** One-time sign-in links of the example: token -> the merchant it signs in as. */
export const signInLinks = new Map<string, string>()

const sessionOf = (cookie: string | null | undefined): string | undefined => {
  const match = /(?:^|;\s*)acme_session=([^;]+)/.exec(cookie ?? "")
  return match?.[1] === undefined ? undefined : platformSessions.get(match[1])
}

export const start = async (port = Number(process.env.PORT ?? 3000), filename = "./data/pixgate.db") => {
  const pixgate = await Pixgate.make({
    store: SqliteStore.layer({ filename }),
    panel: {
      basePath: panelPath,
      authenticate: (request) => sessionOf(request.headers.get("cookie")) ?? null,
      brand
    }
  })
  const panel = pixgate.panel
  if (panel === undefined) throw new Error("the panel was not mounted")
  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0] ?? "/"
    if (panel.matches(path)) return panel.nodeHandler(req, res)
    // The platform's sign-in, reduced to a one-time link: a session cookie, then the panel.
    const link = /^\/signin\/([A-Za-z0-9_-]+)$/.exec(path)
    const merchantId = link?.[1] === undefined ? undefined : signInLinks.get(link[1])
    if (link?.[1] !== undefined && merchantId !== undefined) {
      signInLinks.delete(link[1])
      const session = randomBytes(24).toString("base64url")
      platformSessions.set(session, merchantId)
      res.writeHead(303, {
        location: `${panelPath}/`,
        "set-cookie": `acme_session=${session}; Path=/; HttpOnly; SameSite=Lax`
      })
      return void res.end()
    }
    res.writeHead(path === "/" ? 200 : 404, { "content-type": "application/json" })
    res.end(JSON.stringify(path === "/" ? { platform: "Acme" } : { error: "not found" }))
  })
  server.listen(port, "127.0.0.1")
  await new Promise<void>((listening) => server.once("listening", listening))
  const close = () => new Promise<void>((done) => server.close(() => pixgate.dispose().then(done)))
  return { pixgate, url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, close }
}

/** Makes a merchant and a one-time sign-in link for it; answers the lines to print. */
export const demo = async (started: Awaited<ReturnType<typeof start>>): Promise<ReadonlyArray<string>> => {
  const { merchantId } = await started.pixgate.runtime.runPromise(
    Effect.flatMap(Engine.Engine, (e) => e.admin.createMerchant({ name: "Padaria Central" }))
  )
  const token = randomBytes(24).toString("base64url")
  signInLinks.set(token, merchantId)
  return [
    `Platform running at ${started.url}`,
    `${brand.productName} panel: ${started.url}${panelPath}/`,
    `Sign in as the demo merchant ${merchantId}: open ${started.url}/signin/${token} (works once)`,
    "Stop with Ctrl-C."
  ]
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const started = await start()
  for (const line of await demo(started)) console.log(line)
  for (const signal of ["SIGINT", "SIGTERM"]) process.once(signal, () => void started.close())
}
