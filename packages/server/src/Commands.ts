/**
 * The `pixgate` commands as data: each one's words, summary, flags, positional arguments and
 * examples, and the engine admin operation it runs. `tree` turns the table into @effect/cli
 * commands (which parse, check and suggest); the help is @effect/cli's help of those commands
 * with the table's examples and environment. A command lives in its feature's file
 * (`commands/*.ts`, with the flags only it takes); adding one is listing it in `commands`. The
 * types they share are `commands/Command.ts`'s, so no command file imports this table.
 */
import {
  Args,
  AutoCorrect,
  Command as CliCommand,
  CliConfig,
  HelpDoc,
  Options,
  Usage,
  ValidationError
} from "@effect/cli"
import * as Span from "@effect/cli/HelpDoc/Span"
import { Array as Arr, Effect, Option } from "effect"
import { adminTokenCommands } from "./commands/AdminToken.js"
import type { Command, Flag, Flags } from "./commands/Command.js"
import * as SharedFlags from "./commands/Flags.js"
import { infractionCommands } from "./commands/Infraction.js"
import { listenCommand } from "./commands/Listen.js"
import { logsTailCommand } from "./commands/LogsTail.js"
import { merchantGatewayCommands } from "./commands/MerchantGateway.js"
import { merchantCommands } from "./commands/Merchants.js"
import { moneyCommands } from "./commands/Money.js"
import { panelUserCommands } from "./commands/PanelUsers.js"
import { privacyCommands } from "./commands/Privacy.js"
import { refundCommands } from "./commands/Refund.js"
import { sandboxCommands } from "./commands/Sandbox.js"
import { subscriptionPayerCommands } from "./commands/SubscriptionPayer.js"
import { subscriptionCommands } from "./commands/Subscriptions.js"
import { triggerable, triggerCommand } from "./commands/Trigger.js"
import { webhookOpsCommands } from "./commands/WebhookOps.js"
import { webhookCommands } from "./commands/Webhooks.js"
import * as HelpText from "./HelpText.js"

/** Every flag several commands share (besides `--json` and `--help`); a command's own are in its `flags`. */
export const flags: Readonly<Record<string, Flag>> = SharedFlags.shared

/** A command's flag by name: its own text when it has one, else the shared flag's. */
export const flagOf = (command: Command, name: string): Flag => {
  const flag = command.flags?.[name] ?? flags[name]
  if (flag === undefined) throw new TypeError(`--${name} is described nowhere (${command.usage})`)
  return flag
}

/** What each positional argument is. */
const argumentHelp: Readonly<Record<string, string>> = {
  KEY_ID: "the API key's public id (key_...), as key list shows it",
  EVENT_ID: "the event's id (evt_...), as webhook log shows it",
  TX_ID: "the test-mode transaction's id (tx_...)",
  EVENT: `the event to produce: ${triggerable.join(", ")}`,
  NAME_OR_ID: "the admin token's id (atk_...), or the name of a live admin token"
}

/** Every command by its words, grouped as `pixgate --help` lists them. */
export const commands: Readonly<Record<string, Command>> = {
  ...merchantCommands,
  ...merchantGatewayCommands,
  ...webhookCommands,
  ...webhookOpsCommands,
  ...panelUserCommands,
  ...sandboxCommands,
  ...moneyCommands,
  ...refundCommands,
  ...infractionCommands,
  ...subscriptionCommands,
  ...subscriptionPayerCommands,
  ...privacyCommands,
  ...adminTokenCommands,
  trigger: triggerCommand,
  listen: listenCommand,
  "logs tail": logsTailCommand
}

