import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, describe, expect, it } from "vitest"

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..")
const out = mkdtempSync(join(tmpdir(), "psp-simulator-bin-"))
let child: ChildProcess | undefined

afterAll(() => {
  child?.kill("SIGKILL")
  rmSync(out, { recursive: true, force: true })
})

describe("pnpm psp-simulator", () => {
  it("starts on free ports, writes the certificates, serves the control API and stops on SIGTERM", async () => {
    child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        "--conditions=@pixgate/source",
        "src/bin.ts",
        "--port",
        "0",
        "--control-port",
        "0",
        "--out",
        out
      ],
      { cwd: packageDir, stdio: ["ignore", "pipe", "pipe"] }
    )
    let output = ""
    child.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8")
    })
    child.stderr?.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8")
    })
    const controlUrl = await new Promise<string>((resolve, reject) => {
      const timer = setInterval(() => {
        const match = /control \(HTTP\)\s+(http:\/\/\S+)/.exec(output)
        if (match) {
          clearInterval(timer)
          resolve(match[1])
        }
      }, 50)
      child?.once("exit", (code) => {
        clearInterval(timer)
        reject(new Error(`exited with ${code}: ${output}`))
      })
    })
    for (const file of [
      "ca.pem",
      "client-cert.pem",
      "client-key.pem",
      "client.p12",
      "client.p12.passphrase"
    ]) {
      expect(existsSync(join(out, file))).toBe(true)
    }
    const state = await (await fetch(`${controlUrl}/state`)).json()
    expect(state).toMatchObject({ cobs: [], sends: [] })
    const exited = new Promise<number | null>((resolve) => child?.once("exit", (code) => resolve(code)))
    child.kill("SIGTERM")
    expect(await exited).toBe(0)
  })
})
