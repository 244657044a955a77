/**
 * Runs the README's walk-through, command by command, as a bash script against a real server
 * (the `pnpm start` entry point on SQLite) and a real webhook receiver: the newcomer's path
 * must stay true. The script runs in a temporary directory whose scripts/pixgate.mjs runs the
 * root's, so `node scripts/pixgate.mjs` works as written and its `merchant.json` lands there,
 * never in the user's checkout.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { createServer } from "node:http"
import { type AddressInfo, connect } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

const root = fileURLToPath(new URL("../../..", import.meta.url))
const readme = readFileSync(join(root, "README.md"), "utf8")

/** The shell script between `<!-- name:start -->` and `<!-- name:end -->`. */
const block = (name: string): string => {
  const text = readme.split(`<!-- ${name}:start -->`)[1]!.split(`<!-- ${name}:end -->`)[0]!
  return text.replace(/^```sh\n/m, "").replace(/```\s*$/m, "")
}
const walkthrough = () => block("walkthrough")

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as AddressInfo
      s.close(() => resolve(port))
    })
  })

/** Resolves once something accepts connections on the port (a TCP connect, no request). */
const listening = async (port: number) => {
  for (let i = 0; ; i++) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1")
        .once("connect", () => {
          socket.destroy()
          resolve(true)
        })
        .once("error", () => resolve(false))
    })
    if (ok) return
    if (i > 600) throw new Error(`nothing listens on ${port}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

describe("README walk-through", () => {
  const dir = mkdtempSync(join(tmpdir(), "pixgate-readme-"))
  const env = { ...process.env, PIXGATE_DATABASE: `sqlite:${join(dir, "pixgate.db")}` }
  // The walk-through's directory: a project whose `pixgate` script is the repository's.
  const work = join(dir, "walkthrough")
  // The user's own merchant.json, if any, must be exactly as it was after the run.
  const userFile = join(root, "merchant.json")
  const userFileBefore = existsSync(userFile) ? statSync(userFile).mtimeMs : undefined
  let receiverOut = ""
  let server: ChildProcess
  let receiver: ChildProcess
  let port = 0
  let receiverPort = 0

  beforeAll(async () => {
    mkdirSync(work)
    // `node scripts/pixgate.mjs`, as the README calls it from the repository's root.
    mkdirSync(join(work, "scripts"))
    writeFileSync(
      join(work, "scripts", "pixgate.mjs"),
      'import { pathToFileURL } from "node:url"\n' +
        `const { bundle } = await import(${JSON.stringify(pathToFileURL(join(root, "scripts", "pixgate.mjs")).href)})\n` +
        "await import(pathToFileURL(await bundle()).href)\n"
    )
    writeFileSync(
      join(work, "package.json"),
      JSON.stringify({
        name: "walkthrough",
        private: true,
        scripts: { pixgate: `node ${JSON.stringify(join(root, "scripts", "pixgate.mjs"))}` }
      })
    )
    port = await freePort()
    receiverPort = await freePort()
    // The README's receiver, as written, on a free port.
    receiver = spawn("bash", ["-c", block("receiver").replace("listen(4000)", `listen(${receiverPort})`)], {
      cwd: work,
      env,
      stdio: ["ignore", "pipe", "inherit"]
    })
    receiver.stdout!.on("data", (chunk: Buffer) => {
      receiverOut += chunk
    })
    await listening(receiverPort)
    server = spawn(
      process.execPath,
      ["--import", "tsx", "--conditions=@pixgate/source", "packages/server/src/bin.ts", "serve"],
      {
        cwd: root,
        env: { ...env, PORT: String(port), HOST: "127.0.0.1" },
        stdio: ["ignore", "pipe", "inherit"]
      }
    )
    await new Promise<void>((resolve, reject) => {
      server.stdout!.on("data", (chunk: Buffer) => {
        if (chunk.toString().includes(`127.0.0.1:${port}`)) resolve()
      })
      server.once("exit", (code) => reject(new Error(`server exited with ${code}`)))
    })
  }, 120_000)

  afterAll(() => {
    server?.kill("SIGTERM")
    receiver?.kill("SIGTERM")
    rmSync(dir, { recursive: true, force: true })
  })

  it("runs every command of the README and the merchant is paid, pays out and is notified", async () => {
    const script = walkthrough()
      .replaceAll("127.0.0.1:3000", `127.0.0.1:${port}`)
      .replaceAll("127.0.0.1:4000", `127.0.0.1:${receiverPort}`)
    const out = await new Promise<string>((resolve, reject) =>
      execFile(
        "bash",
        ["-euo", "pipefail", "-c", script],
        { cwd: work, env, timeout: 150_000 },
        (error, stdout, stderr) =>
          error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout)
      )
    )
    // The script prints, in order: the webhook endpoint, the charge, the completed list, the
    // payout, the list, the balance and the webhook log: seven JSON documents.
    const docs = out
      .trim()
      .replace(/}\s*(?=[{[])/g, "}\n\u0000")
      .replace(/]\s*(?=[{[])/g, "]\n\u0000")
      .split("\u0000")
      .map((d) => JSON.parse(d))
    expect(docs).toHaveLength(7)
    const [endpoint, charge, completed, payout, list, balance, log] = docs
    expect(endpoint).toMatchObject({ mode: "test" })
    expect(charge).toMatchObject({ amount: 25.9, fees: { feeAmount: 0.26, netAmount: 25.64 } })
    expect(completed).toMatchObject({ total: 1, data: [{ id: charge.transactionId, status: "completed" }] })
    expect(payout).toMatchObject({ status: "pending", amount: 10, fees: { feeAmount: 0.33 } })
    expect(list.total).toBe(2)
    expect(balance).toMatchObject({ available: 15.31 })
    expect(Array.isArray(log)).toBe(true)
    // Every delivery the README's receiver got passed its signature check.
    const lines = receiverOut.trim().split("\n")
    expect(lines.filter((l) => !l.startsWith("verified "))).toEqual([])
    const events = lines.map((l) => JSON.parse(l.slice("verified ".length)).event)
    expect(events).toContain("transaction.completed")
    expect(existsSync(join(work, "merchant.json"))).toBe(true)
    expect(existsSync(userFile) ? statSync(userFile).mtimeMs : undefined).toBe(userFileBefore)
  }, 240_000)
})
