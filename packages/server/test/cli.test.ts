/**
 * The `pixgate` command on SQLite in a temporary directory: every panel command in-process, and
 * as a real child process `merchant create`, then `serve` answering /api/health and shutting
 * down cleanly on SIGTERM.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { promisify } from "node:util"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { SqliteStore } from "@pixgate/store-sqlite"
import { testDataKey, testKeys } from "@pixgate/testkit/dataKeys"
import { listen, send } from "@pixgate/testkit/harness"
import { must } from "@pixgate/testkit/must"
import { testWait } from "@pixgate/testkit/wait"
import * as Cli from "../src/Cli.js"
import { commandNames } from "../src/Commands.js"
import { Pixgate } from "../src/index.js"

const dir = mkdtempSync(join(tmpdir(), "pixgate-cli-"))
const database = `sqlite:${join(dir, "panel.db")}`
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const cli = (...argv: Array<string>) => cliWith({}, ...argv)

/**
 * `argv` asking for JSON (`--json`), as these tests read the output, when it names a command and
 * does not already ask for JSON or help (a usage error stays exactly as it was written).
 */
const asJson = (argv: ReadonlyArray<string>): ReadonlyArray<string> => {
  const named = commandNames()
    .filter((name) => name !== "serve")
    .find((name) => argv.slice(0, name.split(" ").length).join(" ") === name)
  if (named === undefined || argv.some((a) => a === "--json" || a === "--help" || a === "-h")) return argv
  // A flag left without its value at the end stays so: `--json` goes right after the words then.
  if (argv.at(-1)?.startsWith("-") !== true) return [...argv, "--json"]
  const at = named.split(" ").length
  return [...argv.slice(0, at), "--json", ...argv.slice(at)]
}

/**
 * A run with more environment variables and, optionally, a piped stdin holding `stdin`; JSON
 * output unless `text` asks for the readable form.
 */
const cliWith = async (
  extra: {
    readonly env?: Record<string, string>
    readonly stdin?: string
    readonly tty?: boolean
    readonly text?: boolean
  },
  ...argv: Array<string>
) => {
  let stdout = ""
  let stderr = ""
  const piped = extra.stdin
  const code = await Cli.run(extra.text === true ? argv : asJson(argv), {
    env: { PIXGATE_DATABASE: database, PIXGATE_DATA_KEY: testDataKey, ...extra.env },
    cwd: dir,
    ...(piped === undefined && extra.tty === undefined
      ? {}
      : { stdin: { isTTY: extra.tty === true, read: async () => piped ?? "" } }),
    stdout: (t) => {
      stdout += t
    },
    stderr: (t) => {
      stderr += t
    }
  })
  let json: unknown
  try {
    json = JSON.parse(stdout)
  } catch {
    json = undefined
  }
  // biome-ignore lint/suspicious/noExplicitAny: CLI output is read dynamically
  return { code, stdout, stderr, json: json as any }
}

