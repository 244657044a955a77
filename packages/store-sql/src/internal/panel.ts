/** The merchant panel's users, invites and sessions, and API keys' last use (migration 0007). */
import { Domain, type Store } from "@pixgate/core"
import { Effect, Option } from "effect"
import { checkedId } from "./rows.js"
import { atomic, first, int, intOrNull, query, type Sql, single } from "./sql.js"
import type { Vault } from "./vault.js"

type Row = { readonly [column: string]: unknown }

const toUser = (r: Row): Domain.PanelUser => ({
  id: String(r.id),
  merchantId: checkedId(Domain.isMerchantId, r.merchant_id),
  email: String(r.email),
  passwordHash: r.password_hash === null || r.password_hash === undefined ? null : String(r.password_hash),
  role: Domain.isPanelRole(r.role) ? r.role : "viewer",
  createdAt: int(r.created_at),
  updatedAt: int(r.updated_at)
})

const toSession = (r: Row): Domain.PanelSession => ({
  idHash: String(r.id_hash),
  userId: String(r.user_id),
  merchantId: checkedId(Domain.isMerchantId, r.merchant_id),
  createdAt: int(r.created_at),
  lastSeenAt: int(r.last_seen_at),
  expiresAt: int(r.expires_at),
  revokedAt: intOrNull(r.revoked_at),
  address: textOrNull(r.address),
  userAgent: textOrNull(r.user_agent),
  secondFactorAt: intOrNull(r.second_factor_at)
})

const textOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : String(v))

const toAudit = (r: Row): Domain.AuditEntry => ({
  id: String(r.id),
  merchantId: checkedId(Domain.isMerchantId, r.merchant_id),
  at: int(r.at),
  userId: textOrNull(r.user_id),
  actor: String(r.actor),
  action: String(r.action),
  objectId: textOrNull(r.object_id),
  address: textOrNull(r.address),
  userAgent: textOrNull(r.user_agent),
  detail: textOrNull(r.detail)
})

const dayMs = 86_400_000

/** What the panel's operations share: the client, the vault, one-transaction units, users by email. */
const panelContext = (sql: Sql, vault: Vault) => {
  const tx = atomic(sql)
  const userByEmail = (email: string) =>
    Effect.map(query(sql<Row>`SELECT * FROM panel_users WHERE email = ${email}`, toUser), first)
  return { sql, vault, tx, userByEmail }
}

type PanelContext = ReturnType<typeof panelContext>

/** Panel users invited and found, and their invites used. */
const panelInvites = ({ sql, tx, userByEmail }: PanelContext) =>
  ({
    invitePanelUser: (user, invite) =>
      tx(
        Effect.gen(function* () {
          const existing = yield* userByEmail(user.email)
          if (Option.isSome(existing) && existing.value.merchantId !== user.merchantId)
            return { _tag: "Taken" as const }
          if (Option.isNone(existing)) {
            yield* sql`INSERT INTO panel_users ${sql.insert({
              id: user.id,
              merchant_id: user.merchantId,
              email: user.email,
              password_hash: user.passwordHash,
              role: user.role,
              created_at: user.createdAt,
              updated_at: user.updatedAt
            })}`
          }
          const stored = Option.getOrElse(existing, () => user)
          yield* sql`INSERT INTO panel_invites ${sql.insert({
            token_hash: invite.tokenHash,
            user_id: stored.id,
            created_at: invite.createdAt,
            expires_at: invite.expiresAt,
            used_at: null
          })}`
          return { _tag: "Invited" as const, user: stored }
        })
      ),
    findPanelUser: (email) => single(userByEmail(email)),
    getPanelUser: (id) =>
      single(Effect.map(query(sql<Row>`SELECT * FROM panel_users WHERE id = ${id}`, toUser), first)),
    usePanelInvite: (tokenHash, passwordHash, at) =>
      tx(
        Effect.gen(function* () {
          const used = yield* sql<Row>`UPDATE panel_invites SET used_at = ${at}
            WHERE token_hash = ${tokenHash} AND used_at IS NULL AND expires_at > ${at} RETURNING user_id`
          const userId = used[0]?.user_id
          if (userId === undefined) return Option.none()
          yield* sql`UPDATE panel_sessions SET revoked_at = ${at}
            WHERE user_id = ${String(userId)} AND revoked_at IS NULL`
          const rows = yield* query(
            sql<Row>`UPDATE panel_users SET password_hash = ${passwordHash}, updated_at = ${at}
              WHERE id = ${String(userId)} RETURNING *`,
            toUser
          )
          return first(rows)
        })
      ),
    findPanelInvite: (tokenHash) =>
      single(
        Effect.map(
          query(sql<Row>`SELECT * FROM panel_invites WHERE token_hash = ${tokenHash}`, (r) => ({
            tokenHash: String(r.token_hash),
            userId: String(r.user_id),
            createdAt: int(r.created_at),
            expiresAt: int(r.expires_at),
            usedAt: intOrNull(r.used_at)
          })),
          first
        )
      )
  }) satisfies Partial<Store.PanelStoreShape & Pick<Store.MerchantStoreShape, "touchApiKey">>

