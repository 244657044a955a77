/** The merchant panel's users, invites and sessions, and API keys' last use (migration 0007). */
import { Domain, type Store } from "@pixgate/core"
import { Effect, Option } from "effect"
import { checkedId } from "./rows.js"
import { atomic, first, int, intOrNull, query, type Sql, single } from "./sql.js"

type Row = { readonly [column: string]: unknown }

const toUser = (r: Row): Domain.PanelUser => ({
  id: String(r.id),
  merchantId: checkedId(Domain.isMerchantId, r.merchant_id),
  email: String(r.email),
  passwordHash: r.password_hash === null || r.password_hash === undefined ? null : String(r.password_hash),
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
  revokedAt: intOrNull(r.revoked_at)
})

/** The panel operations, and the last use of API keys, over one client. */
export const panel = (sql: Sql): Store.PanelStoreShape & Pick<Store.MerchantStoreShape, "touchApiKey"> => {
  const tx = atomic(sql)
  const userByEmail = (email: string) =>
    Effect.map(query(sql<Row>`SELECT * FROM panel_users WHERE email = ${email}`, toUser), first)
  return {
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
      ),
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
            revoked_at: s.revokedAt
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
    touchApiKey: (id, at, withinMs) =>
      single(
        Effect.asVoid(
          sql`UPDATE api_keys SET last_used_at = ${at}
            WHERE id = ${id} AND (last_used_at IS NULL OR last_used_at <= ${at - withinMs})`
        )
      )
  }
}
