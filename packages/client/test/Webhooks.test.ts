/**
 * The webhook helper on real deliveries: a real Pixgate delivers `transaction.completed` of a
 * sandbox charge paid through the admin API to a local receiver; `Webhooks.verify` and the
 * `standardwebhooks` package both accept the delivery, and both refuse a tampered body and an old
 * timestamp. Key rotation (both keys sign), malformed payloads and missing headers get their
 * exact errors.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { Webhook } from "standardwebhooks"
import { Pixgate, Webhooks } from "../src/index.js"
import {
  type Delivery,
  type Receiver,
  startReceiver,
  startServer,
  type TestServer
} from "./support/server.js"

let server: TestServer
let receiver: Receiver
let merchantId: string
let pixgate: Pixgate
let signingKey: string

beforeAll(async () => {
  server = await startServer()
  receiver = await startReceiver()
  const merchant = await server.merchant("Webhooks")
  merchantId = merchant.merchantId
  pixgate = new Pixgate({ apiKey: merchant.testKey, baseUrl: server.baseUrl })
  const set = await server.engine((e) =>
    e.admin.setWebhook({ merchantId, mode: "test", url: receiver.url, secret: "client-webhook-secret" })
  )
  signingKey = set.signingKey ?? ""
  expect(signingKey).toMatch(/^whsec_/)
})
afterAll(async () => {
  await server.close()
  await receiver.close()
})

/** The Standard Webhooks headers of a delivery, as plain strings. */
const standardHeaders = (delivery: Delivery) => ({
  "webhook-id": String(delivery.headers["webhook-id"]),
  "webhook-timestamp": String(delivery.headers["webhook-timestamp"]),
  "webhook-signature": String(delivery.headers["webhook-signature"])
})

/** Pays a new sandbox charge now and waits for its `transaction.completed` delivery. */
const paidCharge = async (amount: number) => {
  const charge = await pixgate.charges.create({ amount })
  await server.engine((e) => e.admin.sandboxPayCharge(charge.transactionId))
  const delivery = await receiver.next((d) => {
    const body = JSON.parse(d.raw.toString("utf8"))
    return body.event === "transaction.completed" && body.data.transactionId === charge.transactionId
  })
  return { charge, delivery }
}

/** What `f` throws. */
const thrown = (f: () => unknown): unknown => {
  try {
    f()
  } catch (error) {
    return error
  }
  throw new Error("expected a throw")
}

describe("Webhooks.verify on a real delivery", () => {
  it("accepts the delivery and decodes transaction.completed; standardwebhooks accepts it too", async () => {
    const { charge, delivery } = await paidCharge(25.9)
    const event = Webhooks.verify({ payload: delivery.raw, headers: delivery.headers, secret: signingKey })
    expect(event.event).toBe("transaction.completed")
    expect(event.id).toBe(delivery.headers["webhook-id"])
    if (event.event !== "transaction.completed") throw new Error("unreachable")
    expect(event.data.transactionId).toBe(charge.transactionId)
    expect(event.data.txid).toBe(charge.txid)
    expect(event.data.amount).toBe(25.9)
    expect(event.data.status).toBe("completed")
    expect(event.data.endToEndId).toMatch(/^E\d{8}\d{12}[a-zA-Z0-9]{11}$/)
    expect(Number.isNaN(Date.parse(event.data.paidAt))).toBe(false)

    // The same with the body as text and a fetch `Headers` object.
    const headers = new Headers(standardHeaders(delivery))
    expect(Webhooks.verify({ payload: delivery.raw.toString("utf8"), headers, secret: signingKey })).toEqual(
      event
    )

    const library = new Webhook(signingKey).verify(delivery.raw.toString("utf8"), standardHeaders(delivery))
    expect(library).toEqual(JSON.parse(delivery.raw.toString("utf8")))
  })

  it("a tampered body is refused by both", async () => {
    const { delivery } = await paidCharge(11)
    const tampered = delivery.raw.toString("utf8").replace('"amount":11', '"amount":1100')
    expect(tampered).not.toBe(delivery.raw.toString("utf8"))
    const error = thrown(() =>
      Webhooks.verify({ payload: tampered, headers: delivery.headers, secret: signingKey })
    )
    expect(error).toBeInstanceOf(Webhooks.WebhookVerificationError)
    expect(error).toMatchObject({
      reason: "invalid_signature",
      message: "No webhook-signature matches the payload"
    })
    expect(() => new Webhook(signingKey).verify(tampered, standardHeaders(delivery))).toThrow(
      "No matching signature found"
    )
    // A wrong key is the same failure.
    const otherKey = `whsec_${Buffer.from("another-key-0123456789abcdef").toString("base64")}`
    expect(
      thrown(() => Webhooks.verify({ payload: delivery.raw, headers: delivery.headers, secret: otherKey }))
    ).toMatchObject({ reason: "invalid_signature" })
  })

  it("an old timestamp is refused by both, even correctly signed", async () => {
    const { delivery } = await paidCharge(12)
    const body = delivery.raw.toString("utf8")
    const id = String(delivery.headers["webhook-id"])
    const old = new Date(Date.now() - 6 * 60 * 1000)
    const headers = {
      "webhook-id": id,
      "webhook-timestamp": String(Math.floor(old.getTime() / 1000)),
      "webhook-signature": new Webhook(signingKey).sign(id, old, body)
    }
    expect(thrown(() => Webhooks.verify({ payload: body, headers, secret: signingKey }))).toMatchObject({
      _tag: "WebhookVerificationError",
      reason: "stale_timestamp",
      message: "webhook-timestamp is more than 300 seconds old"
    })
    expect(() => new Webhook(signingKey).verify(body, headers)).toThrow("Message timestamp too old")
    // A replay of the real headers with an old timestamp breaks the signature as well.
    expect(
      thrown(() =>
        Webhooks.verify({
          payload: body,
          headers: { ...standardHeaders(delivery), "webhook-timestamp": headers["webhook-timestamp"] },
          secret: signingKey
        })
      )
    ).toMatchObject({ reason: "stale_timestamp" })
    // Within a wider tolerance, the same request passes.
    expect(Webhooks.verify({ payload: body, headers, secret: signingKey, toleranceSeconds: 600 }).id).toBe(id)
  })

  it("during a signing-key rotation both keys sign, and either one verifies", async () => {
    const rotated = await server.engine((e) => e.admin.rotateSigningKey({ merchantId, mode: "test" }))
    const { delivery } = await paidCharge(13)
    expect(String(delivery.headers["webhook-signature"]).split(" ")).toHaveLength(2)
    for (const key of [signingKey, rotated.signingKey]) {
      expect(Webhooks.verify({ payload: delivery.raw, headers: delivery.headers, secret: key }).event).toBe(
        "transaction.completed"
      )
      expect(new Webhook(key).verify(delivery.raw.toString("utf8"), standardHeaders(delivery))).toMatchObject(
        {
          event: "transaction.completed"
        }
      )
    }
    const stranger = `whsec_${Buffer.from("not-a-key-of-this-endpoint-0123").toString("base64")}`
    expect(
      Webhooks.verify({
        payload: delivery.raw,
        headers: delivery.headers,
        secrets: [stranger, rotated.signingKey]
      }).event
    ).toBe("transaction.completed")
    expect(
      thrown(() => Webhooks.verify({ payload: delivery.raw, headers: delivery.headers, secrets: [stranger] }))
    ).toMatchObject({ reason: "invalid_signature" })
    signingKey = rotated.signingKey
  })
})

