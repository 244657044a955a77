/**
 * Who may call the admin API and `/metrics`: named admin tokens, each with one scope, and the
 * admin audit log. One pure table says what each scope may do:
 *
 * - `read-only`: every read of the admin API (merchants, keys' hints, balances, webhook status
 *   and log, the panel's and the admin audit log, refunds, the admin OpenAPI document), and
 *   `/metrics`.
 * - `operator`: what `read-only` may, plus the day-to-day actions that neither hand out access
 *   nor move real money: redeliver an event, send a test event, every sandbox action.
 * - `full`: everything: merchants, API keys, webhook endpoints and signing keys, fee plans,
 *   panel invites and reset links, refunds.
 * - `metrics`: `/metrics` only (a Prometheus scraper), nothing of the admin API.
 *
 * A token is `pxa_` + 43 random base62 characters (256 bits): the prefix lets secret scanners
 * and log masking recognise one. Only its SHA-256 is stored; the token is shown once.
 */
import * as Ids from "./Ids.js"
import * as Sha256 from "./Sha256.js"

/** The scopes, least to most (`metrics` stands apart: it reads `/metrics` only). */
export const adminScopes = ["read-only", "operator", "full", "metrics"] as const

/** One scope of an admin token. */
export type AdminScope = (typeof adminScopes)[number]

/** What an admin API operation needs: the least scope that may run it. */
export type AdminNeed = Exclude<AdminScope, "metrics">

/** Whether a value names a scope. */
export const isAdminScope = (u: unknown): u is AdminScope =>
  typeof u === "string" && (adminScopes as ReadonlyArray<string>).includes(u)

const rank: { readonly [S in AdminNeed]: number } = { "read-only": 1, operator: 2, full: 3 }

/** Whether a token of `scope` may run an admin API operation that needs `need`. */
export const allows = (scope: AdminScope, need: AdminNeed): boolean =>
  scope !== "metrics" && rank[scope] >= rank[need]

/** Whether a token of `scope` may read `/metrics`: every scope may. */
export const readsMetrics = (scope: AdminScope): boolean => isAdminScope(scope)

/** What every admin token starts with. */
export const tokenPrefix = "pxa_"

/** Random characters after the prefix: 43 base62 characters are 256 bits. */
const tokenLength = 43

/** A new admin token, from the CSPRNG. */
export const newAdminToken = (): string => `${tokenPrefix}${Ids.secretBase62(tokenLength)}`

/** The stored form of a token: SHA-256, hex. */
export const hashAdminToken = (token: string): string => Sha256.hex(token)

/** The last four characters, to tell tokens apart in a list without showing them. */
export const hintOf = (token: string): string => token.slice(-4)

/** The name `PIXGATE_ADMIN_TOKEN` goes by: no stored token may take it. */
export const environmentTokenName = "env"

/** The actor of changes made with the CLI (which holds the database, not a token). */
export const cliActor = "cli"

/** Names: 1-64 characters, letters, digits, `.`, `_`, `-`, starting with a letter or digit. */
export const isTokenName = (name: string): boolean => /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(name)

/** A stored admin token (never the token itself). */
export interface AdminToken {
  /** `atk_...`. */
  readonly id: string
  /** Unique among the tokens not revoked. */
  readonly name: string
  readonly scope: AdminScope
  /** SHA-256 of the token, hex. */
  readonly hash: string
  /** The token's last four characters. */
  readonly hint: string
  readonly createdAt: number
  readonly revokedAt: number | null
  /** When it last authenticated a request (written at most once a minute). */
  readonly lastUsedAt: number | null
}

/** Whether an admin token id has the `atk_` form. */
export const isAdminTokenId = (u: unknown): u is string =>
  typeof u === "string" && /^atk_[0-9A-Z]{26}$/.test(u)

/** One entry of the admin audit log: a write through the admin API, or a token change by the CLI. */
export interface AdminAuditEntry {
  /** `aad_...`, sorting by time. */
  readonly id: string
  readonly at: number
  /** The token's name (`env` for `PIXGATE_ADMIN_TOKEN`), or `cli`. */
  readonly actor: string
  /** The stored token's id; null for `env` and `cli`. */
  readonly tokenId: string | null
  /** The admin API operation (`createMerchant`, ...), or `admin-token.create` / `admin-token.revoke`. */
  readonly operation: string
  /** The HTTP method and path (secrets masked), null for the CLI. */
  readonly method: string | null
  readonly path: string | null
  /** The status answered (a refusal too: 403 when the scope did not allow it); null for the CLI. */
  readonly status: number | null
  /** The object changed, when one is named (a token's id for the CLI's changes). */
  readonly objectId: string | null
}
