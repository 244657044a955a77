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
import { networkInterfaces, tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { must } from "@pixgate/testkit/must"
import { testWait, testWaitMs, until } from "@pixgate/testkit/wait"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

const root = fileURLToPath(new URL("../../..", import.meta.url))
const readme = readFileSync(join(root, "README.md"), "utf8")

/** The shell script between `<!-- name:start -->` and `<!-- name:end -->`. */
const block = (name: string): string => {
  const text = readme.split(`<!-- ${name}:start -->`)[1].split(`<!-- ${name}:end -->`)[0]
  return text.replace(/^```sh\n/m, "").replace(/```\s*$/m, "")
}
const walkthrough = () => block("walkthrough")

/** The ports block with `ports` in place of the defaults: the variables a reader would change. */
const portsBlock = (ports: typeof defaultPorts): string => {
  let text = block("walkthrough-ports")
  for (const [name, value] of Object.entries(ports)) {
    const line = `${name}=${defaultPorts[name as keyof typeof defaultPorts]}`
    expect(text).toContain(line)
    text = text.replace(line, `${name}=${value}`)
  }
  return text
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as AddressInfo
      s.close(() => resolve(port))
    })
  })

/** Resolves once something accepts connections on the port (a TCP connect, no request). */
const accepts = (port: number, host = "127.0.0.1") =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, host)
      .once("connect", () => {
        socket.destroy()
        resolve(true)
      })
      .once("error", () => resolve(false))
  })

const listening = (port: number) =>
  until(`something to listen on ${port}`, () => accepts(port), testWaitMs, 100)

/**
 * A documented output line as a pattern: `...` stands for anything, `$NAME` for the variable's
 * value in this run; the rest is matched as written.
 */
const documented = (line: string, vars: Readonly<Record<string, string>>): RegExp => {
  let text = line
  for (const [name, value] of Object.entries(vars)) text = text.replaceAll(`$${name}`, value)
  const parts = text.split("...").map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
  return new RegExp(`^${parts.join(".*")}$`)
}

/** What the walk-through says each command prints: its `# -> ` lines, in order. */
const outputLines = (): ReadonlyArray<string> =>
  walkthrough()
    .split("\n")
    .filter((l) => l.startsWith("# -> "))
    .map((l) => l.slice("# -> ".length))

