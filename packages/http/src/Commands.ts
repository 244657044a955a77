/**
 * The `pixgate` commands as data: each one's words, summary, flags, positional arguments and
 * examples (its `--help` is made from them), checked before it runs, and the engine admin
 * operation it runs. Adding a command is adding one entry to `commands` (and, for a new flag,
 * one entry to `flags`).
 */
import { Engine, type Errors, Requests } from "@pixgate/core"
import { Effect, Schema } from "effect"

/** A usage error: exit code 2. */
export class UsageError extends Error {}

/** Flag values by name. */
export type Flags = Readonly<Record<string, string | undefined>>
type Admin = Engine.EngineShape["admin"]

/** One command. */
export interface Command {
  /** The synopsis after `pixgate`, e.g. `key create --merchant ID --mode test|live`. */
  readonly usage: string
  /** One sentence: what it does. */
  readonly summary?: string
  readonly required: ReadonlyArray<string>
  readonly optional?: ReadonlyArray<string>
  /** Names of positional arguments. */
  readonly args?: ReadonlyArray<string>
  /** Whole command lines, shown under "Examples". */
  readonly examples?: ReadonlyArray<string>
  readonly run: (
    admin: Admin,
    flags: Flags,
    args: ReadonlyArray<string>
  ) => Effect.Effect<unknown, Errors.PixgateError, Engine.Engine>
}

/** Decodes a command's input with the engine's maximum amount. */
const decode =
  <A, I>(schema: Schema.Schema<A, I>) =>
  (input: unknown) =>
    Effect.flatMap(Engine.Engine, (engine) => Requests.decode(schema, engine.config)(input))

/** One flag: what it means, and the check of its value (before anything runs). */
export interface Flag {
  readonly description: string
  readonly test?: (value: string) => boolean
  readonly message?: string
  /**
   * A secret: also read from this environment variable, or from stdin (`--flag -`, or when the
   * flag is left out and stdin is not a terminal); given as an argument it works, with a warning.
   */
  readonly secretEnv?: string
}

type Mode = "test" | "live"
type DeliveryStatus = "pending" | "delivered" | "failed"

/** Every flag a command may take (besides `--json` and `--help`). */
export const flags: Readonly<Record<string, Flag>> = {
  name: { description: "the merchant's name (shown in its BR Codes)" },
  city: { description: "the merchant's city for its BR Codes (default SAO PAULO)" },
  merchant: { description: "the merchant's id (mer_...)" },
  mode: {
    description: "test (sandbox) or live",
    test: (v) => v === "test" || v === "live",
    message: "--mode must be test or live"
  },
  url: { description: "where the webhook deliveries go (http or https)" },
  secret: {
    description:
      "the webhook secret sent in X-Pixgate-Signature: 8 to 256 printable ASCII characters, no leading or trailing space; " +
      "`-` reads it from stdin (also read from stdin when left out and stdin is not a terminal, or from PIXGATE_WEBHOOK_SECRET)",
    secretEnv: "PIXGATE_WEBHOOK_SECRET"
  },
  status: {
    description: "only deliveries in this status: pending, delivered or failed",
    test: (v) => ["pending", "delivered", "failed"].includes(v),
    message: "--status must be pending, delivered or failed"
  },
  limit: {
    description: "at most this many entries",
    test: (v) => /^\d{1,9}$/.test(v),
    message: "--limit must be a non-negative integer"
  },
  plan: {
    description: "the fee plan as JSON: charge and payout parts (see docs/decisions.md, Fees)",
    test: (v) => {
      try {
        const value = JSON.parse(v)
        return typeof value === "object" && value !== null
      } catch {
        return false
      }
    },
    message: "--plan must be a JSON object"
  },
  amount: { description: "an amount in reais, e.g. 100 or 25.90" },
  overlap: {
    description: "seconds the replaced signing key keeps signing too (default 86400, at most 604800)",
    test: (v) => /^\d{1,9}$/.test(v),
    message: "--overlap must be a whole number of seconds"
  },
  email: { description: "the e-mail address the person signs in to the panel with" },
  panel: { description: "the panel's address, for the link (default http://127.0.0.1:3000/panel)" }
}

