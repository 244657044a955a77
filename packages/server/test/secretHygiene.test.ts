/**
 * No secret in the logs nor in the exported spans. A server (the embedded Pixgate with its admin
 * router and `/metrics`, tracing to a local OTLP receiver) runs a session that puts every secret
 * everywhere a client or a merchant can: API keys (good, revoked, made up) in `x-api-key`, in
 * paths, in queries and as `x-request-id`; admin tokens (the environment's, a stored one, a
 * revoked one, one whose scope refuses the operation, a `pxa_` in a path) in `Authorization` and
 * paths; the webhook secret in `X-Pixgate-Signature` (sent to the receiver, and by a client to
 * Pixgate); signing keys; webhook URLs with tokens in their path and query, delivered to a
 * receiver that fails first (the endpoint is marked failing, then recovers) and one whose host
 * resolves to a refused address at send time (the attempt is not made). Then every log line and
 * every OTLP export body is searched for each secret (raw and URL-encoded), and the spans for
 * stack traces, file paths and 4xx answers marked as errors: none may appear. Once over the node
 * webhook transport on SQLite, once over Effect's HttpClient (whose spans carry URLs and headers)
 * on Postgres.
 */
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer, type Server } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { FetchHttpClient } from "@effect/platform"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Engine, HostResolver } from "@pixgate/core"
import { Admin } from "@pixgate/http"
import { testDataKey } from "@pixgate/testkit/dataKeys"
import { listen, send } from "@pixgate/testkit/harness"
import { must } from "@pixgate/testkit/must"
import { describePostgres, useFreshDatabase } from "@pixgate/testkit/postgres"
import { testWait, until } from "@pixgate/testkit/wait"
import { Duration, Effect, Layer, Option, Redacted } from "effect"
import { Pixgate } from "../src/index.js"
import * as Telemetry from "../src/Telemetry.js"

const random = (bytes = 18) => randomBytes(bytes).toString("hex")

/** The forms a secret may be written in: raw, URL-encoded, form-encoded. */
const spellings = (value: string): ReadonlyArray<string> => [
  ...new Set([value, encodeURIComponent(value), new URLSearchParams({ v: value }).toString().slice(2)])
]

/** A span as OTLP JSON has it. */
interface Span {
  readonly name: string
  readonly kind: number
  readonly status?: { readonly code?: number; readonly message?: string }
  readonly attributes?: ReadonlyArray<{
    readonly key: string
    readonly value: { readonly stringValue?: string }
  }>
}

/** The refusals the session makes, each of which must be a span with its code. */
const refusalCodes = ["unauthorized", "forbidden", "not_found", "invalid_amount"] as const

const attribute = (span: Span, key: string) => span.attributes?.find((a) => a.key === key)?.value.stringValue

/** An OTLP/HTTP JSON receiver: every export body as received, and the spans in them. */
const collector = async () => {
  const bodies: Array<string> = []
  const spans: Array<Span> = []
  const server = createServer((req, res) => {
    let body = ""
    req.on("data", (chunk) => {
      body += chunk
    })
    req.on("end", () => {
      bodies.push(body)
      if (req.url === "/v1/traces") {
        const data = JSON.parse(body) as {
          resourceSpans: ReadonlyArray<{ scopeSpans: ReadonlyArray<{ spans: ReadonlyArray<Span> }> }>
        }
        for (const r of data.resourceSpans) for (const s of r.scopeSpans) spans.push(...s.spans)
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}")
    })
  })
  return { url: await listen(server), bodies, spans, server }
}

/** A host that resolves to loopback when its URL is set, and to the cloud metadata address after. */
const rebinding = () => {
  let lookups = 0
  return Layer.succeed(HostResolver.HostResolver, {
    lookup: (host) =>
      Effect.sync(() =>
        host === "rebind.pixgate.test" ? (++lookups === 1 ? ["127.0.0.1"] : ["169.254.169.254"]) : []
      )
  })
}

const close = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections()
    server.close(() => resolve())
  })

