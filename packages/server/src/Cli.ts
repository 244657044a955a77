/**
 * The `pixgate` command: `serve`, and the merchant panel's operations on the database named by
 * `PIXGATE_DATABASE`. Results are JSON on stdout (pretty; compact with `--json`); errors are one
 * line on stderr and a non-zero exit (2: usage, 1: the operation failed). Panel commands never
 * start the job worker.
 */
import { readFileSync } from "node:fs"
import { resolve } from "node:path"
import { parseArgs } from "node:util"
import { Engine } from "@pixgate/core"
import { NodeHostResolver, NodeWebhookTransport } from "@pixgate/core/node"
import type { Settings } from "@pixgate/gateway-apipix"
import { BankCallbacks, Log } from "@pixgate/http"
import { Cause, Effect, Exit, Layer, Option } from "effect"
import { type Command, check, type Flags, find, flags, helpRequest, UsageError } from "./Commands.js"
import * as Database from "./Database.js"
import * as Server from "./Server.js"

/** Where a CLI run reads and writes (the process's by default; tests pass their own). */
export interface Io {
  readonly env: Readonly<Record<string, string | undefined>>
  readonly cwd: string
  readonly stdout: (text: string) => void
  readonly stderr: (text: string) => void
  /** Resolves when `serve` should stop (default: SIGTERM or SIGINT). */
  readonly stopSignal?: Promise<unknown>
  /** Standard input, for secrets (`--secret -`); without it, secrets come from flags or the environment. */
  readonly stdin?: Stdin
}

/** Standard input as the CLI reads secrets from it. */
export interface Stdin {
  /** A terminal (nothing is read from it unless asked with `-`). */
  readonly isTTY: boolean
  /** Everything until end of input. */
  readonly read: () => Promise<string>
}

/** The secret from stdin: all of it, without one trailing line break. */
const readSecret = async (stdin: Stdin | undefined, flag: string): Promise<string> => {
  if (stdin === undefined) throw new UsageError(`--${flag} -: there is no stdin to read it from`)
  const text = (await stdin.read()).replace(/\r?\n$/, "")
  if (text === "") throw new UsageError(`--${flag}: stdin was empty`)
  return text
}

/** For the check before anything runs: the secret flags that will be filled in, as given. */
const secretPlaceholders = (command: Command, given: Flags, io: Io): Flags => {
  const filled: Record<string, string> = {}
  for (const flag of [...command.required, ...(command.optional ?? [])]) {
    const env = flags[flag]?.secretEnv
    if (env === undefined || given[flag] !== undefined) continue
    if (io.env[env] || (io.stdin !== undefined && !io.stdin.isTTY)) filled[flag] = "-"
  }
  return filled
}

/**
 * The command's secret flags filled in: `-` reads stdin; an argument is used with a warning (it is
 * visible in `ps` and the shell's history); left out, the flag's environment variable, else stdin
 * when it is not a terminal.
 */
const withSecrets = async (command: Command, given: Flags, io: Io): Promise<Flags> => {
  const filled: Record<string, string | undefined> = { ...given }
  for (const flag of [...command.required, ...(command.optional ?? [])]) {
    const env = flags[flag]?.secretEnv
    if (env === undefined) continue
    const value = given[flag]
    if (value === "-") filled[flag] = await readSecret(io.stdin, flag)
    else if (value !== undefined)
      io.stderr(
        `pixgate: warning: --${flag} on the command line shows in ps and the shell's history; ` +
          `pipe it with --${flag} - or set ${env}\n`
      )
    else if (io.env[env]) filled[flag] = io.env[env]
    else if (io.stdin !== undefined && !io.stdin.isTTY) filled[flag] = await readSecret(io.stdin, flag)
  }
  return filled
}

/**
 * Reads a command line: words, `--flag value` / `--flag=value` and `--json` (help was answered
 * before, by `helpRequest`). Any `--name` is read as a flag taking a value, so a command judges
 * its own flags (with a clear message) instead of the parser's.
 */
