/**
 * Runs docs/going-live.md's "Try it locally against the PSP simulator", block by block as bash,
 * as written: the simulator, the server in live mode (merchant, live webhook at the local
 * receiver, the PSP's callback registered, `pnpm start`), the receiver, and the live charge paid
 * through the simulator's control API. The trial must end with the receiver printing a verified
 * `transaction.completed`. The blocks run in a temporary directory whose package.json has the
 * root's `pixgate`, `start` and `psp-simulator` scripts, on ports the test picks (the ports
 * block itself is checked, not run), on SQLite and on PostgreSQL when it is up.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:http"
import { type AddressInfo, connect } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { testDataKey } from "@pixgate/testkit/dataKeys"
import { liveStores } from "@pixgate/testkit/live"
import { must } from "@pixgate/testkit/must"
import { testWait, testWaitMs } from "@pixgate/testkit/wait"
import { describe, expect, it } from "vitest"

const root = fileURLToPath(new URL("../../..", import.meta.url))
const guide = readFileSync(join(root, "docs", "going-live.md"), "utf8")

/** The shell script between `<!-- going-live-name:start -->` and `<!-- going-live-name:end -->`. */
const block = (name: string): string => {
  const text = guide.split(`<!-- going-live-${name}:start -->`)[1].split(`<!-- going-live-${name}:end -->`)[0]
  return text.replace(/^\s*```sh\n/, "").replace(/```\s*$/, "")
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as AddressInfo
      s.close(() => resolve(port))
    })
  })

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Resolves once something accepts connections on the port. */
const listening = async (port: number, what: string, exited: () => string | undefined) => {
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
    const gone = exited()
    if (gone !== undefined) throw new Error(`${what} exited before listening on ${port}: ${gone}`)
    if (i * 100 > testWait(2)) throw new Error(`${what}: nothing listens on ${port}`)
    await sleep(100)
  }
}

/** A long-running block in its own process group (pnpm and node below it), with its output. */
const run = (script: string, cwd: string, env: NodeJS.ProcessEnv) => {
  const child: ChildProcess = spawn("bash", ["-euo", "pipefail", "-c", script], {
    cwd,
    env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"]
  })
  let out = ""
  let exit: string | undefined
  must(child.stdout, "child.stdout").on("data", (c: Buffer) => {
    out += c
  })
  must(child.stderr, "child.stderr").on("data", (c: Buffer) => {
    out += c
  })
  const closed = new Promise<void>((resolve) =>
    child.once("exit", (code, signal) => {
      exit = `code ${code} signal ${signal}\n${out}`
      resolve()
    })
  )
  const stop = async () => {
    if (exit !== undefined || child.pid === undefined) return
    try {
      process.kill(-child.pid, "SIGTERM")
    } catch {
      return
    }
    await Promise.race([closed, sleep(testWait(0.25))])
    if (exit === undefined) process.kill(-child.pid, "SIGKILL")
  }
  return { output: () => out, exited: () => exit, stop }
}

/** Runs a block to its end; its stdout. */
const runToEnd = (script: string, cwd: string, env: NodeJS.ProcessEnv) =>
  new Promise<string>((resolve, reject) =>
    execFile(
      "bash",
      ["-euo", "pipefail", "-c", script],
      { cwd, env, timeout: testWait(2) },
      (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout))
    )
  )

