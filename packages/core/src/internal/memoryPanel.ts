/** The panel's users, invites and sessions in memory (MemoryStore), each operation atomic. */
import { Effect, Option } from "effect"
import type { ApiKey, AuditEntry, MerchantId, PanelSession, PanelTotp, PanelUser } from "../domain/Domain.js"
import {
  type MerchantStoreShape,
  type PanelInviteState,
  type PanelStoreShape,
  StoreError
} from "../ports/Store.js"
import type { TeamStoreShape } from "../ports/TeamStore.js"

/**
 * The key under which the panel's operations carry the team's (`TeamStore`) over the same tables:
 * a symbol, so it rides along the store object without being one of the port's names.
 */
export const teamOpsKey: unique symbol = Symbol("pixgate.memory.teamOps")

type InviteRow = PanelInviteState

const atomic = <A>(body: () => A): Effect.Effect<A, StoreError> =>
  Effect.try({
    try: body,
    catch: (cause) =>
      new StoreError({ message: cause instanceof Error ? cause.message : String(cause), cause })
  })

/** What the panel's operations share: the users, invites, sessions, second factors, audit and throttles. */
const panelTables = (apiKeys: Map<string, ApiKey>) => {
  const users = new Map<string, PanelUser>()
  const byEmail = new Map<string, string>()
  const invites = new Map<string, InviteRow>()
  const sessions = new Map<string, PanelSession>()
  const totps = new Map<string, Omit<PanelTotp, "recoveryCodesLeft">>()
  /** Recovery codes by user: hash -> used at (null while unused). */
  const recovery = new Map<string, Map<string, number | null>>()
  const audit = new Map<MerchantId, Array<AuditEntry>>()
  const throttle = new Map<string, { readonly start: number; readonly count: number }>()
  const withCodes = (t: Omit<PanelTotp, "recoveryCodesLeft">): PanelTotp =>
    Object.freeze({
      ...t,
      recoveryCodesLeft: [...(recovery.get(t.userId)?.values() ?? [])].filter((u) => u === null).length
    })
  const liveThrottle = (key: string, now: number, windowMs: number) => {
    const row = throttle.get(key)
    return row !== undefined && row.start > now - windowMs ? row : undefined
  }
  const userOf = (id: string | undefined) => Option.fromNullable(id === undefined ? undefined : users.get(id))
  const team: TeamStoreShape = {
    removePanelUser: (merchantId, userId) =>
      atomic(() => {
        const user = users.get(userId)
        if (user === undefined || user.merchantId !== merchantId) return false
        for (const [hash, s] of sessions) if (s.userId === userId) sessions.delete(hash)
        for (const [hash, i] of invites) if (i.userId === userId) invites.delete(hash)
        totps.delete(userId)
        recovery.delete(userId)
        byEmail.delete(user.email)
        users.delete(userId)
        return true
      }),
    lastSignIns: (merchantId) =>
      atomic(() => {
        const out = new Map<string, number>()
        for (const e of audit.get(merchantId) ?? [])
          if (e.action === "signin.success" && e.userId !== null && e.at > (out.get(e.userId) ?? -1))
            out.set(e.userId, e.at)
        return out
      })
  }
  return {
    apiKeys,
    users,
    byEmail,
    invites,
    sessions,
    totps,
    recovery,
    audit,
    throttle,
    withCodes,
    liveThrottle,
    userOf,
    team
  }
}

type PanelTables = ReturnType<typeof panelTables>

/** The team's operations, users invited and found, passwords and sessions. */
const panelInvites = ({ users, byEmail, invites, sessions, userOf, team }: PanelTables) =>
  ({
    [teamOpsKey]: team,
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
        sessions.set(
          session.idHash,
          Object.freeze({ address: null, userAgent: null, secondFactorAt: null, ...session })
        )
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
      })
  }) satisfies Partial<
    PanelStoreShape & Pick<MerchantStoreShape, "touchApiKey"> & { readonly [teamOpsKey]: TeamStoreShape }
  >