/** `serve`: not a panel command, but helped the same way. */
export const serve = {
  usage: "serve",
  summary: "Starts the HTTP server: the API under /api/v1, its docs at /api/docs, the job worker.",
  environment: [
    ["PORT", "port to listen on (default 3000; 0 picks a free one)"],
    ["HOST", "address to listen on (default 127.0.0.1; 0.0.0.0 for every interface)"],
    ["PIXGATE_DATABASE", "sqlite:<path> or postgres://... (default sqlite:./data/pixgate.db)"],
    [
      "PIXGATE_ADMIN_TOKEN",
      "an admin token of full scope (named env) for /admin and /metrics, beside those of pixgate admin-token create"
    ],
    ["PIXGATE_LOG_LEVEL", "debug, info (default), warning, error or none"],
    ["PIXGATE_RATE_LIMIT_RPS", "requests per second per API key (default 50; 0 turns it off)"],
    ["PIXGATE_RATE_LIMIT_BURST", "burst per API key (default 100)"],
    [
      "PIXGATE_RATE_LIMIT_SHARED",
      "1 (default): on Postgres one bucket per key for every instance; 0: per process"
    ],
    ["PIXGATE_MAX_BODY_BYTES", "largest request body (default 65536)"],
    ["PIXGATE_MAX_CONNECTIONS", "most connections open at once; more are closed unread (default 1000)"],
    ["PIXGATE_KEEP_ALIVE_TIMEOUT_MS", "idle keep-alive connection lifetime (default 65000)"],
    ["PIXGATE_HEADERS_TIMEOUT_MS", "time to receive a request's headers, then 408 (default 10000)"],
    ["PIXGATE_REQUEST_TIMEOUT_MS", "time to receive a whole request, then 408 (default 30000)"],
    ["PIXGATE_SHUTDOWN_TIMEOUT_MS", "longest drain at SIGTERM, then again for running jobs (default 10000)"],
    [
      "PIXGATE_TRUST_PROXY",
      "proxies trusted for X-Forwarded-For/-Proto: true, a hop count, or addresses and CIDRs (default none)"
    ],
    [
      "PIXGATE_LIVE_GATEWAY",
      "the live bank's gateway plugin: efi (the default), or a plugin module's path (docs/going-live.md)"
    ],
    ["PIXGATE_LIVE_BASE_URL", "the live bank's API Pix; with the gateway's other PIXGATE_LIVE_* settings"],
    [
      "PIXGATE_SMTP_URL",
      "e-mail: smtp://user:pass@host:587 or smtps://; with PIXGATE_MAIL_FROM and PIXGATE_PANEL_URL"
    ],
    ["PIXGATE_METRICS", "1: Prometheus text at /metrics behind an admin token (docs/operations.md)"],
    [
      "PIXGATE_METRICS_PORT",
      "/metrics on a port of its own instead, no token (PIXGATE_METRICS_HOST, default 127.0.0.1)"
    ],
    [
      "OTEL_EXPORTER_OTLP_ENDPOINT",
      "push traces and metrics by OTLP/HTTP (and the other OTEL_* of docs/operations.md)"
    ],
    [
      "PIXGATE_LEDGER_CHECK_INTERVAL_S",
      "check the ledger every so many seconds (default 0: off; one instance)"
    ]
  ],
  examples: [
    "pixgate serve",
    "PORT=8080 HOST=0.0.0.0 PIXGATE_DATABASE=postgres://user:pass@db:5432/pixgate pixgate serve"
  ]
} as const

/** `gateway webhook register`: not a panel command either. */
export const gateway = {
  usage: "gateway webhook register --url URL",
  summary:
    "Registers URL/bank/callbacks/<secret> with the live bank, through its gateway plugin (PIXGATE_LIVE_*).",
  examples: ["PIXGATE_LIVE_BASE_URL=... pixgate gateway webhook register --url https://pixgate.example.com"]
} as const

const databaseRow = [
  "PIXGATE_DATABASE",
  "sqlite:<path> or postgres://... (default sqlite:./data/pixgate.db)"
] as const

/** What the commands of `tree` do when they run (the CLI gives the real ones; help, none). */
export interface Runner<E, R> {
  readonly serve: Effect.Effect<void, E, R>
  readonly panel: (
    name: string,
    command: Command,
    flags: Flags,
    args: ReadonlyArray<string>,
    json: boolean
  ) => Effect.Effect<void, E, R>
  readonly register: (url: string, json: boolean) => Effect.Effect<void, E, R>
  /** A group named without one of its commands (`pixgate merchant`). */
  readonly group: (name: string) => Effect.Effect<void, E, R>
}

const json = Options.boolean("json").pipe(
  Options.withDescription(
    "print JSON for a program instead of the text for a person: one document on one line (a command that follows something: one line per item) (optional)"
  )
)

/** What a flag's help says about needing it: one wording, never "required" and "optional" together. */
const need = (flag: Flag, required: boolean): string =>
  !required
    ? "(optional)"
    : flag.secretEnv === undefined
      ? "(required)"
      : `(required: this flag, ${flag.secretEnv} or piped on stdin)`

