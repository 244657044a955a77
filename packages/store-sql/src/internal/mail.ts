/** The e-mail outbox, notification choices and the team's operations (migration 0021). */
import { Domain, type MailStore, type TeamStore } from "@pixgate/core"
import { Effect } from "effect"
import { checkedId, jobRow } from "./rows.js"
import { atomic, first, int, intOrNull, query, type Sql, single } from "./sql.js"

type Row = { readonly [column: string]: unknown }

const textOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : String(v))
const bool = (v: unknown): boolean => v === true || v === 1 || v === "1"

const toMail = (r: Row): MailStore.OutboxMail => {
  const status = String(r.status)
  if (status !== "queued" && status !== "sent" && status !== "failed")
    throw new TypeError(`Unknown mail status ${status}`)
  return {
    id: String(r.id),
    merchantId:
      r.merchant_id === null || r.merchant_id === undefined
        ? null
        : checkedId(Domain.isMerchantId, r.merchant_id),
    kind: String(r.kind),
    to: String(r.recipient),
    subject: String(r.subject),
    text: String(r.body_text),
    html: String(r.body_html),
    status,
    attempts: int(r.attempts),
    lastError: textOrNull(r.last_error),
    createdAt: int(r.created_at),
    updatedAt: int(r.updated_at),
    sentAt: intOrNull(r.sent_at)
  }
}

const toPrefs = (r: Row): MailStore.NotificationPrefs => ({
  userId: String(r.user_id),
  merchantId: checkedId(Domain.isMerchantId, r.merchant_id),
  pixReceivedMin: intOrNull(r.pix_received_min),
  payouts: bool(r.payouts),
  webhookFailing: bool(r.webhook_failing),
  infractions: bool(r.infractions),
  updatedAt: int(r.updated_at)
})

/** What the mail operations share: the client and its one-transaction units. */
const mailContext = (sql: Sql) => {
  const tx = atomic(sql)
  const changed = (rows: ReadonlyArray<unknown>) => rows.length > 0
  return { sql, tx, changed }
}

type MailContext = ReturnType<typeof mailContext>

/** The outbox: mail queued, sent, failed, listed. */
const outbox = ({ sql, tx, changed }: MailContext) =>
  ({
    enqueueMail: (mail, job) =>
      tx(
        Effect.gen(function* () {
          yield* sql`INSERT INTO mail_outbox ${sql.insert({
            id: mail.id,
            merchant_id: mail.merchantId,
            kind: mail.kind,
            recipient: mail.to,
            subject: mail.subject,
            body_text: mail.text,
            body_html: mail.html,
            status: mail.status,
            attempts: mail.attempts,
            last_error: mail.lastError,
            created_at: mail.createdAt,
            updated_at: mail.updatedAt,
            sent_at: mail.sentAt
          })}`
          yield* sql`INSERT INTO jobs ${sql.insert(jobRow(job))}`
        })
      ),
    getMail: (id) =>
      single(Effect.map(query(sql<Row>`SELECT * FROM mail_outbox WHERE id = ${id}`, toMail), first)),
    markMailSent: (id, at) =>
      single(
        sql`UPDATE mail_outbox SET status = 'sent', body_text = '', body_html = '', sent_at = ${at},
          updated_at = ${at} WHERE id = ${id} AND status = 'queued' RETURNING id`
      ).pipe(Effect.map(changed)),
    markMailFailed: (id, at, error, final) =>
      single(
        final
          ? sql`UPDATE mail_outbox SET status = 'failed', body_text = '', body_html = '',
              attempts = attempts + 1, last_error = ${error.slice(0, 500)}, updated_at = ${at}
              WHERE id = ${id} AND status = 'queued' RETURNING id`
          : sql`UPDATE mail_outbox SET attempts = attempts + 1, last_error = ${error.slice(0, 500)},
              updated_at = ${at} WHERE id = ${id} AND status = 'queued' RETURNING id`
      ).pipe(Effect.map(changed)),
    listMail: (limit, merchantId) =>
      single(
        query(
          merchantId === undefined
            ? sql<Row>`SELECT * FROM mail_outbox ORDER BY id DESC LIMIT ${limit}`
            : sql<Row>`SELECT * FROM mail_outbox WHERE merchant_id = ${merchantId} ORDER BY id DESC LIMIT ${limit}`,
          toMail
        )
      )
  }) satisfies Partial<MailStore.MailStoreShape>

/** The users' notification preferences. */
const notificationPrefs = ({ sql }: MailContext) =>
  ({
    getNotificationPrefs: (userId) =>
      single(
        Effect.map(
          query(sql<Row>`SELECT * FROM panel_notification_prefs WHERE user_id = ${userId}`, toPrefs),
          first
        )
      ),
    setNotificationPrefs: (p) =>
      single(
        Effect.asVoid(
          sql`INSERT INTO panel_notification_prefs ${sql.insert({
            user_id: p.userId,
            merchant_id: p.merchantId,
            pix_received_min: p.pixReceivedMin,
            payouts: p.payouts ? 1 : 0,
            webhook_failing: p.webhookFailing ? 1 : 0,
            infractions: p.infractions ? 1 : 0,
            updated_at: p.updatedAt
          })} ON CONFLICT (user_id) DO UPDATE SET pix_received_min = ${p.pixReceivedMin},
            payouts = ${p.payouts ? 1 : 0}, webhook_failing = ${p.webhookFailing ? 1 : 0},
            infractions = ${p.infractions ? 1 : 0}, updated_at = ${p.updatedAt}`
        )
      ),
    listNotificationPrefs: (merchantId) =>
      single(
        query(
          sql<Row>`SELECT * FROM panel_notification_prefs WHERE merchant_id = ${merchantId} ORDER BY user_id`,
          toPrefs
        )
      )
  }) satisfies Partial<MailStore.MailStoreShape>

/** The outbox's and notification choices' operations over one client. */
export const mailOps = (sql: Sql): MailStore.MailStoreShape => {
  const c = mailContext(sql)
  return {
    ...outbox(c),
    ...notificationPrefs(c)
  }
}

/** The team's operations over one client. */
export const teamOps = (sql: Sql): TeamStore.TeamStoreShape => {
  const tx = atomic(sql)
  return {
    removePanelUser: (merchantId, userId) =>
      tx(
        Effect.gen(function* () {
          const found = yield* sql<Row>`SELECT id FROM panel_users
            WHERE id = ${userId} AND merchant_id = ${merchantId}`
          if (found.length === 0) return false
          yield* sql`DELETE FROM panel_sessions WHERE user_id = ${userId}`
          yield* sql`DELETE FROM panel_invites WHERE user_id = ${userId}`
          yield* sql`DELETE FROM panel_recovery_codes WHERE user_id = ${userId}`
          yield* sql`DELETE FROM panel_totp WHERE user_id = ${userId}`
          yield* sql`DELETE FROM panel_notification_prefs WHERE user_id = ${userId}`
          yield* sql`DELETE FROM panel_users WHERE id = ${userId}`
          return true
        })
      ),
    lastSignIns: (merchantId) =>
      single(
        sql<Row>`SELECT user_id, MAX(at) AS last_at FROM panel_audit
          WHERE merchant_id = ${merchantId} AND action = 'signin.success' AND user_id IS NOT NULL
          GROUP BY user_id`
      ).pipe(Effect.map((rows) => new Map(rows.map((r) => [String(r.user_id), int(r.last_at)]))))
  }
}