const parse = (argv: ReadonlyArray<string>) => {
  const { tokens } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: false,
    tokens: true,
    options: { json: { type: "boolean" } }
  })
  const positionals: Array<string> = []
  const values: Record<string, string> = {}
  let json = false
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!
    if (token.kind === "positional") positionals.push(token.value)
    else if (token.kind === "option") {
      if (token.name === "json") {
        if (token.inlineValue === true) throw new UsageError("--json takes no value")
        json = true
        continue
      }
      if (token.rawName.startsWith("--") === false)
        throw new UsageError(`Unknown flag ${token.rawName}. Run pixgate --help`)
      let value = token.value
      if (value === undefined) {
        // The next word is the value, even one starting with "-" (e.g. --amount -5).
        const at = token.index + 1
        if (at >= argv.length || argv[at] === "--") throw new UsageError(`${token.rawName} needs a value`)
        value = argv[at]!
        while (tokens[i + 1]?.index === at) i++
      }
      if (values[token.name] !== undefined) throw new UsageError(`${token.rawName} is given twice`)
      values[token.name] = value
    }
  }
  return { positionals, values, json }
}

// A PixgateError with its code; a store that cannot open (a StoreError) with its message.
const describeFailure = (cause: Cause.Cause<unknown>): string => {
  const failure = Cause.failureOption(cause) as Option.Option<{
    readonly message?: string
    readonly code?: string
  }>
  if (Option.isSome(failure)) {
    const { message, code } = failure.value
    return code === undefined ? String(message ?? failure.value) : `${message} (${code})`
  }
  const defect = Cause.squash(cause)
  return defect instanceof Error ? defect.message : Cause.pretty(cause)
}

const engineLayer = (database: string, io: Io) =>
  Engine.layer({ worker: false, hostResolver: NodeHostResolver.layer }).pipe(
    Layer.provide(Database.layer(Database.parse(database, io.cwd))),
    Layer.provide(NodeWebhookTransport.layer),
    Layer.provide(Log.layer(Log.writer({ level: "warning", write: (line) => io.stderr(`${line}\n`) })))
  )

const runPanel = async (
  command: Command,
  flags: Flags,
  args: ReadonlyArray<string>,
  io: Io,
  compact: boolean
) => {
  const database = io.env.PIXGATE_DATABASE || Database.defaultUrl
  const program = Effect.flatMap(Engine.Engine, (engine) => command.run(engine.admin, flags, args))
  const exit = await Effect.runPromiseExit(Effect.provide(program, engineLayer(database, io)))
  if (Exit.isSuccess(exit)) {
    io.stdout(`${JSON.stringify(exit.value, null, compact ? undefined : 2)}\n`)
    return 0
  }
  io.stderr(`pixgate: ${describeFailure(exit.cause)}\n`)
  return 1
}

const integerEnv = (env: Io["env"], name: string, fallback: number, min: number, max: number) => {
  const text = env[name]
  if (text === undefined || text === "") return fallback
  const n = Number(text)
  if (!/^\d+$/.test(text) || n < min || n > max)
    throw new UsageError(`${name} must be an integer from ${min} to ${max}`)
  return n
}

const flagEnv = (env: Io["env"], name: string) => {
  const text = env[name]
  if (text === undefined || text === "" || text === "0") return false
  if (text === "1") return true
  throw new UsageError(`${name} must be 1 or 0`)
}

const serve = async (io: Io) => {
  const env = io.env
  const rps = integerEnv(env, "PIXGATE_RATE_LIMIT_RPS", 50, 0, 1_000_000)
  const level = Log.parseLevel(env.PIXGATE_LOG_LEVEL)
  if (env.PIXGATE_LOG_LEVEL && level === undefined)
    throw new UsageError("PIXGATE_LOG_LEVEL must be debug, info, warning, error or none")
  const live = await liveFromEnv(io)
  const server = await Server.start({
    port: integerEnv(env, "PORT", 3000, 0, 65535),
    host: env.HOST || "127.0.0.1",
    database: env.PIXGATE_DATABASE || Database.defaultUrl,
    cwd: io.cwd,
    ...(env.PIXGATE_ADMIN_TOKEN ? { adminToken: env.PIXGATE_ADMIN_TOKEN } : {}),
    maxBodySize: integerEnv(env, "PIXGATE_MAX_BODY_BYTES", 64 * 1024, 1, 64 * 1024 * 1024),
    rateLimit:
      rps === 0
        ? false
        : { requestsPerSecond: rps, burst: integerEnv(env, "PIXGATE_RATE_LIMIT_BURST", 100, 1, 1_000_000) },
    // Lines go out in batches (a write each would cost a system call per request); closing
    // the server flushes them.
    log: { level: level ?? "info", out: io.stdout },
    allowInsecureLiveWebhooks: flagEnv(env, "PIXGATE_ALLOW_INSECURE_LIVE_WEBHOOKS"),
    shutdownTimeoutMs: integerEnv(
      env,
      "PIXGATE_SHUTDOWN_TIMEOUT_MS",
      Server.defaultShutdownTimeoutMs,
      0,
      3_600_000
    ),
    ...(live === undefined ? {} : { live })
  })
  await (io.stopSignal ?? signal())
  await server.close()
  return 0
}