describe("docs/going-live.md: the local trial against the PSP simulator", () => {
  it("the ports block names the four ports the other blocks use", () => {
    expect(block("ports").trim()).toBe(
      "export PSP_PORT=8443 PSP_CONTROL_PORT=8444 PORT=3000 RECEIVER_PORT=4000"
    )
    for (const name of ["simulator", "server", "receiver", "charge"]) {
      expect(block(name)).not.toMatch(/\b(8443|8444|3000|4000)\b/)
    }
    expect(block("server")).toContain("PIXGATE_PROFILE=development PIXGATE_ALLOW_PRIVATE_WEBHOOKS=1")
  })

  it.each(liveStores("pixgate-going-live"))(
    "ends with the live webhook verified at the local receiver ($name)",
    async (store) => {
      const work = mkdtempSync(join(tmpdir(), "pixgate-going-live-"))
      const db = await store.open()
      const started: Array<ReturnType<typeof run>> = []
      try {
        // `node scripts/pixgate.mjs`, as the guide calls it from the repository's root.
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
            name: "going-live-trial",
            private: true,
            scripts: {
              pixgate: `node ${JSON.stringify(join(root, "scripts", "pixgate.mjs"))}`,
              start: `node ${JSON.stringify(join(root, "scripts", "pixgate.mjs"))} serve`,
              "psp-simulator": [
                "node --import",
                JSON.stringify(join(root, "node_modules", "tsx", "dist", "loader.mjs")),
                "--conditions=@pixgate/source",
                JSON.stringify(join(root, "packages", "psp-simulator", "src", "bin.ts"))
              ].join(" ")
            }
          })
        )
        const ports = {
          PSP_PORT: String(await freePort()),
          PSP_CONTROL_PORT: String(await freePort()),
          PORT: String(await freePort()),
          RECEIVER_PORT: String(await freePort())
        }
        // The trial's shell: no PIXGATE_* setting of the test run's own environment leaks in.
        const inherited = Object.fromEntries(
          Object.entries(process.env).filter(([k]) => !k.startsWith("PIXGATE_"))
        )
        const env = {
          ...inherited,
          ...ports,
          HOST: "127.0.0.1",
          ...(store.name === "SQLite" ? {} : { PIXGATE_DATABASE: db.url, PIXGATE_DATA_KEY: testDataKey })
        }

        const simulator = run(block("simulator"), work, env)
        started.push(simulator)
        await listening(Number(ports.PSP_CONTROL_PORT), "the simulator", simulator.exited)
        for (let i = 0; !existsSync(join(work, "data", "psp", "client.p12")) && i * 100 < testWaitMs; i++)
          await sleep(100)

        const server = run(block("server"), work, env)
        started.push(server)
        await listening(Number(ports.PORT), "the server", () => server.exited())
        // Log lines are written a moment after the port opens (buffered): wait for the warning.
        await expect
          .poll(() => server.output())
          .toMatch(/Live-mode webhooks may go to loopback and private addresses/)

        const receiver = run(block("receiver"), work, env)
        started.push(receiver)
        await listening(Number(ports.RECEIVER_PORT), "the receiver", receiver.exited)

        const out = await runToEnd(block("charge"), work, env)
        const charge = JSON.parse(readFileSync(join(work, "live-charge.json"), "utf8"))
        expect(charge).toMatchObject({ amount: 25.9, txid: expect.any(String) })
        expect(out).toContain(charge.txid)

        // The receiver prints the verified transaction.completed of that charge.
        const completed = async () => {
          for (let i = 0; i * 100 < testWaitMs; i++) {
            const line = receiver
              .output()
              .split("\n")
              .find((l) => l.includes('"transaction.completed"'))
            if (line !== undefined) return line
            await sleep(100)
          }
          throw new Error(
            `no transaction.completed at the receiver:\n${receiver.output()}\n${server.output()}`
          )
        }
        const line = await completed()
        expect(line.startsWith("verified ")).toBe(true)
        const event = JSON.parse(line.slice("verified ".length))
        expect(event).toMatchObject({
          event: "transaction.completed",
          data: { transactionId: charge.transactionId, txid: charge.txid, amount: 25.9 }
        })
        expect(receiver.output()).not.toContain("REJECTED")
      } finally {
        for (const child of started.reverse()) await child.stop()
        await db.drop()
        rmSync(work, { recursive: true, force: true })
      }
    },
    testWait(5)
  )
})
