import { spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { describe, expect, it } from "@effect/vitest"
import { must } from "@pixgate/testkit/must"
import { testWaitMs, until } from "@pixgate/testkit/wait"
import { panelPath, platformSessions, start } from "../panel-embedded.js"
import { merchant } from "./support.js"

const script = fileURLToPath(new URL("../panel-embedded.ts", import.meta.url))
const tsx = pathToFileURL(
  fileURLToPath(new URL("../../node_modules/tsx/dist/loader.mjs", import.meta.url))
).href

describe("examples/panel-embedded.ts", () => {
  it("serves the panel under the platform's prefix to the merchant its hook names, and 401 to anyone else", async () => {
    const { pixgate, url, close } = await start(0, ":memory:")
    try {
      const { merchantId } = await merchant(pixgate)
      platformSessions.set("s3cret", merchantId)
      const signedIn = await fetch(`${url}/payments/dashboard/`, {
        headers: { cookie: "platform_session=s3cret" }
      })
      expect(signedIn.status).toBe(200)
      const page = await signedIn.text()
      expect(page).toContain("R$ 0,00")
      expect(page).toContain('href="/payments/dashboard/transactions"')
      // No sign-in or sign-out of the panel's own: the platform owns them.
      expect(page).not.toContain("/signout")
      expect((await fetch(`${url}/payments/dashboard/signin`)).status).toBe(401)
      const stranger = await fetch(`${url}/payments/dashboard/`, {
        headers: { cookie: "platform_session=nope" }
      })
      expect(stranger.status).toBe(401)
      expect((await fetch(`${url}/payments/dashboard/assets/panel.css`)).status).toBe(200)
      expect(await (await fetch(`${url}/`)).json()).toEqual({ platform: "open" })
    } finally {
      await close()
    }
  })

  it(
    "run as a script, prints where the panel is and a sign-in link that opens it, once",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "pixgate-panel-embedded-"))
      const child = spawn(process.execPath, ["--import", tsx, "--conditions=@pixgate/source", script], {
        cwd: dir,
        env: { ...process.env, NODE_OPTIONS: "", PORT: "0" },
        stdio: ["ignore", "pipe", "pipe"]
      })
      let out = ""
      let err = ""
      child.stdout.on("data", (chunk: Buffer) => {
        out += chunk
      })
      child.stderr.on("data", (chunk: Buffer) => {
        err += chunk
      })
      try {
        await until(
          () => `the sign-in line (stdout: ${out}, stderr: ${err})`,
          () => out.includes("Stop with Ctrl-C.")
        )
        const lines = out.split("\n").filter((l) => !l.startsWith("{"))
        const platform = /^Platform running at (http:\/\/127\.0\.0\.1:\d+)$/.exec(lines[0] ?? "")
        expect(platform, out).not.toBeNull()
        const url = must(platform, "platform")[1]
        expect(lines[1]).toBe(
          `Merchant panel: ${url}${panelPath}/ (behind the platform's sign-in: 401 without it)`
        )
        const signIn = /^Sign in as the demo merchant (mer_\w+): open (http:\/\/\S+) \(works once\)$/.exec(
          lines[2] ?? ""
        )
        expect(signIn, out).not.toBeNull()
        expect(lines[3]).toBe("Stop with Ctrl-C.")

        // Without the platform's session the panel refuses; the link signs in and sends the
        // browser there; the panel then opens as the demo merchant's.
        expect((await fetch(`${url}${panelPath}/`)).status).toBe(401)
        const link = await fetch(must(signIn, "signIn")[2], { redirect: "manual" })
        expect([link.status, link.headers.get("location")]).toEqual([303, `${panelPath}/`])
        const cookie = /^(platform_session=[^;]+);.*HttpOnly/i.exec(link.headers.get("set-cookie") ?? "")
        expect(cookie, link.headers.get("set-cookie") ?? "").not.toBeNull()
        const panel = await fetch(`${url}${panelPath}/`, { headers: { cookie: must(cookie, "cookie")[1] } })
        expect(panel.status).toBe(200)
        expect(await panel.text()).toContain("R$ 0,00")
        // The link works once.
        expect((await fetch(must(signIn, "signIn")[2], { redirect: "manual" })).status).toBe(404)
      } finally {
        child.kill("SIGTERM")
        await new Promise((resolve) =>
          child.exitCode === null ? child.once("exit", resolve) : resolve(null)
        )
        rmSync(dir, { recursive: true, force: true })
      }
    },
    testWaitMs * 2
  )
})
