/**
 * What the live gateway needs to reach a PSP: its API's base URL, the OAuth2 client
 * credentials, the mTLS client certificate (PEM cert + key, or PKCS#12 + passphrase), an
 * optional CA, and the settlement account's PIX key. Secrets are `Redacted`: they never show in
 * logs or errors.
 */
import { GatewayPlugin } from "@pixgate/core"
import { Effect, ParseResult, Redacted, Schema } from "effect"
import { type RecebedorAccount, recurringScopes } from "./standard/RecurringSettings.js"

export { type RecebedorAccount, recurringScopes } from "./standard/RecurringSettings.js"

/** The client certificate presented on every call (mTLS). */
export type ClientCertificate =
  | { readonly _tag: "Pem"; readonly cert: string | Buffer; readonly key: Redacted.Redacted<string | Buffer> }
  | {
      readonly _tag: "Pkcs12"
      readonly pfx: Buffer
      readonly passphrase: Redacted.Redacted<string>
    }

/** Settings of one PSP connection. */
export interface ApiPixSettings {
  /** The API's base URL, e.g. `https://pix.example-bank.com.br` (no trailing slash needed). */
  readonly baseUrl: string
  readonly clientId: string
  readonly clientSecret: Redacted.Redacted<string>
  /** OAuth2 scopes asked for (space-separated in the request). */
  readonly scopes: ReadonlyArray<string>
  readonly certificate: ClientCertificate
  /** CAs that sign the PSP's server certificate (PEM); Node's default roots when absent. */
  readonly ca?: string | Buffer
  /** Where the API Pix routes live under the base URL (default `/v2`, as most PSPs serve them). */
  readonly apiPixPath?: string
  /** The settlement account's PIX key: `chave` of every charge, payer of every send. */
  readonly pixKey: string
  /**
   * Deadline of one call (ms), on the whole exchange: connecting, the token it needs, the
   * request, the answer and its body, and any wait a 429's `Retry-After` asks for. Default 10 s.
   */
  readonly timeoutMs?: number
  /** A new connection (TCP and TLS handshake) must be up within this (ms). Default 5 s. */
  readonly connectTimeoutMs?: number
  /**
   * How long a charge whose creation had an unknown outcome waits for its client's retry (same
   * Idempotency-Key) before its cob, if the bank has one, is removed (ms). Default 15 min.
   */
  readonly unknownChargeWindowMs?: number
  /** A token is renewed this long before it expires (ms). Default 60 s. */
  readonly tokenMarginMs?: number
  /** Wait before asking again about a send not final yet (ms). Default 5 s. */
  readonly pollDelayMs?: number
  /**
   * How long a payout's creation waits for its send's first answer, to give the bank's
   * end-to-end id in its 201 (ms; `BankGateway.PixSender.inlineBudget`). Default 3 s; 0: never.
   */
  readonly sendBudgetMs?: number
  /** Reconciliation interval (ms). Default 5 min. */
  readonly reconcileIntervalMs?: number
  /** How far back reconciliation reads received PIX (ms). Default 2 h. */
  readonly reconcileWindowMs?: number
  /**
   * Pix Automático: the receiver's account the bank debits cycles into (`cobr.recebedor`:
   * `conta`, `tipoConta` CORRENTE, POUPANCA or PAGAMENTO, `agencia`). Without it, cycle charges
   * are refused by the gateway with a clear message.
   */
  readonly recebedor?: RecebedorAccount
  /**
   * Pix Automático: the engine's callback URL (`.../bank/callbacks/<secret>`) registered as
   * `/webhookrec` and `/webhookcobr` when the gateway starts (the bank posts to `<url>/rec` and
   * `<url>/cobr`). Without it, `pixgate gateway webhook register` registers them.
   */
  readonly recurringWebhookUrl?: string
}

/** The defaults of the optional settings. */
export const defaults = {
  timeoutMs: 10_000,
  connectTimeoutMs: 5_000,
  unknownChargeWindowMs: 15 * 60_000,
  tokenMarginMs: 60_000,
  pollDelayMs: 5_000,
  sendBudgetMs: 3_000,
  reconcileIntervalMs: 5 * 60_000,
  reconcileWindowMs: 2 * 60 * 60_000,
  scopes: [
    "cob.write",
    "cob.read",
    "cobv.write",
    "cobv.read",
    "pix.write",
    "pix.read",
    "webhook.write",
    "webhook.read",
    "gn.pix.send.read",
    "pix.send",
    "gn.infractions.read",
    "gn.infractions.write"
  ]
} as const

/** PEM certificate and key. */
export const pem = (cert: string | Buffer, key: string | Buffer): ClientCertificate => ({
  _tag: "Pem",
  cert,
  key: Redacted.make(key)
})