/** Passwords, sessions and roles. */
const panelSessions = ({ sql, tx }: PanelContext) =>
  ({
    setPanelPassword: (userId, passwordHash, at, keep) =>
      tx(
        Effect.gen(function* () {
          yield* sql`UPDATE panel_users SET password_hash = ${passwordHash}, updated_at = ${at} WHERE id = ${userId}`
          yield* sql`UPDATE panel_sessions SET revoked_at = ${at}
            WHERE user_id = ${userId} AND revoked_at IS NULL AND id_hash <> ${keep ?? ""}`
        })
      ),
    createPanelSession: (s) =>
      single(
        Effect.asVoid(
          sql`INSERT INTO panel_sessions ${sql.insert({
            id_hash: s.idHash,
            user_id: s.userId,
            merchant_id: s.merchantId,
            created_at: s.createdAt,
            last_seen_at: s.lastSeenAt,
            expires_at: s.expiresAt,
            revoked_at: s.revokedAt,
            address: s.address ?? null,
            user_agent: s.userAgent ?? null,
            second_factor_at: s.secondFactorAt ?? null
          })}`
        )
      ),
    touchPanelSession: (idHash, now, idleMs, touchAfterMs) =>
      single(
        Effect.gen(function* () {
          const found = first(
            yield* query(
              sql<Row>`SELECT * FROM panel_sessions WHERE id_hash = ${idHash} AND revoked_at IS NULL
                AND expires_at > ${now} AND last_seen_at > ${now - idleMs}`,
              toSession
            )
          )
          if (Option.isNone(found) || now - found.value.lastSeenAt < touchAfterMs) return found
          yield* sql`UPDATE panel_sessions SET last_seen_at = ${now}
            WHERE id_hash = ${idHash} AND last_seen_at < ${now}`
          return Option.some({ ...found.value, lastSeenAt: now })
        })
      ),
    revokePanelSession: (idHash, at) =>
      single(
        sql`UPDATE panel_sessions SET revoked_at = ${at}
          WHERE id_hash = ${idHash} AND revoked_at IS NULL RETURNING id_hash`
      ).pipe(Effect.map((rows) => rows.length > 0)),
    listPanelUsers: (merchantId) =>
      single(
        query(
          sql<Row>`SELECT * FROM panel_users WHERE merchant_id = ${merchantId} ORDER BY created_at, id`,
          toUser
        )
      ),
    setPanelUserRole: (userId, role, at) =>
      single(
        sql`UPDATE panel_users SET role = ${role}, updated_at = ${at} WHERE id = ${userId} RETURNING id`
      ).pipe(Effect.map((rows) => rows.length > 0)),
    listPanelSessions: (userId, now) =>
      single(
        query(
          sql<Row>`SELECT * FROM panel_sessions WHERE user_id = ${userId} AND revoked_at IS NULL
            AND expires_at > ${now} ORDER BY created_at DESC, id_hash`,
          toSession
        )
      )
  }) satisfies Partial<Store.PanelStoreShape & Pick<Store.MerchantStoreShape, "touchApiKey">>

