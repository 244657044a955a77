/**
 * The sandbox end to end with the real clock: a charge created over HTTP is `completed` 2-3 s
 * later and its `transaction.completed` webhook reaches a local receiver with the right
 * `X-Pixgate-Signature`; payouts settle, or fail with the money back and no webhook.
 */
import { createHmac } from "node:crypto"
import { createServer, type IncomingHttpHeaders } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Money } from "@pixgate/core"
import { type Harness, listen, start } from "@pixgate/testkit/harness"
import { testWaitMs } from "@pixgate/testkit/wait"

interface Delivery {
  readonly headers: IncomingHttpHeaders
  readonly raw: string
  // biome-ignore lint/suspicious/noExplicitAny: webhook bodies are read dynamically
  readonly body: any
}

const secret = "e2e-webhook-secret"
let signingKey = ""
const deliveries: Array<Delivery> = []
const receiver = createServer((req, res) => {
  let raw = ""
  req.on("data", (chunk) => {
    raw += chunk
  })
  req.on("end", () => {
    deliveries.push({ headers: req.headers, raw, body: JSON.parse(raw) })
    res.writeHead(200).end("ok")
  })
})

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const waitFor = async <A>(
  what: string,
  find: () => Promise<A | undefined> | A | undefined,
  timeoutMs = testWaitMs
) => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const found = await find()
    if (found !== undefined) return found
    await sleep(50)
  }
  throw new Error(`timed out waiting for ${what}`)
}

let h: Harness
let key: string
let merchantId: string

beforeAll(async () => {
  const url = `${await listen(receiver)}/hooks/pixgate`
  h = await start()
  const m = await h.merchant("Sandbox")
  key = m.testKey
  merchantId = m.merchantId
  const set = await h.engine((e) => e.admin.setWebhook({ merchantId, mode: "test", url, secret }))
  signingKey = set.signingKey ?? ""
  await h.engine((e) => e.admin.topUp(merchantId, { amount: Money.reais(100) }))
})
afterAll(async () => {
  await h.close()
  receiver.close()
})

const statusOf = async (id: string) => {
  const page = (await h.request("GET", "/api/v1/transactions?limit=100", { key })).body
  return page.data.find((t: { id: string }) => t.id === id)
}

describe("sandbox with the real clock", () => {
  it("a charge is completed after 2-3 s and transaction.completed is delivered, signed", async () => {
    const created = Date.now()
    const charge = (await h.request("POST", "/api/v1/charges", { key, body: { amount: 25.9 } })).body
    expect((await statusOf(charge.transactionId)).status).toBe("pending")
    const completed = await waitFor("completion", async () => {
      const tx = await statusOf(charge.transactionId)
      return tx.status === "completed" ? tx : undefined
    })
    const elapsed = Date.now() - created
    expect(elapsed).toBeGreaterThanOrEqual(1900)
    expect(elapsed).toBeLessThan(3600)
    expect(completed.endToEndId).toMatch(/^E\d{8}\d{12}[a-zA-Z0-9]{11}$/)

    const delivery = await waitFor("the webhook", () =>
      deliveries.find(
        (d) => d.body.event === "transaction.completed" && d.body.data.transactionId === charge.transactionId
      )
    )
    expect(delivery.headers["x-pixgate-signature"]).toBe(secret)
    expect(delivery.headers["content-type"]).toMatch(/^application\/json/)
    const { body } = delivery
    expect(body).toMatchObject({
      event: "transaction.completed",
      data: {
        transactionId: charge.transactionId,
        txid: charge.txid,
        endToEndId: completed.endToEndId,
        amount: 25.9,
        paidAt: expect.stringMatching(/Z$/)
      },
      timestamp: expect.stringMatching(/Z$/)
    })
    expect(typeof body.id).toBe("string")
    expect(Number.isNaN(Date.parse(body.data.paidAt))).toBe(false)
    // Standard Webhooks headers: v1 HMAC-SHA256 of id.timestamp.body with the endpoint's signing
    // key (shown when the endpoint was set), never with the secret.
    const id = delivery.headers["webhook-id"]
    const timestamp = delivery.headers["webhook-timestamp"]
    expect(id).toBe(body.id)
    expect(signingKey).toMatch(/^whsec_/)
    const hmac = (key: Buffer | string) =>
      `v1,${createHmac("sha256", key).update(`${id}.${timestamp}.${delivery.raw}`).digest("base64")}`
    expect(delivery.headers["webhook-signature"]).toBe(hmac(Buffer.from(signingKey.slice(6), "base64")))
    expect(delivery.headers["webhook-signature"]).not.toBe(hmac(secret))
    expect(await h.engine((e) => e.admin.balance(merchantId, "test"))).toMatchObject({
      available: expect.any(Number)
    })
  })

  it("a payout completes after 2-3 s (withdrawal.completed); one to fail@pixgate.test fails, money back, no webhook", async () => {
    const before = (await h.engine((e) => e.admin.balance(merchantId, "test"))).available
    const ok = (
      await h.request("POST", "/api/v1/payouts", { key, body: { amount: 10, pixKey: "someone@example.com" } })
    ).body
    const bad = (
      await h.request("POST", "/api/v1/payouts", { key, body: { amount: 5, pixKey: "fail@pixgate.test" } })
    ).body
    expect(await h.engine((e) => e.admin.balance(merchantId, "test"))).toMatchObject({
      available: Math.round((before - 10.33 - 5.33) * 100) / 100
    })
    await waitFor("settlement", async () =>
      (await statusOf(ok.transactionId)).status === "completed" ? true : undefined
    )
    await waitFor("failure", async () =>
      (await statusOf(bad.transactionId)).status === "failed" ? true : undefined
    )
    await waitFor("withdrawal.completed", () =>
      deliveries.find(
        (d) => d.body.event === "withdrawal.completed" && d.body.data.transactionId === ok.transactionId
      )
    )
    expect(await h.engine((e) => e.admin.balance(merchantId, "test"))).toMatchObject({
      available: Math.round((before - 10.33) * 100) / 100
    })
    await sleep(300)
    const aboutBad = deliveries
      .filter((d) => d.body.data.transactionId === bad.transactionId)
      .map((d) => d.body.event)
    expect(aboutBad.sort()).toEqual(["transaction.created", "withdrawal.created"])
  })
})
