/**
 * `pixgate listen --server URL` against a real `pixgate serve` (a child process on SQLite), with
 * the merchant's test key in PIXGATE_API_KEY and nothing of the server's database, while another
 * process makes charges through the API. Between listen and the server runs a TCP proxy the test
 * cuts mid-stream: listen reconnects with Last-Event-ID, and every event made before, during and
 * after the cut reaches the receiver exactly once, its signature verifying with the endpoint's
 * signing key.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer as createHttpServer, type Server as HttpServer } from "node:http"
import { createRequire } from "node:module"
import { type AddressInfo, connect, createServer, type Socket } from "node:net"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { afterAll, describe, expect, it, vi } from "@effect/vitest"
import { testDataKey } from "@pixgate/testkit/dataKeys"
import { testWait, testWaitMs, until } from "@pixgate/testkit/wait"
import { Webhook } from "standardwebhooks"
import * as Cli from "../src/Cli.js"
import { cliOn } from "./support/cli.js"
import * as Serve from "./support/serveProcess.js"

vi.setConfig({ testTimeout: testWait(4), hookTimeout: testWait(2) })

const dir = mkdtempSync(join(tmpdir(), "pixgate-listen-server-"))
const database = `sqlite:${join(dir, "server.db")}`
const cli = cliOn(database, dir)
const bin = fileURLToPath(new URL("../src/bin.ts", import.meta.url))
const packageDir = fileURLToPath(new URL("..", import.meta.url))
/** tsx's loader by its path: the children start in temporary directories, where `tsx` does not resolve. */
const tsxLoader = pathToFileURL(
  join(dirname(createRequire(import.meta.url).resolve("tsx/package.json")), "dist/loader.mjs")
).href

interface Received {
  readonly headers: Record<string, string>
  readonly body: string
}

/** A receiver that records every request and answers 200. */
const receiver = async () => {
  const received: Array<Received> = []
  const server: HttpServer = createHttpServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (c: Buffer) => chunks.push(c))
    request.on("end", () => {
      const headers = Object.fromEntries(
        Object.entries(request.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(",") : (v ?? "")])
      )
      received.push({ headers, body: Buffer.concat(chunks).toString("utf8") })
      response.writeHead(200).end("ok")
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return { url: `http://127.0.0.1:${port}/webhooks`, received, server }
}

/** A TCP proxy to `target` whose open connections the test can cut. */
const proxy = async (target: URL) => {
  const sockets = new Set<Socket>()
  let accepted = 0
  const server = createServer((client) => {
    accepted++
    const upstream = createConnectionTo(target)
    for (const s of [client, upstream]) {
      sockets.add(s)
      s.on("close", () => sockets.delete(s))
      s.on("error", () => undefined)
    }
    client.pipe(upstream).pipe(client)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    connections: () => sockets.size,
    /** Connections accepted so far: a reconnection makes one more. */
    accepted: () => accepted,
    cut: () => {
      for (const s of sockets) s.destroy()
    },
    close: () => {
      for (const s of sockets) s.destroy()
      server.close()
    }
  }
}

const createConnectionTo = (target: URL): Socket => connect(Number(target.port), target.hostname)

/** Another process making `count` test charges of 1.00, 1.01, ... through the API; their ids. */
const chargesFrom = (server: string, key: string, count: number, first: number) =>
  new Promise<ReadonlyArray<string>>((resolve, reject) =>
    execFile(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `const ids = []
for (let i = 0; i < ${count}; i++) {
  const r = await fetch(${JSON.stringify(`${server}/api/v1/charges`)}, {
    method: "POST",
    headers: { "x-api-key": process.env.KEY, "content-type": "application/json" },
    body: JSON.stringify({ amount: ${first} + i / 100 })
  })
  if (r.status !== 201) throw new Error("charge answered " + r.status + " " + (await r.text()))
  ids.push((await r.json()).transactionId)
}
process.stdout.write(JSON.stringify(ids))`
      ],
      { env: { ...process.env, KEY: key }, timeout: testWaitMs },
      (error, stdout) => (error === null ? resolve(JSON.parse(stdout)) : reject(error))
    )
  )

let listen: ChildProcess | undefined
afterAll(() => {
  listen?.kill("SIGKILL")
  Serve.killAll()
  rmSync(dir, { recursive: true, force: true })
})