/** The second factor: sessions marked, TOTP secrets begun, confirmed and used. */
const panelSecondFactor = ({ sql, vault, tx }: PanelContext) =>
  ({
    revokeUserPanelSession: (userId, idHash, at) =>
      single(
        sql`UPDATE panel_sessions SET revoked_at = ${at}
          WHERE id_hash = ${idHash} AND user_id = ${userId} AND revoked_at IS NULL RETURNING id_hash`
      ).pipe(Effect.map((rows) => rows.length > 0)),
    markPanelSessionSecondFactor: (idHash, at) =>
      single(
        sql`UPDATE panel_sessions SET second_factor_at = ${at}
          WHERE id_hash = ${idHash} AND revoked_at IS NULL AND expires_at > ${at} RETURNING id_hash`
      ).pipe(Effect.map((rows) => rows.length > 0)),
    getPanelTotp: (userId) =>
      single(
        Effect.map(
          sql<Row>`SELECT t.*, (SELECT COUNT(*) FROM panel_recovery_codes c
              WHERE c.user_id = t.user_id AND c.used_at IS NULL) AS codes_left
            FROM panel_totp t WHERE t.user_id = ${userId}`,
          (rows) =>
            Option.map(
              first(rows),
              (r): Domain.PanelTotp => ({
                userId: String(r.user_id),
                secret: vault.open("panel_totp.secret", String(r.secret)),
                confirmedAt: intOrNull(r.confirmed_at),
                lastStep: int(r.last_step),
                recoveryCodesLeft: int(r.codes_left)
              })
            )
        )
      ),
    beginPanelTotp: (userId, secret) =>
      tx(
        Effect.gen(function* () {
          const confirmed = yield* sql<Row>`SELECT user_id FROM panel_totp
            WHERE user_id = ${userId} AND confirmed_at IS NOT NULL`
          if (confirmed.length > 0) return false
          yield* sql`DELETE FROM panel_totp WHERE user_id = ${userId}`
          yield* sql`INSERT INTO panel_totp ${sql.insert({
            user_id: userId,
            secret: vault.seal("panel_totp.secret", secret),
            confirmed_at: null,
            last_step: 0
          })}`
          return true
        })
      ),
    confirmPanelTotp: (userId, step, recoveryHashes, at) =>
      tx(
        Effect.gen(function* () {
          const done = yield* sql<Row>`UPDATE panel_totp SET confirmed_at = ${at}, last_step = ${step}
            WHERE user_id = ${userId} AND confirmed_at IS NULL RETURNING user_id`
          if (done.length === 0) return false
          yield* sql`DELETE FROM panel_recovery_codes WHERE user_id = ${userId}`
          if (recoveryHashes.length > 0)
            yield* sql`INSERT INTO panel_recovery_codes ${sql.insert(
              recoveryHashes.map((h) => ({ user_id: userId, code_hash: h, used_at: null }))
            )}`
          return true
        })
      ),
    usePanelTotpStep: (userId, step) =>
      single(
        sql`UPDATE panel_totp SET last_step = ${step}
          WHERE user_id = ${userId} AND confirmed_at IS NOT NULL AND last_step < ${step} RETURNING user_id`
      ).pipe(Effect.map((rows) => rows.length > 0))
  }) satisfies Partial<Store.PanelStoreShape & Pick<Store.MerchantStoreShape, "touchApiKey">>