/**
 * @effect/cli's generic lines in an option's help ("A user-defined piece of text.", "This setting
 * is optional.", ...): each flag's own description says what it is and whether it is required.
 */
const filler = [
  "A user-defined piece of text",
  "A true or false value",
  "An integer",
  "A floating point number",
  "This setting is optional"
]

/** A help document without @effect/cli's generic lines. */
const withoutFiller = (doc: HelpDoc.HelpDoc): HelpDoc.HelpDoc => {
  switch (doc._tag) {
    case "Paragraph": {
      const text = plain(HelpDoc.toAnsiText(doc)).trim()
      return filler.some((f) => text.startsWith(f)) ? HelpDoc.empty : doc
    }
    case "Sequence":
      return HelpDoc.sequence(withoutFiller(doc.left), withoutFiller(doc.right))
    case "DescriptionList":
      return HelpDoc.mapDescriptionList(doc, (span, block) => [span, withoutFiller(block)])
    case "Enumeration":
      return HelpDoc.enumeration(Arr.map(doc.elements, withoutFiller))
    default:
      return doc
  }
}

/** A flag as an @effect/cli option: required or optional, its value checked before anything runs. */
const option = (name: string, required: boolean, command: Command): Options.Options<string | undefined> => {
  const flag = flagOf(command, name)
  if (flag.switch === true)
    return Options.boolean(name).pipe(
      Options.withDescription(`${flag.description} (optional)`),
      Options.map((on) => (on ? "yes" : undefined))
    )
  const described = Options.text(name).pipe(
    Options.withPseudoName(flag.value),
    Options.withDescription(`${flag.description} ${need(flag, required)}`)
  )
  const checked =
    flag.test === undefined
      ? described
      : Options.mapEffect(described, (value) =>
          flag.test?.(value) === false
            ? Effect.fail(ValidationError.invalidValue(HelpDoc.p(flag.message ?? `--${name} is not valid`)))
            : Effect.succeed(value)
        )
  // A secret may also come from its environment variable or stdin: the CLI judges when it is missing.
  return required && flag.secretEnv === undefined
    ? checked
    : checked.pipe(Options.optional, Options.map(Option.getOrUndefined))
}

/** One panel command as an @effect/cli command named by its last word. */
const leaf = <E, R>(name: string, command: Command, runner: Runner<E, R>) => {
  const names = [...command.required, ...(command.optional ?? [])]
  const config = {
    flags:
      names.length === 0
        ? Options.map(Options.none, (): Flags => ({}))
        : Options.all(
            Object.fromEntries(names.map((f) => [f, option(f, command.required.includes(f), command)]))
          ),
    args: Args.all(
      (command.args ?? []).map((arg) =>
        Args.text({ name: arg }).pipe(Args.withDescription(argumentHelp[arg] ?? arg))
      )
    ),
    json
  }
  return CliCommand.make(name.slice(name.lastIndexOf(" ") + 1), config, (given) =>
    runner.panel(name, command, given.flags, given.args, given.json)
  ).pipe(CliCommand.withDescription(command.summary ?? command.usage))
}

/** The words commands start with (`merchant`, `key`, ...), for group help. */
const groupOf = (name: string) => name.split(" ")[0]

/** The groups and the root's own commands, in the table's order. */
const topLevel = () =>
  Arr.dedupe(Object.keys(commands).map((name) => (name.includes(" ") ? groupOf(name) : name)))

/** `gateway webhook register --url URL`. */
const registerCommand = <E, R>(runner: Runner<E, R>) =>
  CliCommand.make(
    "register",
    {
      url: Options.text("url").pipe(
        Options.withPseudoName("URL"),
        Options.withDescription("the server's public base URL, e.g. https://pixgate.example.com (required)")
      ),
      json
    },
    ({ url, json }) => runner.register(url, json)
  ).pipe(CliCommand.withDescription(gateway.summary))

