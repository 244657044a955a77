/**
 * The standalone server's connection limits, with real sockets: the cap on open connections
 * (`PIXGATE_MAX_CONNECTIONS`, in a child process whose open files are counted), keep-alive
 * above the old 5 s (and a short configured one that does close), and the header and request
 * time-outs against clients that trickle their bytes (slowloris) or send nothing.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { Agent, type ClientRequest, request } from "node:http"
import { connect, type Socket } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Engine } from "@pixgate/core"
import { ApiErrors } from "@pixgate/http"
import { must } from "@pixgate/testkit/must"
import { testWait, testWaitMs } from "@pixgate/testkit/wait"
import { Effect, Schema } from "effect"
import { afterAll, afterEach, describe, expect, it, vi } from "vitest"
import { Server } from "../src/index.js"
import * as ServeProcess from "./support/serveProcess.js"

// Hundreds of sockets against one server: three base waits a test.
vi.setConfig({ testTimeout: testWait(3), hookTimeout: testWait(3) })

const dir = mkdtempSync(join(tmpdir(), "pixgate-connections-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
afterEach(ServeProcess.killAll)

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A TCP connection to `url`'s port, once connected. */
const open = (url: string) =>
  new Promise<Socket>((resolve, reject) => {
    const socket = connect(Number(new URL(url).port), "127.0.0.1")
    socket.once("connect", () => resolve(socket)).once("error", reject)
  })

/** What a raw socket receives until it closes (or `limitMs` passes), and whether it closed. */
const received = (socket: Socket, limitMs: number) =>
  new Promise<{ text: string; closed: boolean }>((resolve) => {
    let text = ""
    socket.on("data", (chunk) => {
      text += chunk
    })
    socket.on("error", () => {})
    const timer = setTimeout(() => resolve({ text, closed: false }), limitMs)
    socket.once("close", () => {
      clearTimeout(timer)
      resolve({ text, closed: true })
    })
  })

/** GET /api/health on an open raw socket: the status of the complete answer. */
const health = (socket: Socket) =>
  new Promise<number>((resolve, reject) => {
    let text = ""
    const onData = (chunk: Buffer) => {
      text += chunk
      const end = text.indexOf("\r\n\r\n")
      if (end < 0) return
      const length = Number(/content-length: (\d+)/i.exec(text.slice(0, end))?.[1] ?? 0)
      if (Buffer.byteLength(text.slice(end + 4)) < length) return
      socket.off("data", onData)
      resolve(Number(text.slice(9, 12)))
    }
    socket.on("data", onData)
    socket.once("close", () => reject(new Error(`closed after ${JSON.stringify(text)}`)))
    socket.write("GET /api/health HTTP/1.1\r\nHost: pixgate\r\n\r\n")
  })

describe("the connection cap", () => {
  it("closes connections beyond PIXGATE_MAX_CONNECTIONS unread; the open ones go on", async () => {
    const cap = 30
    const server = await ServeProcess.start({
      PIXGATE_DATABASE: `sqlite:${join(dir, "cap.db")}`,
      PIXGATE_MAX_CONNECTIONS: String(cap),
      // No reserve for probes here: the next test has one.
      PIXGATE_PROBE_CONNECTIONS: "0",
      // Idle connections held for the whole test (the header time-out would close them).
      PIXGATE_HEADERS_TIMEOUT_MS: "300000",
      PIXGATE_REQUEST_TIMEOUT_MS: "300000"
    })
    const established = await Promise.all(Array.from({ length: cap }, () => open(server.url)))
    expect(await Promise.all(established.map(health))).toEqual(established.map(() => 200))
    const before = ServeProcess.openFiles(server.pid)
    // Ten times the cap again: every one is closed without an answer, promptly.
    const extra = await Promise.all(
      Array.from({ length: cap * 10 }, () => open(server.url).catch(() => undefined))
    )
    const outcomes = await Promise.all(
      extra.map((socket) =>
        socket === undefined ? { text: "", closed: true } : received(socket, testWaitMs)
      )
    )
    expect(outcomes.filter((o) => !o.closed || o.text !== "")).toEqual([])
    // The refused connections hold no file: the count stays near what the cap allows.
    expect(ServeProcess.openFiles(server.pid)).toBeLessThanOrEqual(before + 5)
    // The established connections still work (keep-alive, same sockets).
    expect(await Promise.all(established.map(health))).toEqual(established.map(() => 200))
    // A closed one frees its place for a new connection.
    must(established.pop(), "established.pop()").destroy()
    await sleep(500)
    const later = await open(server.url)
    expect(await health(later)).toBe(200)
    for (const socket of [...established, later]) socket.destroy()
    server.child.kill("SIGTERM")
    expect(await server.exited).toBe(0)
    expect(server.output()).toMatch(/Connections refused: maxConnections reached/)
  })
})