/** What the README says the receiver prints. */
const receiverLines = (): ReadonlyArray<string> =>
  block("receiver-output")
    .replace(/^```text\n/m, "")
    .trim()
    .split("\n")

/** The walk-through's default ports: the test runs it on others, to prove nothing else names them. */
const defaultPorts = { PORT: "3000", RECEIVER_PORT: "4000" }

/** A free port that is not one of the defaults. */
const otherPort = async (): Promise<number> => {
  for (;;) {
    const port = await freePort()
    if (!Object.values(defaultPorts).includes(String(port))) return port
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
  let ports = defaultPorts

  it("names each port once, in the ports block, as variables every other block reads", () => {
    expect(block("walkthrough-ports").trim()).toBe("export PORT=3000 RECEIVER_PORT=4000")
    for (const name of ["receiver", "walkthrough", "receiver-output"])
      expect(block(name)).not.toMatch(/\b(3000|4000)\b/)
    expect(block("receiver")).toContain('listen(Number(process.env.RECEIVER_PORT), "127.0.0.1")')
    expect(walkthrough()).toContain("http://127.0.0.1:$RECEIVER_PORT/webhooks")
    expect(walkthrough()).toContain('API="http://127.0.0.1:$PORT/api/v1"')
  })

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
    ports = { PORT: String(await otherPort()), RECEIVER_PORT: String(await otherPort()) }
    // The README's receiver, as written, after the ports block with other ports in it.
    receiver = spawn("bash", ["-euo", "pipefail", "-c", `${portsBlock(ports)}\n${block("receiver")}`], {
      cwd: work,
      env,
      stdio: ["ignore", "pipe", "inherit"]
    })
    must(receiver.stdout, "receiver.stdout").on("data", (chunk: Buffer) => {
      receiverOut += chunk
    })
    await listening(Number(ports.RECEIVER_PORT))
    // `pnpm start` from the sources, on the ports block's PORT.
    server = spawn(
      process.execPath,
      ["--import", "tsx", "--conditions=@pixgate/source", "packages/server/src/bin.ts", "serve"],
      {
        cwd: root,
        env: { ...env, PORT: ports.PORT, HOST: "127.0.0.1" },
        stdio: ["ignore", "pipe", "inherit"]
      }
    )
    await new Promise<void>((resolve, reject) => {
      must(server.stdout, "server.stdout").on("data", (chunk: Buffer) => {
        if (chunk.toString().includes(`127.0.0.1:${ports.PORT}`)) resolve()
      })
      server.once("exit", (code) => reject(new Error(`server exited with ${code}`)))
    })
  })

  afterAll(() => {
    server?.kill("SIGTERM")
    receiver?.kill("SIGTERM")
    rmSync(dir, { recursive: true, force: true })
  })

  it("the receiver listens on 127.0.0.1 only", async () => {
    const others = Object.values(networkInterfaces())
      .flat()
      .filter((a) => a !== undefined && a.family === "IPv4" && !a.internal)
      .map((a) => must(a, "a").address)
    for (const address of others) expect(await accepts(Number(ports.RECEIVER_PORT), address)).toBe(false)
  })

  it(
    "runs every command of the README on other ports: the merchant is paid, pays out and is notified",
    async () => {
      const script = `${portsBlock(ports)}\n${walkthrough()}`
      const out = await new Promise<string>((resolve, reject) =>
        execFile(
          "bash",
          ["-euo", "pipefail", "-c", script],
          { cwd: work, env, timeout: testWait(2.5) },
          (error, stdout, stderr) =>
            error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout)
        )
      )
      // The script prints, in order: the webhook endpoint, the charge, the completed list, the
      // payout, the list, the balance and the webhook log: seven JSON documents, each ending its
      // own line (no answer runs into the next).
      expect(out).not.toMatch(/[}\]][{[]/)
      const docs = out
        .trim()
        .replace(/}\s*\n(?=[{[])/g, "}\n\u0000")
        .replace(/]\s*\n(?=[{[])/g, "]\n\u0000")
        .split("\u0000")
        .map((d) => JSON.parse(d))
      expect(docs).toHaveLength(7)
      // Each document is what the README's `# -> ` line under its command says.
      const said = outputLines()
      expect(said).toHaveLength(docs.length)
      for (const [i, doc] of docs.entries())
        expect(JSON.stringify(doc), `step output ${i + 1}`).toMatch(documented(said[i], ports))
      const [endpoint, charge, completed, payout, list, balance, log] = docs
      expect(endpoint).toMatchObject({ mode: "test" })
      expect(charge).toMatchObject({ amount: 25.9, fees: { feeAmount: 0.26, netAmount: 25.64 } })
      expect(completed).toMatchObject({ total: 1, data: [{ id: charge.transactionId, status: "completed" }] })
      expect(payout).toMatchObject({ status: "pending", amount: 10, fees: { feeAmount: 0.33 } })
      // Step 6 waited for the sandbox: the payout is listed completed, not pending.
      expect(list).toMatchObject({
        total: 2,
        data: [
          { id: payout.transactionId, status: "completed" },
          { id: charge.transactionId, status: "completed" }
        ]
      })
      expect(balance).toMatchObject({ available: 15.31 })
      expect(Array.isArray(log)).toBe(true)
      // Every delivery the README's receiver got passed its signature check, and the events are
      // the ones the README names.
      await until("the payout's last event at the receiver", () =>
        receiverOut.includes("withdrawal.completed")
      )
      // Every event, as many times as the README says (the payout's transaction.created too).
      await until(
        "the receiver's every line",
        () => receiverOut.trim().split("\n").length >= receiverLines().length
      )
      const lines = receiverOut.trim().split("\n")
      expect(lines.filter((l) => !l.startsWith("verified "))).toEqual([])
      const eventsIn = (line: string) => must(/"event":"([a-z.]+)"/.exec(line), `an event in ${line}`)[1]
      expect(lines.map(eventsIn).sort()).toEqual(receiverLines().map(eventsIn).sort())
      for (const line of lines) {
        const said = must(
          receiverLines().find((l) => eventsIn(l) === eventsIn(line)),
          `the README's line for ${line}`
        )
        expect(line).toMatch(documented(said, ports))
      }
      expect(existsSync(join(work, "merchant.json"))).toBe(true)
      expect(existsSync(userFile) ? statSync(userFile).mtimeMs : undefined).toBe(userFileBefore)
    },
    testWait(4)
  )
})
