/**
 * The standalone server in-process on SQLite: public API and admin router side by side, the
 * start-up log line, JSON answers to requests Node's parser rejects, and a graceful close.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { connect } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { MemoryStore } from "@pixgate/core"
import { ApiErrors } from "@pixgate/http"
import { send } from "@pixgate/testkit/harness"
import { must } from "@pixgate/testkit/must"
import { FiberRef, Schema } from "effect"
import { Database, Pixgate, Server } from "../src/index.js"

const dir = mkdtempSync(join(tmpdir(), "pixgate-server-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const raw = (url: string, request: string) =>
  new Promise<string>((resolve) => {
    const { port, hostname } = new URL(url)
    const socket = connect(Number(port), hostname)
    let data = ""
    socket.on("data", (chunk) => {
      data += chunk.toString("latin1")
    })
    socket.on("close", () => resolve(data))
    socket.on("error", () => resolve(data))
    socket.end(request)
  })

describe("Server.start", () => {
  it("serves the public API and, with a token, the admin router under /admin", async () => {
    const logs: Array<string> = []
    const server = await Server.start({
      port: 0,
      database: "sqlite:./standalone.db",
      cwd: dir,
      adminToken: "server-admin-token-123",
      log: { write: (line) => logs.push(line) }
    })
    expect(JSON.parse(logs[0])).toMatchObject({
      msg: "Pixgate listening",
      url: server.url,
      database: `sqlite:${join(dir, "standalone.db")}`,
      admin: true
    })
    const auth = { authorization: "Bearer server-admin-token-123" }
    const created = await send(server.url, "POST", "/admin/merchants", {
      body: { name: "Standalone" },
      headers: auth
    })
    expect(created.status).toBe(201)
    const charge = await send(server.url, "POST", "/api/v1/charges", {
      key: created.body.testKey,
      body: { amount: 5 }
    })
    expect(charge.status).toBe(201)
    expect((await send(server.url, "GET", "/admin/merchants/x/balance?mode=test")).status).toBe(401)
    expect((await send(server.url, "GET", "/adminx")).status).toBe(404)

    const bad = await raw(server.url, "GET /api/health HTTP/1.1\r\nHost: x\r\nContent-Length: x\r\n\r\n")
    expect(bad).toMatch(/^HTTP\/1\.1 400 /)
    expect(bad.slice(bad.indexOf("\r\n\r\n") + 4)).toBe('{"error":"Bad request","code":"bad_request"}')
    const big = await raw(
      server.url,
      `GET /api/health HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`
    )
    expect(big).toMatch(/^HTTP\/1\.1 431 /)
    expect(big).toContain('"code":"headers_too_large"')
    // Both answers are the contract's error body, their codes the ones `ApiErrors` declares.
    for (const answer of [bad, big]) {
      const body = Schema.decodeUnknownSync(ApiErrors.ErrorBody)(
        JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4))
      )
      expect(ApiErrors.serverCodes).toContain(body.code)
    }

    await Promise.all([server.close(), server.close()])
    await expect(fetch(`${server.url}/api/health`)).rejects.toThrow()
    expect(JSON.parse(must(logs.at(-2), "logs.at(-2)"))).toMatchObject({ msg: "Pixgate stopping" })
    expect(JSON.parse(must(logs.at(-1), "logs.at(-1)"))).toMatchObject({
      msg: "Pixgate stopped",
      inFlight: 0,
      cutConnections: 0
    })
  })

  it("keeps /admin unmounted without a token", async () => {
    const server = await Server.start({ port: 0, database: "sqlite::memory:", log: { level: "none" } })
    expect((await send(server.url, "POST", "/admin/merchants", { body: { name: "x" } })).status).toBe(404)
    await server.close()
  })

  it("answers / with where the docs are: JSON, or a page for a browser", async () => {
    const server = await Server.start({ port: 0, database: "sqlite::memory:", log: { level: "none" } })
    const index = await fetch(`${server.url}/`)
    expect(index.status).toBe(200)
    expect(await index.json()).toEqual({
      name: "Pixgate",
      docs: "/api/docs",
      openapi: "/api/openapi.json",
      health: "/api/health",
      api: "/api/v1",
      panel: "/panel"
    })
    const page = await fetch(`${server.url}/?from=browser`, { headers: { accept: "text/html" } })
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8")
    expect(await page.text()).toContain('href="/api/docs"')
    for (const linked of ["/api/docs", "/api/openapi.json", "/api/health", "/panel/signin"])
      expect((await fetch(`${server.url}${linked}`)).status, linked).toBe(200)
    expect((await fetch(`${server.url}/`, { method: "POST" })).status).toBe(404)
    await server.close()
  })
})

describe("Pixgate.make", () => {
  it("takes a database URL instead of a store layer", async () => {
    const pixgate = await Pixgate.make({ database: "sqlite::memory:", log: { level: "none" } })
    const response = await pixgate.webHandler(new Request("http://x/api/health"))
    expect(response.status).toBe(200)
    await pixgate.dispose()
    await pixgate.dispose()
  })

  it("refuses bad options and a store that cannot open, at start-up", async () => {
    await expect(Pixgate.make({})).rejects.toThrow(/give a store/)
    await expect(Pixgate.make({ store: MemoryStore.layer, database: "sqlite::memory:" })).rejects.toThrow(
      /not both/
    )
    await expect(Pixgate.make({ store: MemoryStore.layer, maxBodySize: 0 })).rejects.toThrow(/maxBodySize/)
    await expect(Pixgate.make({ database: "sqlite:/" })).rejects.toThrow(
      /Pixgate could not start: .*Cannot open SQLite/s
    )
  })

  it("creates no spans unless tracing is asked for", async () => {
    for (const tracing of [undefined, false, true]) {
      const pixgate = await Pixgate.make({
        store: MemoryStore.layer,
        log: { level: "none" },
        ...(tracing === undefined ? {} : { tracing })
      })
      const enabled = await pixgate.runtime.runPromise(FiberRef.get(FiberRef.currentTracerEnabled))
      expect(enabled).toBe(tracing === true)
      await pixgate.dispose()
    }
  })
})

describe("Database", () => {
  it("parses PIXGATE_DATABASE", () => {
    expect(Database.parse("sqlite:./data/pixgate.db", "/srv")).toEqual({
      kind: "sqlite",
      filename: "/srv/data/pixgate.db"
    })
    expect(Database.parse("sqlite:/abs/x.db", "/srv")).toEqual({ kind: "sqlite", filename: "/abs/x.db" })
    expect(Database.parse("sqlite:///abs/x.db", "/srv")).toEqual({ kind: "sqlite", filename: "/abs/x.db" })
    expect(Database.parse("sqlite::memory:")).toEqual({ kind: "sqlite", filename: ":memory:" })
    expect(Database.parse("postgres://u:p@h/db")).toEqual({ kind: "postgres", url: "postgres://u:p@h/db" })
    expect(Database.parse("postgresql://h/db")).toEqual({ kind: "postgres", url: "postgresql://h/db" })
    expect(() => Database.parse("mysql://u:secret@h/db")).toThrow(/^PIXGATE_DATABASE must be/)
    expect(() => Database.parse("sqlite:")).toThrow(/needs a file path/)
  })

  it("never shows a password", () => {
    expect(Database.describe(Database.parse("postgres://u:secret@h:5432/db"))).toBe(
      "postgres://u:***@h:5432/db"
    )
    expect(
      Database.describe(
        Database.parse("postgres://u:secret@h1:5432,h2:5433/db?target_session_attrs=read-write")
      )
    ).toBe("postgres://u:***@h1:5432,h2:5433/db?target_session_attrs=read-write")
    expect(Database.describe(Database.parse("postgres://h1,h2/db"))).toBe("postgres://h1,h2/db")
  })
})
