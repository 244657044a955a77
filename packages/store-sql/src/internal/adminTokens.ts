/** The admin tokens and the admin audit log (migration 0016). */
import { AdminAccess, type AdminTokenStore } from "@pixgate/core"
import { Effect } from "effect"
import { atomic, first, int, intOrNull, query, type Sql, single } from "./sql.js"

type Row = { readonly [column: string]: unknown }

const textOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : String(v))

const toToken = (r: Row): AdminAccess.AdminToken => {
  if (!AdminAccess.isAdminScope(r.scope)) throw new TypeError(`Unknown admin token scope ${String(r.scope)}`)
  return {
    id: String(r.id),
    name: String(r.name),
    scope: r.scope,
    hash: String(r.token_hash),
    hint: String(r.hint),
    createdAt: int(r.created_at),
    revokedAt: intOrNull(r.revoked_at),
    lastUsedAt: intOrNull(r.last_used_at)
  }
}

const toEntry = (r: Row): AdminAccess.AdminAuditEntry => ({
  id: String(r.id),
  at: int(r.at),
  actor: String(r.actor),
  tokenId: textOrNull(r.token_id),
  operation: String(r.operation),
  method: textOrNull(r.method),
  path: textOrNull(r.path),
  status: intOrNull(r.status),
  objectId: textOrNull(r.object_id)
})

/** The admin tokens' operations over one client. */
export const adminTokens = (sql: Sql): AdminTokenStore.AdminTokenStoreShape => {
  const tx = atomic(sql)
  return {
    // The only constraints a new token can meet are the live name's (its id and hash are fresh).
    insertAdminToken: (token) =>
      single(
        sql`INSERT INTO admin_tokens ${sql.insert({
          id: token.id,
          name: token.name,
          scope: token.scope,
          token_hash: token.hash,
          hint: token.hint,
          created_at: token.createdAt,
          revoked_at: token.revokedAt,
          last_used_at: token.lastUsedAt
        })} ON CONFLICT DO NOTHING RETURNING id`
      ).pipe(Effect.map((rows) => (rows.length > 0 ? "created" : "name_taken"))),
    findAdminToken: (hash) =>
      single(
        Effect.map(query(sql<Row>`SELECT * FROM admin_tokens WHERE token_hash = ${hash}`, toToken), first)
      ),
    listAdminTokens: () =>
      single(query(sql<Row>`SELECT * FROM admin_tokens ORDER BY created_at, id`, toToken)),
    hasLiveAdminTokens: () =>
      single(sql<Row>`SELECT 1 AS live FROM admin_tokens WHERE revoked_at IS NULL LIMIT 1`).pipe(
        Effect.map((rows) => rows.length > 0)
      ),
    revokeAdminToken: (idOrName, at) =>
      tx(
        Effect.gen(function* () {
          const byId = yield* query(
            sql<Row>`UPDATE admin_tokens SET revoked_at = COALESCE(revoked_at, ${at})
              WHERE id = ${idOrName} RETURNING *`,
            toToken
          )
          if (byId.length > 0) return first(byId)
          return first(
            yield* query(
              sql<Row>`UPDATE admin_tokens SET revoked_at = ${at}
                WHERE name = ${idOrName} AND revoked_at IS NULL RETURNING *`,
              toToken
            )
          )
        })
      ),
    touchAdminToken: (id, at, withinMs) =>
      single(
        Effect.asVoid(
          sql`UPDATE admin_tokens SET last_used_at = ${at}
            WHERE id = ${id} AND (last_used_at IS NULL OR last_used_at <= ${at - withinMs})`
        )
      ),
    appendAdminAudit: (entry) =>
      single(
        Effect.asVoid(
          sql`INSERT INTO admin_audit ${sql.insert({
            id: entry.id,
            at: entry.at,
            actor: entry.actor,
            token_id: entry.tokenId,
            operation: entry.operation,
            method: entry.method,
            path: entry.path,
            status: entry.status,
            object_id: entry.objectId
          })}`
        )
      ),
    listAdminAudit: (page) =>
      single(
        query(
          page.before === undefined
            ? sql<Row>`SELECT * FROM admin_audit ORDER BY id DESC LIMIT ${page.limit}`
            : sql<Row>`SELECT * FROM admin_audit WHERE id < ${page.before} ORDER BY id DESC LIMIT ${page.limit}`,
          toEntry
        )
      )
  }
}