/** A number when the text is one (the engine then judges it), else the text itself. */
const amount = (text: string | undefined): unknown =>
  text !== undefined && /^-?\d+(\.\d+)?$/.test(text.trim()) ? Number(text) : text

// `--plan` holds the fee plan: its problems are named after the flag.
const planSchema = Schema.Struct({ plan: Requests.feePlan("plan") }).annotations({
  [Requests.FirstProblemOnlyId]: true
})

/** Every panel command by its words. */
export const commands: Readonly<Record<string, Command>> = {
  "merchant create": {
    summary: "Creates a merchant; prints its id and its test and live API keys (shown only once).",
    examples: [
      'pixgate merchant create --name "Padaria Pao Quente" --json > merchant.json',
      'pixgate merchant create --name "Loja" --city "RIO DE JANEIRO"'
    ],
    usage: "merchant create --name NAME [--city CITY]",
    required: ["name"],
    optional: ["city"],
    run: (admin, f) =>
      admin.createMerchant({ name: f.name!, ...(f.city === undefined ? {} : { city: f.city }) })
  },
  "key create": {
    summary: "Creates another API key for a merchant; prints the key (shown only once).",
    examples: ["pixgate key create --merchant mer_... --mode live"],
    usage: "key create --merchant ID --mode test|live",
    required: ["merchant", "mode"],
    run: (admin, f) => admin.createKey(f.merchant!, f.mode as Mode)
  },
  "key revoke": {
    summary: "Revokes an API key by its id (key_...); requests with it get 401 at once.",
    examples: ["pixgate key revoke key_..."],
    usage: "key revoke KEY_ID",
    required: [],
    args: ["KEY_ID"],
    run: (admin, _, [id]) => admin.revokeKey(id!)
  },
  "key list": {
    summary: "Lists a merchant's API keys: id, mode, hint and state (never the key itself).",
    examples: ["pixgate key list --merchant mer_..."],
    usage: "key list --merchant ID",
    required: ["merchant"],
    run: (admin, f) => admin.listKeys(f.merchant!)
  },
  "webhook set": {
    summary:
      "Sets the URL and secret of a merchant's webhook endpoint for one mode; the first time, prints its signing key (shown only once).",
    examples: [
      "pixgate webhook set --merchant mer_... --mode test --url http://127.0.0.1:4000/webhooks --secret - < webhook-secret.txt",
      "PIXGATE_WEBHOOK_SECRET=... pixgate webhook set --merchant mer_... --mode live --url https://shop.example/webhooks"
    ],
    usage: "webhook set --merchant ID --mode test|live --url URL --secret SECRET|-",
    required: ["merchant", "mode", "url", "secret"],
    run: (admin, f) =>
      admin.setWebhook({ merchantId: f.merchant!, mode: f.mode as Mode, url: f.url!, secret: f.secret! })
  },
  "webhook rotate-signing-key": {
    summary:
      "Replaces the signing key of an endpoint; prints the new key (shown only once). The old one signs too for the overlap.",
    examples: ["pixgate webhook rotate-signing-key --merchant mer_... --mode live --overlap 3600"],
    usage: "webhook rotate-signing-key --merchant ID --mode test|live [--overlap SECONDS]",
    required: ["merchant", "mode"],
    optional: ["overlap"],
    run: (admin, f) =>
      admin.rotateSigningKey({
        merchantId: f.merchant!,
        mode: f.mode as Mode,
        ...(f.overlap === undefined ? {} : { overlapSeconds: Number(f.overlap) })
      })
  },
  "webhook status": {
    summary:
      "Shows each endpoint of a merchant: healthy or failing, failures in a row, deliveries pending, attempts in flight.",
    examples: ["pixgate webhook status --merchant mer_..."],
    usage: "webhook status --merchant ID",
    required: ["merchant"],
    run: (admin, f) => admin.webhookStatus(f.merchant!)
  },
  "webhook log": {
    summary: "Shows a merchant's webhook deliveries, newest first, with each attempt.",
    examples: ["pixgate webhook log --merchant mer_... --status failed --limit 20"],
    usage: "webhook log --merchant ID [--mode test|live] [--status pending|delivered|failed] [--limit N]",
    required: ["merchant"],
    optional: ["mode", "status", "limit"],
    run: (admin, f) =>
      admin.webhookLog({
        merchantId: f.merchant!,
        ...(f.mode === undefined ? {} : { mode: f.mode as Mode }),
        ...(f.status === undefined ? {} : { status: f.status as DeliveryStatus }),
        ...(f.limit === undefined ? {} : { limit: Number(f.limit) })
      })
  },
  "webhook redeliver": {
    summary: "Sends an event again (a new delivery of the same event id to the current endpoint).",
    examples: ["pixgate webhook redeliver evt_..."],
    usage: "webhook redeliver EVENT_ID",
    required: [],
    args: ["EVENT_ID"],
    run: (admin, _, [id]) => admin.redeliver(id!)
  },
  balance: {
    summary: "Shows a merchant's available and held balance in one mode.",
    examples: ["pixgate balance --merchant mer_... --mode test"],
    usage: "balance --merchant ID --mode test|live",
    required: ["merchant", "mode"],
    run: (admin, f) => admin.balance(f.merchant!, f.mode as Mode)
  },
  "fee-plan set": {
    summary: "Sets a merchant's fee plan (rates in parts per million, fixed fees in centavos).",
    examples: [
      'pixgate fee-plan set --merchant mer_... --plan \'{"charge":{"gatewayRate":2500,"marginRate":7400,"gatewayFixed":0,"marginFixed":0},"payout":{"gatewayRate":0,"marginRate":0,"gatewayFixed":10,"marginFixed":30}}\''
    ],
    usage: 'fee-plan set --merchant ID --plan \'{"charge":{...},"payout":{...}}\'',
    required: ["merchant", "plan"],
    run: (admin, f) =>
      Effect.flatMap(decode(planSchema)({ plan: JSON.parse(f.plan!) }), ({ plan }) =>
        admin.setFeePlan(f.merchant!, plan)
      )
  },
  "user invite": {
    summary: "Invites a person to a merchant's panel: prints a one-time link (7 days) to set the password.",
    examples: [
      "pixgate user invite --merchant mer_... --email ana@example.com --panel https://pay.example.com/panel"
    ],
    usage: "user invite --merchant ID --email EMAIL [--panel URL]",
    required: ["merchant", "email"],
    optional: ["panel"],
    run: (admin, f) =>
      Effect.map(
        Effect.flatMap(decode(Requests.InvitePanelUser)({ email: f.email }), (invite) =>
          admin.inviteUser(f.merchant!, invite)
        ),
        ({ token: _, path, ...invite }) => ({
          ...invite,
          link: `${(f.panel ?? "http://127.0.0.1:3000/panel").replace(/\/+$/, "")}${path}`
        })
      )
  },
  "sandbox topup": {
    summary: "Adds sandbox (test-mode) money to a merchant's balance.",
    examples: ["pixgate sandbox topup --merchant mer_... --amount 100"],
    usage: "sandbox topup --merchant ID --amount N",
    required: ["merchant", "amount"],
    run: (admin, f) =>
      Effect.flatMap(decode(Requests.TopUp)({ amount: amount(f.amount) }), (topUp) =>
        admin.topUp(f.merchant!, topUp)
      )
  },
  "sandbox pay": {
    summary: "Pays a pending test-mode charge now instead of after 2-3 s.",
    examples: ["pixgate sandbox pay tx_..."],
    usage: "sandbox pay TX_ID",
    required: [],
    args: ["TX_ID"],
    run: (a, _, [id]) => a.sandboxPayCharge(id!)
  },
  "sandbox settle": {
    summary: "Completes a pending test-mode payout now.",
    examples: ["pixgate sandbox settle tx_..."],
    usage: "sandbox settle TX_ID",
    required: [],
    args: ["TX_ID"],
    run: (a, _, [id]) => a.sandboxSettlePayout(id!)
  },
  "sandbox fail": {
    summary: "Fails a pending test-mode payout now (the amount and fee return to the balance).",
    examples: ["pixgate sandbox fail tx_..."],
    usage: "sandbox fail TX_ID",
    required: [],
    args: ["TX_ID"],
    run: (a, _, [id]) => a.sandboxFailPayout(id!)
  }
}

