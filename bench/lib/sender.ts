/**
 * The webhook dispatcher's baseline, as a child process: a plain loop that POSTs signed event
 * bodies of Pixgate's shape with node:http and a keep-alive agent (the client Pixgate delivers
 * with, NodeWebhookTransport), at most CONCURRENCY at once (Pixgate's `webhookConcurrency`,
 * 64). Two modes:
 * - `MODE=drain COUNT=n`: n events as fast as possible; prints deliveries per second;
 * - `MODE=rate RATE=r DURATION_MS=d`: r events per second, each stamped when it is created, so
 *   the receiver measures creation-to-arrival as it does for Pixgate's events.
 *
 * Run: `node --import tsx bench/lib/sender.ts` with TARGET (the receiver's /hook URL).
 */
import { createHmac, randomUUID } from "node:crypto"
import { Agent, request as httpRequest } from "node:http"
import { performance } from "node:perf_hooks"
import { setTimeout as sleep } from "node:timers/promises"

const target = process.env.TARGET ?? ""
const concurrency = Number(process.env.CONCURRENCY ?? 64)
const mode = process.env.MODE ?? "drain"
const secret = "whsec_YmVuY2htYXJrLWJhc2VsaW5lLXNlY3JldA=="
const key = Buffer.from(secret.slice("whsec_".length), "base64")

const event = () => {
  const id = `evt_${randomUUID()}`
  const createdAt = Date.now()
  const body = JSON.stringify({
    id,
    event: "transaction.created",
    data: {
      transactionId: `tx_${randomUUID()}`,
      type: "withdrawal",
      status: "pending",
      amount: 0.01,
      pixKey: "cliente@example.com",
      endToEndId: "E99999999202611220000AbCdEfGhIjK"
    },
    timestamp: new Date(createdAt).toISOString()
  })
  return { id, body, seconds: Math.floor(createdAt / 1000) }
}

const agent = new Agent({ keepAlive: true, maxSockets: concurrency })

const send = (body: string, headers: Record<string, string>) =>
  new Promise<number>((resolve, reject) => {
    const request = httpRequest(target, { method: "POST", agent, headers }, (response) => {
      response.resume()
      response.on("end", () => resolve(response.statusCode ?? 0))
    })
    request.on("error", reject)
    request.end(body)
  })

const post = async () => {
  const e = event()
  const signature = createHmac("sha256", key).update(`${e.id}.${e.seconds}.${e.body}`).digest("base64")
  const status = await send(e.body, {
    "content-type": "application/json",
    "content-length": String(Buffer.byteLength(e.body)),
    "user-agent": "Pixgate-Webhooks/1.0",
    "x-pixgate-signature": secret,
    "webhook-id": e.id,
    "webhook-timestamp": String(e.seconds),
    "webhook-signature": `v1,${signature}`
  })
  if (status !== 200) throw new Error(`receiver answered ${status}`)
}

const drain = async (count: number) => {
  let next = 0
  const start = performance.now()
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        next++
        await post()
      }
    })
  )
  const seconds = (performance.now() - start) / 1000
  return { sent: count, seconds, rps: count / seconds }
}

const paced = async (rate: number, durationMs: number) => {
  const start = performance.now()
  const total = Math.floor((rate * durationMs) / 1000)
  let next = 0
  let inFlight = 0
  const running = new Set<Promise<void>>()
  while (next < total) {
    const due = start + (next * 1000) / rate
    const wait = due - performance.now()
    if (wait > 1) await sleep(wait)
    if (inFlight >= concurrency) {
      await Promise.race(running)
      continue
    }
    next++
    inFlight++
    const p: Promise<void> = post().finally(() => {
      inFlight--
      running.delete(p)
    })
    running.add(p)
  }
  await Promise.all(running)
  const seconds = (performance.now() - start) / 1000
  return { sent: total, seconds, rps: total / seconds }
}

const result =
  mode === "rate"
    ? await paced(Number(process.env.RATE ?? 500), Number(process.env.DURATION_MS ?? 5000))
    : await drain(Number(process.env.COUNT ?? 10_000))
process.stdout.write(`${JSON.stringify(result)}\n`)
