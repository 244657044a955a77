/**
 * `pixgate serve`'s webhook address settings through the admin API and the CLI: link-local and
 * metadata URLs are refused in every mode; `PIXGATE_WEBHOOK_PRIVATE_TARGETS=deny` refuses
 * loopback and private test-mode URLs too; `PIXGATE_ALLOW_PRIVATE_WEBHOOKS=1` (with
 * `PIXGATE_PROFILE=development`) lets live mode take them, with a warning in the log.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { send } from "@pixgate/testkit/harness"
import { afterAll, describe, expect, it } from "vitest"
import * as Cli from "../src/Cli.js"

const dir = mkdtempSync(join(tmpdir(), "pixgate-webhook-policy-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const token = "webhook-policy-admin-token"

/** Runs `pixgate serve` in-process on its own database; `listening` resolves with its URL. */
const serve = (env: Record<string, string>) => {
  let stop!: () => void
  const stopSignal = new Promise<void>((resolve) => {
    stop = resolve
  })
  let out = ""
  let announce!: (url: string) => void
  const listening = new Promise<string>((resolve) => {
    announce = resolve
  })
  const database = `sqlite:${join(dir, `${Math.random()}.db`)}`
  const exit = Cli.run(["serve"], {
    env: { PORT: "0", PIXGATE_DATABASE: database, PIXGATE_ADMIN_TOKEN: token, ...env },
    cwd: dir,
    stdout: (text) => {
      out += text
      const match = /"url":"(http:[^"]+)"/.exec(out)
      if (match) announce(match[1])
    },
    stderr: () => {},
    stopSignal
  })
  return { listening, exit, stop, stdout: () => out, database }
}

const auth = { authorization: `Bearer ${token}` }

/** A new merchant's webhook set in `mode` through the admin API: status and error. */
const setWebhook = async (base: string, mode: "test" | "live", url: string) => {
  const created = await send(base, "POST", "/admin/merchants", { body: { name: "Policy" }, headers: auth })
  const answer = await send(base, "PUT", `/admin/merchants/${created.body.merchantId}/webhooks/${mode}`, {
    body: { url, secret: "policy-secret-123" },
    headers: auth
  })
  return [answer.status, answer.body.error ?? null] as const
}

describe("webhook address policy of pixgate serve", () => {
  it("by default: test mode takes loopback, no mode takes link-local or metadata addresses", async () => {
    const server = serve({})
    const base = await server.listening
    expect(await setWebhook(base, "test", "http://127.0.0.1:4000/webhooks")).toEqual([200, null])
    for (const url of [
      "http://169.254.169.254/latest/meta-data/",
      "http://[fd00:ec2::254]/",
      "http://100.100.100.200/"
    ])
      for (const mode of ["test", "live"] as const) {
        const [status, error] = await setWebhook(
          base,
          mode,
          url.replace("http:", mode === "live" ? "https:" : "http:")
        )
        expect([url, mode, status]).toEqual([url, mode, 422])
        expect(error).toMatch(
          /address \(where cloud instances reach their metadata and credentials\); no webhook may use it$/
        )
      }
    expect((await setWebhook(base, "live", "https://127.0.0.1/hook"))[1]).toMatch(
      /live-mode webhooks must use a public address/
    )
    server.stop()
    expect(await server.exit).toBe(0)
  })

  it("PIXGATE_WEBHOOK_PRIVATE_TARGETS=deny refuses loopback and private test-mode URLs, in serve and the CLI", async () => {
    const server = serve({ PIXGATE_WEBHOOK_PRIVATE_TARGETS: "deny" })
    const base = await server.listening
    const [status, error] = await setWebhook(base, "test", "http://127.0.0.1:4000/webhooks")
    expect([status, error]).toEqual([
      422,
      "Webhook URL host 127.0.0.1 is a loopback address; test-mode webhooks must use a public address"
    ])
    expect((await setWebhook(base, "test", "http://10.1.2.3/"))[0]).toBe(422)
    expect(await setWebhook(base, "test", "https://8.8.8.8/hook")).toEqual([200, null])
    server.stop()
    expect(await server.exit).toBe(0)
    // The CLI's `webhook set` on the same database follows the same setting.
    let out = ""
    let err = ""
    const io = (env: Record<string, string>) => ({
      env: { PIXGATE_DATABASE: server.database, PIXGATE_WEBHOOK_SECRET: "policy-secret-123", ...env },
      cwd: dir,
      stdout: (t: string) => {
        out += t
      },
      stderr: (t: string) => {
        err += t
      }
    })
    expect(await Cli.run(["merchant", "create", "--name", "Cli", "--json"], io({}))).toBe(0)
    const merchant = JSON.parse(out).merchantId as string
    const set = (env: Record<string, string>) =>
      Cli.run(
        ["webhook", "set", "--merchant", merchant, "--mode", "test", "--url", "http://127.0.0.1:4000/"],
        io(env)
      )
    expect(await set({ PIXGATE_WEBHOOK_PRIVATE_TARGETS: "deny" })).toBe(1)
    expect(err).toMatch(/127\.0\.0\.1 is a loopback address; test-mode webhooks must use a public address/)
    expect(await set({})).toBe(0)
  })

  it("PIXGATE_ALLOW_PRIVATE_WEBHOOKS=1 in the development profile lets live mode take loopback, with a warning", async () => {
    const server = serve({
      PIXGATE_ALLOW_PRIVATE_WEBHOOKS: "1",
      PIXGATE_PROFILE: "development",
      PIXGATE_ALLOW_INSECURE_LIVE_WEBHOOKS: "1"
    })
    const base = await server.listening
    expect(await setWebhook(base, "live", "http://127.0.0.1:4000/webhooks")).toEqual([200, null])
    // Never link-local, even so.
    expect((await setWebhook(base, "live", "http://169.254.169.254/"))[0]).toBe(422)
    expect(server.stdout()).toMatch(
      /"level":"warn","msg":"Live-mode webhooks may go to loopback and private addresses/
    )
    server.stop()
    expect(await server.exit).toBe(0)
  })
})
