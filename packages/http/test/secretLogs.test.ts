/**
 * No secret reaches a log line. A server like the standalone one (public API, bank callbacks,
 * admin API, merchant panel) runs at debug level on SQLite and on Postgres, and a whole session
 * uses every secret it knows: the bank callback secret (also percent-encoded), a panel invite
 * token, API keys (good, revoked and made-up ones, in headers and in a query), the admin token
 * (right and wrong), a webhook secret, signing keys (the first and a rotated one), a webhook URL
 * with tokens in its path and query, the panel session cookie, the password, and the database
 * password. Deliveries fail first (endpoint marked failing, then recovered), requests are refused
 * (401, 404, 410, 422, 429, 503). Then every line written (the log writer, and anything on stdout
 * or stderr) is searched for each secret value, raw and URL-encoded: none may appear.
 */
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer, type Server } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { storeOf } from "@pixgate/testkit/database"
import { listen, send } from "@pixgate/testkit/harness"
import { must } from "@pixgate/testkit/must"
import { describePostgres, useFreshDatabase } from "@pixgate/testkit/postgres"
import { testWaitMs } from "@pixgate/testkit/wait"
import { Duration } from "effect"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { Pixgate } from "../src/node.js"

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const random = (bytes = 18) => randomBytes(bytes).toString("hex")

/** Every secret of the session, by name, so a finding says which one leaked. */
type Secrets = Record<string, string>

/** The forms a secret may be written in: raw, URL-encoded, form-encoded. */
const spellings = (value: string): ReadonlyArray<string> => [
  ...new Set([value, encodeURIComponent(value), new URLSearchParams({ v: value }).toString().slice(2)])
]

const cookieOf = (response: Response, name: string) =>
  response.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .find((c) => c.startsWith(`${name}=`))

