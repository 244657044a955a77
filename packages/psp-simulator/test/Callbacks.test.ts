import * as https from "node:https"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { Certificates, PspSimulator } from "../src/index.js"
import { call, cobBody, eventually, receiver, registerWebhook, token, txid } from "./helpers.js"

let psp: PspSimulator.PspSimulator
let hook: Awaited<ReturnType<typeof receiver>>
let bearer: string
let counter = 0

const newCob = async () => {
  const id = txid(`cb${++counter}`)
  const created = await call(psp, { method: "PUT", path: `/v2/cob/${id}`, token: bearer, body: cobBody() })
  expect(created.status).toBe(201)
  return id
}

const e2eIdsReceived = () =>
  hook.received.flatMap((item) =>
    (item.body as { pix: Array<{ endToEndId: string }> }).pix.map((pix) => pix.endToEndId)
  )

beforeAll(async () => {
  psp = await PspSimulator.start()
  hook = await receiver()
  bearer = await token(psp)
  await registerWebhook(psp, bearer, hook.url)
})

beforeEach(() => {
  hook.received.length = 0
  psp.setCallbackMode("now")
})

afterAll(async () => {
  await psp?.close()
  await hook?.close()
})

describe("callback delivery modes", () => {
  it("twice delivers the same Pix two times", async () => {
    const pix = await psp.payCob(await newCob(), { callback: "twice" })
    expect(e2eIdsReceived()).toEqual([pix.endToEndId, pix.endToEndId])
  })

  it("never delivers nothing, yet the Pix is in the books", async () => {
    const pix = await psp.payCob(await newCob(), { callback: "never" })
    expect(e2eIdsReceived()).toEqual([])
    expect(psp.state.pix.has(pix.endToEndId)).toBe(true)
  })

  it("hold then release in reverse delivers out of order", async () => {
    psp.setCallbackMode("hold")
    const first = await psp.payCob(await newCob())
    const second = await psp.payCob(await newCob())
    expect(psp.held).toHaveLength(2)
    expect(e2eIdsReceived()).toEqual([])
    await psp.releaseCallbacks("reverse")
    expect(e2eIdsReceived()).toEqual([second.endToEndId, first.endToEndId])
    expect(psp.held).toHaveLength(0)
  })

  it("a delayed callback arrives after the call returned", async () => {
    const pix = await psp.payCob(await newCob(), { callback: { delayMs: 50 } })
    await eventually(() => e2eIdsReceived().includes(pix.endToEndId), "the late callback")
  })

  it("records a failed delivery and retries when asked to", async () => {
    const failing = await receiver(500)
    const retrying = await PspSimulator.start({ pki: psp.tls, callbackRetries: 2, callbackRetryDelayMs: 10 })
    try {
      const retryToken = await token(retrying)
      await call(retrying, {
        method: "PUT",
        path: "/v2/webhook/merchant%40example.com",
        token: retryToken,
        body: { webhookUrl: failing.url }
      })
      const id = txid("retry")
      await call(retrying, { method: "PUT", path: `/v2/cob/${id}`, token: retryToken, body: cobBody() })
      await retrying.payCob(id)
      expect(retrying.deliveries.map((delivery) => [delivery.attempt, delivery.status])).toEqual([
        [1, 500],
        [2, 500],
        [3, 500]
      ])
      expect(failing.received).toHaveLength(3)
    } finally {
      await retrying.close()
      await failing.close()
    }
  })

  it("records a callback for a key without a webhook as undelivered", async () => {
    const lonely = await PspSimulator.start({ pki: psp.tls })
    try {
      const lonelyToken = await token(lonely)
      const id = txid("nohook")
      await call(lonely, { method: "PUT", path: `/v2/cob/${id}`, token: lonelyToken, body: cobBody() })
      await lonely.payCob(id)
      expect(lonely.deliveries).toEqual([
        expect.objectContaining({ error: expect.stringContaining("no webhook") })
      ])
    } finally {
      await lonely.close()
    }
  })
})

describe("callbacks over mTLS", () => {
  it("presents the simulator's client certificate to an HTTPS webhook that requires one", async () => {
    const pki = Certificates.generatePki()
    const seen: Array<{ authorized: boolean; subject: string; path: string }> = []
    const server = https.createServer(
      {
        key: pki.serverKeyPem,
        cert: pki.serverCertPem,
        ca: [pki.caPem],
        requestCert: true,
        rejectUnauthorized: true
      },
      (request, response) => {
        const socket = request.socket as import("node:tls").TLSSocket
        seen.push({
          authorized: socket.authorized,
          subject: String(socket.getPeerCertificate().subject.CN),
          path: request.url ?? ""
        })
        request.resume()
        request.on("end", () => {
          response.writeHead(200)
          response.end()
        })
      }
    )
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const secure = await PspSimulator.start({ pki, callbackCa: pki.caPem })
    try {
      const secureToken = await token(secure)
      const port = (server.address() as AddressInfo).port
      await call(secure, {
        method: "PUT",
        path: "/v2/webhook/merchant%40example.com",
        token: secureToken,
        body: { webhookUrl: `https://127.0.0.1:${port}/callbacks/s3cret?hmac=abc` }
      })
      const id = txid("mtls")
      await call(secure, { method: "PUT", path: `/v2/cob/${id}`, token: secureToken, body: cobBody() })
      await secure.payCob(id)
      expect(seen).toEqual([
        { authorized: true, subject: "psp-simulator-callbacks", path: "/callbacks/s3cret/pix?hmac=abc" }
      ])
      expect(secure.deliveries.map((delivery) => delivery.status)).toEqual([200])
    } finally {
      await secure.close()
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
    }
  })
})