/** Users and sessions listed, roles, and the second factor. */
const panelSecondFactor = ({ users, sessions, totps, recovery, withCodes }: PanelTables) =>
  ({
    listPanelUsers: (merchantId) =>
      atomic(() =>
        [...users.values()]
          .filter((u) => u.merchantId === merchantId)
          .sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1))
      ),
    setPanelUserRole: (userId, role, at) =>
      atomic(() => {
        const user = users.get(userId)
        if (user === undefined) return false
        users.set(userId, Object.freeze({ ...user, role, updatedAt: at }))
        return true
      }),
    listPanelSessions: (userId, now) =>
      atomic(() =>
        [...sessions.values()]
          .filter((s) => s.userId === userId && s.revokedAt === null && s.expiresAt > now)
          .sort((a, b) => b.createdAt - a.createdAt || (a.idHash < b.idHash ? -1 : 1))
      ),
    revokeUserPanelSession: (userId, idHash, at) =>
      atomic(() => {
        const s = sessions.get(idHash)
        if (s === undefined || s.userId !== userId || s.revokedAt !== null) return false
        sessions.set(idHash, Object.freeze({ ...s, revokedAt: at }))
        return true
      }),
    markPanelSessionSecondFactor: (idHash, at) =>
      atomic(() => {
        const s = sessions.get(idHash)
        if (s === undefined || s.revokedAt !== null || s.expiresAt <= at) return false
        sessions.set(idHash, Object.freeze({ ...s, secondFactorAt: at }))
        return true
      }),
    getPanelTotp: (userId) => atomic(() => Option.map(Option.fromNullable(totps.get(userId)), withCodes)),
    beginPanelTotp: (userId, secret) =>
      atomic(() => {
        const current = totps.get(userId)
        if (current !== undefined && current.confirmedAt !== null) return false
        totps.set(userId, Object.freeze({ userId, secret, confirmedAt: null, lastStep: 0 }))
        return true
      }),
    confirmPanelTotp: (userId, step, recoveryHashes, at) =>
      atomic(() => {
        const current = totps.get(userId)
        if (current === undefined || current.confirmedAt !== null) return false
        totps.set(userId, Object.freeze({ ...current, confirmedAt: at, lastStep: step }))
        recovery.set(userId, new Map(recoveryHashes.map((h) => [h, null])))
        return true
      }),
    usePanelTotpStep: (userId, step) =>
      atomic(() => {
        const current = totps.get(userId)
        if (current === undefined || current.confirmedAt === null || current.lastStep >= step) return false
        totps.set(userId, Object.freeze({ ...current, lastStep: step }))
        return true
      }),
    usePanelRecoveryCode: (userId, codeHash, at) =>
      atomic(() => {
        const codes = recovery.get(userId)
        if (codes === undefined || codes.get(codeHash) !== null) return false
        codes.set(codeHash, at)
        return true
      }),
    removePanelTotp: (userId) =>
      atomic(() => {
        recovery.delete(userId)
        return totps.delete(userId)
      })
  }) satisfies Partial<
    PanelStoreShape & Pick<MerchantStoreShape, "touchApiKey"> & { readonly [teamOpsKey]: TeamStoreShape }
  >

/** The audit log, the sign-in throttles, and the last use of API keys. */
const panelAudit = ({ apiKeys, audit, throttle, liveThrottle }: PanelTables) =>
  ({
    appendAudit: (entry) =>
      atomic(() => {
        const list = audit.get(entry.merchantId) ?? []
        if (list.some((e) => e.id === entry.id)) throw new Error("duplicate audit entry")
        list.push(Object.freeze({ ...entry }))
        audit.set(entry.merchantId, list)
      }),
    listAudit: (merchantId, page) =>
      atomic(() =>
        (audit.get(merchantId) ?? [])
          .filter((e) => page.before === undefined || e.id < page.before)
          .sort((a, b) => (a.id < b.id ? 1 : -1))
          .slice(0, page.limit)
      ),
    hitThrottle: (key, now, windowMs) =>
      atomic(() => {
        const live = liveThrottle(key, now, windowMs)
        const next =
          live === undefined ? { start: now, count: 1 } : { start: live.start, count: live.count + 1 }
        throttle.set(key, next)
        if (throttle.size > 100_000)
          for (const [k, row] of throttle) if (row.start <= now - 86_400_000) throttle.delete(k)
        return next.count
      }),
    peekThrottle: (key, now, windowMs) => atomic(() => liveThrottle(key, now, windowMs)?.count ?? 0),
    clearThrottle: (key) =>
      atomic(() => {
        throttle.delete(key)
      }),
    touchApiKey: (id, at, withinMs) =>
      atomic(() => {
        const key = apiKeys.get(id)
        if (key === undefined || (key.lastUsedAt ?? Number.NEGATIVE_INFINITY) > at - withinMs) return
        apiKeys.set(id, Object.freeze({ ...key, lastUsedAt: at }))
      })
  }) satisfies Partial<
    PanelStoreShape & Pick<MerchantStoreShape, "touchApiKey"> & { readonly [teamOpsKey]: TeamStoreShape }
  >

/** The panel operations, and the last use of the store's API keys. */
export const panelOps = (
  apiKeys: Map<string, ApiKey>
): PanelStoreShape & Pick<MerchantStoreShape, "touchApiKey"> & { readonly [teamOpsKey]: TeamStoreShape } => {
  const c = panelTables(apiKeys)
  return {
    ...panelInvites(c),
    ...panelSecondFactor(c),
    ...panelAudit(c)
  }
}