/** A PKCS#12 file and its passphrase. */
export const pkcs12 = (pfx: Buffer, passphrase: string): ClientCertificate => ({
  _tag: "Pkcs12",
  pfx,
  passphrase: Redacted.make(passphrase)
})

/** The environment variables `fromEnv` reads. */
export const envNames = {
  baseUrl: "PIXGATE_LIVE_BASE_URL",
  clientId: "PIXGATE_LIVE_CLIENT_ID",
  clientSecret: "PIXGATE_LIVE_CLIENT_SECRET",
  certFile: "PIXGATE_LIVE_CERT_FILE",
  keyFile: "PIXGATE_LIVE_KEY_FILE",
  pfxFile: "PIXGATE_LIVE_PFX_FILE",
  pfxPassphrase: "PIXGATE_LIVE_PFX_PASSPHRASE",
  caFile: "PIXGATE_LIVE_CA_FILE",
  pixKey: "PIXGATE_LIVE_PIX_KEY",
  callbackSecret: "PIXGATE_LIVE_CALLBACK_SECRET",
  apiPixPath: "PIXGATE_LIVE_API_PIX_PATH",
  reconcileIntervalMs: "PIXGATE_LIVE_RECONCILE_INTERVAL_MS",
  pollDelayMs: "PIXGATE_LIVE_POLL_MS",
  sendBudgetMs: "PIXGATE_LIVE_SEND_BUDGET_MS",
  timeoutMs: "PIXGATE_LIVE_TIMEOUT_MS",
  connectTimeoutMs: "PIXGATE_LIVE_CONNECT_TIMEOUT_MS",
  unknownChargeWindowMs: "PIXGATE_LIVE_UNKNOWN_CHARGE_WINDOW_MS",
  recebedorConta: "PIXGATE_LIVE_RECEBEDOR_CONTA",
  recebedorTipoConta: "PIXGATE_LIVE_RECEBEDOR_TIPO_CONTA",
  recebedorAgencia: "PIXGATE_LIVE_RECEBEDOR_AGENCIA",
  recurringWebhookUrl: "PIXGATE_LIVE_RECURRING_WEBHOOK_URL"
} as const

/** Live settings read from the environment, with the callback route's secret. */
export interface EnvSettings {
  readonly settings: ApiPixSettings
  readonly callbackSecret: string
}

/** A file's bytes as the TLS options take them. */
const bytes = (data: Uint8Array): Buffer => Buffer.from(data.buffer, data.byteOffset, data.byteLength)

/** A required variable: its message when unset says what turned live mode on. */
const required = <A>(schema: Schema.Schema<A, string>, name: string, prefix: string, description: string) =>
  Schema.propertySignature(schema).annotations({
    description,
    missingMessage: () => `${name} is required when ${prefix}BASE_URL is set`
  })

/** A positive whole number of milliseconds. */
const millis = (name: string, description: string) =>
  Schema.optional(
    Schema.transformOrFail(Schema.String, Schema.Number, {
      strict: true,
      decode: (text, _, ast) =>
        /^\d+$/.test(text) && Number(text) >= 1
          ? ParseResult.succeed(Number(text))
          : ParseResult.fail(new ParseResult.Type(ast, text, `${name} must be a positive integer (ms)`)),
      encode: (n) => ParseResult.succeed(String(n))
    })
  ).annotations({ description })

/** A file's contents, read through `SettingsFiles` from the path the variable gives. */
const file = (name: string, description: string) =>
  Schema.optional(
    Schema.transformOrFail(Schema.String, Schema.Uint8ArrayFromSelf, {
      strict: true,
      decode: (path, _, ast) =>
        Effect.flatMap(GatewayPlugin.SettingsFiles, (files) => files.read(path)).pipe(
          Effect.mapError(
            (e) =>
              new ParseResult.Type(
                ast,
                path,
                `${name}: cannot read ${path}${e.code === undefined ? "" : ` (${e.code})`}`
              )
          )
        ),
      encode: (data, _, ast) =>
        ParseResult.fail(new ParseResult.Forbidden(ast, data, "a file's contents have no variable"))
    })
  ).annotations({ description })