/** Runs the whole session on `database`; answers the secrets, every log line and every export body. */
const session = async (database: string, viaHttpClient: boolean) => {
  const lines: Array<string> = []
  const secrets: Record<string, string> = {
    envToken: `env${random(20)}`,
    webhookSecret: `whs${random(16)}`,
    webhookPathToken: `wpt${random(16)}`,
    webhookQueryToken: `wqt${random(16)}`,
    rebindPathToken: `rpt${random(16)}`,
    madeUpTestKey: `sk_test_${random(16)}`,
    madeUpLiveKey: `sk_live_${random(16)}`,
    madeUpAdminToken: `pxa_${random(20)}`,
    madeUpSigningKey: `whsec_${random(20)}`
  }
  // The receiver fails the first two deliveries, then takes them.
  let deliveries = 0
  const signatures: Array<string> = []
  const receiver = createServer((req, res) => {
    signatures.push(String(req.headers["x-pixgate-signature"]))
    req.resume()
    req.on("end", () => res.writeHead(++deliveries <= 2 ? 500 : 200).end())
  })
  const receiverBase = await listen(receiver)
  const otlp = await collector()
  let running: Pixgate.Pixgate | undefined
  const callerOf = Admin.callerOf(Redacted.make(secrets.envToken))
  const telemetry = await Telemetry.start(
    {
      metrics: "admin",
      otlp: { tracesUrl: `${otlp.url}/v1/traces`, protocol: "http/json", tracesIntervalMs: 100 },
      serviceName: "pixgate-hygiene-test"
    },
    (authorization) =>
      must(running, "running").runtime.runPromise(
        Effect.map(callerOf(authorization), (c) => (Option.isSome(c) ? "ok" : "unauthorized"))
      )
  )
  const pixgate = await Pixgate.make({
    database,
    dataKey: testDataKey,
    admin: { token: secrets.envToken, basePath: "/admin" },
    log: { level: "debug", write: (line) => lines.push(line) },
    telemetry: must(telemetry.layer, "telemetry.layer"),
    tracing: true,
    ...(viaHttpClient ? { httpClient: FetchHttpClient.layer } : {}),
    engine: {
      hostResolver: rebinding(),
      config: {
        webhookRetryDelays: [Duration.millis(100), Duration.millis(100), Duration.millis(100)],
        webhookFailingAfter: 2,
        workerPollInterval: Duration.millis(50)
      }
    }
  })
  running = pixgate
  const server = createServer((req, res) => {
    if (telemetry.handle(req, res)) return
    if ((req.url ?? "/").startsWith("/admin/")) must(pixgate.admin, "pixgate.admin").nodeHandler(req, res)
    else pixgate.nodeHandler(req, res)
  })
  const base = await listen(server)
  try {
    await run(base, receiverBase, pixgate, secrets)
    await until("the receiver takes a delivery after two failures", () => deliveries >= 3)
    expect(signatures).toContain(secrets.webhookSecret)
    await until("the refused attempt is logged", () =>
      lines.some((l) => l.includes("Webhook attempt not made"))
    )
    // Every span the check looks for is waited for here, before the server stops: an export in
    // flight when the tracer's scope closes is interrupted, and the spans it carried are lost.
    await until(
      "the spans of the requests, the refusals and the deliveries are exported",
      () =>
        ["GET /api/v1/transactions", "pixgate.webhooks.attempt"].every((name) =>
          otlp.spans.some((s) => s.name === name)
        ) &&
        refusalCodes.every((code) => otlp.spans.some((s) => attribute(s, "pixgate.refusal.code") === code))
    )
  } finally {
    await close(server)
    await pixgate.dispose()
    await telemetry.close()
    await close(receiver)
    await close(otlp.server)
  }
  return { secrets, lines, bodies: otlp.bodies, spans: otlp.spans }
}

/** Every request of the session, each secret where a client or an operator could put it. */
const run = async (
  base: string,
  receiverBase: string,
  pixgate: Pixgate.Pixgate,
  secrets: Record<string, string>
) => {
  const engine = <A, E>(f: (e: Engine.EngineShape) => Effect.Effect<A, E>) =>
    pixgate.runtime.runPromise(Effect.flatMap(Engine.Engine, f))
  const ops = await engine((e) => e.adminTokens.create({ name: "ops", scope: "full" }))
  const scraper = await engine((e) => e.adminTokens.create({ name: "scraper", scope: "metrics" }))
  const gone = await engine((e) => e.adminTokens.create({ name: "gone", scope: "full" }))
  await engine((e) => e.adminTokens.revoke("gone"))
  Object.assign(secrets, { opsToken: ops.token, scraperToken: scraper.token, revokedToken: gone.token })
  const admin = (token: string, method: string, path: string, body?: unknown) =>
    send(base, method, `/admin${path}`, { headers: { authorization: `Bearer ${token}` }, body })

  const a = (await admin(secrets.envToken, "POST", "/merchants", { name: "Loja A" })).body
  const b = (await admin(ops.token, "POST", "/merchants", { name: "Loja B" })).body
  Object.assign(secrets, { testKey: a.testKey, liveKey: a.liveKey, otherTestKey: b.testKey })
  const extra = await admin(ops.token, "POST", `/merchants/${a.merchantId}/keys`, { mode: "test" })
  secrets.revokedKey = extra.body.key
  expect((await admin(ops.token, "DELETE", `/keys/${extra.body.keyId}`)).status).toBe(200)
  const hook = await admin(ops.token, "PUT", `/merchants/${a.merchantId}/webhooks/test`, {
    url: `${receiverBase}/hooks/${secrets.webhookPathToken}?token=${secrets.webhookQueryToken}&key=${a.testKey}`,
    secret: secrets.webhookSecret
  })
  expect(hook.status, hook.text).toBe(200)
  secrets.firstSigningKey = hook.body.signingKey
  const rotated = await admin(ops.token, "POST", `/merchants/${a.merchantId}/webhooks/test/signing-key`, {
    overlapSeconds: 60
  })
  secrets.signingKey = rotated.body.signingKey
  const rebind = await admin(ops.token, "PUT", `/merchants/${b.merchantId}/webhooks/test`, {
    url: `http://rebind.pixgate.test:1/hooks/${secrets.rebindPathToken}?key=${b.testKey}`,
    secret: secrets.webhookSecret
  })
  expect(rebind.status, rebind.text).toBe(200)

  // Admin tokens where they do not belong, refused: revoked, unknown, of a scope that does not allow it.
  expect((await admin(gone.token, "GET", "/audit-log")).status).toBe(401)
  expect((await admin(secrets.madeUpAdminToken, "POST", "/merchants", { name: "X" })).status).toBe(401)
  expect((await admin(scraper.token, "POST", "/merchants", { name: "X" })).status).toBe(403)
  expect((await admin(ops.token, "GET", `/merchants/${ops.token}`)).status).toBe(404)
  expect((await admin(ops.token, "DELETE", `/keys/${a.testKey}`)).status).toBe(404)
  const metrics = (token: string) =>
    send(base, "GET", "/metrics", { headers: { authorization: `Bearer ${token}` } })
  expect((await metrics(scraper.token)).status).toBe(200)
  expect((await metrics(gone.token)).status).toBe(401)

  // The public API: charges (their events are delivered), keys in every header, path and query.
  for (const key of [a.testKey, b.testKey]) {
    const charge = await send(base, "POST", "/api/v1/charges", {
      key,
      body: { amount: 10 },
      headers: { "x-request-id": key, "x-pixgate-signature": secrets.webhookSecret }
    })
    expect(charge.status, charge.text).toBe(201)
    expect(charge.headers.get("x-request-id")).not.toBe(key)
  }
  for (const key of [secrets.madeUpTestKey, secrets.madeUpLiveKey, secrets.revokedKey, a.testKey]) {
    await send(base, "GET", "/api/v1/transactions", { key, headers: { "x-request-id": ops.token } })
    await send(base, "GET", `/api/v1/transactions/${key}`, { key: a.testKey })
    await send(base, "GET", `/api/v1/transactions?api_key=${key}`, { key })
    await send(base, "POST", "/api/v1/payouts", { key, body: { amount: -1, pixKey: key } })
  }
  for (const secret of [secrets.signingKey, secrets.madeUpSigningKey, secrets.madeUpAdminToken])
    await send(base, "GET", `/api/v1/${secret}`, { headers: { authorization: `Bearer ${secret}` } })
  await send(base, "GET", `/api/v1/transactions/${a.testKey.replaceAll("_", "%5F")}`, { key: a.testKey })
}

