/**
 * Graceful shutdown under keep-alive load: several real sockets keep POSTing charges while the
 * standalone server is closed (what `pixgate serve` does on SIGTERM). Every request the server
 * accepted gets its answer: each charge in the database was answered 201 to its client, no
 * client saw a reset on a request that created one, and answers sent while draining say
 * `Connection: close`. Requests the server never accepted fail to connect and left nothing
 * behind. A starved server (its event loop stalled on purpose) still answers a connection the
 * kernel queued before `close()` and requests whose bytes arrived during the stall.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { Agent, request } from "node:http"
import { connect, type Socket } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Engine } from "@pixgate/core"
import { must } from "@pixgate/testkit/must"
import Database from "better-sqlite3"
import { Effect } from "effect"
import { Server } from "../src/index.js"

const dir = mkdtempSync(join(tmpdir(), "pixgate-drain-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** What one request came to: an answer (status, Connection header) or a socket error code. */
type Outcome =
  | { readonly key: string; readonly status: number; readonly connection: string | undefined }
  | { readonly key: string; readonly error: string }

const post = (agent: Agent, url: URL, apiKey: string, key: string) =>
  new Promise<Outcome>((resolve) => {
    const body = JSON.stringify({ amount: 10, description: key })
    const req = request(
      url,
      {
        agent,
        method: "POST",
        headers: {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
          "x-api-key": apiKey,
          "idempotency-key": key
        }
      },
      (res) => {
        res.resume()
        res.on("end", () => resolve({ key, status: res.statusCode ?? 0, connection: res.headers.connection }))
        res.on("error", (error: NodeJS.ErrnoException) =>
          resolve({ key, error: error.code ?? error.message })
        )
      }
    )
    req.on("error", (error: NodeJS.ErrnoException) => resolve({ key, error: error.code ?? error.message }))
    req.end(body)
  })

describe("graceful shutdown", () => {
  it("under keep-alive load from several sockets: no reset on any request the server accepted", async () => {
    const filename = join(dir, "drain.db")
    const server = await Server.start({
      port: 0,
      database: `sqlite:${filename}`,
      log: { level: "none" },
      rateLimit: false,
      shutdownTimeoutMs: 20_000
    })
    const { testKey } = await server.pixgate.runtime.runPromise(
      Effect.flatMap(Engine.Engine, (e) => e.admin.createMerchant({ name: "Drain" }))
    )
    const url = new URL("/api/v1/charges", server.url)
    const sockets = 8
    const agent = new Agent({ keepAlive: true, maxSockets: sockets })
    const outcomes: Array<Outcome> = []
    let answered = 0
    let stopping = false
    // Each client sends one request after another on the agent's keep-alive sockets until the
    // server is gone (a connection error after the close began).
    const client = async (n: number) => {
      for (let i = 0; ; i++) {
        const outcome = await post(agent, url, testKey, `c${n}-${i}`)
        outcomes.push(outcome)
        if ("status" in outcome) answered++
        else if (stopping) return
        if (i > 20_000) throw new Error("the server never stopped")
      }
    }
    const clients = Array.from({ length: sockets * 2 }, (_, n) => client(n))
    // Load first: every socket busy, hundreds of answers.
    while (answered < 300) await new Promise((resolve) => setTimeout(resolve, 10))
    stopping = true
    await server.close()
    await Promise.all(clients)
    agent.destroy()

    const db = new Database(filename, { readonly: true })
    const stored = new Set(
      (db.prepare("SELECT description FROM transactions").all() as Array<{ description: string }>).map(
        (r) => r.description
      )
    )
    db.close()

    const created = outcomes.filter((o) => "status" in o && o.status === 201).map((o) => o.key)
    const failed = outcomes.filter((o): o is Extract<Outcome, { error: string }> => "error" in o)
    const other = outcomes.filter((o) => "status" in o && o.status !== 201)
    // Every answer was a 201: nothing was refused mid-way or answered 5xx by the draining server.
    expect(other).toEqual([])
    // Exactly the charges answered 201 are in the database: none was created for a client that
    // then saw its connection reset.
    expect([...stored].sort()).toEqual([...created].sort())
    expect(failed.filter((o) => stored.has(o.key))).toEqual([])
    // Requests the server did not accept fail only by connecting to the closed port: no client
    // saw a reset (an idle keep-alive connection closed at once would race the client's next
    // request), and each client saw that one failure at the end.
    expect(failed.map((o) => o.error)).toEqual(failed.map(() => "ECONNREFUSED"))
    expect(failed.length).toBe(sockets * 2)
    // Requests in flight when the close began were answered with Connection: close.
    const closing = outcomes.filter((o) => "status" in o && o.connection === "close")
    expect(closing.length).toBeGreaterThan(0)
    expect(created.length).toBeGreaterThanOrEqual(300)
  })
})