/** Runs the whole session against a fresh server on `database`; returns the secrets and every line written. */
const session = async (database: string): Promise<{ secrets: Secrets; lines: ReadonlyArray<string> }> => {
  const lines: Array<string> = []
  const captured: Array<string> = []
  const capture = (stream: NodeJS.WriteStream) => {
    const write = stream.write.bind(stream)
    return vi.spyOn(stream, "write").mockImplementation(((chunk: unknown, ...rest: Array<never>) => {
      captured.push(String(chunk))
      return write(chunk as string, ...rest)
    }) as typeof stream.write)
  }
  const spies = [capture(process.stdout), capture(process.stderr)]

  const secrets: Secrets = {
    callbackSecret: `cb${random(24)}`,
    adminToken: `adm${random(20)}`,
    wrongAdminToken: `wadm${random(20)}`,
    webhookSecret: `whs${random(16)}`,
    webhookPathToken: `wpt${random(16)}`,
    webhookQueryToken: `wqt${random(16)}`,
    madeUpKey: `sk_test_${random(16)}`,
    password: `correct horse ${random(6)} staple`
  }
  // The receiver: fails the first two deliveries, then takes them.
  let deliveries = 0
  const receiver: Server = createServer((req, res) => {
    req.resume()
    req.on("end", () => res.writeHead(++deliveries <= 2 ? 500 : 200).end())
  })
  const receiverBase = await listen(receiver)

  const pixgate = await Pixgate.make({
    store: storeOf(database),
    admin: { token: secrets.adminToken, basePath: "/admin" },
    bankCallbacks: { secret: secrets.callbackSecret },
    panel: { basePath: "/panel" },
    // Slow enough that the loop of 40 below runs into 429s however loaded the machine is.
    rateLimit: { requestsPerSecond: 0.01, burst: 20 },
    log: { level: "debug", write: (line) => lines.push(line) },
    engine: {
      config: {
        webhookRetryDelays: [Duration.millis(100), Duration.millis(100), Duration.millis(100)],
        webhookFailingAfter: 2,
        workerPollInterval: Duration.millis(50)
      }
    }
  })
  const server = createServer((req, res) => {
    const url = req.url ?? "/"
    if (url.startsWith("/admin/")) must(pixgate.admin, "pixgate.admin").nodeHandler(req, res)
    else if (pixgate.panel?.matches(url.split("?")[0])) pixgate.panel.nodeHandler(req, res)
    else pixgate.nodeHandler(req, res)
  })
  const base = await listen(server)
  try {
    const admin = (method: string, path: string, body?: unknown, token = secrets.adminToken) =>
      send(base, method, `/admin${path}`, {
        headers: { authorization: `Bearer ${token}` },
        body
      })

    // Admin: a wrong token, a merchant, keys (one revoked), the webhook and its keys.
    expect((await admin("POST", "/merchants", { name: "Loja" }, secrets.wrongAdminToken)).status).toBe(401)
    const merchant = await admin("POST", "/merchants", { name: "Loja Secreta" })
    expect(merchant.status, merchant.text).toBe(201)
    const merchantId: string = merchant.body.merchantId
    secrets.testKey = merchant.body.testKey
    secrets.liveKey = merchant.body.liveKey
    const extra = await admin("POST", `/merchants/${merchantId}/keys`, { mode: "test" })
    secrets.revokedKey = extra.body.key
    expect((await admin("DELETE", `/keys/${extra.body.keyId}`)).status).toBe(200)
    const webhookUrl = `${receiverBase}/hooks/${secrets.webhookPathToken}?token=${secrets.webhookQueryToken}`
    const endpoint = await admin("PUT", `/merchants/${merchantId}/webhooks/test`, {
      url: webhookUrl,
      secret: secrets.webhookSecret
    })
    expect(endpoint.status, endpoint.text).toBe(200)
    secrets.firstSigningKey = endpoint.body.signingKey
    const rotated = await admin("POST", `/merchants/${merchantId}/webhooks/test/signing-key`, {
      overlapSeconds: 60
    })
    expect(rotated.status, rotated.text).toBe(200)
    secrets.signingKey = rotated.body.signingKey
    expect((await admin("POST", `/merchants/${merchantId}/sandbox/topup`, { amount: 100 })).status).toBe(200)

    // The API with every key: created, refused (422, 401, 502), rate limited (429).
    const charge = await send(base, "POST", "/api/v1/charges", {
      key: secrets.testKey,
      body: { amount: 10, clientName: "Ana" }
    })
    expect(charge.status, charge.text).toBe(201)
    for (const key of [secrets.testKey, secrets.liveKey, secrets.revokedKey, secrets.madeUpKey]) {
      await send(base, "POST", "/api/v1/charges", { key, body: { amount: -1 } })
      await send(base, "POST", "/api/v1/payouts", { key, body: { amount: 1, pixKey: "a@b.com" } })
      await send(base, "GET", `/api/v1/transactions?api_key=${key}&x-api-key=${key}`)
    }
    for (let i = 0; i < 40; i++) await send(base, "GET", "/api/v1/transactions", { key: secrets.testKey })
    // The payer pays (unless the sandbox already did, 2-3 s after creation: 409): events go to the
    // receiver, which fails twice (endpoint marked failing, then recovered).
    const paid = await admin("POST", `/sandbox/transactions/${charge.body.transactionId}/pay`)
    expect([200, 409]).toContain(paid.status)

    // The bank's callback route: right secret (no live gateway here: 503), spelled with escapes, wrong.
    const callback = `/bank/callbacks/${secrets.callbackSecret}`
    expect((await send(base, "POST", callback, { body: {} })).status).toBe(503)
    expect((await send(base, "POST", `${callback}/pix`, { body: { pix: [] } })).status).toBe(503)
    await send(base, "POST", `/bank/%63allbacks/${secrets.callbackSecret}`, { body: {} })
    await send(base, "POST", `/bank/callbacks/${encodeURIComponent(secrets.callbackSecret)}x`, { body: {} })
    await send(base, "GET", callback)

    // The panel: an invite, its page, the password set once, a session, a sign-in, a wrong one.
    const invite = await admin("POST", `/merchants/${merchantId}/panel-invites`, {
      email: "ana@loja.example"
    })
    expect(invite.status, invite.text).toBe(201)
    secrets.inviteToken = invite.body.token
    const link = `${base}/panel${invite.body.path}`
    const form = await fetch(link)
    expect(form.status).toBe(200)
    const csrf = must(cookieOf(form, "pixgate_csrf"), 'cookieOf(form, "pixgate_csrf")')
    const accept = (password: string) =>
      fetch(link, {
        method: "POST",
        headers: { cookie: csrf, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ _csrf: csrf.split("=")[1], password }),
        redirect: "manual"
      })
    const accepted = await accept(secrets.password)
    expect(accepted.status).toBe(303)
    secrets.session = must(
      cookieOf(accepted, "pixgate_session"),
      'cookieOf(accepted, "pixgate_session")'
    ).split("=")[1]
    expect((await accept(`another ${secrets.password}`)).status).toBe(410)
    const overview = await fetch(`${base}/panel/`, {
      headers: { cookie: `pixgate_session=${secrets.session}` }
    })
    expect(overview.status).toBe(200)
    const signIn = (password: string) =>
      fetch(`${base}/panel/signin`, {
        method: "POST",
        headers: { cookie: csrf, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ _csrf: csrf.split("=")[1], email: "ana@loja.example", password }),
        redirect: "manual"
      })
    expect((await signIn(secrets.password)).status).toBe(303)
    await signIn(`wrong ${secrets.password}`)
    await fetch(`${base}/panel/invite/${random(20)}`)

    // The deliveries: wait for the event to reach the receiver after its failures.
    const deadline = Date.now() + testWaitMs
    while (deliveries < 3 && Date.now() < deadline) await sleep(100)
    expect(deliveries).toBeGreaterThanOrEqual(3)
    await send(base, "GET", "/api/health/ready")
  } finally {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
    receiver.closeAllConnections()
    await new Promise((resolve) => receiver.close(resolve))
    await pixgate.dispose()
    for (const spy of spies) spy.mockRestore()
  }
  return { secrets, lines: [...lines, ...captured] }
}

