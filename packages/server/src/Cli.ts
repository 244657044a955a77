/**
 * The `pixgate` command on @effect/cli: `serve`, the merchant panel's operations on the database
 * named by `PIXGATE_DATABASE`, and `gateway webhook register`. The command table
 * (`Commands.ts`) becomes @effect/cli commands, which parse the line, check each flag, suggest
 * the flag meant on a typo and print their help; the environment is read with `effect/Config`
 * (`Environment.ts`). Results are a table or short text on stdout, JSON with `--json`
 * (`commands/Output.ts`); errors are one line on stderr and a non-zero exit (2: usage, 1: the
 * operation failed). Panel commands never start the job worker; `listen` and `trigger` with
 * `--server` open no database at all.
 */
import { Command as CliCommand, CliConfig, HelpDoc, ValidationError } from "@effect/cli"
import { FileSystem, Path, Terminal } from "@effect/platform"
import { Engine, type Config as EngineConfig, Errors } from "@pixgate/core"
import { NodeHostResolver, NodeWebhookTransport } from "@pixgate/core/node"
import { BankCallbacks, Log } from "@pixgate/http"
import { Cause, Console, Effect, Exit, Layer, Option, Redacted } from "effect"
import {
  commandNames,
  flagOf,
  helpRequest,
  isHelpTopic,
  plain,
  type Runner,
  renderHelp,
  tree,
  unknownCommand
} from "./Commands.js"
import { Ask, type Command, type Flags, UsageError } from "./commands/Command.js"
import { type Readable, Readable as ReadableOutput } from "./commands/Output.js"
import * as Remote from "./commands/Remote.js"
import * as Database from "./Database.js"
import * as Environment from "./Environment.js"
import type { Io, Stdin } from "./Io.js"
import * as Serve from "./Serve.js"
import { configFailure, Failed, liveGateway, oneLine, runServe } from "./Serve.js"

export type { Io, Stdin } from "./Io.js"

// A PixgateError with its code; a store that cannot open (a StoreError) with its message.
const describeFailure = (cause: Cause.Cause<unknown>): string => {
  const failure = Cause.failureOption(cause) as Option.Option<{
    readonly message?: string
    readonly code?: string
  }>
  if (Option.isSome(failure)) {
    // Every field at fault, as the API's `details` lists them: the first problem of each (a
    // field's further details speak of its JSON form, which a flag does not have).
    if (failure.value instanceof Errors.ValidationError && failure.value.details.length > 1) {
      const seen = new Set<string>()
      const first = failure.value.details.filter((d) => !seen.has(d.path) && seen.add(d.path))
      return `${first.map((d) => d.message).join("; ")} (${failure.value.code})`
    }
    const { message, code } = failure.value
    return code === undefined ? String(message ?? failure.value) : `${message} (${code})`
  }
  const defect = Cause.squash(cause)
  return defect instanceof Error ? defect.message : Cause.pretty(cause)
}

/** The secret from stdin: all of it, without one trailing line break. */
const readSecret = (stdin: Stdin | undefined, flag: string) =>
  Effect.gen(function* () {
    if (stdin === undefined)
      return yield* new UsageError({ message: `--${flag} -: there is no stdin to read it from` })
    const text = (yield* Effect.promise(() => stdin.read())).replace(/\r?\n$/, "")
    if (text === "") return yield* new UsageError({ message: `--${flag}: stdin was empty` })
    return text
  })

/**
 * The command's secret flags filled in: `-` reads stdin; an argument is used with a warning (it is
 * visible in `ps` and the shell's history); left out, the flag's environment variable, else stdin
 * when it is not a terminal; else a usage error.
 */
