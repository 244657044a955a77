/**
 * What the live gateway needs to reach a PSP: its API's base URL, the OAuth2 client
 * credentials, the mTLS client certificate (PEM cert + key, or PKCS#12 + passphrase), an
 * optional CA, and the settlement account's PIX key. Secrets are `Redacted`: they never show in
 * logs or errors.
 */
import { Redacted } from "effect"

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
    "pix.send"
  ]
} as const

/** The API Pix path prefix of the settings, without a trailing slash. */
export const apiPixPath = (settings: ApiPixSettings): string =>
  (settings.apiPixPath ?? "/v2").replace(/\/+$/, "")

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
  unknownChargeWindowMs: "PIXGATE_LIVE_UNKNOWN_CHARGE_WINDOW_MS"
} as const

/** Live settings read from the environment, with the callback route's secret. */
export interface EnvSettings {
  readonly settings: ApiPixSettings
  readonly callbackSecret: string
}

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
  const get = (name: string) => {
    const value = env[name]
    return value === undefined || value === "" ? undefined : value
  }
  const baseUrl = get(envNames.baseUrl)
  if (baseUrl === undefined) return undefined
  const need = (name: string) => {
    const value = get(name)
    if (value === undefined) throw new Error(`${name} is required when ${envNames.baseUrl} is set`)
    return value
  }
  const millis = (name: string) => {
    const value = get(name)
    if (value === undefined) return undefined
    if (!/^\d+$/.test(value) || Number(value) < 1) throw new Error(`${name} must be a positive integer (ms)`)
    return Number(value)
  }
  const callbackSecret = need(envNames.callbackSecret)
  if (callbackSecret.length < 32) throw new Error(`${envNames.callbackSecret} must be at least 32 characters`)
  // A file a variable names, or an error naming the variable.
  const file = (name: string, path: string) => {
    try {
      return readFile(path)
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      throw new Error(`${name}: cannot read ${path}${code === undefined ? "" : ` (${code})`}`)
    }
  }
  const pfx = get(envNames.pfxFile)
  if (pfx !== undefined && (get(envNames.certFile) !== undefined || get(envNames.keyFile) !== undefined))
    throw new Error(
      `${envNames.pfxFile} and ${envNames.certFile}/${envNames.keyFile} are both set: ` +
        "give the client certificate one way, PEM or PKCS#12"
    )
  const certificate =
    pfx === undefined
      ? pem(file(envNames.certFile, need(envNames.certFile)), file(envNames.keyFile, need(envNames.keyFile)))
      : pkcs12(file(envNames.pfxFile, pfx), get(envNames.pfxPassphrase) ?? "")
  const caFile = get(envNames.caFile)
  const apiPath = get(envNames.apiPixPath)
  const reconcileIntervalMs = millis(envNames.reconcileIntervalMs)
  const pollDelayMs = millis(envNames.pollDelayMs)
  const budget = get(envNames.sendBudgetMs)
  if (budget !== undefined && !/^\d+$/.test(budget))
    throw new Error(`${envNames.sendBudgetMs} must be a whole number of milliseconds (0 turns it off)`)
  const sendBudgetMs = budget === undefined ? undefined : Number(budget)
  const timeoutMs = millis(envNames.timeoutMs)
  const connectTimeoutMs = millis(envNames.connectTimeoutMs)
  const unknownChargeWindowMs = millis(envNames.unknownChargeWindowMs)
  return {
    callbackSecret,
    settings: {
      baseUrl,
      clientId: need(envNames.clientId),
      clientSecret: Redacted.make(need(envNames.clientSecret)),
      scopes: defaults.scopes,
      certificate,
      pixKey: need(envNames.pixKey),
      ...(caFile === undefined ? {} : { ca: file(envNames.caFile, caFile) }),
      ...(apiPath === undefined ? {} : { apiPixPath: apiPath }),
      ...(reconcileIntervalMs === undefined ? {} : { reconcileIntervalMs }),
      ...(pollDelayMs === undefined ? {} : { pollDelayMs }),
      ...(sendBudgetMs === undefined ? {} : { sendBudgetMs }),
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
      ...(connectTimeoutMs === undefined ? {} : { connectTimeoutMs }),
      ...(unknownChargeWindowMs === undefined ? {} : { unknownChargeWindowMs })
    }
  }
}
