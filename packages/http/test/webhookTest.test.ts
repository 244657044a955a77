/**
 * The `webhook.test` event over real sockets: the admin API sends it to a real local receiver,
 * which gets it signed (checked here with node:crypto, as the Standard Webhooks scheme says); it appears in the webhook
 * log as delivered; no money moves; without an endpoint it is a 404.
 */
import { createHmac, timingSafeEqual } from "node:crypto"
import { createServer, type IncomingMessage } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { adminSender, type Harness, listen, start } from "@pixgate/testkit/harness"
import { must } from "@pixgate/testkit/must"
import { until } from "@pixgate/testkit/wait"
import { expectError } from "./support/spec.js"

const token = "admin-token-0123456789abcdef"
let h: Harness
let adminBase: string
const server = createServer()
const receiver = createServer()
let receiverUrl: string
const received: Array<{ readonly headers: IncomingMessage["headers"]; readonly body: string }> = []

const admin = adminSender(() => adminBase, token)

/**
 * A receiver's check, written from the Standard Webhooks scheme: HMAC-SHA256 of
 * `<webhook-id>.<webhook-timestamp>.<body>` with the base64 key after `whsec_`, one of the
 * space-separated `v1,<base64>` signatures; answers the parsed body or throws.
 */
const verify = (key: string, body: string, headers: IncomingMessage["headers"]): unknown => {
  const id = String(headers["webhook-id"])
  const timestamp = String(headers["webhook-timestamp"])
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) throw new Error("stale timestamp")
  const expected = createHmac("sha256", Buffer.from(key.replace(/^whsec_/, ""), "base64"))
    .update(`${id}.${timestamp}.${body}`)
    .digest()
  const ok = String(headers["webhook-signature"])
    .split(" ")
    .some((sig) => {
      const [version, value] = sig.split(",")
      const given = Buffer.from(value ?? "", "base64")
      return version === "v1" && given.length === expected.length && timingSafeEqual(given, expected)
    })
  if (!ok) throw new Error("bad signature")
  return JSON.parse(body)
}

beforeAll(async () => {
  h = await start({ admin: { token, basePath: "/admin" } })
  server.on("request", must(h.pixgate.admin, "h.pixgate.admin").nodeHandler)
  adminBase = await listen(server)
  receiver.on("request", (req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") })
      res.writeHead(200).end("ok")
    })
  })
  receiverUrl = `${await listen(receiver)}/hook`
})
afterAll(async () => {
  server.close()
  receiver.closeAllConnections()
  receiver.close()
  await h.close()
})

describe("webhook.test", () => {
  it("arrives signed at the endpoint, is logged as delivered and moves no money", async () => {
    const { merchantId } = (await admin("POST", "/merchants", { body: { name: "Loja Teste" } })).body
    const set = await admin("PUT", `/merchants/${merchantId}/webhooks/test`, {
      body: { url: receiverUrl, secret: "a-long-enough-webhook-secret" }
    })
    const signingKey: string = set.body.signingKey
    expect(signingKey).toMatch(/^whsec_/)
    const before = (await admin("GET", `/merchants/${merchantId}/balance?mode=test`)).body

    const sent = await admin("POST", `/merchants/${merchantId}/webhooks/test/test`)
    expect(sent.status).toBe(202)
    expect(sent.body).toMatchObject({ eventId: expect.stringMatching(/^evt_/), status: "pending" })

    await until("the test event at the receiver", () =>
      received.some((r) => r.headers["webhook-id"] === sent.body.eventId)
    )
    const call = must(
      received.find((r) => r.headers["webhook-id"] === sent.body.eventId),
      'received.find((r) => r.headers["webhook-id"] === sent.body.eventId)'
    )
    const verified = verify(signingKey, call.body, call.headers)
    expect(verified).toEqual({
      id: sent.body.eventId,
      event: "webhook.test",
      data: { test: true, merchantId, mode: "test", message: "A test event: no money moved" },
      timestamp: expect.any(String)
    })
    // A tampered body fails the check.
    expect(() => verify(signingKey, call.body.replace("test event", "tost event"), call.headers)).toThrow(
      "bad signature"
    )

    let log: ReadonlyArray<Record<string, unknown>> = []
    await until("the delivery logged as delivered", async () => {
      log = (await admin("GET", `/merchants/${merchantId}/webhook-log?mode=test`)).body.data
      return log.some((d) => d.eventId === sent.body.eventId && d.status === "delivered")
    })
    expect(log.find((d) => d.eventId === sent.body.eventId)).toMatchObject({
      event: "webhook.test",
      url: receiverUrl,
      status: "delivered",
      nextAttemptAt: null,
      attempts: [expect.objectContaining({ attempt: 1, statusCode: 200 })]
    })
    expect((await admin("GET", `/merchants/${merchantId}/balance?mode=test`)).body).toEqual(before)
    expect(before).toMatchObject({ available: 0, held: 0 })
  })

  it("is a 404 without an endpoint for the mode, and writes no event", async () => {
    const { merchantId } = (await admin("POST", "/merchants", { body: { name: "Sem Webhook" } })).body
    expectError(
      await admin("POST", `/merchants/${merchantId}/webhooks/live/test`),
      404,
      "Webhook endpoint not found"
    )
    expect((await admin("GET", `/merchants/${merchantId}/webhook-log`)).body.data).toEqual([])
    expectError(await admin("POST", "/merchants/mer_nope/webhooks/test/test"), 404, "Merchant not found")
  })
})