/**
 * The live gateway's settings from PIXGATE_LIVE_* (a usage error when incomplete); the gateway
 * package is loaded only when they are there.
 */
const liveFromEnv = async (io: Io): Promise<Settings.EnvSettings | undefined> => {
  if (!io.env.PIXGATE_LIVE_BASE_URL) return undefined
  const { Settings } = await import("@pixgate/gateway-apipix")
  try {
    return Settings.fromEnv(io.env, (path) => readFileSync(resolve(io.cwd, path)))
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error))
  }
}

/**
 * `pixgate gateway webhook register --url https://pixgate.example.com`: registers
 * `<url>/bank/callbacks/<PIXGATE_LIVE_CALLBACK_SECRET>` as the PSP's webhook for the settlement key.
 */
const registerWebhook = async (io: Io, url: string | undefined) => {
  if (url === undefined)
    throw new UsageError("gateway webhook register needs --url (the server's public base URL)")
  const live = await liveFromEnv(io)
  if (live === undefined)
    throw new UsageError("PIXGATE_LIVE_BASE_URL and the other PIXGATE_LIVE_* must be set")
  const { ApiPix } = await import("@pixgate/gateway-apipix")
  const webhookUrl = `${url.replace(/\/+$/, "")}${BankCallbacks.basePath}/${live.callbackSecret}`
  const program = ApiPix.registerWebhook(live.settings, webhookUrl).pipe(
    Effect.provide(ApiPix.httpClientNode(live.settings))
  )
  const exit = await Effect.runPromiseExit(program)
  if (Exit.isSuccess(exit)) {
    io.stdout(`${JSON.stringify({ registered: true, chave: live.settings.pixKey })}\n`)
    return 0
  }
  io.stderr(`pixgate: ${describeFailure(exit.cause)}\n`)
  return 1
}

const signal = () =>
  new Promise((resolve) => {
    process.once("SIGTERM", resolve)
    process.once("SIGINT", resolve)
  })

/** Runs one command line; resolves to the exit code. */
export const run = async (argv: ReadonlyArray<string>, io: Io): Promise<number> => {
  try {
    const helped = helpRequest(argv)
    if (helped !== undefined) {
      if (helped.stdout !== undefined) io.stdout(helped.stdout)
      if (helped.stderr !== undefined) io.stderr(helped.stderr)
      return helped.code
    }
    const { values, positionals, json } = parse(argv)
    if (positionals[0] === "serve") {
      if (positionals.length > 1 || Object.keys(values).length > 0)
        throw new UsageError(
          "pixgate serve takes no arguments; it reads the environment (pixgate serve --help)"
        )
      return await serve(io)
    }
    if (positionals.join(" ") === "gateway webhook register") return await registerWebhook(io, values.url)
    const { name, command, args } = find(positionals)
    check(name, command, { ...values, ...secretPlaceholders(command, values, io) }, args)
    return await runPanel(command, await withSecrets(command, values, io), args, io, json)
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`pixgate: ${error.message}\n`)
      return 2
    }
    io.stderr(`pixgate: ${oneLine(error)}\n`)
    return 1
  }
}

/** The first line of an error's message: never a stack. */
const oneLine = (error: unknown): string =>
  (error instanceof Error ? error.message : String(error)).split("\n")[0]!.trim()