/** The whole command line as @effect/cli commands, each running with `runner`. */
export const tree = <E, R>(runner: Runner<E, R>) => {
  const serveCommand = CliCommand.make("serve", {}, () => runner.serve).pipe(
    CliCommand.withDescription(serve.summary)
  )
  const register = registerCommand(runner)
  const gatewayCommand = CliCommand.make("gateway", {}, () => runner.group("gateway")).pipe(
    CliCommand.withDescription("The live bank's side (PIXGATE_LIVE_*)."),
    CliCommand.withSubcommands([
      CliCommand.make("webhook", {}, () => runner.group("gateway webhook")).pipe(
        CliCommand.withDescription("The live PSP's webhook."),
        CliCommand.withSubcommands([register])
      )
    ])
  )
  const panel = topLevel().map((top) => {
    const command = commands[top]
    if (command !== undefined) return leaf(top, command, runner)
    const members = Object.entries(commands).filter(([name]) => groupOf(name) === top)
    const [first, ...rest] = members.map(([name, c]) => leaf(name, c, runner))
    return CliCommand.make(top, {}, () => runner.group(top)).pipe(
      CliCommand.withDescription(
        `${top} commands: ${members.map(([n]) => n.slice(top.length + 1)).join(", ")}.`
      ),
      CliCommand.withSubcommands([first, ...rest])
    )
  })
  return CliCommand.make("pixgate", {}, () => runner.group("")).pipe(
    CliCommand.withSubcommands([serveCommand, ...panel, gatewayCommand])
  )
}

/** Every command line's words: `serve`, the panel commands and `gateway webhook register`. */
export const commandNames = (): ReadonlyArray<string> => [
  "serve",
  ...Object.keys(commands),
  "gateway webhook register"
]

/** Whether `name` names a command or a group of commands (for `--help`). */
export const isHelpTopic = (name: string): boolean =>
  commandNames().some((command) => command === name || command.startsWith(`${name} `))

const helpConfig = CliConfig.make({ showBuiltIns: false })

const none: Runner<never, never> = {
  serve: Effect.void,
  panel: () => Effect.void,
  register: () => Effect.void,
  group: () => Effect.void
}

/** `pixgate <words> <options...>`: @effect/cli's usage of the command, with its parent words. */
const usageLine = (name: string): string => {
  if (name === "gateway webhook register") return `pixgate ${gateway.usage} [--json]`
  const command = commands[name]
  if (command === undefined) return `pixgate ${name}`
  const [span] = Usage.enumerate(CliCommand.getUsage(leaf(name, command, none)), helpConfig)
  const words = name.split(" ")
  const text = span === undefined ? "" : plain(HelpDoc.toAnsiText(HelpDoc.p(span))).trim()
  return `pixgate ${[...words.slice(0, -1), text].join(" ")}`
}

/** Text without its ANSI styles. */
export const plain: (text: string) => string = HelpText.plain

/** Help as text: ANSI-styled for a terminal, else plain; one line break at the end. */
export const renderHelp = (doc: HelpDoc.HelpDoc, color: boolean): string =>
  HelpText.render(HelpDoc.toAnsiText(doc), color)

const rows = (title: string, entries: ReadonlyArray<readonly [string, string]>): HelpDoc.HelpDoc => {
  const [first, ...rest] = entries.map(([left, right]): [Span.Span, HelpDoc.HelpDoc] => [
    Span.text(left),
    HelpDoc.p(right)
  ])
  return first === undefined
    ? HelpDoc.empty
    : HelpDoc.sequence(HelpDoc.h1(title), HelpDoc.descriptionList([first, ...rest]))
}

const lines = (title: string, entries: ReadonlyArray<string>): HelpDoc.HelpDoc =>
  entries.length === 0
    ? HelpDoc.empty
    : HelpDoc.sequence(HelpDoc.h1(title), HelpDoc.p(entries.map((line) => `  ${line}`).join("\n")))

const summaryOf = (name: string): string =>
  name === "serve"
    ? serve.summary
    : name === "gateway webhook register"
      ? gateway.summary
      : (commands[name]?.summary ?? name)

/** The whole help: every command with its summary. */
export const usage = (): HelpDoc.HelpDoc =>
  HelpDoc.blocks([
    HelpDoc.h1("USAGE"),
    HelpDoc.p("$ pixgate <command> [flags] [--json]"),
    rows(
      "COMMANDS",
      commandNames().map((name) => [usageLine(name).slice("pixgate ".length), summaryOf(name)] as const)
    ),
    HelpDoc.p(
      "The commands act on the database PIXGATE_DATABASE names (default sqlite:./data/pixgate.db); " +
        "listen and trigger also on a server (--server URL). Each prints a table or short text for a person, " +
        "or JSON for a program with --json. Errors are one line on stderr; the exit code is 2 for a usage " +
        "error, 1 for a failed operation."
    ),
    HelpDoc.p("Run pixgate <command> --help for a command's flags and examples.")
  ])