const withSecrets = (command: Command, given: Flags, io: Io) =>
  Effect.gen(function* () {
    const filled: Record<string, string | undefined> = { ...given }
    for (const flag of [...command.required, ...(command.optional ?? [])]) {
      const env = flagOf(command, flag).secretEnv
      if (env === undefined) continue
      const value = given[flag]
      if (value === "-") filled[flag] = yield* readSecret(io.stdin, flag)
      else if (value !== undefined)
        io.stderr(
          `pixgate: warning: --${flag} on the command line shows in ps and the shell's history; ` +
            `pipe it with --${flag} - or set ${env}\n`
        )
      else {
        const fromEnv = yield* Environment.secretOf(env)
        if (Option.isSome(fromEnv)) filled[flag] = Redacted.value(fromEnv.value)
        // Piped stdin stands for a required secret only: an optional one is read with `-`.
        else if (command.required.includes(flag) && io.stdin !== undefined && !io.stdin.isTTY)
          filled[flag] = yield* readSecret(io.stdin, flag)
        else if (command.required.includes(flag))
          return yield* new UsageError({
            message: `Missing required flag --${flag} (or ${env}, or piped on stdin) (pixgate ${command.usage})`
          })
      }
    }
    // What a command's `run` counts on: every required flag set (the parser asks for the others).
    const missing = command.required.find((flag) => filled[flag] === undefined)
    if (missing !== undefined)
      return yield* new UsageError({
        message: `Missing required flag --${missing} (pixgate ${command.usage})`
      })
    return filled
  })

const engineLayer = (
  database: string,
  keys: Option.Option<Database.DataKeyText>,
  io: Io,
  config: Partial<EngineConfig.EngineConfigShape>,
  waits: Database.PostgresWaits = {}
) =>
  Layer.unwrapEffect(
    Effect.try({
      try: () => Database.layer(Database.parse(database, io.cwd), Option.getOrUndefined(keys), waits),
      catch: (error) => new Failed({ message: oneLine(error) })
    }).pipe(
      Effect.map((store) =>
        // The store and the transport stay available to commands that read events or post them.
        Engine.layer({ worker: false, hostResolver: NodeHostResolver.layer, config }).pipe(
          Layer.provideMerge(Layer.merge(store, NodeWebhookTransport.layer)),
          Layer.provide(Log.layer(Log.writer({ level: "warning", write: (line) => io.stderr(`${line}\n`) })))
        )
      )
    )
  )

/** One item of a command's output, in the form asked for: JSON on one line, or the text for a person. */
const emit = (item: Readable, json: boolean, io: Io) => {
  if (!json) {
    if (item.text !== "") io.stdout(item.text)
  } else if (item.json !== undefined) io.stdout(`${JSON.stringify(item.json)}\n`)
}

/** An operation's failure as the CLI reports it (exit 1), usage errors kept (exit 2). */
const failed = <A, R>(effect: Effect.Effect<A, unknown, R>) =>
  Effect.catchAllCause(effect, (cause) =>
    Cause.isFailType(cause) && (cause.error instanceof Failed || cause.error instanceof UsageError)
      ? Effect.fail(cause.error)
      : Effect.fail(new Failed({ message: describeFailure(cause) }))
  )

/** Asks through the Io, when someone can answer. */
const askOf = (io: Io) =>
  Layer.succeed(Ask, (question: string) => {
    const ask = io.ask
    return ask === undefined || io.stdin?.isTTY !== true
      ? Effect.succeed(Option.none())
      : Effect.map(
          Effect.promise(() => ask(question)),
          (answer) => Option.some(answer)
        )
  })

/** The engine's admin operation of a command, on the database `PIXGATE_DATABASE` names. */
const runLocal = (
  command: Command,
  filled: Flags,
  args: ReadonlyArray<string>,
  print: (item: Readable) => Effect.Effect<void>,
  io: Io
) =>
  Effect.gen(function* () {
    const database = yield* Environment.database
    const keys = yield* Environment.dataKeys
    // `webhook set` checks URLs as `serve` would: the same address policy and http allowance.
    const addresses = yield* Environment.webhookAddresses
    const insecure = yield* Environment.allowInsecureLiveWebhooks
    const waits = yield* Environment.postgresWaits
    return yield* Effect.flatMap(Engine.Engine, (engine) =>
      command.run(engine.admin, filled, args, print)
    ).pipe(
      Effect.provide(
        engineLayer(
          database,
          keys,
          io,
          {
            allowInsecureLiveWebhooks: insecure,
            allowPrivateWebhookUrls: addresses.allowPrivateLive,
            allowPrivateTestWebhookUrls: addresses.allowPrivateTestWebhooks
          },
          waits
        )
      ),
      Effect.provide(askOf(io)),
      failed
    )
  })