/** `serve`: not a panel command, but helped the same way. */
export const serve = {
  usage: "serve",
  summary: "Starts the HTTP server: the API under /api/v1, its docs at /api/docs, the job worker.",
  environment: [
    ["PORT", "port to listen on (default 3000; 0 picks a free one)"],
    ["HOST", "address to listen on (default 127.0.0.1; 0.0.0.0 for every interface)"],
    ["PIXGATE_DATABASE", "sqlite:<path> or postgres://... (default sqlite:./data/pixgate.db)"],
    ["PIXGATE_ADMIN_TOKEN", "enables the admin API under /admin with this bearer token"],
    ["PIXGATE_LOG_LEVEL", "debug, info (default), warning, error or none"],
    ["PIXGATE_RATE_LIMIT_RPS", "requests per second per API key (default 50; 0 turns it off)"],
    ["PIXGATE_RATE_LIMIT_BURST", "burst per API key (default 100)"],
    ["PIXGATE_MAX_BODY_BYTES", "largest request body (default 65536)"],
    ["PIXGATE_LIVE_BASE_URL", "the live bank's API Pix; with the other PIXGATE_LIVE_* (docs/going-live.md)"]
  ],
  examples: [
    "pixgate serve",
    "PORT=8080 HOST=0.0.0.0 PIXGATE_DATABASE=postgres://user:pass@db:5432/pixgate pixgate serve"
  ]
} as const

