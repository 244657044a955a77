/**
 * The audit log of a merchant's panel: who (user id and e-mail, or "operator"), when, what (an
 * action and the object's id) and from where (address and browser) for every sensitive action:
 * sign-in success and failure, second-factor enrolment and removal, payouts, refunds, answers to MED infractions, API keys,
 * webhook changes, role changes, session revocation, password resets. Append only; listed newest
 * first by pages; exported as CSV.
 */
import { Effect } from "effect"
import type { AuditEntry, MerchantId } from "../domain/Domain.js"
import * as Ids from "../domain/Ids.js"
import { PanelStore, type StoreError } from "../ports/Store.js"

/** The actions the engine and the panel record. */
export type AuditAction =
  | "signin.success"
  | "signin.failure"
  | "signin.throttled"
  | "2fa.enrol"
  | "2fa.disable"
  | "2fa.failure"
  | "payout.create"
  | "refund.create"
  | "infraction.answer"
  | "charge.create"
  | "key.create"
  | "key.revoke"
  | "webhook.set"
  | "webhook.delete"
  | "webhook.rotate"
  | "webhook.redeliver"
  | "webhook.secret-reveal"
  | "role.change"
  | "user.invite"
  | "session.revoke"
  | "password.reset-link"
  | "password.set"
  | "user.remove"
  | "password.reset-request"
  | "subscription.cancel"
  | "subscription.retry"

/** Who acted and from where. */
export interface Actor {
  readonly userId: string | null
  /** E-mail, or "operator" for the CLI and admin API. */
  readonly actor: string
  readonly address: string | null
  readonly userAgent: string | null
}

/** Where a request comes from: the client's address (per the trusted proxies) and browser. */
export interface Client {
  readonly address: string | null
  readonly userAgent: string | null
}

/** The actor of a panel user acting from `client`. */
export const actorOf = (user: { readonly id: string; readonly email: string }, client: Client): Actor => ({
  userId: user.id,
  actor: user.email,
  address: client.address,
  userAgent: client.userAgent
})

/** The operator (CLI or admin API). */
export const operator: Actor = { userId: null, actor: "operator", address: null, userAgent: null }

/** Largest page of `list`. */
export const maxPage = 500

/** Appends an entry now. */
export const record = (
  merchantId: MerchantId,
  who: Actor,
  action: AuditAction,
  objectId: string | null = null,
  detail: string | null = null
): Effect.Effect<AuditEntry, StoreError, PanelStore> =>
  Effect.gen(function* () {
    const store = yield* PanelStore
    const at = yield* Effect.clockWith((c) => c.currentTimeMillis)
    const entry: AuditEntry = {
      id: Ids.newId("aud", at),
      merchantId,
      at,
      userId: who.userId,
      actor: who.actor,
      action,
      objectId,
      address: who.address,
      userAgent: who.userAgent === null ? null : who.userAgent.slice(0, 256),
      detail: detail === null ? null : detail.slice(0, 500)
    }
    yield* store.appendAudit(entry)
    return entry
  })

/** A page of a merchant's entries, newest first: `limit` (1..500) entries older than `before`. */
export const list = (
  merchantId: MerchantId,
  page: { readonly before?: string | undefined; readonly limit?: number | undefined } = {}
): Effect.Effect<ReadonlyArray<AuditEntry>, StoreError, PanelStore> =>
  Effect.flatMap(PanelStore, (s) =>
    s.listAudit(merchantId, {
      before: page.before,
      limit: Math.max(1, Math.min(maxPage, Math.trunc(page.limit ?? 50) || 50))
    })
  )

/** The CSV header line. */
export const csvHeader = "id,time_utc,actor,user_id,action,object_id,address,user_agent,detail"

/** A CSV cell: quoted when needed, and a leading `=`, `+`, `-`, `@` neutralised for spreadsheets. */
const cell = (value: string | null): string => {
  if (value === null) return ""
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe
}

/** One entry as a CSV line (RFC 4180, without the line break). */
export const csvLine = (e: AuditEntry): string =>
  [
    e.id,
    new Date(e.at).toISOString(),
    e.actor,
    e.userId,
    e.action,
    e.objectId,
    e.address,
    e.userAgent,
    e.detail
  ]
    .map(cell)
    .join(",")

/** Entries as a whole CSV document (header first, CRLF line ends). */
export const toCsv = (entries: ReadonlyArray<AuditEntry>): string =>
  [csvHeader, ...entries.map(csvLine)].map((l) => `${l}\r\n`).join("")
