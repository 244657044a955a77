/**
 * `pixgate listen --forward-to` as a real child process on a SQLite file: the events of a
 * sandbox charge made by `pixgate trigger` on the same file reach a local node:http receiver,
 * which verifies each with the `standardwebhooks` package and the signing key listen printed,
 * and sees the endpoint's secret in X-Pixgate-Signature.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer, type Server } from "node:http"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { testDataKey } from "@pixgate/testkit/dataKeys"
import { testWaitMs } from "@pixgate/testkit/wait"
import { Webhook } from "standardwebhooks"
import { cliOn } from "./support/cli.js"

const dir = mkdtempSync(join(tmpdir(), "pixgate-cli-listen-"))
/** tsx's loader by its path: the children start in temporary directories, where `tsx` does not resolve. */
const tsxLoader = pathToFileURL(
  join(dirname(createRequire(import.meta.url).resolve("tsx/package.json")), "dist/loader.mjs")
).href
const database = `sqlite:${join(dir, "listen.db")}`
const cli = cliOn(database, dir)

interface Received {
  readonly headers: Record<string, string>
  readonly body: string
}

const received: Array<Received> = []
const receiver: Server = createServer((request, response) => {
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

let child: ChildProcess | undefined
afterAll(async () => {
  child?.kill("SIGKILL")
  await new Promise((resolve) => receiver.close(resolve))
  rmSync(dir, { recursive: true, force: true })
})

/** Resolves when `check` holds, polling; fails after `ms`. */
const until = async (check: () => boolean, ms: number, what: string) => {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

describe("pixgate listen", () => {
  let port: number
  beforeAll(async () => {
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve))
    const address = receiver.address()
    port = typeof address === "object" && address !== null ? address.port : 0
  })

  it("forwards a triggered charge's events, signed like deliveries; one line per event", async () => {
    const merchant = (await cli("merchant", "create", "--name", "Loja", "--json")).json.merchantId
    const set = await cli(
      "webhook",
      "set",
      "--merchant",
      merchant,
      "--mode",
      "test",
      "--url",
      "http://127.0.0.1:9/elsewhere",
      "--secret",
      "endpoint-secret-1",
      "--json"
    )
    expect(set.code).toBe(0)
    const signingKey: string = set.json.signingKey
    // An event from before listen starts is not sent.
    expect((await cli("trigger", "transaction.created", "--merchant", merchant)).code).toBe(0)

    const bin = fileURLToPath(new URL("../src/bin.ts", import.meta.url))
    const tsx = pathToFileURL(
      join(dirname(createRequire(import.meta.url).resolve("tsx/package.json")), "dist/loader.mjs")
    ).href
    let stdout = ""
    let stderr = ""
    const forwardTo = `http://127.0.0.1:${port}/webhooks`
    child = spawn(
      process.execPath,
      [
        "--import",
        tsx,
        "--conditions=@pixgate/source",
        bin,
        "listen",
        "--forward-to",
        forwardTo,
        "--merchant",
        merchant,
        "--print-secret"
      ],
      { cwd: dir, env: { ...process.env, PIXGATE_DATABASE: database, PIXGATE_DATA_KEY: testDataKey } }
    )
    child.stdout?.on("data", (d: Buffer) => {
      stdout += d.toString()
    })
    child.stderr?.on("data", (d: Buffer) => {
      stderr += d.toString()
    })
    await until(() => stdout.includes("Keys: "), testWaitMs, `listen to start (stderr: ${stderr})`)
    expect(stdout).toContain(`Signing key (webhook-signature, Standard Webhooks): ${signingKey}\n`)
    expect(stdout).toContain("Secret (X-Pixgate-Signature): endpoint-secret-1\n")

    const triggered = await cli("trigger", "transaction.completed", "--merchant", merchant, "--json")
    expect(triggered.code).toBe(0)
    await until(() => received.length >= 2, testWaitMs, "two deliveries")
    await until(() => (stdout.match(/ -> 200\n/g) ?? []).length >= 2, testWaitMs, "two lines")

    const verifier = new Webhook(signingKey)
    const events = received.map(({ headers, body }) => {
      expect(headers["x-pixgate-signature"]).toBe("endpoint-secret-1")
      expect(headers["content-type"]).toContain("application/json")
      // Throws unless the signature, id and timestamp are right.
      return verifier.verify(body, headers) as {
        id: string
        event: string
        data: { transactionId?: string }
      }
    })
    expect(events.map((e) => e.event).sort()).toEqual(["transaction.completed", "transaction.created"])
    for (const e of events) expect(e.data).toMatchObject({ transactionId: triggered.json.transactionId })
    const lines = stdout.split("\n").filter((l) => l.includes(" -> "))
    expect(lines).toHaveLength(2)
    for (const [i, e] of events.entries())
      expect(lines[i]).toMatch(new RegExp(`  ${e.event.replace(".", "\\.")} +${e.id}  -> 200$`))
    // A forged signature fails the same check.
    expect(() =>
      new Webhook("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").verify(received[0].body, received[0].headers)
    ).toThrow()
    child.kill("SIGTERM")
  })

  it("shows no signing key and no secret unless --print-secret asks", async () => {
    const merchant = (await cli("merchant", "create", "--name", "Loja Sigilo", "--json")).json.merchantId
    const set = await cli(
      "webhook",
      "set",
      "--merchant",
      merchant,
      "--mode",
      "test",
      "--url",
      "http://127.0.0.1:9/elsewhere",
      "--secret",
      "endpoint-secret-2",
      "--json"
    )
    const bin = fileURLToPath(new URL("../src/bin.ts", import.meta.url))
    let stdout = ""
    const quiet = spawn(
      process.execPath,
      [
        "--import",
        tsxLoader,
        "--conditions=@pixgate/source",
        bin,
        "listen",
        "--forward-to",
        "http://127.0.0.1:1/x",
        "--merchant",
        merchant
      ],
      { cwd: dir, env: { ...process.env, PIXGATE_DATABASE: database, PIXGATE_DATA_KEY: testDataKey } }
    )
    quiet.stdout?.on("data", (d: Buffer) => {
      stdout += d.toString()
    })
    try {
      await until(() => stdout.includes("Keys: "), testWaitMs, "listen to start")
      expect(stdout).toContain("--print-secret shows them")
      expect(stdout).not.toContain(set.json.signingKey)
      expect(stdout).not.toContain("endpoint-secret-2")
      expect(stdout).not.toMatch(/whsec_/)
    } finally {
      quiet.kill("SIGKILL")
    }
  })

  it("refuses a bad --forward-to, --events or a live --mode (exit 2)", async () => {
    for (const [flag, value, message] of [
      ["--forward-to", "localhost:4000", "--forward-to must be an http:// or https:// URL"],
      ["--events", "transaction.paid", "--events must be a comma-separated list of"],
      ["--mode", "live", "--mode: listen forwards test-mode events only"]
    ] as const) {
      const args = { "--forward-to": "http://127.0.0.1:1/x", [flag]: value }
      const run = await cli("listen", "--merchant", "mer_x", ...Object.entries(args).flat())
      expect(run.code, flag).toBe(2)
      expect(run.stderr, flag).toContain(message)
    }
  })
})