const databaseLine = "PIXGATE_DATABASE  sqlite:<path> or postgres://... (default sqlite:./data/pixgate.db)"

const pad = (rows: ReadonlyArray<readonly [string, string]>) => {
  const width = Math.max(...rows.map(([left]) => left.length))
  return rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`)
}

/** The words commands start with (`merchant`, `key`, ...), for group help. */
const groupOf = (name: string) => name.split(" ")[0]!

/** The whole help text: every command with its summary. */
export const usage = (): string =>
  [
    "Usage: pixgate <command> [flags] [--json]",
    "",
    "Commands:",
    ...pad([
      [serve.usage, serve.summary],
      ...Object.entries(commands).map(([name, c]) => [name, c.summary ?? c.usage] as const),
      [
        "gateway webhook register --url URL",
        "Registers URL/bank/callbacks/<secret> as the live PSP's webhook (PIXGATE_LIVE_*)"
      ]
    ]),
    "",
    "Panel commands act on the database PIXGATE_DATABASE names (default sqlite:./data/pixgate.db)",
    "and print JSON (compact, on one line, with --json). Errors are one line on stderr; the exit",
    "code is 2 for a usage error, 1 for a failed operation.",
    "",
    "Run pixgate <command> --help for a command's flags and examples."
  ].join("\n")

/** One command's help: synopsis, summary, flags, arguments, examples. */
export const help = (name: string): string => {
  if (name === "serve") {
    return [
      `Usage: pixgate ${serve.usage}`,
      "",
      serve.summary,
      "",
      "Environment:",
      ...pad(serve.environment),
      "",
      "Examples:",
      ...serve.examples.map((e) => `  ${e}`)
    ].join("\n")
  }
  const command = commands[name]
  if (command === undefined) {
    const group = Object.keys(commands).filter((n) => groupOf(n) === name)
    return [
      `Usage: pixgate ${name} <${group.map((n) => n.slice(name.length + 1)).join("|")}> [flags]`,
      "",
      ...pad(group.map((n) => [n, commands[n]!.summary ?? commands[n]!.usage] as const)),
      "",
      `Run pixgate ${name} <command> --help for its flags and examples.`
    ].join("\n")
  }
  const flagRows = [
    ...command.required.map((f) => [`--${f}`, `${flags[f]?.description ?? ""} (required)`] as const),
    ...(command.optional ?? []).map((f) => [`--${f}`, flags[f]?.description ?? ""] as const),
    ["--json", "compact JSON on one line"] as const,
    ["-h, --help", "this help"] as const
  ]
  return [
    `Usage: pixgate ${command.usage} [--json]`,
    ...(command.summary === undefined ? [] : ["", command.summary]),
    "",
    "Flags:",
    ...pad(flagRows),
    ...(command.examples === undefined || command.examples.length === 0
      ? []
      : ["", "Examples:", ...command.examples.map((e) => `  ${e}`)]),
    "",
    "Environment:",
    `  ${databaseLine}`,
    ...[...command.required, ...(command.optional ?? [])].flatMap((f) => {
      const env = flags[f]?.secretEnv
      return env === undefined ? [] : [`  ${env}  --${f} when the flag is left out (safer than an argument)`]
    })
  ].join("\n")
}

/** Whether `name` names a command, `serve` or a group of commands (for `--help`). */
export const isHelpTopic = (name: string): boolean =>
  name === "serve" || commands[name] !== undefined || Object.keys(commands).some((n) => groupOf(n) === name)

/** The command the positional words name, and its remaining arguments. */
export const find = (positionals: ReadonlyArray<string>) => {
  for (const words of [2, 1]) {
    const name = positionals.slice(0, words).join(" ")
    const command = commands[name]
    if (command !== undefined) return { name, command, args: positionals.slice(words) }
  }
  const first = positionals[0] ?? ""
  const group = Object.keys(commands).filter((n) => groupOf(n) === first)
  if (group.length > 0 && positionals.length === 1)
    throw new UsageError(
      `pixgate ${first} needs a command: ${group.map((n) => n.slice(first.length + 1)).join(", ")}. Run pixgate ${first} --help`
    )
  throw new UsageError(`Unknown command: ${positionals.join(" ")}. Run pixgate --help`)
}

/** Checks flags and arguments before anything runs. */
export const check = (name: string, command: Command, given: Flags, args: ReadonlyArray<string>) => {
  const allowed = new Set([...command.required, ...(command.optional ?? [])])
  for (const [flag, value] of Object.entries(given)) {
    if (value !== undefined && !allowed.has(flag))
      throw new UsageError(
        flags[flag] === undefined
          ? `Unknown flag --${flag}. Run pixgate ${name} --help`
          : `pixgate ${name} does not take --${flag}. Run pixgate ${name} --help`
      )
  }
  for (const flag of command.required) {
    if (given[flag] === undefined) {
      const env = flags[flag]?.secretEnv
      const alternatives = env === undefined ? "" : ` (or ${env}, or piped on stdin)`
      throw new UsageError(`Missing required flag --${flag}${alternatives} (pixgate ${command.usage})`)
    }
  }
  for (const [flag, value] of Object.entries(given)) {
    const format = flags[flag]
    if (value !== undefined && format?.test !== undefined && !format.test(value))
      throw new UsageError(format.message ?? `--${flag} is not valid`)
  }
  const expected = command.args?.length ?? 0
  if (args.length !== expected) throw new UsageError(`Usage: pixgate ${command.usage}`)
}

/**
 * The answer to a request for help: `--help`/`-h` anywhere (help on the command named before
 * it), `help [command]`, or no arguments at all (the usage, exit 2). Undefined when `argv` asks
 * for something else. It needs nothing but this module, so `pixgate --help` loads no engine.
 */
export const helpRequest = (
  argv: ReadonlyArray<string>
): { readonly code: number; readonly stdout?: string; readonly stderr?: string } | undefined => {
  if (argv.length === 0) return { code: 2, stderr: `${usage()}\n` }
  const asksHelp = argv[0] === "help" || argv.some((a) => a === "--help" || a === "-h")
  if (!asksHelp) return undefined
  const words = (argv[0] === "help" ? argv.slice(1) : argv).filter((a) => !a.startsWith("-"))
  if (words.length === 0) return { code: 0, stdout: `${usage()}\n` }
  for (let n = Math.min(words.length, 2); n > 0; n--) {
    const topic = words.slice(0, n).join(" ")
    if (isHelpTopic(topic)) return { code: 0, stdout: `${help(topic)}\n` }
  }
  return { code: 2, stderr: `pixgate: Unknown command: ${words.join(" ")}. Run pixgate --help\n` }
}
