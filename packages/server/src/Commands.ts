/**
 * The `pixgate` commands as data: each one's words, summary, flags, positional arguments and
 * examples, and the engine admin operation it runs. `tree` turns the table into @effect/cli
 * commands (which parse, check and suggest); the help is @effect/cli's help of those commands
 * with the table's examples and environment. Adding a command is adding one entry to `commands`
 * (and, for a new flag, one entry to `flags`). Nothing here loads the engine: `pixgate --help`
 * needs only this module.
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
import { Engine, type Errors, Requests, type Store, type WebhookTransport } from "@pixgate/core"
import { Array as Arr, Data, Effect, Option, Schema } from "effect"
import { command, type FlagsOf } from "./commands/Command.js"
import { listenCommand, listenFlags } from "./commands/Listen.js"
import { logsTailCommand } from "./commands/LogsTail.js"
import { amountOf, moneyCommands, moneyFlags } from "./commands/Money.js"
import { refundCommands, refundFlags } from "./commands/Refund.js"
import { triggerable, triggerCommand } from "./commands/Trigger.js"
import * as HelpText from "./HelpText.js"

/** A usage error: exit code 2. */
export class UsageError extends Data.TaggedError("UsageError")<{ readonly message: string }> {}

/** Flag values by name, as the CLI parsed them. */
export type Flags = Readonly<Record<string, string | undefined>>
type Admin = Engine.EngineShape["admin"]

/**
 * One command; `Required` and `Optional` name its flags (`command(...)` infers them from the
 * lists). `Command` alone, any command of the table: its `run` then takes the parsed flags.
 */
export interface Command<Required extends string = string, Optional extends string = string> {
  /** The synopsis after `pixgate`, e.g. `key create --merchant ID --mode test|live`. */
  readonly usage: string
  /** One sentence: what it does. */
  readonly summary?: string
  readonly required: ReadonlyArray<Required>
  readonly optional?: ReadonlyArray<Optional>
  /** Names of positional arguments. */
  readonly args?: ReadonlyArray<string>
  /** Whole command lines, shown under "Examples". */
  readonly examples?: ReadonlyArray<string>
  /** Flags of this command that mean something else than the shared flag of the same name. */
  readonly flags?: Readonly<Record<string, Flag>>
  // A method, so that a command typed by its flags is also a `Command` of the table (its
  // parameters compare both ways); the CLI calls it only with every required flag set.
  run(
    admin: Admin,
    flags: string extends Required ? Flags : FlagsOf<Required, Optional>,
    args: ReadonlyArray<string>,
    /** Writes to stdout at once (a command that follows something prints as it goes). */
    print: (text: string) => Effect.Effect<void>
  ): Effect.Effect<
    unknown,
    Errors.PixgateError | UsageError,
    Engine.Engine | Store.Store | WebhookTransport.WebhookTransport
  >
}

/** Decodes a command's input with the engine's maximum amount. */
const decode =
  <A, I>(schema: Schema.Schema<A, I>) =>
  (input: unknown) =>
    Effect.flatMap(Engine.Engine, (engine) => Requests.decode(schema, engine.config)(input))