describe("panel commands (in-process)", () => {
  let merchantId: string
  let testKey: string

  beforeAll(async () => {
    const created = await cli("merchant", "create", "--name", "Loja CLI")
    expect(created.code).toBe(0)
    expect(Object.keys(created.json).sort()).toEqual(["liveKey", "merchantId", "testKey"])
    merchantId = created.json.merchantId
    testKey = created.json.testKey
  })

  it("merchant create prints short text for a person, --json compact JSON", async () => {
    const pretty = await cliWith({ text: true }, "merchant", "create", "--name=Pretty")
    expect(pretty.stdout).toMatch(/^merchant: +mer_\w+\ntest key: +sk_test_\w+\nlive key: +sk_live_\w+\n/)
    const compact = await cli("merchant", "create", "--name", "Compact", "--json")
    expect(compact.stdout.trim().split("\n")).toHaveLength(1)
    expect(compact.json.testKey).toMatch(/^sk_test_/)
  })

  it("key create, list and revoke", async () => {
    const key = await cli("key", "create", "--merchant", merchantId, "--mode", "live")
    expect(key.code).toBe(0)
    expect(key.json).toMatchObject({ mode: "live", key: expect.stringMatching(/^sk_live_/) })
    const list = await cli("key", "list", "--merchant", merchantId)
    expect(list.json).toHaveLength(3)
    expect(list.stdout).not.toContain(key.json.key)
    const revoked = await cli("key", "revoke", key.json.keyId)
    expect(revoked.json).toEqual({ keyId: key.json.keyId, revoked: true })
    const again = await cli("key", "revoke", key.json.keyId)
    expect(again.code).toBe(1)
    expect(again.stderr).toBe("pixgate: Active API key not found (not_found)\n")
  })

  it("webhook set reads the secret from stdin or the environment, never needing an argument", async () => {
    const own = (await cli("merchant", "create", "--name", "Loja Segredo")).json.merchantId
    const set = ["webhook", "set", "--merchant", own, "--mode", "test", "--url", "http://127.0.0.1:9/secret"]
    const status = async () => (await cli("webhook", "status", "--merchant", own)).json.endpoints[0]
    const dash = await cliWith({ stdin: "from-stdin-dash\n" }, ...set, "--secret", "-")
    expect([dash.code, dash.stderr]).toEqual([0, ""])
    expect(dash.json.signingKey).toMatch(/^whsec_/)
    const piped = await cliWith({ stdin: "from-stdin-piped\r\n" }, ...set)
    expect([piped.code, piped.stderr]).toEqual([0, ""])
    const fromEnv = await cliWith({ env: { PIXGATE_WEBHOOK_SECRET: "from-the-env" }, tty: true }, ...set)
    expect([fromEnv.code, fromEnv.stderr]).toEqual([0, ""])
    expect(await status()).toMatchObject({ mode: "test", url: "http://127.0.0.1:9/secret" })
    for (const out of [dash, piped, fromEnv]) expect(out.stdout).not.toMatch(/from-(stdin|the-env)/)
    // A terminal is never read unless asked with `-`; nothing at all is a usage error.
    const none = await cliWith({ tty: true }, ...set)
    expect([none.code, none.stderr]).toEqual([
      2,
      "pixgate: Missing required flag --secret (or PIXGATE_WEBHOOK_SECRET, or piped on stdin) " +
        "(pixgate webhook set --merchant ID --mode test|live --url URL --secret SECRET|-)\n"
    ])
    const empty = await cliWith({ stdin: "" }, ...set, "--secret", "-")
    expect([empty.code, empty.stderr]).toEqual([2, "pixgate: --secret: stdin was empty\n"])
    const noStdin = await cli(...set, "--secret", "-")
    expect([noStdin.code, noStdin.stderr]).toEqual([
      2,
      "pixgate: --secret -: there is no stdin to read it from\n"
    ])
  })

  it("webhook set --no-secret-header turns the secret header off; a set without it sends it again", async () => {
    const own = (await cli("merchant", "create", "--name", "Loja Sem Cabecalho")).json.merchantId
    const env = { env: { PIXGATE_WEBHOOK_SECRET: "header-secret-1" }, tty: true }
    const set = ["webhook", "set", "--merchant", own, "--mode", "test", "--url", "http://127.0.0.1:9/nohdr"]
    const off = await cliWith(env, ...set, "--no-secret-header")
    expect([off.code, off.stderr]).toEqual([0, ""])
    expect(off.json).toMatchObject({ merchantId: own, mode: "test", secretHeader: false })
    const on = await cliWith(env, ...set)
    expect([on.code, on.stderr, on.json.secretHeader]).toEqual([0, "", true])
  })

  it("webhook set, balance, sandbox topup", async () => {
    const hook = await cli(
      "webhook",
      "set",
      "--merchant",
      merchantId,
      "--mode",
      "test",
      "--url",
      "http://127.0.0.1:9/h",
      "--secret",
      "s3cret-value"
    )
    expect(hook.code).toBe(0)
    expect(hook.stdout).not.toContain("s3cret-value")
    expect(hook.stderr).toBe(
      "pixgate: warning: --secret on the command line shows in ps and the shell's history; " +
        "pipe it with --secret - or set PIXGATE_WEBHOOK_SECRET\n"
    )
    expect(hook.json.signingKey).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    const rotated = await cli(
      "webhook",
      "rotate-signing-key",
      "--merchant",
      merchantId,
      "--mode",
      "test",
      "--overlap",
      "60"
    )
    expect(rotated.code).toBe(0)
    expect(rotated.json).toMatchObject({
      merchantId,
      mode: "test",
      signingKey: expect.stringMatching(/^whsec_/)
    })
    expect(rotated.json.signingKey).not.toBe(hook.json.signingKey)
    expect(Date.parse(rotated.json.previousKeyExpiresAt) - Date.now()).toBeLessThanOrEqual(60_000)
    const status = await cli("webhook", "status", "--merchant", merchantId)
    expect(status.json.endpoints).toEqual([
      expect.objectContaining({ mode: "test", url: "http://127.0.0.1:9/h", status: "healthy", inFlight: 0 })
    ])
    const badOverlap = await cli(
      "webhook",
      "rotate-signing-key",
      "--merchant",
      merchantId,
      "--mode",
      "test",
      "--overlap",
      "1h"
    )
    expect(badOverlap.code).toBe(2)
    expect(badOverlap.stderr).toContain("--overlap must be a whole number of seconds")
    // Read from stdin as piped (only the trailing line break dropped), so the space stays.
    const badSecret = await cliWith(
      { stdin: " padded-secret\n" },
      "webhook",
      "set",
      "--merchant",
      merchantId,
      "--mode",
      "test",
      "--url",
      "http://127.0.0.1:9/h",
      "--secret",
      "-"
    )
    expect(badSecret.code).toBe(1)
    expect(badSecret.stderr).toBe("pixgate: secret must not start or end with a space (invalid_secret)\n")
    expect(
      (await cli("sandbox", "topup", "--merchant", merchantId, "--amount", "150.50")).json
    ).toMatchObject({ available: 150.5 })
    expect((await cli("balance", "--merchant", merchantId, "--mode", "test")).json).toEqual({
      merchantId,
      mode: "test",
      available: 150.5,
      held: 0
    })
    expect((await cli("balance", "--merchant", merchantId, "--mode", "live")).json).toMatchObject({
      available: 0
    })
    const bad = await cli("sandbox", "topup", "--merchant", merchantId, "--amount", "1.234")
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain("amount must have at most 2 decimal places")
  })

  it("sandbox pay, settle and fail on transactions created over HTTP; webhook log and redeliver", async () => {
    const pixgate = await Pixgate.make({
      store: SqliteStore.layer({ filename: database.slice("sqlite:".length), keys: testKeys }),
      engine: { worker: false },
      log: { level: "none" }
    })
    const { createServer } = await import("node:http")
    const server = createServer(pixgate.nodeHandler)
    const base = await listen(server)
    const charge = (await send(base, "POST", "/api/v1/charges", { key: testKey, body: { amount: 10 } })).body
    const p1 = (
      await send(base, "POST", "/api/v1/payouts", { key: testKey, body: { amount: 5, pixKey: "a@b.com" } })
    ).body
    const p2 = (
      await send(base, "POST", "/api/v1/payouts", { key: testKey, body: { amount: 5, pixKey: "a@b.com" } })
    ).body
    expect((await cli("sandbox", "pay", charge.transactionId)).json).toMatchObject({ status: "completed" })
    expect((await cli("sandbox", "settle", p1.transactionId)).json).toMatchObject({ status: "completed" })
    expect((await cli("sandbox", "fail", p2.transactionId)).json).toMatchObject({ status: "failed" })
    const page = (await send(base, "GET", "/api/v1/transactions?type=deposit", { key: testKey })).body
    expect(page.data[0]).toMatchObject({ id: charge.transactionId, status: "completed" })
    server.close()
    await pixgate.dispose()

    const log = await cli("webhook", "log", "--merchant", merchantId, "--mode", "test", "--limit", "3")
    expect(log.code).toBe(0)
    expect(log.json).toHaveLength(3)
    const redelivered = await cli("webhook", "redeliver", log.json[0].eventId)
    expect(redelivered.json).toMatchObject({ eventId: log.json[0].eventId, status: "pending" })
  })

  it("fee-plan set", async () => {
    const plan = JSON.stringify({
      charge: { gatewayRate: 2500, marginRate: 7400, gatewayFixed: 0, marginFixed: 0 },
      payout: { gatewayRate: 0, marginRate: 0, gatewayFixed: 10, marginFixed: 30 }
    })
    expect((await cli("fee-plan", "set", "--merchant", merchantId, "--plan", plan)).code).toBe(0)
    expect((await cli("fee-plan", "set", "--merchant", merchantId, "--plan", "{}")).stderr).toContain(
      "plan.charge must be an object"
    )
  })

  it("usage errors exit 2 with a clear message on stderr", async () => {
    const cases: ReadonlyArray<[Array<string>, string]> = [
      [[], "USAGE\n\n$ pixgate <command> [flags] [--json]\n"],
      [["merchant"], "pixgate merchant needs a command: create"],
      [
        ["merchant", "create", "--name"],
        "pixgate: Expected a value following option: '--name' (run pixgate merchant create --help)\n"
      ],
      [["merchant", "create", "--name", "x", "--name", "y"], "--name is given twice"],
      [
        ["merchant", "create", "--name", "x", "-q"],
        "pixgate: Received unknown argument: '-q' (run pixgate merchant create --help)\n"
      ],
      [["serve", "--port", "1"], "pixgate serve takes no arguments"],
      [["help", "frobnicate"], "Unknown command: frobnicate"],
      [["frobnicate"], "Unknown command: frobnicate"],
      [["merchant", "delete"], "Unknown command: merchant delete"],
      [
        ["merchant", "create"],
        "pixgate: Expected to find option: '--name' (run pixgate merchant create --help)\n"
      ],
      [
        ["balance", "--merchant", "m"],
        "pixgate: Expected to find option: '--mode' (run pixgate balance --help)\n"
      ],
      [["balance", "--merchant", "m", "--mode", "prod"], "--mode must be test or live"],
      [["key", "revoke"], "pixgate: Missing argument <KEY_ID> (run pixgate key revoke --help)\n"],
      [
        ["merchant", "create", "--name", "x", "--bogus", "1"],
        "pixgate: Received unknown argument: '--bogus' (run pixgate merchant create --help)\n"
      ],
      [
        ["merchant", "create", "--name", "x", "--mode", "test"],
        "pixgate: Received unknown argument: '--mode' (run pixgate merchant create --help)\n"
      ],
      [
        ["merchant", "craete", "--name", "x"],
        "pixgate: Unknown command: merchant craete. Did you mean merchant create?"
      ],
      [["webhok", "status"], "pixgate: Unknown command: webhok. Did you mean webhook? Run pixgate --help\n"],
      [
        ["merchant", "create", "--nmae", "x"],
        "pixgate: The flag '--nmae' is not recognized. Did you mean '--name'? (run pixgate merchant create --help)\n"
      ],
      [["webhook", "log", "--merchant", "m", "--limit", "ten"], "--limit must be a non-negative integer"]
    ]
    for (const [argv, message] of cases) {
      const result = await cli(...argv)
      expect(result.code, argv.join(" ")).toBe(2)
      expect(result.stdout).toBe("")
      expect(result.stderr).toContain(message)
    }
  })

  it("operation errors exit 1", async () => {
    const result = await cli("balance", "--merchant", "mer_nope", "--mode", "test")
    expect(result).toMatchObject({ code: 1, stdout: "", stderr: "pixgate: Merchant not found (not_found)\n" })
    const badDb = await Cli.run(["balance", "--merchant", "m", "--mode", "test"], {
      env: { PIXGATE_DATABASE: "mysql://x" },
      cwd: dir,
      stdout: () => {},
      stderr: (t) =>
        expect(t).toContain("PIXGATE_DATABASE must be sqlite:<path>, postgres://... or postgresql://...")
    })
    expect(badDb).toBe(1)
  })

  it("serve fails with a clear message when the store cannot open or the port is taken", async () => {
    let stderr = ""
    const io = (env: Record<string, string>) => ({
      env,
      cwd: dir,
      stdout: () => {},
      stderr: (t: string) => {
        stderr += t
      },
      stopSignal: new Promise(() => {})
    })
    const down = await Cli.run(
      ["serve"],
      io({ PORT: "0", PIXGATE_DATABASE: "postgres://pixgate:hunter2@127.0.0.1:1/none" })
    )
    expect(down).toBe(1)
    expect(stderr).toContain("Pixgate could not start")
    expect(stderr).not.toContain("hunter2")
    const { createServer } = await import("node:http")
    const taken = createServer()
    const { port } = new URL(await listen(taken))
    stderr = ""
    expect(
      await Cli.run(["serve"], io({ PORT: port, PIXGATE_DATABASE: database, PIXGATE_DATA_KEY: testDataKey }))
    ).toBe(1)
    expect(stderr).toContain("EADDRINUSE")
    taken.close()
    stderr = ""
    expect(await Cli.run(["serve"], io({ PORT: "http" }))).toBe(2)
    expect(stderr).toContain("PORT must be an integer from 0 to 65535")
  })

  it("each command's --help has its flags and examples; a group's help lists its commands", async () => {
    const create = await cli("merchant", "create", "--help")
    expect(create).toMatchObject({ code: 0, stderr: "" })
    expect(create.stdout).toContain("USAGE\n\n$ pixgate merchant create --name NAME [--city CITY] [--json]\n")
    expect(create.stdout).toContain("--name")
    expect(create.stdout).toContain("(required)")
    expect(create.stdout).toContain("EXAMPLES")
    expect((await cli("help", "merchant", "create")).stdout).toBe(create.stdout)
    expect((await cli("-h", "merchant", "create")).stdout).toBe(create.stdout)
    const serve = await cli("serve", "--help")
    expect(serve.code).toBe(0)
    for (const name of ["PORT", "HOST", "PIXGATE_DATABASE", "/api/docs"]) expect(serve.stdout).toContain(name)
    const group = await cli("sandbox", "--help")
    expect(group.code).toBe(0)
    for (const name of ["sandbox topup", "sandbox pay", "sandbox settle", "sandbox fail"])
      expect(group.stdout).toContain(name)
    expect(group.stdout).not.toContain("merchant create")
  })

  it("every command has a summary and an example that names it", async () => {
    const { commands } = await import("../src/Commands.js")
    for (const [name, command] of Object.entries(commands)) {
      expect(command.summary, name).toBeTruthy()
      expect(
        command.examples?.some((e) => e.startsWith(`pixgate ${name}`)),
        name
      ).toBe(true)
      expect(command.usage.startsWith(name), name).toBe(true)
    }
  })

  it("a SQLite path that cannot be created fails at once with a clear message", async () => {
    const result = await Cli.run(["balance", "--merchant", "m", "--mode", "test"], {
      env: { PIXGATE_DATABASE: "sqlite:/proc/nope/x.db" },
      cwd: dir,
      stdout: () => {},
      stderr: (t) => {
        expect(t.split("\n").filter((l) => l !== "")).toHaveLength(1)
        expect(t).toContain("/proc/nope/x.db")
      }
    })
    expect(result).toBe(1)
  })

  it("every command answers --help with its usage, options and examples, in plain text off a terminal", async () => {
    const { commandNames } = await import("../src/Commands.js")
    for (const name of commandNames()) {
      const help = await cli(...name.split(" "), "--help")
      expect([help.code, help.stderr], name).toEqual([0, ""])
      expect(help.stdout, name).toContain(`$ pixgate ${name}`)
      expect(help.stdout, name).toContain("EXAMPLES")
      expect(help.stdout, name).not.toContain("\u001b[")
    }
  })

  it("reads the live gateway's variables by the names @pixgate/gateway-apipix documents", async () => {
    const { EfiPlugin, Settings } = await import("@pixgate/gateway-apipix")
    const { GatewayPlugin } = await import("@pixgate/core")
    const { livePrefix } = await import("../src/Environment.js")
    // The default gateway's variables, from its settings schema, and the callback route's secret.
    const liveNames = [
      ...GatewayPlugin.variables(EfiPlugin.plugin, livePrefix).map((v) => v.name),
      `${livePrefix}CALLBACK_SECRET`
    ]
    expect([...liveNames].sort()).toEqual(Object.values(Settings.envNames).sort())
    const incomplete = await cliWith(
      { env: { PIXGATE_LIVE_BASE_URL: "https://psp.example" } },
      "gateway",
      "webhook",
      "register",
      "--url",
      "https://pixgate.example"
    )
    expect([incomplete.code, incomplete.stderr]).toEqual([
      2,
      "pixgate: PIXGATE_LIVE_CALLBACK_SECRET is required when PIXGATE_LIVE_BASE_URL is set\n"
    ])
  })

  it("--help lists the commands", async () => {
    const help = await cli("--help")
    expect(help.code).toBe(0)
    for (const command of [
      "serve",
      "merchant create",
      "key create",
      "webhook set",
      "sandbox topup",
      "sandbox pay"
    ]) {
      expect(help.stdout).toContain(command)
    }
  })
})