describe("graceful shutdown of an idle server", () => {
  it("closes idle keep-alive connections and stops well before a long time-out", async () => {
    const server = await Server.start({
      port: 0,
      database: `sqlite:${join(dir, "idle.db")}`,
      log: { level: "none" },
      shutdownTimeoutMs: 600_000
    })
    const agent = new Agent({ keepAlive: true, maxSockets: 4 })
    const health = () =>
      new Promise<number>((resolve, reject) => {
        request(new URL("/api/health", server.url), { agent }, (res) => {
          res.resume()
          res.on("end", () => resolve(res.statusCode ?? 0))
        })
          .on("error", reject)
          .end()
      })
    expect(await Promise.all([health(), health(), health()])).toEqual([200, 200, 200])
    const sockets = Object.values(agent.freeSockets).flat()
    expect(sockets.length).toBeGreaterThan(0)
    const closed = sockets.map((s) => new Promise((resolve) => must(s, "s").once("close", resolve)))
    // The test's own time-out (far below 600 s) fails it if the drain waited for the cut.
    await server.close()
    await Promise.all(closed)
    agent.destroy()
  })
})

/** Blocks this process's event loop for `ms`, as a starved machine does between two turns. */
const blockFor = (ms: number) => {
  const until = Date.now() + ms
  while (Date.now() < until) {}
}

/** Everything a raw socket receives until it closes, or its error code. */
const answer = (socket: Socket) =>
  new Promise<string>((resolve) => {
    let text = ""
    socket.on("data", (chunk) => {
      text += chunk
    })
    socket.once("error", (error: NodeJS.ErrnoException) => resolve(`error ${error.code}`))
    socket.once("close", () => resolve(text))
  })

const healthRequest = "GET /api/health HTTP/1.1\r\nHost: pixgate\r\n\r\n"

describe("graceful shutdown of a starved server", () => {
  it("serves a connection the kernel completed before close() but the server had not accepted", async () => {
    const server = await Server.start({
      port: 0,
      database: `sqlite:${join(dir, "queued.db")}`,
      log: { level: "none" }
    })
    // The connection completes in the kernel while this event loop is busy: it waits in the
    // listener's queue, its request written as soon as it connects.
    const socket = connect(Number(new URL(server.url).port), "127.0.0.1")
    socket.write(healthRequest)
    const received = answer(socket)
    blockFor(200)
    const closed = server.close()
    // Answered (the server accepts it before it stops listening), then closed by the drain.
    expect(await received).toMatch(/^HTTP\/1\.1 200 OK\r\n/)
    await closed
  })

  it("answers requests whose bytes arrived while the event loop was blocked past the idle grace", async () => {
    const server = await Server.start({
      port: 0,
      database: `sqlite:${join(dir, "blocked.db")}`,
      log: { level: "none" }
    })
    const port = Number(new URL(server.url).port)
    const connected = (s: Socket) => new Promise((resolve) => s.once("connect", resolve))
    // One connection accepted and never used yet, one keep-alive connection after an answer.
    const fresh = connect(port, "127.0.0.1")
    const used = connect(port, "127.0.0.1")
    await Promise.all([connected(fresh), connected(used)])
    used.write(healthRequest)
    await new Promise<void>((resolve) => {
      let text = ""
      const onData = (chunk: Buffer) => {
        text += chunk
        if (!text.endsWith("}")) return
        used.off("data", onData)
        resolve()
      }
      used.on("data", onData)
    })
    await new Promise((resolve) => setTimeout(resolve, 200))
    const closed = server.close()
    await new Promise((resolve) => setTimeout(resolve, 100))
    // Both requests reach the kernel; the server reads them only after a stall longer than
    // the drain's idle grace.
    const answers = [answer(fresh), answer(used)]
    // From a check phase: the next turn's timers run before its poll reads the bytes.
    await new Promise<void>((resolve) =>
      setImmediate(() => {
        fresh.write(healthRequest)
        used.write(healthRequest)
        blockFor(3_000)
        resolve()
      })
    )
    for (const text of await Promise.all(answers))
      expect(text).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*Connection: close\r\n/i)
    await closed
  })
})