/** The variables under `prefix`, field by field (their names without the prefix). */
const fields = (prefix: string) => {
  const n = (suffix: string) => `${prefix}${suffix}`
  return Schema.Struct({
    BASE_URL: Schema.propertySignature(Schema.String).annotations({
      description: "The PSP's API, e.g. https://pix.example-bank.com.br"
    }),
    CLIENT_ID: required(
      Schema.String,
      n("CLIENT_ID"),
      prefix,
      "OAuth2 client id (client credentials, Basic auth)"
    ),
    CLIENT_SECRET: required(
      Schema.Redacted(Schema.String),
      n("CLIENT_SECRET"),
      prefix,
      "OAuth2 client secret"
    ),
    CERT_FILE: file(
      n("CERT_FILE"),
      `The mTLS client certificate (PEM) the PSP issued, presented on every call; required unless ${n("PFX_FILE")}`
    ),
    KEY_FILE: file(
      n("KEY_FILE"),
      `The client certificate's private key (PEM); required with ${n("CERT_FILE")}`
    ),
    PFX_FILE: file(n("PFX_FILE"), "Instead of the PEM pair: a PKCS#12 file"),
    PFX_PASSPHRASE: Schema.optional(Schema.Redacted(Schema.String)).annotations({
      description: "The PKCS#12 file's passphrase"
    }),
    CA_FILE: file(n("CA_FILE"), "CA of the PSP's server certificate, when it is not in Node's roots"),
    PIX_KEY: required(
      Schema.String,
      n("PIX_KEY"),
      prefix,
      "The settlement account's PIX key: chave of every charge, payer of every send"
    ),
    API_PIX_PATH: Schema.optional(Schema.String).annotations({
      description: "Where the API Pix lives under the base URL (default /v2)"
    }),
    RECONCILE_INTERVAL_MS: millis(n("RECONCILE_INTERVAL_MS"), "Reconciliation interval (default 5 min)"),
    POLL_MS: millis(n("POLL_MS"), "Wait between asks about a send or refund not final yet (default 5 s)"),
    SEND_BUDGET_MS: Schema.optional(
      Schema.transformOrFail(Schema.String, Schema.Number, {
        strict: true,
        decode: (text, _, ast) =>
          /^\d+$/.test(text)
            ? ParseResult.succeed(Number(text))
            : ParseResult.fail(
                new ParseResult.Type(
                  ast,
                  text,
                  `${n("SEND_BUDGET_MS")} must be a whole number of milliseconds (0 turns it off)`
                )
              ),
        encode: (ms) => ParseResult.succeed(String(ms))
      })
    ).annotations({
      description:
        "How long a payout's creation waits for the bank's answer to its send (default 3000; 0: never)"
    }),
    TIMEOUT_MS: millis(n("TIMEOUT_MS"), "Deadline of each PSP call on the whole exchange (default 10 s)"),
    CONNECT_TIMEOUT_MS: millis(
      n("CONNECT_TIMEOUT_MS"),
      "A new connection to the PSP (TCP and TLS handshake) must be up within this (default 5 s)"
    ),
    UNKNOWN_CHARGE_WINDOW_MS: millis(
      n("UNKNOWN_CHARGE_WINDOW_MS"),
      "How long a charge with an unknown outcome waits for its same-key retry (default 15 min)"
    ),
    RECEBEDOR_CONTA: Schema.optional(Schema.String.pipe(Schema.maxLength(20))).annotations({
      description:
        "Pix Automático: the account cycles are paid into (cobr.recebedor.conta); turns recurring on"
    }),
    RECEBEDOR_TIPO_CONTA: Schema.optional(Schema.Literal("CORRENTE", "POUPANCA", "PAGAMENTO")).annotations({
      description: "Pix Automático: that account's tipoConta (default CORRENTE)"
    }),
    RECEBEDOR_AGENCIA: Schema.optional(Schema.String.pipe(Schema.maxLength(4))).annotations({
      description: "Pix Automático: that account's agencia"
    }),
    RECURRING_WEBHOOK_URL: Schema.optional(Schema.String).annotations({
      description: "Pix Automático: the callback URL registered as /webhookrec and /webhookcobr at start-up"
    })
  })
}

type Fields = Schema.Schema.Type<ReturnType<typeof fields>>

/** The client certificate the variables give: a PEM pair or a PKCS#12 file, never both. */
const certificateOf = (v: Fields, prefix: string): ClientCertificate | string => {
  const n = (suffix: string) => `${prefix}${suffix}`
  if (v.PFX_FILE !== undefined) {
    if (v.CERT_FILE !== undefined || v.KEY_FILE !== undefined)
      return (
        `${n("PFX_FILE")} and ${n("CERT_FILE")}/${n("KEY_FILE")} are both set: ` +
        "give the client certificate one way, PEM or PKCS#12"
      )
    return { _tag: "Pkcs12", pfx: bytes(v.PFX_FILE), passphrase: v.PFX_PASSPHRASE ?? Redacted.make("") }
  }
  if (v.CERT_FILE === undefined) return `${n("CERT_FILE")} is required when ${n("BASE_URL")} is set`
  if (v.KEY_FILE === undefined) return `${n("KEY_FILE")} is required when ${n("BASE_URL")} is set`
  return pem(bytes(v.CERT_FILE), bytes(v.KEY_FILE))
}

