/** The panel's users, invites and sessions in memory (MemoryStore), each operation atomic. */
import { Effect, Option } from "effect"
import type { ApiKey, PanelSession, PanelUser } from "../Domain.js"
import { type MerchantStoreShape, type PanelInviteState, type PanelStoreShape, StoreError } from "../Store.js"

type InviteRow = PanelInviteState

const atomic = <A>(body: () => A): Effect.Effect<A, StoreError> =>
  Effect.try({
    try: body,
    catch: (cause) =>
      new StoreError({ message: cause instanceof Error ? cause.message : String(cause), cause })
  })

/** The panel operations, and the last use of the store's API keys. */
export const panelOps = (
  apiKeys: Map<string, ApiKey>
): PanelStoreShape & Pick<MerchantStoreShape, "touchApiKey"> => {
  const users = new Map<string, PanelUser>()
  const byEmail = new Map<string, string>()
  const invites = new Map<string, InviteRow>()
  const sessions = new Map<string, PanelSession>()
  const userOf = (id: string | undefined) => Option.fromNullable(id === undefined ? undefined : users.get(id))
  return {
    invitePanelUser: (user, invite) =>
      atomic(() => {
        const existing = userOf(byEmail.get(user.email))
        if (Option.isSome(existing) && existing.value.merchantId !== user.merchantId)
          return { _tag: "Taken" as const }
        const stored = Option.getOrElse(existing, () => Object.freeze({ ...user }))
        users.set(stored.id, stored)
        byEmail.set(stored.email, stored.id)
        invites.set(invite.tokenHash, Object.freeze({ ...invite, userId: stored.id, usedAt: null }))
        return { _tag: "Invited" as const, user: stored }
      }),
    findPanelUser: (email) => atomic(() => userOf(byEmail.get(email))),
    getPanelUser: (id) => atomic(() => userOf(id)),
    usePanelInvite: (tokenHash, passwordHash, at) =>
      atomic(() => {
        const invite = invites.get(tokenHash)
        if (invite === undefined || invite.usedAt !== null || invite.expiresAt <= at) return Option.none()
        const user = users.get(invite.userId)
        if (user === undefined) return Option.none()
        invites.set(tokenHash, Object.freeze({ ...invite, usedAt: at }))
        const updated = Object.freeze({ ...user, passwordHash, updatedAt: at })
        users.set(user.id, updated)
        for (const [hash, s] of sessions) {
          if (s.userId === user.id && s.revokedAt === null)
            sessions.set(hash, Object.freeze({ ...s, revokedAt: at }))
        }
        return Option.some(updated)
      }),
    findPanelInvite: (tokenHash) => atomic(() => Option.fromNullable(invites.get(tokenHash))),
    setPanelPassword: (userId, passwordHash, at, keep) =>
      atomic(() => {
        const user = users.get(userId)
        if (user === undefined) return
        users.set(userId, Object.freeze({ ...user, passwordHash, updatedAt: at }))
        for (const [hash, s] of sessions) {
          if (s.userId === userId && hash !== keep && s.revokedAt === null)
            sessions.set(hash, Object.freeze({ ...s, revokedAt: at }))
        }
      }),
    createPanelSession: (session) =>
      atomic(() => {
        if (sessions.has(session.idHash)) throw new Error("duplicate panel session")
        sessions.set(session.idHash, Object.freeze({ ...session }))
      }),
    touchPanelSession: (idHash, now, idleMs, touchAfterMs) =>
      atomic(() => {
        const s = sessions.get(idHash)
        if (s === undefined || s.revokedAt !== null || s.expiresAt <= now || s.lastSeenAt + idleMs <= now)
          return Option.none()
        if (now - s.lastSeenAt < touchAfterMs) return Option.some(s)
        const touched = Object.freeze({ ...s, lastSeenAt: now })
        sessions.set(idHash, touched)
        return Option.some(touched)
      }),
    revokePanelSession: (idHash, at) =>
      atomic(() => {
        const s = sessions.get(idHash)
        if (s === undefined || s.revokedAt !== null) return false
        sessions.set(idHash, Object.freeze({ ...s, revokedAt: at }))
        return true
      }),
    touchApiKey: (id, at, withinMs) =>
      atomic(() => {
        const key = apiKeys.get(id)
        if (key === undefined || (key.lastUsedAt ?? Number.NEGATIVE_INFINITY) > at - withinMs) return
        apiKeys.set(id, Object.freeze({ ...key, lastUsedAt: at }))
      })
  }
}