/** A command against the server `--server` names, with the key given and `PIXGATE_ADMIN_TOKEN`. */
const runRemote = (
  command: Command,
  remote: NonNullable<Command["remote"]>,
  filled: Flags,
  args: ReadonlyArray<string>,
  print: (item: Readable) => Effect.Effect<void>,
  io: Io
) =>
  Effect.gen(function* () {
    const url = Remote.baseUrl(filled.server ?? "")
    if (url === undefined)
      return yield* new UsageError({
        message: "--server must be an http:// or https:// URL, e.g. http://127.0.0.1:3000"
      })
    const token = yield* Environment.secretOf("PIXGATE_ADMIN_TOKEN")
    const server: Remote.Server = {
      url,
      apiKey: filled["api-key"],
      adminToken: Option.getOrUndefined(Option.map(token, Redacted.value)),
      merchant: filled.merchant
    }
    return yield* remote(server, filled, args, print).pipe(
      Effect.provide(NodeWebhookTransport.layer),
      Effect.provide(askOf(io)),
      failed
    )
  }).pipe(Effect.annotateLogs("command", command.usage))

/** A command: its secrets, then its operation on the database or a server; its output as asked. */
const runPanel = (command: Command, given: Flags, args: ReadonlyArray<string>, json: boolean, io: Io) =>
  Effect.gen(function* () {
    const filled = yield* withSecrets(command, given, io)
    const print = (item: Readable) => Effect.sync(() => emit(item, json, io))
    const remote = command.remote
    const value =
      filled.server !== undefined && remote !== undefined
        ? yield* runRemote(command, remote, filled, args, print, io)
        : yield* runLocal(command, filled, args, print, io)
    emit(value, json, io)
  })

/**
 * `pixgate gateway webhook register --url https://pixgate.example.com`: registers
 * `<url>/bank/callbacks/<PIXGATE_LIVE_CALLBACK_SECRET>` as the PSP's webhook for the settlement key.
 */
const runRegister = (url: string, json: boolean, io: Io) =>
  Effect.gen(function* () {
    const live = yield* liveGateway(io)
    if (live === undefined)
      return yield* new UsageError({
        message: `${Environment.livePrefix}GATEWAY (or ${Environment.livePrefix}BASE_URL) and the gateway's other ${Environment.livePrefix}* must be set`
      })
    const register = live.gateway.registerCallback
    if (register === undefined)
      return yield* new UsageError({
        message: `the ${live.gateway.name} gateway registers no callback by API: give the bank ${url.replace(/\/+$/, "")}${BankCallbacks.basePath}/<${Environment.livePrefix}CALLBACK_SECRET> yourself`
      })
    const webhookUrl = `${url.replace(/\/+$/, "")}${BankCallbacks.basePath}/${live.callbackSecret}`
    const registered = yield* register(webhookUrl).pipe(
      Effect.catchAllCause((cause) => Effect.fail(new Failed({ message: describeFailure(cause) })))
    )
    emit(
      new ReadableOutput(
        { registered: true, ...registered },
        `registered ${webhookUrl.replace(live.callbackSecret, `<${Environment.livePrefix}CALLBACK_SECRET>`)} with the ${live.gateway.name} gateway\n`
      ),
      json,
      io
    )
  })

/** The commands, running against `io`. */
const runner = (io: Io): Runner<UsageError | Failed | ConfigFailure, never> => ({
  serve: runServe(io).pipe(Effect.catchTag("ConfigError", configFailure)),
  panel: (_, command, given, args, json) =>
    runPanel(command, given, args, json, io).pipe(Effect.catchTag("ConfigError", configFailure)),
  register: (url, json) => runRegister(url, json, io).pipe(Effect.catchTag("ConfigError", configFailure)),
  group: (name) =>
    Effect.fail(
      new UsageError({
        message:
          name === ""
            ? "pixgate needs a command. Run pixgate --help"
            : `pixgate ${name} needs a command: ${commandNames()
                .filter((n) => n.startsWith(`${name} `))
                .map((n) => n.slice(name.length + 1))
                .join(", ")}. Run pixgate ${name} --help`
      })
    )
})

/** A malformed environment variable: a usage error. */
type ConfigFailure = UsageError