/** One request on an open raw socket: its status, its body and whether the server closed after it. */
const ask = (socket: Socket, line: string) =>
  new Promise<{ status: number; body: string; close: boolean }>((resolve, reject) => {
    let text = ""
    const onData = (chunk: Buffer) => {
      text += chunk
      const end = text.indexOf("\r\n\r\n")
      if (end < 0) return
      const head = text.slice(0, end)
      const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0)
      const body = text.slice(end + 4)
      if (Buffer.byteLength(body) < length) return
      socket.off("data", onData)
      resolve({
        status: Number(text.slice(9, 12)),
        body,
        close: /\r\nconnection: close(\r\n|$)/im.test(head)
      })
    }
    socket.on("data", onData)
    socket.once("close", () => reject(new Error(`closed after ${JSON.stringify(text)}`)))
    socket.write(`${line} HTTP/1.1\r\nHost: pixgate\r\n\r\n`)
  })

describe("the probes' reserve at the connection cap", () => {
  it("answers health probes above PIXGATE_MAX_CONNECTIONS, 503 to anything else there, and closes beyond the reserve", async () => {
    const cap = 10
    const reserve = 4
    const server = await ServeProcess.start({
      PIXGATE_DATABASE: `sqlite:${join(dir, "reserve.db")}`,
      PIXGATE_MAX_CONNECTIONS: String(cap),
      PIXGATE_PROBE_CONNECTIONS: String(reserve),
      PIXGATE_HEADERS_TIMEOUT_MS: "300000",
      PIXGATE_REQUEST_TIMEOUT_MS: "300000"
    })
    const established = await Promise.all(Array.from({ length: cap }, () => open(server.url)))
    expect(await Promise.all(established.map(health))).toEqual(established.map(() => 200))
    // At the cap, one by one: each lands in the reserve.
    const probes: Array<Socket> = []
    for (let i = 0; i < reserve; i++) probes.push(await open(server.url))
    // Beyond the reserve: closed unread, as without one.
    const beyond = await open(server.url).catch(() => undefined)
    const outcome = beyond === undefined ? { text: "", closed: true } : await received(beyond, testWaitMs)
    expect(outcome).toEqual({ text: "", closed: true })
    for (const path of ["/api/health", "/api/health/live", "/api/health/ready"])
      expect((await ask(must(probes[0], "probes[0]"), `GET ${path}`)).status).toBe(200)
    const other = await ask(must(probes[1], "probes[1]"), "GET /api/v1/transactions")
    expect(other).toMatchObject({ status: 503, close: true })
    expect(JSON.parse(other.body)).toEqual({
      error: "Service temporarily unavailable",
      code: "service_unavailable"
    })
    // The connections under the cap serve everything as before.
    expect((await ask(must(established[0], "established[0]"), "GET /api/v1/transactions")).status).toBe(401)
    for (const socket of [...established, ...probes]) socket.destroy()
    server.child.kill("SIGTERM")
    expect(await server.exited).toBe(0)
    expect(server.output()).toMatch(/Connections refused: maxConnections reached/)
    // The stop's last line, with its figures.
    const lines = server.output().trim().split("\n")
    expect(JSON.parse(must(lines.at(-1), "the last line"))).toMatchObject({
      msg: "Pixgate stopped",
      inFlight: expect.any(Number),
      drainedMs: expect.any(Number),
      cutConnections: 0,
      stopMs: expect.any(Number)
    })
  })
})

/** GET /api/health through `agent`: the status and whether it went out on a reused socket. */
const viaAgent = (agent: Agent, url: string) =>
  new Promise<{ status: number; reused: boolean; req: ClientRequest }>((resolve, reject) => {
    const req = request(new URL("/api/health", url), { agent }, (res) => {
      res.resume()
      res.on("end", () => resolve({ status: res.statusCode ?? 0, reused: req.reusedSocket, req }))
    })
    req.on("error", reject).end()
  })