/** One command's help (@effect/cli's, with the examples and environment), or a group's. */
export const help = (name: string): HelpDoc.HelpDoc => {
  if (name === "serve")
    return HelpDoc.blocks([
      HelpDoc.h1("USAGE"),
      HelpDoc.p("$ pixgate serve"),
      HelpDoc.h1("DESCRIPTION"),
      HelpDoc.p(serve.summary),
      rows("ENVIRONMENT", serve.environment),
      lines("EXAMPLES", serve.examples)
    ])
  const command = commands[name]
  if (command === undefined && name !== "gateway webhook register") {
    const members = commandNames().filter((n) => n.startsWith(`${name} `))
    return HelpDoc.blocks([
      HelpDoc.h1("USAGE"),
      HelpDoc.p(`$ pixgate ${name} <command> [flags]`),
      rows(
        "COMMANDS",
        members.map((n) => [usageLine(n).slice("pixgate ".length), summaryOf(n)] as const)
      ),
      HelpDoc.p(`Run pixgate ${name} <command> --help for its flags and examples.`)
    ])
  }
  const secretRows = [...(command?.required ?? []), ...(command?.optional ?? [])].flatMap((f) => {
    const env = command === undefined ? undefined : flagOf(command, f).secretEnv
    return env === undefined
      ? []
      : [[env, `--${f} when the flag is left out (safer than an argument)`] as const]
  })
  const described =
    command === undefined
      ? CliCommand.getHelp(registerCommand(none), helpConfig)
      : CliCommand.getHelp(leaf(name, command, none), helpConfig)
  return HelpDoc.blocks([
    HelpDoc.h1("USAGE"),
    HelpDoc.p(`$ ${usageLine(name)}`),
    withoutFiller(described),
    lines("EXAMPLES", command?.examples ?? gateway.examples),
    rows("ENVIRONMENT", command === undefined ? [] : [databaseRow, ...secretRows])
  ])
}

/**
 * The answer to a request for help: `--help`/`-h` anywhere (help on the command named before
 * it), `help [command]`, or no arguments at all (the usage, exit 2). Undefined when `argv` asks
 * for something else.
 */
export const helpRequest = (
  argv: ReadonlyArray<string>
): { readonly code: number; readonly stdout?: HelpDoc.HelpDoc; readonly stderr?: string } | undefined => {
  const asked = HelpText.request(argv, isHelpTopic)
  if (asked === undefined) return undefined
  if (asked._tag === "Unknown") return { code: 2, stderr: unknownCommand(asked.words) }
  return { code: asked.code, stdout: asked.topic === "" ? usage() : help(asked.topic) }
}

/** Every topic of the help: the usage (`""`), each command, each group of commands. */
export const helpTopics = (): ReadonlyArray<string> =>
  Arr.dedupe([
    "",
    ...commandNames().flatMap((name) => name.split(" ").map((_, i, words) => words.slice(0, i + 1).join(" ")))
  ])

/** The help of every topic, rendered, for `help.json` (see `HelpText`). */
export const helpTable = (): HelpText.Table => ({
  topics: Object.fromEntries(
    helpTopics().map((topic) => [topic, HelpDoc.toAnsiText(topic === "" ? usage() : help(topic))])
  )
})

/** "Unknown command: ...", with the closest command when one is near (a typo). */
export const unknownCommand = (words: ReadonlyArray<string>): string => {
  const given = words.join(" ")
  const candidates = commandNames().flatMap((name) => {
    const prefix = name.split(" ").slice(0, words.length).join(" ")
    return [name, prefix]
  })
  const scored = Arr.dedupe(candidates)
    .map((name) => [name, AutoCorrect.levensteinDistance(given, name, helpConfig)] as const)
    .filter(([, distance]) => distance <= Math.max(2, Math.floor(given.length / 4)))
    .sort((a, b) => a[1] - b[1])
  const suggestion = scored[0]?.[0]
  return `Unknown command: ${given}.${suggestion === undefined ? "" : ` Did you mean ${suggestion}?`} Run pixgate --help`
}