/** The secrets found in `texts`, with where each was found. */
const leaks = (secrets: Record<string, string>, texts: ReadonlyArray<string>) =>
  Object.entries(secrets).flatMap(([name, value]) =>
    spellings(value).flatMap((spelling) => {
      const text = texts.find((t) => t.includes(spelling))
      return text === undefined
        ? []
        : [{ name, at: text.slice(Math.max(0, text.indexOf(spelling) - 200), text.indexOf(spelling) + 80) }]
    })
  )

/** What a session must show, and what its spans must not carry. */
const check = (result: Awaited<ReturnType<typeof session>>) => {
  const { secrets, lines, bodies, spans } = result
  expect(leaks(secrets, [...lines, ...bodies])).toEqual([])
  const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>)
  // The session logged what could have leaked.
  const refused = parsed.find((l) => String(l.msg).startsWith("Webhook attempt not made"))
  expect(refused?.url).toBe("http://rebind.pixgate.test:1")
  expect(parsed.some((l) => String(l.msg).startsWith("Webhook endpoint marked failing"))).toBe(true)
  const paths = parsed.filter((l) => l.msg === "request").map((l) => String(l.path))
  expect(paths).toContain("/api/v1/transactions/sk_test_[redacted]")
  expect(paths).toContain("/admin/merchants/pxa_[redacted]")
  // No stack trace and no file path in any span; no 4xx answer is an error span.
  for (const body of bodies) {
    expect(body).not.toContain("code.stacktrace")
    expect(body).not.toMatch(/\.[cm]?[jt]sx?:\d+/)
    expect(body).not.toContain("node_modules")
    expect(body).not.toContain(process.cwd())
  }
  const refusals = spans.filter((s) => attribute(s, "pixgate.refusal.code") !== undefined)
  expect(refusals.map((s) => attribute(s, "pixgate.refusal.code"))).toEqual(
    expect.arrayContaining([...refusalCodes])
  )
  expect(spans.filter((s) => s.status?.code === 2)).toEqual([])
}

describe("no secret in logs or spans, on SQLite with the node webhook transport", () => {
  const directory = mkdtempSync(join(tmpdir(), "pixgate-hygiene-"))
  afterAll(() => rmSync(directory, { recursive: true, force: true }))

  it(
    "a whole session writes and exports none of its secrets, no stack, no file path",
    async () => check(await session(`sqlite:${join(directory, "pixgate.db")}`, false)),
    testWait(2)
  )
})

describePostgres("no secret in logs or spans, on Postgres with Effect's HttpClient", () => {
  const database = useFreshDatabase()

  it(
    "a whole session writes and exports none of its secrets, no stack, no file path",
    async () => check(await session(database.url(), true)),
    testWait(2)
  )
})
