/**
 * `pixgate serve` settings from the environment that the operator uses to loosen or bound the
 * server: `PIXGATE_ALLOW_INSECURE_LIVE_WEBHOOKS` (plain-http live webhook URLs),
 * `PIXGATE_SHUTDOWN_TIMEOUT_MS` and the connection limits, `PIXGATE_WEBHOOK_PROXY` (deliveries
 * through a real local forward proxy), each checked and refused with a usage error when malformed.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { startForwardProxy } from "@pixgate/testkit/forwardProxy"
import { send } from "@pixgate/testkit/harness"
import { testWait } from "@pixgate/testkit/wait"
import * as Cli from "../src/Cli.js"

const dir = mkdtempSync(join(tmpdir(), "pixgate-serve-options-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const token = "serve-options-admin-token"

/** Runs `pixgate serve` in-process until `stop` resolves; resolves with its URL once it listens. */
const serve = (env: Record<string, string>) => {
  let stop!: () => void
  const stopSignal = new Promise<void>((resolve) => {
    stop = resolve
  })
  let out = ""
  let err = ""
  let announce!: (url: string) => void
  const listening = new Promise<string>((resolve) => {
    announce = resolve
  })
  const exit = Cli.run(["serve"], {
    env: { PORT: "0", PIXGATE_DATABASE: `sqlite:${join(dir, `${Math.random()}.db`)}`, ...env },
    cwd: dir,
    stdout: (text) => {
      out += text
      const match = /"url":"(http:[^"]+)"/.exec(out)
      if (match) announce(match[1])
    },
    stderr: (text) => {
      err += text
    },
    stopSignal
  })
  return { listening, exit, stop, stderr: () => err, stdout: () => out }
}

/** Listens on a free loopback port; the server's base URL. */
const listen = (server: Server) =>
  new Promise<string>((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`))
  )

const close = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections()
    server.close(() => resolve())
  })

const setLiveWebhook = async (url: string, hook: string) => {
  const auth = { authorization: `Bearer ${token}` }
  const created = await send(url, "POST", "/admin/merchants", { body: { name: "Ops" }, headers: auth })
  return send(url, "PUT", `/admin/merchants/${created.body.merchantId}/webhooks/live`, {
    body: { url: hook, secret: "whsec-long-enough" },
    headers: auth
  })
}

describe("pixgate serve options", () => {
  it("PIXGATE_ALLOW_INSECURE_LIVE_WEBHOOKS=1 lets live mode take http URLs; unset, they get 422", async () => {
    for (const [flag, status] of [
      [undefined, 422],
      ["0", 422],
      ["1", 200]
    ] as const) {
      const server = serve({
        PIXGATE_ADMIN_TOKEN: token,
        ...(flag === undefined ? {} : { PIXGATE_ALLOW_INSECURE_LIVE_WEBHOOKS: flag })
      })
      const url = await server.listening
      const answer = await setLiveWebhook(url, "http://8.8.8.8/hook")
      expect([flag, answer.status, answer.text]).toEqual([flag, status, expect.any(String)])
      if (status === 422) expect(answer.body.error).toMatch(/^Live-mode webhook URLs must use https/)
      // https to a public address is fine either way.
      expect((await setLiveWebhook(url, "https://8.8.8.8/hook")).status).toBe(200)
      server.stop()
      expect(await server.exit).toBe(0)
    }
  })

  it("PIXGATE_TRUST_PROXY: the access line names the client a trusted proxy reports; unset, the peer", async () => {
    for (const [trust, client] of [
      [undefined, "127.0.0.1"],
      ["loopback", "203.0.113.7"],
      ["1", "203.0.113.7"]
    ] as const) {
      const server = serve(trust === undefined ? {} : { PIXGATE_TRUST_PROXY: trust })
      const url = await server.listening
      const answer = await send(url, "GET", "/api/health", { headers: { "x-forwarded-for": "203.0.113.7" } })
      expect(answer.status).toBe(200)
      server.stop()
      expect(await server.exit).toBe(0)
      const line = server
        .stdout()
        .split("\n")
        .filter((l) => l.includes('"msg":"request"'))
        .map((l) => JSON.parse(l))
        .find((l) => l.path === "/api/health")
      expect([trust, line?.client]).toEqual([trust, client])
    }
  })

  it(
    "PIXGATE_WEBHOOK_PROXY: deliveries go through the forward proxy it names",
    async () => {
      // The receiver records the deliveries; the proxy records the targets it was asked for.
      const deliveries: Array<string> = []
      const receiver = createServer((req, res) => {
        let body = ""
        req.on("data", (chunk: Buffer) => {
          body += chunk.toString()
        })
        req.on("end", () => {
          deliveries.push(body)
          res.writeHead(200).end("ok")
        })
      })
      const proxy = await startForwardProxy()
      const hook = `${await listen(receiver)}/hook`
      const server = serve({ PIXGATE_ADMIN_TOKEN: token, PIXGATE_WEBHOOK_PROXY: proxy.url })
      try {
        const url = await server.listening
        const auth = { authorization: `Bearer ${token}` }
        const created = await send(url, "POST", "/admin/merchants", {
          body: { name: "Proxy" },
          headers: auth
        })
        const merchant = String(created.body.merchantId)
        const set = await send(url, "PUT", `/admin/merchants/${merchant}/webhooks/test`, {
          body: { url: hook, secret: "whsec-long-enough" },
          headers: auth
        })
        expect(set.status).toBe(200)
        const sent = await send(url, "POST", `/admin/merchants/${merchant}/webhooks/test/test`, {
          headers: auth
        })
        expect(sent.status).toBeLessThan(300)
        const deadline = Date.now() + testWait(1)
        while (deliveries.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
        expect(deliveries.length).toBeGreaterThan(0)
        // undici's ProxyAgent tunnels with CONNECT, plain-http targets too.
        expect(proxy.targets).toContain(`CONNECT ${new URL(hook).host}`)
      } finally {
        server.stop()
        await server.exit
        await proxy.close()
        await close(receiver)
      }
    },
    testWait(2)
  )

  it("refuses malformed values with a usage error (exit 2)", async () => {
    const malformed: ReadonlyArray<Record<string, string>> = [
      { PIXGATE_ALLOW_INSECURE_LIVE_WEBHOOKS: "yes" },
      { PIXGATE_SHUTDOWN_TIMEOUT_MS: "-1" },
      { PIXGATE_SHUTDOWN_TIMEOUT_MS: "soon" },
      { PIXGATE_READINESS_TIMEOUT_MS: "0" },
      { PIXGATE_MAX_CONNECTIONS: "0" },
      { PIXGATE_KEEP_ALIVE_TIMEOUT_MS: "65s" },
      { PIXGATE_HEADERS_TIMEOUT_MS: "-5" },
      { PIXGATE_REQUEST_TIMEOUT_MS: "0" },
      // Node refuses a header time-out above the request time-out.
      { PIXGATE_HEADERS_TIMEOUT_MS: "20000", PIXGATE_REQUEST_TIMEOUT_MS: "10000" },
      { PIXGATE_TRUST_PROXY: "10.0.0.0/33" },
      { PIXGATE_TRUST_PROXY: "proxy.internal" },
      { PIXGATE_WEBHOOK_PROXY: "socks5://127.0.0.1:1080" },
      { PIXGATE_WEBHOOK_PROXY: "not a url" }
    ]
    for (const env of malformed) {
      const server = serve(env)
      expect(await server.exit).toBe(2)
      expect(server.stderr()).toMatch(new RegExp(`^pixgate: ${Object.keys(env)[0]} must be`))
    }
  })
})
