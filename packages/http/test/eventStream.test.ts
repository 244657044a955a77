/**
 * The event stream (`GET /api/v1/events/stream`, the admin API's per-merchant one) over a real
 * socket: authenticated, Server-Sent Events whose messages carry each event's webhook body and
 * its Standard Webhooks headers signed with the endpoint's signing key (never the secret),
 * resuming after `Last-Event-ID`, and the same stream through the web handler.
 */
import { createServer } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { adminSender, type Harness, listen, start } from "@pixgate/testkit/harness"
import { must } from "@pixgate/testkit/must"
import { testWaitMs } from "@pixgate/testkit/wait"
import { Ref } from "effect"
import { Webhook } from "standardwebhooks"
import { expectError } from "./support/spec.js"

const token = "admin-token-0123456789abcdef"
let h: Harness
let adminBase: string
const adminServer = createServer()
const admin = adminSender(() => adminBase, token)

beforeAll(async () => {
  h = await start({ admin: { token, basePath: "/admin" } })
  adminServer.on("request", must(h.pixgate.admin, "h.pixgate.admin").nodeHandler)
  adminBase = await listen(adminServer)
})
afterAll(async () => {
  adminServer.closeAllConnections()
  adminServer.close()
  await h.close()
})

interface Message {
  readonly id?: string
  readonly event?: string
  readonly retry?: string
  readonly data: string
}

/** An open stream: its messages as they arrive, and a way to wait for some. */
const open = async (url: string, headers: Record<string, string>) => {
  const abort = new AbortController()
  const response = await fetch(url, { headers, signal: abort.signal })
  const messages: Array<Message> = []
  let comments = 0
  const reading = (async () => {
    const reader = response.body?.getReader()
    if (reader === undefined) return
    const decoder = new TextDecoder()
    let buffer = ""
    try {
      for (let next = await reader.read(); !next.done; next = await reader.read()) {
        buffer += decoder.decode(next.value, { stream: true })
        for (let end = buffer.indexOf("\n\n"); end !== -1; end = buffer.indexOf("\n\n")) {
          const block = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          const fields: Record<string, string> = {}
          for (const line of block.split("\n")) {
            if (line.startsWith(":")) comments++
            else fields[line.slice(0, line.indexOf(":"))] = line.slice(line.indexOf(":") + 2)
          }
          if ("data" in fields) messages.push({ ...fields, data: fields.data })
        }
      }
    } catch {
      // Aborted by the test.
    }
  })()
  const until = async (n: number) => {
    const end = Date.now() + testWaitMs
    while (messages.length < n) {
      if (Date.now() > end) throw new Error(`waited for ${n} messages, got ${JSON.stringify(messages)}`)
      await new Promise((r) => setTimeout(r, 20))
    }
    return messages
  }
  const close = async () => {
    abort.abort()
    await reading
  }
  const ended = () =>
    Promise.race([
      reading,
      new Promise((_, reject) => setTimeout(() => reject(new Error("the stream did not end")), testWaitMs))
    ])
  return { response, messages, until, close, ended, comments: () => comments }
}

const charge = (key: string, amount: number) =>
  h.request("POST", "/api/v1/charges", { key, body: { amount } }).then((a) => a.body.transactionId as string)