/** What @effect/cli needs around a run: a terminal (the Io's), paths, no file system, its config. */
const cliEnvironment = (io: Io) =>
  Layer.mergeAll(
    Layer.succeed(
      Terminal.Terminal,
      Terminal.Terminal.of({
        columns: Effect.succeed(100),
        rows: Effect.succeed(40),
        isTTY: Effect.succeed(io.stdin?.isTTY === true),
        readInput: Effect.dieMessage("pixgate asks nothing interactively"),
        readLine: Effect.fail(new Terminal.QuitException()),
        display: (text) => Effect.sync(() => io.stdout(text))
      })
    ),
    Path.layer,
    FileSystem.layerNoop({}),
    CliConfig.layer({ showBuiltIns: false, finalCheckBuiltIn: true })
  )

/** The leading words of a command line (before its first flag). */
const leadingWords = (argv: ReadonlyArray<string>) => {
  const end = argv.findIndex((a) => a.startsWith("-"))
  return end === -1 ? argv : argv.slice(0, end)
}

/** Checks @effect/cli leaves to us: the command words exist, no flag is given twice, serve takes nothing. */
const precheck = (argv: ReadonlyArray<string>) => {
  const words = leadingWords(argv)
  if (words[0] === "serve" && argv.length > 1)
    throw new UsageError({
      message: "pixgate serve takes no arguments; it reads the environment (pixgate serve --help)"
    })
  for (let n = 1; n <= Math.min(words.length, 3); n++) {
    const name = words.slice(0, n).join(" ")
    if (commandNames().includes(name)) break
    if (!isHelpTopic(name)) throw new UsageError({ message: unknownCommand(words.slice(0, n)) })
  }
  const seen = new Set<string>()
  for (const a of argv) {
    if (a === "--") break
    if (!a.startsWith("--")) continue
    const name = a.split("=")[0]
    if (seen.has(name)) throw new UsageError({ message: `${name} is given twice` })
    seen.add(name)
  }
  return words
}

/** The command a line names, for "run pixgate ... --help". */
const commandOf = (words: ReadonlyArray<string>) => {
  for (let n = Math.min(words.length, 3); n > 0; n--) {
    const name = words.slice(0, n).join(" ")
    if (isHelpTopic(name)) return `pixgate ${name}`
  }
  return "pixgate"
}

/** Runs one command line; resolves to the exit code. */
export const run = async (argv: ReadonlyArray<string>, io: Io): Promise<number> => {
  const render = (doc: HelpDoc.HelpDoc) => renderHelp(doc, io.color === true)
  const helped = helpRequest(argv)
  if (helped !== undefined) {
    if (helped.stdout !== undefined) (helped.code === 0 ? io.stdout : io.stderr)(render(helped.stdout))
    if (helped.stderr !== undefined) io.stderr(`pixgate: ${helped.stderr}\n`)
    return helped.code
  }
  // The same run as bin.ts's for `pixgate serve` alone (which skips this module).
  if (argv.length === 1 && argv[0] === "serve") return Serve.run(io)
  let words: ReadonlyArray<string>
  try {
    words = precheck(argv)
  } catch (error) {
    io.stderr(`pixgate: ${oneLine(error)}\n`)
    return 2
  }
  const program = CliCommand.run(tree(runner(io)), {
    name: "pixgate",
    version: "0.1.0",
    executable: "pixgate"
  })(["node", "pixgate", ...argv])
  // @effect/cli prints its own parse errors; they are printed here, in the command's one-line form.
  const exit = await Effect.runPromiseExit(
    Console.consoleWith((console) =>
      Effect.withConsole(program, {
        ...console,
        log: (...args: ReadonlyArray<unknown>) => Effect.sync(() => io.stdout(`${plain(args.join(" "))}\n`)),
        error: () => Effect.void
      })
    ).pipe(Effect.provide(cliEnvironment(io)), Effect.withConfigProvider(Environment.provider(io.env)))
  )
  if (Exit.isSuccess(exit)) return 0
  const failure = Cause.failureOption(exit.cause)
  if (Option.isSome(failure)) {
    const error = failure.value
    if (ValidationError.isValidationError(error)) {
      const text = plain(HelpDoc.toAnsiText(error.error)).trim().split("\n")[0]
      io.stderr(`pixgate: ${text} (run ${commandOf(words)} --help)\n`)
      return 2
    }
    io.stderr(`pixgate: ${error.message}\n`)
    return error._tag === "UsageError" ? 2 : 1
  }
  io.stderr(`pixgate: ${oneLine(Cause.squash(exit.cause))}\n`)
  return 1
}
