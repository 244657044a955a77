/**
 * `pixgate logs tail` as a real child process on a SQLite file: the attempts an engine's worker
 * (in this process, on the same file) makes to a local receiver appear as lines, one per attempt,
 * with the receiver's status.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer, type Server } from "node:http"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { SqliteStore } from "@pixgate/store-sqlite"
import { testDataKey, testKeys } from "@pixgate/testkit/dataKeys"
import { testWaitMs } from "@pixgate/testkit/wait"
import { Pixgate } from "../src/index.js"
import { cliOn } from "./support/cli.js"

const dir = mkdtempSync(join(tmpdir(), "pixgate-cli-logs-"))
const file = join(dir, "logs.db")
const cli = cliOn(`sqlite:${file}`, dir)

const receiver: Server = createServer((_, response) => response.writeHead(200).end("ok"))
let child: ChildProcess | undefined
let dispose: (() => Promise<void>) | undefined
afterAll(async () => {
  child?.kill("SIGKILL")
  await dispose?.()
  await new Promise((resolve) => receiver.close(resolve))
  rmSync(dir, { recursive: true, force: true })
})

const until = async (check: () => boolean, ms: number, what: string) => {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

describe("pixgate logs tail", () => {
  it("prints one line per delivery attempt the worker makes, with the receiver's status", async () => {
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve))
    const address = receiver.address()
    const url = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}/hook`
    const merchant = (await cli("merchant", "create", "--name", "Loja", "--json")).json.merchantId
    expect(
      (
        await cli(
          "webhook",
          "set",
          "--merchant",
          merchant,
          "--mode",
          "test",
          "--url",
          url,
          "--secret",
          "tail-secret-1"
        )
      ).code
    ).toBe(0)

    const bin = fileURLToPath(new URL("../src/bin.ts", import.meta.url))
    const tsx = pathToFileURL(
      join(dirname(createRequire(import.meta.url).resolve("tsx/package.json")), "dist/loader.mjs")
    ).href
    let stdout = ""
    let stderr = ""
    child = spawn(
      process.execPath,
      [
        "--import",
        tsx,
        "--conditions=@pixgate/source",
        bin,
        "logs",
        "tail",
        "--merchant",
        merchant,
        "--mode",
        "test"
      ],
      { cwd: dir, env: { ...process.env, PIXGATE_DATABASE: `sqlite:${file}`, PIXGATE_DATA_KEY: testDataKey } }
    )
    child.stdout?.on("data", (d: Buffer) => {
      stdout += d.toString()
    })
    child.stderr?.on("data", (d: Buffer) => {
      stderr += d.toString()
    })
    await until(() => stdout.includes("Following"), testWaitMs, `logs tail to start (stderr: ${stderr})`)

    const pixgate = await Pixgate.make({
      store: SqliteStore.layer({ filename: file, keys: testKeys }),
      log: { level: "none" }
    })
    dispose = () => pixgate.dispose()
    expect((await cli("trigger", "transaction.completed", "--merchant", merchant)).code).toBe(0)
    await until(
      () => (stdout.match(/ -> 200 /g) ?? []).length >= 2,
      testWaitMs,
      `two attempts (stdout: ${stdout})`
    )
    const lines = stdout.split("\n").filter((l) => l.includes(" -> "))
    expect(lines.map((l) => l.split(/\s+/)[1]).sort()).toEqual([
      "transaction.completed",
      "transaction.created"
    ])
    for (const line of lines)
      expect(line).toMatch(/ dlv_\w+ {2}attempt 1 {2}-> 200 \(\d+ ms\) {2}http:\/\/127\.0\.0\.1:\d+\/hook$/)
  })
})