describe("pixgate listen --server", () => {
  it("forwards every event once, signed, across a dropped connection, while another process makes charges", async () => {
    const merchant = (await cli("merchant", "create", "--name", "Loja", "--json")).json
    const set = await cli(
      "webhook",
      "set",
      "--merchant",
      merchant.merchantId,
      "--mode",
      "test",
      "--url",
      "http://127.0.0.1:9/elsewhere",
      "--secret",
      "endpoint-secret-1",
      "--json"
    )
    const signingKey: string = set.json.signingKey
    const server = await Serve.start({
      PIXGATE_DATABASE: database,
      PIXGATE_DATA_KEY: testDataKey,
      PIXGATE_RATE_LIMIT_RPS: "0"
    })
    const link = await proxy(new URL(server.url))
    const target = await receiver()
    let stdout = ""
    let stderr = ""
    // Started in an empty directory with no PIXGATE_DATABASE: nothing local is opened.
    const empty = mkdtempSync(join(dir, "listen-"))
    listen = spawn(
      process.execPath,
      [
        "--import",
        tsxLoader,
        "--conditions=@pixgate/source",
        bin,
        "listen",
        "--forward-to",
        target.url,
        "--server",
        link.url,
        "--json"
      ],
      {
        cwd: empty,
        env: { ...process.env, NODE_OPTIONS: "", PIXGATE_DATABASE: "", PIXGATE_API_KEY: merchant.testKey },
        stdio: ["ignore", "pipe", "pipe"]
      }
    )
    listen.stdout?.on("data", (d: Buffer) => {
      stdout += d.toString()
    })
    listen.stderr?.on("data", (d: Buffer) => {
      stderr += d.toString()
    })
    await until(
      () => `listen to connect (stdout: ${stdout}; stderr: ${stderr})`,
      () => link.connections() > 0
    )
    // The stream is open once the server's ready message came: wait for the first forwarded line instead.
    const first = await chargesFrom(server.url, merchant.testKey, 5, 1)
    await until("the first batch forwarded", () => target.received.length >= 5)
    // The connection drops; charges go on while listen reconnects.
    link.cut()
    const second = await chargesFrom(server.url, merchant.testKey, 5, 2)
    const third = await chargesFrom(server.url, merchant.testKey, 5, 3)
    const all = [...first, ...second, ...third]
    // The sandbox pays each charge 2-3 s later: transaction.completed for each follows.
    const made = async () => {
      const log = await cli("webhook", "log", "--merchant", merchant.merchantId, "--limit", "500", "--json")
      return new Set((log.json as ReadonlyArray<{ eventId: string }>).map((d) => d.eventId))
    }
    const forwardedIds = () => target.received.map(({ headers }) => headers["webhook-id"])
    await until(
      () => `every event forwarded (${target.received.length} forwarded; ${stderr})`,
      async () => {
        const ids = await made()
        return ids.size === 2 * all.length && [...ids].every((id) => forwardedIds().includes(id))
      }
    )
    // listen did reconnect after the cut.
    expect(link.accepted()).toBeGreaterThanOrEqual(2)
    // Nothing more comes: no event twice.
    await new Promise((r) => setTimeout(r, 1500))
    const verifier = new Webhook(signingKey)
    const events = target.received.map(({ headers, body }) => {
      expect(headers["x-pixgate-signature"]).toBeUndefined()
      return verifier.verify(body, headers) as { id: string; event: string; data: { transactionId: string } }
    })
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length)
    expect(new Set(events.map((e) => e.id))).toEqual(await made())
    for (const type of ["transaction.created", "transaction.completed"])
      expect(
        events
          .filter((e) => e.event === type)
          .map((e) => e.data.transactionId)
          .sort(),
        type
      ).toEqual([...all].sort())
    // --json: one line per forwarded event, with the receiver's answer.
    const lines = stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
    expect(lines).toHaveLength(events.length)
    for (const line of lines) expect(line).toMatchObject({ statusCode: 200, error: null })
    listen.kill("SIGTERM")
    link.close()
    target.server.close()
    server.child.kill("SIGTERM")
    await server.exited
  })

  it("refuses a live key, a bad --server, and a missing credential; 401 names the key", async () => {
    const merchant = (await cli("merchant", "create", "--name", "Loja 2", "--json")).json
    // In-process: these end at once (refused before, or by, the server).
    const run = async (args: ReadonlyArray<string>, env: Record<string, string>) => {
      let stderr = ""
      const code = await Cli.run(["listen", "--forward-to", "http://127.0.0.1:1/x", ...args], {
        env: { PIXGATE_DATABASE: "", ...env },
        cwd: packageDir,
        stdout: () => {},
        stderr: (t) => {
          stderr += t
        }
      })
      return { code, stderr }
    }
    const live = await run(["--server", "http://127.0.0.1:1"], { PIXGATE_API_KEY: merchant.liveKey })
    expect(live.code).toBe(2)
    expect(live.stderr).toContain("listen forwards test-mode events only")
    const bad = await run(["--server", "localhost:3000"], { PIXGATE_API_KEY: merchant.testKey })
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain("--server must be an http:// or https:// URL")
    const none = await run(["--server", "http://127.0.0.1:1"], {})
    expect(none.code).toBe(2)
    expect(none.stderr).toContain("needs the merchant's test key")
    const server = await Serve.start({ PIXGATE_DATABASE: database, PIXGATE_DATA_KEY: testDataKey })
    const wrong = await run(["--server", server.url], { PIXGATE_API_KEY: `sk_test_${"x".repeat(40)}` })
    expect(wrong.code).toBe(1)
    expect(wrong.stderr).toContain("HTTP 401 (unauthorized: check the key or token)")
    server.child.kill("SIGTERM")
    await server.exited
  })
})