describe("keep-alive", () => {
  it("an idle connection stays open past 5 s (and past the header time-out) and is reused", async () => {
    const server = await Server.start({
      port: 0,
      database: `sqlite:${join(dir, "keep.db")}`,
      log: { level: "none" },
      headersTimeoutMs: 2_000,
      requestTimeoutMs: 3_000
    })
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    try {
      const first = await viaAgent(agent, server.url)
      expect(first).toMatchObject({ status: 200, reused: false })
      const socket = must(first.req.socket, "first.req.socket")
      let closed = false
      socket.once("close", () => {
        closed = true
      })
      await sleep(6_500)
      expect(closed).toBe(false)
      const second = await viaAgent(agent, server.url)
      expect(second).toMatchObject({ status: 200, reused: true })
      expect(second.req.socket).toBe(socket)
    } finally {
      agent.destroy()
      await server.close()
    }
  })

  it("a configured short keep-alive closes the idle connection after it", async () => {
    const server = await Server.start({
      port: 0,
      database: `sqlite:${join(dir, "short.db")}`,
      log: { level: "none" },
      keepAliveTimeoutMs: 1_000
    })
    const socket = await open(server.url)
    try {
      expect(await health(socket)).toBe(200)
      const outcome = await received(socket, testWaitMs)
      expect(outcome).toEqual({ text: "", closed: true })
    } finally {
      socket.destroy()
      await server.close()
    }
  })
})

describe("header and request time-outs", () => {
  const slow = () =>
    Server.start({
      port: 0,
      database: `sqlite:${join(dir, "slow.db")}`,
      log: { level: "none" },
      headersTimeoutMs: 1_000,
      requestTimeoutMs: 2_000
    })

  /** Writes `parts` one every `everyMs` while the socket is open; what came back, once closed. */
  const trickle = async (url: string, parts: ReadonlyArray<string>, everyMs: number) => {
    const socket = await open(url)
    const outcome = received(socket, testWaitMs)
    for (const part of parts) {
      if (socket.destroyed || socket.writableEnded) break
      socket.write(part)
      await sleep(everyMs)
    }
    const result = await outcome
    socket.destroy()
    return result
  }

  it("headers trickled slower than the header time-out get 408 and the connection closes", async () => {
    const server = await slow()
    try {
      const headers = ["GET /api/health HTTP/1.1\r\n", ..."Host: pixgate\r\nX-Slow: yes\r\n".split("")]
      const outcome = await trickle(server.url, headers, 250)
      expect(outcome.closed).toBe(true)
      expect(outcome.text).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/)
      expect(outcome.text).toContain('"code":"request_timeout"')
      expect(ApiErrors.serverCodes).toContain(
        Schema.decodeUnknownSync(ApiErrors.ErrorBody)(
          JSON.parse(outcome.text.slice(outcome.text.indexOf("\r\n\r\n") + 4))
        ).code
      )
      // Meanwhile the server answers everyone else.
      const socket = await open(server.url)
      expect(await health(socket)).toBe(200)
      socket.destroy()
    } finally {
      await server.close()
    }
  })

  it("a body trickled slower than the request time-out gets 408", async () => {
    const server = await slow()
    try {
      const { testKey } = await server.pixgate.runtime.runPromise(
        Effect.flatMap(Engine.Engine, (e) => e.admin.createMerchant({ name: "Slow" }))
      )
      const body = JSON.stringify({ amount: 10 })
      const head =
        "POST /api/v1/charges HTTP/1.1\r\nHost: pixgate\r\nContent-Type: application/json\r\n" +
        `x-api-key: ${testKey}\r\nContent-Length: ${body.length}\r\n\r\n`
      const outcome = await trickle(server.url, [head, ...body.split("")], 400)
      expect(outcome.closed).toBe(true)
      expect(outcome.text).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/)
    } finally {
      await server.close()
    }
  })

  it("a connection that sends nothing is closed after the header time-out", async () => {
    const server = await slow()
    try {
      const socket = await open(server.url)
      const outcome = await received(socket, testWaitMs)
      expect(outcome.closed).toBe(true)
      expect(outcome.text).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/)
    } finally {
      await server.close()
    }
  })
})