describe("GET /api/v1/events/stream", () => {
  it("401 without a key; 404 when Last-Event-ID names no event of the key's merchant and mode", async () => {
    expectError(await h.request("GET", "/api/v1/events/stream"), 401, "Unauthorized", "unauthorized")
    const m = await h.merchant()
    const other = await h.merchant()
    await charge(other.testKey, 1)
    const [event] = await h.engine((e) => e.admin.webhookLog({ merchantId: other.merchantId }))
    for (const id of ["evt_nope", event?.eventId ?? "evt_missing"]) {
      const answer = await h.request("GET", "/api/v1/events/stream", {
        key: m.testKey,
        headers: { "last-event-id": id }
      })
      expectError(answer, 404, "Event not found", "not_found")
    }
  })

  it("streams each new event of the key's mode, signed with the endpoint's signing key, never its secret", async () => {
    const m = await h.merchant()
    const set = await admin("PUT", `/merchants/${m.merchantId}/webhooks/test`, {
      body: { url: "http://127.0.0.1:9/hooks", secret: "endpoint-secret-1" }
    })
    const signingKey: string = set.body.signingKey
    // Made before the stream opens: not sent.
    await charge(m.testKey, 1)
    const stream = await open(`${h.base}/api/v1/events/stream`, { "x-api-key": m.testKey })
    expect(stream.response.status).toBe(200)
    expect(stream.response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8")
    const [ready] = await stream.until(1)
    expect(ready).toMatchObject({ event: "ready", retry: "1000" })
    expect(JSON.parse(ready.data)).toEqual({ merchantId: m.merchantId, mode: "test", serviceName: "Pixgate" })
    const id = await charge(m.testKey, 2.5)
    await charge(m.liveKey, 3).catch(() => undefined)
    const [, created] = await stream.until(2)
    const item = JSON.parse(created.data)
    expect(created.id).toBe(item.id)
    expect(item).toMatchObject({ type: "transaction.created", headers: { "webhook-id": item.id } })
    expect(JSON.stringify(item.headers)).not.toContain("endpoint-secret-1")
    const verified = new Webhook(signingKey).verify(item.body, item.headers) as {
      event: string
      data: unknown
    }
    expect(verified).toMatchObject({ event: "transaction.created", data: { transactionId: id, amount: 2.5 } })
    await stream.close()

    // Resumed after the first event: the next ones, and the earlier one of the window again.
    await charge(m.testKey, 4)
    const resumed = await open(`${h.base}/api/v1/events/stream`, {
      "x-api-key": m.testKey,
      "last-event-id": item.id
    })
    const messages = await resumed.until(3)
    const types = messages.slice(1).map((msg) => JSON.parse(msg.data))
    expect(types.map((t) => t.id)).not.toContain(item.id)
    expect(types.map((t) => JSON.parse(t.body).data.amount).sort()).toEqual([1, 4])
    await resumed.close()
  })

  it("without an endpoint in the mode, events carry no signature", async () => {
    const m = await h.merchant()
    const stream = await open(`${h.base}/api/v1/events/stream`, { "x-api-key": m.testKey })
    await stream.until(1)
    await charge(m.testKey, 5)
    const [, message] = await stream.until(2)
    expect(JSON.parse(message.data)).toMatchObject({ type: "transaction.created", headers: null })
    await stream.close()
  })

  it("the admin API's stream takes any merchant and a mode; a bad mode is 422", async () => {
    const m = await h.merchant()
    const bad = await admin("GET", `/merchants/${m.merchantId}/events/stream?mode=sandbox`)
    expect(bad.status).toBe(422)
    expect((await admin("GET", "/merchants/mer_nope/events/stream?mode=test")).status).toBe(404)
    const stream = await open(`${adminBase}/admin/merchants/${m.merchantId}/events/stream?mode=test`, {
      authorization: `Bearer ${token}`
    })
    await stream.until(1)
    await charge(m.testKey, 6)
    const [, message] = await stream.until(2)
    expect(JSON.parse(message.data)).toMatchObject({ type: "transaction.created" })
    await stream.close()
  })

  it("ends when the instance starts draining, so the client resumes on another", async () => {
    const other = await start({})
    const m = await other.merchant()
    const stream = await open(`${other.base}/api/v1/events/stream`, { "x-api-key": m.testKey })
    await stream.until(1)
    await other.pixgate.runtime.runPromise(Ref.set(other.pixgate.draining, true))
    await stream.ended()
    await other.close()
  })

  it("streams through the web handler too", async () => {
    const m = await h.merchant()
    const response = await h.pixgate.webHandler(
      new Request("http://pixgate.test/api/v1/events/stream", { headers: { "x-api-key": m.testKey } })
    )
    expect(response.status).toBe(200)
    const reader = response.body?.getReader()
    const first = await reader?.read()
    expect(new TextDecoder().decode(first?.value)).toContain("event: ready")
    await reader?.cancel()
  })
})
