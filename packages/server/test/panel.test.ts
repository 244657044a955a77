/**
 * The merchant panel as the standalone server mounts it: `pixgate user invite` prints a one-time
 * link (also through the admin API), the link sets the password once, and `/panel` answers beside
 * the API. The pages themselves are driven in Chromium by @pixgate/panel's browser tests.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { must } from "@pixgate/testkit/must"
import * as Cli from "../src/Cli.js"
import * as Server from "../src/Server.js"

const dir = mkdtempSync(join(tmpdir(), "pixgate-panel-http-"))
const database = `sqlite:${join(dir, "panel.db")}`
const adminToken = "a-long-admin-token-for-tests"

/** A run that reads the output as JSON (`--json`). */
const cli = async (...argv: Array<string>) => {
  let stdout = ""
  let stderr = ""
  const code = await Cli.run([...argv, "--json"], {
    env: { PIXGATE_DATABASE: database },
    cwd: dir,
    stdout: (t) => {
      stdout += t
    },
    stderr: (t) => {
      stderr += t
    }
  })
  return { code, stdout, stderr, json: code === 0 ? JSON.parse(stdout) : undefined }
}

const cookieOf = (response: Response, name: string) =>
  response.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .find((c) => c.startsWith(`${name}=`))

describe("the panel on the standalone server", () => {
  let server: Server.RunningServer
  let merchantId: string

  beforeAll(async () => {
    merchantId = (await cli("merchant", "create", "--name", "Loja Teste")).json.merchantId
    server = await Server.start({ port: 0, database, adminToken, log: { level: "none" } })
  })
  afterAll(async () => {
    await server?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it("prints a one-time invite link that sets the password once", async () => {
    const invite = await cli(
      "user",
      "invite",
      "--merchant",
      merchantId,
      "--email",
      "Ana@Loja.example",
      "--panel",
      `${server.url}/panel`
    )
    expect(invite.code).toBe(0)
    expect(invite.json).toMatchObject({ email: "ana@loja.example", merchantId })
    expect(invite.json.token).toBeUndefined()
    const link: string = invite.json.link
    expect(link).toMatch(new RegExp(`^${server.url}/panel/invite/[A-Za-z0-9]{40}$`))

    const form = await fetch(link)
    expect(form.status).toBe(200)
    expect(form.headers.get("content-security-policy")).toContain("frame-ancestors 'none'")
    const csrf = must(cookieOf(form, "pixgate_csrf"), 'cookieOf(form, "pixgate_csrf")')
    const token = csrf.split("=")[1]
    const post = (password: string) =>
      fetch(link, {
        method: "POST",
        headers: { cookie: csrf, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ _csrf: token, password }),
        redirect: "manual"
      })
    expect((await post("short")).status).toBe(422)
    const set = await post("a long enough password")
    expect(set.status).toBe(303)
    const session = must(
      set.headers.getSetCookie().find((c) => c.startsWith("pixgate_session=")),
      'set.headers.getSetCookie().find((c) => c.startsWith("pixgate_session="))'
    )
    expect(session).toContain("HttpOnly")
    expect(session).toContain("SameSite=Lax")
    expect(session).not.toContain("Secure")
    expect((await post("another long password")).status).toBe(410)

    const overview = await fetch(`${server.url}/panel/`, { headers: { cookie: session.split(";")[0] } })
    expect(overview.status).toBe(200)
    expect(await overview.text()).toContain("Loja Teste")
  })

  it("invites through the admin API too, and refuses an e-mail of another merchant", async () => {
    const other = (await cli("merchant", "create", "--name", "Outra")).json.merchantId
    const invite = (merchant: string, email: string) =>
      fetch(`${server.url}/admin/merchants/${merchant}/panel-invites`, {
        method: "POST",
        headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
        body: JSON.stringify({ email })
      })
    const created = await invite(merchantId, "bia@loja.example")
    expect(created.status).toBe(201)
    expect(await created.json()).toMatchObject({ path: expect.stringMatching(/^\/invite\//) })
    expect((await invite(other, "bia@loja.example")).status).toBe(409)
    expect((await invite(other, "not an e-mail")).status).toBe(422)
    expect((await invite("mer_missing", "c@loja.example")).status).toBe(404)
  })

  it("refuses form bodies past 64 KiB, declared or chunked, with 413", async () => {
    const big = `_csrf=x&email=${"a".repeat(70_000)}`
    const declared = await fetch(`${server.url}/panel/signin`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: big
    })
    expect(declared.status).toBe(413)
    const chunked = await fetch(`${server.url}/panel/signin`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new ReadableStream({
        start(controller) {
          for (let i = 0; i < 10; i++) controller.enqueue(new TextEncoder().encode("a".repeat(10_000)))
          controller.close()
        }
      }),
      duplex: "half"
    } as RequestInit)
    expect(chunked.status).toBe(413)
  })

  it("sends /panel to the panel and everything else to the API", async () => {
    const root = await fetch(`${server.url}/panel`, { redirect: "manual" })
    expect(root.status).toBe(303)
    expect(root.headers.get("location")).toBe("/panel/signin")
    const secure = await fetch(`${server.url}/panel/signin`, { headers: { "x-forwarded-proto": "https" } })
    expect(secure.headers.getSetCookie()[0]).toContain("Secure")
    expect((await fetch(`${server.url}/api/health`)).status).toBe(200)
    expect((await fetch(`${server.url}/panelx`)).status).toBe(404)
  })
})