/** Recovery codes, the audit log and the sign-in throttles. */
const panelAuditAndThrottle = ({ sql, tx }: PanelContext) =>
  ({
    usePanelRecoveryCode: (userId, codeHash, at) =>
      single(
        sql`UPDATE panel_recovery_codes SET used_at = ${at}
          WHERE user_id = ${userId} AND code_hash = ${codeHash} AND used_at IS NULL RETURNING user_id`
      ).pipe(Effect.map((rows) => rows.length > 0)),
    removePanelTotp: (userId) =>
      tx(
        Effect.gen(function* () {
          yield* sql`DELETE FROM panel_recovery_codes WHERE user_id = ${userId}`
          const gone = yield* sql`DELETE FROM panel_totp WHERE user_id = ${userId} RETURNING user_id`
          return gone.length > 0
        })
      ),
    appendAudit: (e) =>
      single(
        Effect.asVoid(
          sql`INSERT INTO panel_audit ${sql.insert({
            id: e.id,
            merchant_id: e.merchantId,
            at: e.at,
            user_id: e.userId,
            actor: e.actor,
            action: e.action,
            object_id: e.objectId,
            address: e.address,
            user_agent: e.userAgent,
            detail: e.detail
          })}`
        )
      ),
    listAudit: (merchantId, page) =>
      single(
        query(
          page.before === undefined
            ? sql<Row>`SELECT * FROM panel_audit WHERE merchant_id = ${merchantId}
                ORDER BY id DESC LIMIT ${page.limit}`
            : sql<Row>`SELECT * FROM panel_audit WHERE merchant_id = ${merchantId} AND id < ${page.before}
                ORDER BY id DESC LIMIT ${page.limit}`,
          toAudit
        )
      ),
    hitThrottle: (key, now, windowMs) =>
      single(
        Effect.gen(function* () {
          const rows = yield* sql<Row>`INSERT INTO panel_throttle (throttle_key, window_start, hits)
            VALUES (${key}, ${now}, 1)
            ON CONFLICT (throttle_key) DO UPDATE SET
              hits = CASE WHEN panel_throttle.window_start <= ${now - windowMs} THEN 1
                ELSE panel_throttle.hits + 1 END,
              window_start = CASE WHEN panel_throttle.window_start <= ${now - windowMs} THEN ${now}
                ELSE panel_throttle.window_start END
            RETURNING hits`
          // About one call in a hundred prunes the rows whose window ended over a day ago.
          if (Math.random() < 0.01) yield* sql`DELETE FROM panel_throttle WHERE window_start < ${now - dayMs}`
          return int(rows[0]?.hits)
        })
      ),
    peekThrottle: (key, now, windowMs) =>
      single(
        sql<Row>`SELECT hits FROM panel_throttle
          WHERE throttle_key = ${key} AND window_start > ${now - windowMs}`
      ).pipe(Effect.map((rows) => (rows[0] === undefined ? 0 : int(rows[0].hits)))),
    clearThrottle: (key) => single(Effect.asVoid(sql`DELETE FROM panel_throttle WHERE throttle_key = ${key}`))
  }) satisfies Partial<Store.PanelStoreShape & Pick<Store.MerchantStoreShape, "touchApiKey">>

/** The last use of an API key. */
const apiKeyUse = ({ sql }: PanelContext) =>
  ({
    touchApiKey: (id, at, withinMs) =>
      single(
        Effect.asVoid(
          sql`UPDATE api_keys SET last_used_at = ${at}
            WHERE id = ${id} AND (last_used_at IS NULL OR last_used_at <= ${at - withinMs})`
        )
      )
  }) satisfies Partial<Store.PanelStoreShape & Pick<Store.MerchantStoreShape, "touchApiKey">>

/** The panel operations, and the last use of API keys, over one client. */
export const panel = (
  sql: Sql,
  vault: Vault
): Store.PanelStoreShape & Pick<Store.MerchantStoreShape, "touchApiKey"> => {
  const c = panelContext(sql, vault)
  return {
    ...panelInvites(c),
    ...panelSessions(c),
    ...panelSecondFactor(c),
    ...panelAuditAndThrottle(c),
    ...apiKeyUse(c)
  }
}