/** The secrets found in `lines`, with the line each was found in. */
const leaks = (secrets: Secrets, lines: ReadonlyArray<string>) =>
  Object.entries(secrets).flatMap(([name, value]) => {
    const values = name === "signingKey" || name === "firstSigningKey" ? [value, value.slice(6)] : [value]
    return values.flatMap(spellings).flatMap((spelling) => {
      const line = lines.find((l) => l.includes(spelling))
      return line === undefined ? [] : [{ name, line }]
    })
  })

/** What the session must have logged, so the search ran over lines that were there to leak. */
const expectTheSessionLogged = (lines: ReadonlyArray<string>) => {
  const parsed = lines.flatMap((l) => {
    try {
      return [JSON.parse(l) as Record<string, unknown>]
    } catch {
      return []
    }
  })
  const paths = parsed.filter((l) => l.msg === "request").map((l) => String(l.path))
  expect(paths).toContain("/bank/callbacks/[redacted]")
  expect(paths).toContain("/bank/callbacks/[redacted]/pix")
  expect(parsed.filter((l) => l.msg === "request" && l.status === 429).length).toBeGreaterThan(0)
  expect(parsed.some((l) => String(l.msg).startsWith("Webhook endpoint marked failing"))).toBe(true)
  expect(parsed.some((l) => l.msg === "A bank callback could not be applied; the bank retries")).toBe(true)
  // Ordinary refusals are their access line only: no unhandled-fiber reports, no stacks.
  expect(parsed.filter((l) => String(l.msg).includes("unhandled"))).toEqual([])
  expect(parsed.filter((l) => l.level === "error")).toEqual([])
}

describe("no secret in the logs, on SQLite", () => {
  const directory = mkdtempSync(join(tmpdir(), "pixgate-secrets-"))
  afterAll(() => rmSync(directory, { recursive: true, force: true }))

  it("a whole session at debug level writes none of its secrets", async () => {
    const { secrets, lines } = await session(`sqlite:${join(directory, "pixgate.db")}`)
    expect(leaks(secrets, lines)).toEqual([])
    expectTheSessionLogged(lines)
  })
})

describePostgres("no secret in the logs, on Postgres", () => {
  const database = useFreshDatabase()
  const password = `dbpw${random(12)}`
  let url: string
  beforeAll(() => {
    // The shared test server trusts local connections: the password is carried, never checked.
    const withPassword = new URL(database.url())
    withPassword.password = password
    url = withPassword.toString()
  })

  it("a whole session at debug level writes none of its secrets, nor the database password", async () => {
    const { secrets, lines } = await session(url)
    expect(leaks({ ...secrets, databasePassword: password }, lines)).toEqual([])
    expectTheSessionLogged(lines)
  })
})