describe("Webhooks.verify on crafted requests", () => {
  const key = `whsec_${Buffer.from("crafted-requests-key-0123456789").toString("base64")}`
  const signed = (body: string, at = new Date()) => {
    const id = "evt_crafted"
    return {
      "webhook-id": id,
      "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
      "webhook-signature": new Webhook(key).sign(id, at, body)
    }
  }

  it("a signed body that is not a Pixgate event is malformed_payload", () => {
    const body = JSON.stringify({ id: "evt_crafted", event: "charge.paid", data: {}, timestamp: "x" })
    const error = thrown(() => Webhooks.verify({ payload: body, headers: signed(body), secret: key }))
    expect(error).toMatchObject({ reason: "malformed_payload" })
    expect((error as Error).message.startsWith("The payload is not a Pixgate event: ")).toBe(true)
    const notJson = "not json"
    expect(
      thrown(() => Webhooks.verify({ payload: notJson, headers: signed(notJson), secret: key }))
    ).toMatchObject({ reason: "malformed_payload" })
  })

  it("missing or malformed headers name what is wrong", () => {
    const body = "{}"
    const headers = signed(body)
    expect(
      thrown(() =>
        Webhooks.verify({
          payload: body,
          headers: { "webhook-id": headers["webhook-id"], "webhook-timestamp": headers["webhook-timestamp"] },
          secret: key
        })
      )
    ).toMatchObject({ reason: "missing_header", message: "Missing webhook-signature header" })
    expect(
      thrown(() =>
        Webhooks.verify({ payload: body, headers: { ...headers, "webhook-timestamp": "soon" }, secret: key })
      )
    ).toMatchObject({
      reason: "invalid_timestamp",
      message: "webhook-timestamp must be whole seconds since the Unix epoch"
    })
    const future = new Date(Date.now() + 10 * 60 * 1000)
    expect(
      thrown(() => Webhooks.verify({ payload: body, headers: signed(body, future), secret: key }))
    ).toMatchObject({
      reason: "stale_timestamp",
      message: "webhook-timestamp is more than 300 seconds in the future"
    })
  })

  it.effect("verifyEffect reads the Effect clock (TestClock)", () =>
    Effect.gen(function* () {
      const at = new Date("2026-01-02T03:04:05.000Z")
      const body = JSON.stringify({
        id: "evt_crafted",
        event: "withdrawal.created",
        data: { transactionId: "tx_1", type: "withdrawal", status: "pending", amount: 5, pixKey: "a@b.co" },
        timestamp: at.toISOString()
      })
      const headers = signed(body, at)
      yield* TestClock.setTime(at.getTime() + 299_000)
      const event = yield* Webhooks.verifyEffect({ payload: body, headers, secret: key })
      expect(event.event).toBe("withdrawal.created")
      yield* TestClock.adjust("2 seconds")
      const late = yield* Effect.flip(Webhooks.verifyEffect({ payload: body, headers, secret: key }))
      expect(late.reason).toBe("stale_timestamp")
    })
  )
})