/** Settings from the variables' fields; the scopes are the profile's (Efí's by default). */
const settingsOf = (v: Fields, certificate: ClientCertificate): ApiPixSettings => {
  const optional = {
    ca: v.CA_FILE === undefined ? undefined : bytes(v.CA_FILE),
    apiPixPath: v.API_PIX_PATH,
    reconcileIntervalMs: v.RECONCILE_INTERVAL_MS,
    pollDelayMs: v.POLL_MS,
    sendBudgetMs: v.SEND_BUDGET_MS,
    timeoutMs: v.TIMEOUT_MS,
    connectTimeoutMs: v.CONNECT_TIMEOUT_MS,
    unknownChargeWindowMs: v.UNKNOWN_CHARGE_WINDOW_MS,
    recebedor:
      v.RECEBEDOR_CONTA === undefined
        ? undefined
        : {
            conta: v.RECEBEDOR_CONTA,
            tipoConta: v.RECEBEDOR_TIPO_CONTA ?? "CORRENTE",
            ...(v.RECEBEDOR_AGENCIA === undefined ? {} : { agencia: v.RECEBEDOR_AGENCIA })
          },
    recurringWebhookUrl: v.RECURRING_WEBHOOK_URL
  }
  return {
    baseUrl: v.BASE_URL,
    clientId: v.CLIENT_ID,
    clientSecret: v.CLIENT_SECRET,
    // Pix Automático's scopes only when it is turned on: a PSP without it may refuse them.
    scopes: v.RECEBEDOR_CONTA === undefined ? defaults.scopes : [...defaults.scopes, ...recurringScopes],
    certificate,
    pixKey: v.PIX_KEY,
    ...Object.fromEntries(Object.entries(optional).filter(([, value]) => value !== undefined))
  }
}

const isSettings = (u: unknown): u is ApiPixSettings =>
  typeof u === "object" && u !== null && "baseUrl" in u && "certificate" in u

/**
 * The live settings as variables under `prefix` (`PIXGATE_LIVE_` for `pixgate serve`), an
 * `effect/Schema` to `ApiPixSettings`: each variable checked for its form, the certificate files
 * read (through `GatewayPlugin.SettingsFiles`), each problem one line naming its variable. What
 * the files hold is checked by `Check.check`.
 */
export const schema = (
  prefix: string
): Schema.Schema<ApiPixSettings, GatewayPlugin.Variables, GatewayPlugin.SettingsFiles> =>
  GatewayPlugin.fromVariables(
    prefix,
    Schema.transformOrFail(fields(prefix), Schema.declare(isSettings), {
      strict: true,
      decode: (v, _, ast) => {
        const certificate = certificateOf(v, prefix)
        return typeof certificate === "string"
          ? ParseResult.fail(new ParseResult.Type(ast, v, certificate))
          : ParseResult.succeed(settingsOf(v, certificate))
      },
      encode: (settings, _, ast) =>
        ParseResult.fail(
          new ParseResult.Forbidden(ast, settings, "settings are not written back to variables")
        )
    })
  )

/**
 * Reads the live gateway from the environment (`envNames`): undefined when
 * `PIXGATE_LIVE_BASE_URL` is unset (live keys then answer 502); an Error naming what is
 * missing or wrong when it is set but incomplete (or names both a PEM pair and a PKCS#12 file).
 * `readFile` reads the certificate files; what they hold is checked by `Check.check`.
 */
export const fromEnv = (
  env: Readonly<Record<string, string | undefined>>,
  readFile: (path: string) => Buffer
): EnvSettings | undefined => {
  const get = (name: string) => (env[name] === "" ? undefined : env[name])
  if (get(envNames.baseUrl) === undefined) return undefined
  const callbackSecret = get(envNames.callbackSecret)
  if (callbackSecret === undefined)
    throw new Error(`${envNames.callbackSecret} is required when ${envNames.baseUrl} is set`)
  if (callbackSecret.length < 32) throw new Error(`${envNames.callbackSecret} must be at least 32 characters`)
  const files = GatewayPlugin.SettingsFiles.of({
    read: (path) =>
      Effect.try({
        try: () => readFile(path),
        catch: (error) => new GatewayPlugin.FileUnreadable({ path, ...codeOf(error) })
      })
  })
  const read = Effect.runSync(
    GatewayPlugin.decode("efi", schema(GatewayPlugin.defaultPrefix), env).pipe(
      Effect.provideService(GatewayPlugin.SettingsFiles, files),
      Effect.either
    )
  )
  if (read._tag === "Left") throw new Error(read.left.message)
  return { callbackSecret, settings: read.right }
}

/** A system error's code (`ENOENT`), when it has one. */
const codeOf = (error: unknown): { readonly code?: string } => {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined
  return typeof code === "string" ? { code } : {}
}