describe("pixgate as a child process", () => {
  const bin = fileURLToPath(new URL("../src/bin.ts", import.meta.url))
  const tsx = pathToFileURL(
    join(dirname(createRequire(import.meta.url).resolve("tsx/package.json")), "dist/loader.mjs")
  ).href
  const args = (...rest: Array<string>) => ["--import", tsx, "--conditions=@pixgate/source", bin, ...rest]
  const work = mkdtempSync(join(tmpdir(), "pixgate-serve-"))
  afterAll(() => rmSync(work, { recursive: true, force: true }))

  it("merchant create prints the keys; errors exit non-zero", async () => {
    const env = { ...process.env, PIXGATE_DATABASE: "sqlite:./spawned.db" }
    const { stdout } = await promisify(execFile)(
      process.execPath,
      args("merchant", "create", "--name", "Spawned", "--json"),
      {
        cwd: work,
        env
      }
    )
    expect(JSON.parse(stdout)).toMatchObject({ testKey: expect.stringMatching(/^sk_test_/) })
    expect(existsSync(join(work, "spawned.db"))).toBe(true)
    const failed = await promisify(execFile)(process.execPath, args("nope"), { cwd: work, env }).catch(
      (e) => e
    )
    expect(failed.code).toBe(2)
    expect(failed.stderr).toContain("Unknown command: nope")
  })

  it("serve starts on SQLite under ./data, answers /api/health, and stops cleanly on SIGTERM", async () => {
    const env = {
      ...process.env,
      PORT: "0",
      HOST: "127.0.0.1",
      PIXGATE_DATABASE: "",
      PIXGATE_ADMIN_TOKEN: ""
    }
    const child: ChildProcess = spawn(process.execPath, args("serve"), { cwd: work, env })
    let out = ""
    must(child.stdout, "child.stdout").on("data", (chunk) => {
      out += chunk
    })
    must(child.stderr, "child.stderr").on("data", (chunk) => {
      out += chunk
    })
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no URL logged: ${out}`)), testWait(5 / 3))
      must(child.stdout, "child.stdout").on("data", () => {
        const line = out.split("\n").find((l) => l.includes("Pixgate listening"))
        if (line !== undefined) {
          clearTimeout(timer)
          resolve(JSON.parse(line).url)
        }
      })
    })
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    const health = await send(url, "GET", "/api/health")
    expect(health.status).toBe(200)
    expect(health.body.status).toBe("ok")
    expect(existsSync(join(work, "data", "pixgate.db"))).toBe(true)
    expect((await send(url, "GET", "/admin/merchants")).status).toBe(404)
    const exit = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
    child.kill("SIGTERM")
    expect(await exit).toBe(0)
    const lines = out
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
    expect(lines[0]).toMatchObject({
      level: "info",
      msg: "Pixgate listening",
      url,
      database: `sqlite:${join(work, "data", "pixgate.db")}`
    })
    expect(lines.some((l) => l.msg === "request" && l.path === "/api/health" && l.status === 200)).toBe(true)
    expect(lines.at(-2)).toMatchObject({ msg: "Pixgate stopping" })
    expect(lines.at(-1)).toMatchObject({ msg: "Pixgate stopped", cutConnections: 0 })
  })

  it("serve finishes a request in flight before exiting", async () => {
    let created = ""
    await Cli.run(["merchant", "create", "--name", "In flight", "--json"], {
      env: { PIXGATE_DATABASE: "sqlite:./inflight.db" },
      cwd: work,
      stdout: (t) => {
        created += t
      },
      stderr: () => {}
    })
    const { testKey } = JSON.parse(created)
    const env = { ...process.env, PORT: "0", PIXGATE_DATABASE: "sqlite:./inflight.db" }
    const child = spawn(process.execPath, args("serve"), { cwd: work, env })
    let out = ""
    const url = await new Promise<string>((resolve) => {
      child.stdout.on("data", (chunk) => {
        out += chunk
        const line = out.split("\n").find((l) => l.includes("Pixgate listening"))
        if (line !== undefined) resolve(JSON.parse(line).url)
      })
    })
    const { port } = new URL(url)
    // A request whose body arrives slowly is in flight when SIGTERM comes.
    const { request } = await import("node:http")
    const answer = new Promise<number>((resolve, reject) => {
      const headers = { "content-type": "application/json", "x-api-key": testKey }
      const req = request(
        { port, host: "127.0.0.1", method: "POST", path: "/api/v1/charges", headers },
        (res) => {
          res.resume()
          resolve(res.statusCode ?? 0)
        }
      )
      req.on("error", reject)
      req.write('{"amount":')
      setTimeout(() => req.end("1}"), 500)
    })
    const exit = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
    await new Promise((resolve) => setTimeout(resolve, 100))
    child.kill("SIGTERM")
    expect(await answer).toBe(201)
    expect(await exit).toBe(0)
  })
})