/** One flag: what it means, and the check of its value (before anything runs). */
export interface Flag {
  readonly description: string
  /** The value's name in usage lines, e.g. `ID` in `--merchant ID`. */
  readonly value: string
  readonly test?: (value: string) => boolean
  readonly message?: string
  /** A switch: it takes no value, and reads as `"yes"` when given (undefined when not). */
  readonly switch?: true
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
  name: { value: "NAME", description: "the merchant's name (shown in its BR Codes)" },
  city: { value: "CITY", description: "the merchant's city for its BR Codes (default SAO PAULO)" },
  merchant: { value: "ID", description: "the merchant's id (mer_...)" },
  mode: {
    value: "test|live",
    description: "test (sandbox) or live",
    test: (v) => v === "test" || v === "live",
    message: "--mode must be test or live"
  },
  url: { value: "URL", description: "where the webhook deliveries go (http or https)" },
  secret: {
    value: "SECRET|-",
    description:
      "the webhook secret sent in X-Pixgate-Signature: 8 to 256 printable ASCII characters, no leading or trailing space; " +
      "`-` reads it from stdin",
    secretEnv: "PIXGATE_WEBHOOK_SECRET"
  },
  status: {
    value: "STATUS",
    description: "only deliveries in this status: pending, delivered or failed",
    test: (v) => ["pending", "delivered", "failed"].includes(v),
    message: "--status must be pending, delivered or failed"
  },
  limit: {
    value: "N",
    description: "at most this many entries",
    test: (v) => /^\d{1,9}$/.test(v),
    message: "--limit must be a non-negative integer"
  },
  plan: {
    value: "JSON",
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
  amount: { value: "N", description: "an amount in reais, e.g. 100 or 25.90" },
  role: {
    value: "ROLE",
    description:
      "the panel user's role: owner (everything), finance (payouts, refunds), developer (API keys, webhooks) or viewer (read only); default owner for the merchant's first user, viewer after",
    test: (v) => ["owner", "finance", "developer", "viewer"].includes(v),
    message: "--role must be owner, finance, developer or viewer"
  },
  "reset-2fa": {
    value: "yes|no",
    description: "also remove the user's second factor and recovery codes (a lost phone)",
    test: (v) => v === "yes" || v === "no",
    message: "--reset-2fa must be yes or no"
  },
  before: {
    value: "AUDIT_ID",
    description: "only entries older than this one (the `next` of the previous page)"
  },
  "paid-at": {
    value: "YYYY-MM-DD|TIME",
    description:
      "when the sandbox's payer pays: a day (noon in São Paulo) or an ISO 8601 time, not before the charge was created (default now); a due-date charge asks for what its terms give on that day"
  },
  "no-secret-header": {
    value: "",
    switch: true,
    description:
      "deliveries leave the secret out of X-Pixgate-Signature: receivers check the Standard Webhooks webhook-signature alone (without it, the header is sent, the spec's scheme)"
  },
  overlap: {
    value: "SECONDS",
    description: "seconds the replaced signing key keeps signing too (default 86400, at most 604800)",
    test: (v) => /^\d{1,9}$/.test(v),
    message: "--overlap must be a whole number of seconds"
  },
  email: { value: "EMAIL", description: "the e-mail address the person signs in to the panel with" },
  panel: {
    value: "URL",
    description: "the panel's address, for the link (default http://127.0.0.1:3000/panel)"
  },
  ...moneyFlags,
  ...refundFlags,
  ...listenFlags
}

// `--plan` holds the fee plan: its problems are named after the flag.
const planSchema = Schema.Struct({ plan: Requests.feePlan("plan") }).annotations({
  [Requests.FirstProblemOnlyId]: true
})

/** What each positional argument is. */
const argumentHelp: Readonly<Record<string, string>> = {
  KEY_ID: "the API key's public id (key_...), as key list shows it",
  EVENT_ID: "the event's id (evt_...), as webhook log shows it",
  TX_ID: "the test-mode transaction's id (tx_...)",
  EVENT: `the event to produce: ${triggerable.join(", ")}`
}

/** Every panel command by its words. */
export const commands: Readonly<Record<string, Command>> = {
  "merchant create": command({
    summary: "Creates a merchant; prints its id and its test and live API keys (shown only once).",
    examples: [
      'pixgate merchant create --name "Padaria Pao Quente" --json > merchant.json',
      'pixgate merchant create --name "Loja" --city "RIO DE JANEIRO"'
    ],
    usage: "merchant create --name NAME [--city CITY]",
    required: ["name"],
    optional: ["city"],
    run: (admin, f) => admin.createMerchant({ name: f.name, city: f.city })
  }),
  "key create": command({
    summary: "Creates another API key for a merchant; prints the key (shown only once).",
    examples: ["pixgate key create --merchant mer_... --mode live"],
    usage: "key create --merchant ID --mode test|live",
    required: ["merchant", "mode"],
    run: (admin, f) => admin.createKey(f.merchant, f.mode as Mode)
  }),
  "key revoke": command({
    summary: "Revokes an API key by its id (key_...); requests with it get 401 at once.",
    examples: ["pixgate key revoke key_..."],
    usage: "key revoke KEY_ID",
    required: [],
    args: ["KEY_ID"],
    run: (admin, _, [id]) => admin.revokeKey(id)
  }),
  "key list": command({
    summary: "Lists a merchant's API keys: id, mode, hint and state (never the key itself).",
    examples: ["pixgate key list --merchant mer_..."],
    usage: "key list --merchant ID",
    required: ["merchant"],
    run: (admin, f) => admin.listKeys(f.merchant)
  }),
  "webhook set": command({
    summary:
      "Sets the URL and secret of a merchant's webhook endpoint for one mode (with --no-secret-header, deliveries leave the secret out of X-Pixgate-Signature); the first time, prints its signing key (shown only once).",
    examples: [
      "pixgate webhook set --merchant mer_... --mode test --url http://127.0.0.1:4000/webhooks --secret - < webhook-secret.txt",
      "PIXGATE_WEBHOOK_SECRET=... pixgate webhook set --merchant mer_... --mode live --url https://shop.example/webhooks",
      "PIXGATE_WEBHOOK_SECRET=... pixgate webhook set --merchant mer_... --mode live --url https://shop.example/webhooks --no-secret-header"
    ],
    usage: "webhook set --merchant ID --mode test|live --url URL --secret SECRET|-",
    required: ["merchant", "mode", "url", "secret"],
    optional: ["no-secret-header"],
    run: (admin, f) =>
      admin.setWebhook({
        merchantId: f.merchant,
        mode: f.mode as Mode,
        url: f.url,
        secret: f.secret,
        secretHeader: f["no-secret-header"] === undefined
      })
  }),
  "webhook rotate-signing-key": command({
    summary:
      "Replaces the signing key of an endpoint; prints the new key (shown only once). The old one signs too for the overlap.",
    examples: ["pixgate webhook rotate-signing-key --merchant mer_... --mode live --overlap 3600"],
    usage: "webhook rotate-signing-key --merchant ID --mode test|live [--overlap SECONDS]",
    required: ["merchant", "mode"],
    optional: ["overlap"],
    run: (admin, f) =>
      admin.rotateSigningKey({
        merchantId: f.merchant,
        mode: f.mode as Mode,
        ...(f.overlap === undefined ? {} : { overlapSeconds: Number(f.overlap) })
      })
  }),
  "webhook status": command({
    summary:
      "Shows each endpoint of a merchant: healthy or failing, failures in a row, deliveries pending, attempts in flight.",
    examples: ["pixgate webhook status --merchant mer_..."],
    usage: "webhook status --merchant ID",
    required: ["merchant"],
    run: (admin, f) => admin.webhookStatus(f.merchant)
  }),
  "webhook log": command({
    summary: "Shows a merchant's webhook deliveries, newest first, with each attempt.",
    examples: ["pixgate webhook log --merchant mer_... --status failed --limit 20"],
    usage: "webhook log --merchant ID [--mode test|live] [--status pending|delivered|failed] [--limit N]",
    required: ["merchant"],
    optional: ["mode", "status", "limit"],
    run: (admin, f) =>
      admin.webhookLog({
        merchantId: f.merchant,
        ...(f.mode === undefined ? {} : { mode: f.mode as Mode }),
        ...(f.status === undefined ? {} : { status: f.status as DeliveryStatus }),
        ...(f.limit === undefined ? {} : { limit: Number(f.limit) })
      })
  }),
  "webhook redeliver": command({
    summary: "Sends an event again (a new delivery of the same event id to the current endpoint).",
    examples: ["pixgate webhook redeliver evt_..."],
    usage: "webhook redeliver EVENT_ID",
    required: [],
    args: ["EVENT_ID"],
    run: (admin, _, [id]) => admin.redeliver(id)
  }),
  balance: command({
    summary: "Shows a merchant's available and held balance in one mode.",
    examples: ["pixgate balance --merchant mer_... --mode test"],
    usage: "balance --merchant ID --mode test|live",
    required: ["merchant", "mode"],
    run: (admin, f) => admin.balance(f.merchant, f.mode as Mode)
  }),
  "fee-plan set": command({
    summary: "Sets a merchant's fee plan (rates in parts per million, fixed fees in centavos).",
    examples: [
      'pixgate fee-plan set --merchant mer_... --plan \'{"charge":{"gatewayRate":2500,"marginRate":7400,"gatewayFixed":0,"marginFixed":0},"payout":{"gatewayRate":0,"marginRate":0,"gatewayFixed":10,"marginFixed":30}}\''
    ],
    usage: 'fee-plan set --merchant ID --plan \'{"charge":{...},"payout":{...}}\'',
    required: ["merchant", "plan"],
    run: (admin, f) =>
      Effect.flatMap(decode(planSchema)({ plan: JSON.parse(f.plan) }), ({ plan }) =>
        admin.setFeePlan(f.merchant, plan)
      )
  }),
  "user invite": command({
    summary:
      "Invites a person to a merchant's panel with a role: prints a one-time link (7 days) to set the password.",
    examples: [
      "pixgate user invite --merchant mer_... --email ana@example.com --panel https://pay.example.com/panel",
      "pixgate user invite --merchant mer_... --email bia@example.com --role finance"
    ],
    usage: "user invite --merchant ID --email EMAIL [--role owner|finance|developer|viewer] [--panel URL]",
    required: ["merchant", "email"],
    optional: ["role", "panel"],
    run: (admin, f) =>
      Effect.map(
        Effect.flatMap(
          decode(Requests.InvitePanelUser)({
            email: f.email,
            ...(f.role === undefined ? {} : { role: f.role })
          }),
          (invite) => admin.inviteUser(f.merchant, invite)
        ),
        ({ token: _, path, ...invite }) => ({
          ...invite,
          link: `${(f.panel ?? "http://127.0.0.1:3000/panel").replace(/\/+$/, "")}${path}`
        })
      )
  }),
  "user reset-link": command({
    summary:
      "Issues a one-time password reset link (1 hour) for a panel user; using it signs the user out everywhere.",
    examples: [
      "pixgate user reset-link --merchant mer_... --email ana@example.com --panel https://pay.example.com/panel",
      "pixgate user reset-link --merchant mer_... --email ana@example.com --reset-2fa yes"
    ],
    usage: "user reset-link --merchant ID --email EMAIL [--reset-2fa yes] [--panel URL]",
    required: ["merchant", "email"],
    optional: ["reset-2fa", "panel"],
    run: (admin, f) =>
      Effect.map(
        Effect.flatMap(
          decode(Requests.PanelResetLink)({
            email: f.email,
            ...(f["reset-2fa"] === undefined ? {} : { resetSecondFactor: f["reset-2fa"] === "yes" })
          }),
          (input) => admin.resetLink(f.merchant, input)
        ),
        ({ token: _, path, ...link }) => ({
          ...link,
          link: `${(f.panel ?? "http://127.0.0.1:3000/panel").replace(/\/+$/, "")}${path}`
        })
      )
  }),
  "audit list": command({
    summary: "Prints a page of a merchant's panel audit log, newest first.",
    examples: ["pixgate audit list --merchant mer_... --limit 100"],
    usage: "audit list --merchant ID [--limit N] [--before AUDIT_ID]",
    required: ["merchant"],
    optional: ["limit", "before"],
    run: (admin, f) =>
      Effect.flatMap(
        decode(Requests.AuditQuery)({
          ...(f.limit === undefined ? {} : { limit: f.limit }),
          ...(f.before === undefined ? {} : { before: f.before })
        }),
        (query) => admin.auditLog(f.merchant, query)
      )
  }),
  "sandbox topup": command({
    summary: "Adds sandbox (test-mode) money to a merchant's balance.",
    examples: ["pixgate sandbox topup --merchant mer_... --amount 100"],
    usage: "sandbox topup --merchant ID --amount N",
    required: ["merchant", "amount"],
    run: (admin, f) =>
      Effect.flatMap(decode(Requests.TopUp)({ amount: amountOf(f.amount) }), (topUp) =>
        admin.topUp(f.merchant, topUp)
      )
  }),
  "sandbox pay": command({
    summary:
      "Pays a pending test-mode charge now instead of after 2-3 s, or as on another day (a due-date charge then asks for that day's amount).",
    examples: [
      "pixgate sandbox pay tx_...",
      "pixgate sandbox pay tx_... --paid-at 2027-03-13",
      "pixgate sandbox pay tx_... --paid-at 2027-03-10 --amount 95.00"
    ],
    usage: "sandbox pay TX_ID [--paid-at YYYY-MM-DD|TIME] [--amount N]",
    required: [],
    optional: ["paid-at", "amount"],
    args: ["TX_ID"],
    flags: {
      amount: {
        value: "N",
        description:
          "what the payer sends, in reais (default: what the charge asks for on that day); another amount is recorded and returned, not credited"
      }
    },
    run: (a, f, [id]) =>
      Effect.flatMap(
        decode(Requests.SandboxPay)({
          paidAt: f["paid-at"],
          amount: f.amount
        }),
        (pay) => a.sandboxPayCharge(id, pay)
      )
  }),
  "sandbox settle": command({
    summary: "Completes a pending test-mode payout now.",
    examples: ["pixgate sandbox settle tx_..."],
    usage: "sandbox settle TX_ID",
    required: [],
    args: ["TX_ID"],
    run: (a, _, [id]) => a.sandboxSettlePayout(id)
  }),
  "sandbox fail": command({
    summary: "Fails a pending test-mode payout now (the amount and fee return to the balance).",
    examples: ["pixgate sandbox fail tx_..."],
    usage: "sandbox fail TX_ID",
    required: [],
    args: ["TX_ID"],
    run: (a, _, [id]) => a.sandboxFailPayout(id)
  }),
  ...moneyCommands,
  ...refundCommands,
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
    ["PIXGATE_ADMIN_TOKEN", "enables the admin API under /admin with this bearer token"],
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
    ["PIXGATE_LIVE_BASE_URL", "the live bank's API Pix; with the other PIXGATE_LIVE_* (docs/going-live.md)"],
    ["PIXGATE_METRICS", "1: Prometheus text at /metrics behind the admin token (docs/operations.md)"],
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
  summary: "Registers URL/bank/callbacks/<secret> as the live PSP's webhook (PIXGATE_LIVE_*).",
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
    "print compact JSON on one line instead of the readable output (indented JSON or a table) (optional)"
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
  const flag = command.flags?.[name] ?? flags[name]
  if (flag.switch)
    return Options.boolean(name).pipe(
      Options.withDescription(`${flag.description} ${need(flag, false)}`),
      Options.map((given) => (given ? "yes" : undefined))
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
      "Panel commands act on the database PIXGATE_DATABASE names (default sqlite:./data/pixgate.db) " +
        "and print JSON (compact, on one line, with --json). Errors are one line on stderr; the exit " +
        "code is 2 for a usage error, 1 for a failed operation."
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
    const env = flags[f]?.secretEnv
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
