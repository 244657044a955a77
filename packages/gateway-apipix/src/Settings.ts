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
  /** The settlement account's PIX key: `chave` of every charge, payer of every send. */
  readonly pixKey: string
  /** Time-out of one call (ms). Default 10 s. */
  readonly timeoutMs?: number
  /** A token is renewed this long before it expires (ms). Default 60 s. */
  readonly tokenMarginMs?: number
  /** Wait before asking again about a send not final yet (ms). Default 5 s. */
  readonly pollDelayMs?: number
  /** Reconciliation interval (ms). Default 5 min. */
  readonly reconcileIntervalMs?: number
  /** How far back reconciliation reads received PIX (ms). Default 2 h. */
  readonly reconcileWindowMs?: number
}

/** The defaults of the optional settings. */
export const defaults = {
  timeoutMs: 10_000,
  tokenMarginMs: 60_000,
  pollDelayMs: 5_000,
  reconcileIntervalMs: 5 * 60_000,
  reconcileWindowMs: 2 * 60 * 60_000,
  scopes: ["cob.write", "cob.read", "pix.write", "pix.read", "webhook.write", "webhook.read", "gn.pix.send.read", "pix.send"]
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
