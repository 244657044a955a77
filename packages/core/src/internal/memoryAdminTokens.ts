/** The admin tokens and the admin audit log in memory (MemoryStore), each operation atomic. */
import { Effect, Option } from "effect"
import type { AdminAuditEntry, AdminToken } from "../domain/AdminAccess.js"
import type { AdminTokenStoreShape } from "../ports/AdminTokenStore.js"
import { StoreError } from "../ports/Store.js"

const atomic = <A>(body: () => A): Effect.Effect<A, StoreError> =>
  Effect.try({
    try: body,
    catch: (cause) =>
      new StoreError({ message: cause instanceof Error ? cause.message : String(cause), cause })
  })

/** An empty table of admin tokens and audit entries. */
export const adminTokenOps = (): AdminTokenStoreShape => {
  const tokens = new Map<string, AdminToken>()
  const audit: Array<AdminAuditEntry> = []
  const live = (name: string) => [...tokens.values()].find((t) => t.name === name && t.revokedAt === null)
  const byHash = (hash: string) => [...tokens.values()].find((t) => t.hash === hash)
  return {
    insertAdminToken: (token) =>
      atomic(() => {
        if (live(token.name) !== undefined) return "name_taken" as const
        if (tokens.has(token.id) || byHash(token.hash) !== undefined)
          throw new Error(`Duplicate admin token ${token.id}`)
        tokens.set(token.id, Object.freeze({ ...token }))
        return "created" as const
      }),
    findAdminToken: (hash) => atomic(() => Option.fromNullable(byHash(hash))),
    listAdminTokens: () =>
      atomic(() => [...tokens.values()].sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1))),
    hasLiveAdminTokens: () => atomic(() => [...tokens.values()].some((t) => t.revokedAt === null)),
    revokeAdminToken: (idOrName, at) =>
      atomic(() => {
        const token = tokens.get(idOrName) ?? live(idOrName)
        if (token === undefined) return Option.none()
        if (token.revokedAt !== null) return Option.some(token)
        const revoked = Object.freeze({ ...token, revokedAt: at })
        tokens.set(token.id, revoked)
        return Option.some(revoked)
      }),
    touchAdminToken: (id, at, withinMs) =>
      atomic(() => {
        const token = tokens.get(id)
        if (token !== undefined && (token.lastUsedAt === null || token.lastUsedAt <= at - withinMs))
          tokens.set(id, Object.freeze({ ...token, lastUsedAt: at }))
      }),
    appendAdminAudit: (entry) =>
      atomic(() => {
        audit.push(Object.freeze({ ...entry }))
      }),
    listAdminAudit: (page) =>
      atomic(() =>
        audit
          .filter((e) => page.before === undefined || e.id < page.before)
          .sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
          .slice(0, page.limit)
      )
  }
}
