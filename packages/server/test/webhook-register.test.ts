/**
 * `pixgate gateway webhook register` against the PSP simulator (mTLS, OAuth2, certificate files
 * in a temporary directory): it registers the callback URL, and when the PSP refuses, it prints
 * the PSP's reason (problem type, detail and violations), never `[object Object]`.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { PspSimulator } from "@pixgate/psp-simulator"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Cli from "../src/Cli.js"

const pixKey = "recebimentos@pixgate.example"
const dir = mkdtempSync(join(tmpdir(), "pixgate-register-"))
let psp: PspSimulator.PspSimulator

beforeAll(async () => {
  psp = await PspSimulator.start({ pixKeys: [pixKey] })
  writeFileSync(join(dir, "cert.pem"), psp.tls.clientCertPem)
  writeFileSync(join(dir, "key.pem"), psp.tls.clientKeyPem)
  writeFileSync(join(dir, "ca.pem"), psp.tls.caPem)
})
afterAll(async () => {
  await psp?.close()
  rmSync(dir, { recursive: true, force: true })
})

const register = async (key: string) => {
  let stdout = ""
  let stderr = ""
  const code = await Cli.run(
    ["gateway", "webhook", "register", "--url", "https://pixgate.example", "--json"],
    {
      env: {
        PIXGATE_DATABASE: `sqlite:${join(dir, "unused.db")}`,
        PIXGATE_LIVE_BASE_URL: psp.url,
        PIXGATE_LIVE_CLIENT_ID: psp.client.clientId,
        PIXGATE_LIVE_CLIENT_SECRET: psp.client.clientSecret,
        PIXGATE_LIVE_CERT_FILE: join(dir, "cert.pem"),
        PIXGATE_LIVE_KEY_FILE: join(dir, "key.pem"),
        PIXGATE_LIVE_CA_FILE: join(dir, "ca.pem"),
        PIXGATE_LIVE_PIX_KEY: key,
        PIXGATE_LIVE_CALLBACK_SECRET: "s".repeat(48),
        PIXGATE_LIVE_TIMEOUT_MS: "10000"
      },
      cwd: dir,
      stdout: (t) => {
        stdout += t
      },
      stderr: (t) => {
        stderr += t
      }
    }
  )
  return { code, stdout, stderr }
}

describe("pixgate gateway webhook register", () => {
  it("registers <url>/bank/callbacks/<secret> for the settlement key", async () => {
    const done = await register(pixKey)
    expect([done.code, done.stderr]).toEqual([0, ""])
    expect(JSON.parse(done.stdout)).toEqual({ registered: true, chave: pixKey })
    expect(psp.state.webhooks.get(pixKey)?.webhookUrl).toBe(
      `https://pixgate.example/bank/callbacks/${"s".repeat(48)}`
    )
  })

  it("prints the PSP's reason when it refuses", async () => {
    const refused = await register("not-ours@pixgate.example")
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain("The PSP refused the webhook: HTTP 400 WebhookOperacaoInvalida")
    expect(refused.stderr).toContain("chave: chave is not a key of this account.")
    expect(refused.stderr).not.toContain("[object Object]")
  })
})
