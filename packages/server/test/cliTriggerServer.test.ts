/**
 * `pixgate trigger --server URL` against a running server, with the merchant's test key and, for
 * what needs the admin API, the admin token: the events are made through the HTTP API (seen in
 * the server's webhook log), a top-up is asked for first, and what needs the token says so.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as Cli from "../src/Cli.js"
import * as Server from "../src/Server.js"

const token = "trigger-admin-token-0123456789abcdef"
let server: Server.RunningServer

/** Runs `pixgate` in-process with `env`, an optional answer to its question; its code and output. */
const run = async (env: Record<string, string>, argv: ReadonlyArray<string>, answer?: string) => {
  let stdout = ""
  let stderr = ""
  const code = await Cli.run(argv, {
    env: { PIXGATE_DATABASE: "", ...env },
    cwd: process.cwd(),
    stdout: (t) => {
      stdout += t
    },
    stderr: (t) => {
      stderr += t
    },
    ...(answer === undefined ? {} : { stdin: { isTTY: true, read: async () => "" }, ask: async () => answer })
  })
  return { code, stdout, stderr }
}

const admin = async (method: string, path: string, body?: unknown) => {
  const response = await fetch(`${server.url}/admin${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" })
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  return response.json()
}

beforeAll(async () => {
  server = await Server.start({
    port: 0,
    database: "sqlite::memory:",
    adminToken: token,
    rateLimit: false,
    log: { level: "none" }
  })
})
afterAll(() => server.close())

describe("pixgate trigger --server", () => {
  it("makes the events through the API: with the key alone, and with the admin token for sandbox actions", async () => {
    const m = await admin("POST", "/merchants", { name: "Loja Remota" })
    await admin("PUT", `/merchants/${m.merchantId}/webhooks/test`, {
      url: "http://127.0.0.1:9/hook",
      secret: "a-secret-123"
    })
    const key = { PIXGATE_API_KEY: m.testKey }
    const created = await run(key, ["trigger", "transaction.created", "--server", server.url, "--json"])
    expect(created).toMatchObject({ code: 0, stderr: "" })
    const json = JSON.parse(created.stdout)
    expect(json).toMatchObject({ event: "transaction.created", server: server.url, mode: "test" })
    expect(json.steps).toEqual([`created charge ${json.transactionId} (10.00)`])

    // A payout with no money (another merchant: the sandbox pays the charge above meanwhile):
    // asked first; no means nothing changes.
    const other = await admin("POST", "/merchants", { name: "Loja Remota 2" })
    await admin("PUT", `/merchants/${other.merchantId}/webhooks/test`, {
      url: "http://127.0.0.1:9/hook",
      secret: "a-secret-123"
    })
    const both = { PIXGATE_API_KEY: other.testKey, PIXGATE_ADMIN_TOKEN: token }
    const args = ["trigger", "withdrawal.completed", "--server", server.url, "--merchant", other.merchantId]
    const refused = await run(both, args, "n")
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain("does not cover a payout of 1.00 and its fee; nothing was changed")
    expect((await admin("GET", `/merchants/${other.merchantId}/balance?mode=test`)).available).toBe(0)
    const done = await run(both, args, "y")
    expect(done).toMatchObject({ code: 0, stderr: "" })
    expect(done.stdout).toMatch(/\nstep 1: +topped up the test balance with 100\.00: 0\.00 -> 100\.00\n/)
    expect(done.stdout).toMatch(
      /\nstep 2: +created payout tx_\w+ \(1\.00 to sandbox@example\.com\): the balance fell by 1\.33\n/
    )
    expect(done.stdout).toMatch(/\nstep 3: +settled tx_\w+\n$/)
    expect((await admin("GET", `/merchants/${other.merchantId}/balance?mode=test`)).available).toBe(98.67)
    const log: { data: ReadonlyArray<{ event: string }> } = await admin(
      "GET",
      `/merchants/${other.merchantId}/webhook-log?limit=50`
    )
    // The payout's events (the first charge's payment by the sandbox may have come too).
    const events = log.data.map((d) => d.event)
    expect(events).toEqual(
      expect.arrayContaining([
        "transaction.created",
        "transaction.created",
        "withdrawal.created",
        "withdrawal.completed"
      ])
    )
    expect(events.filter((e) => e.startsWith("withdrawal."))).toHaveLength(2)
  })

  it("says what needs the admin token, and refuses a live key", async () => {
    const m = await admin("POST", "/merchants", { name: "Loja Sem Token" })
    const test = await run({ PIXGATE_API_KEY: m.testKey }, [
      "trigger",
      "webhook.test",
      "--server",
      server.url
    ])
    expect(test).toMatchObject({ code: 2 })
    expect(test.stderr).toContain(
      "trigger webhook.test needs PIXGATE_ADMIN_TOKEN and --merchant (the admin API)"
    )
    const live = await run({ PIXGATE_API_KEY: m.liveKey }, [
      "trigger",
      "transaction.created",
      "--server",
      server.url
    ])
    expect(live.code).toBe(2)
    expect(live.stderr).toContain("trigger makes test-mode events only")
  })
})
