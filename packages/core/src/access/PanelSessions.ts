/**
 * Sessions of the panel's own users: sign-in (throttled through `SignInThrottle`, the same work
 * whether or not the account exists, every outcome in the audit log), the session a request's
 * cookie opens, sign-out, a user's list of sessions and their revocation, and the check of who
 * is at the keyboard before a secret is shown again (the password or a second-factor code).
 * A session is stored by the SHA-256 of its token only; the token lives in the browser's cookie.
 */
import { Effect, Option } from "effect"
import type { MerchantId, PanelRole, PanelSession, PanelUser } from "../domain/Domain.js"
import { PanelStore, type StoreError } from "../ports/Store.js"
import * as Audit from "./Audit.js"
import { actorOf, type Client } from "./Audit.js"
import { hashToken, newToken, normalizeEmail } from "./PanelAccess.js"
import * as SecondFactor from "./PanelSecondFactor.js"
import { Passwords } from "./Passwords.js"
import * as SignInThrottle from "./SignInThrottle.js"
import * as TwoFactor from "./TwoFactor.js"

/** A panel user signed in through a live session. */
export interface SessionUser {
  readonly id: string
  readonly email: string
  readonly merchantId: MerchantId
  readonly role: PanelRole
  /** The SHA-256 of the session's token (what the store knows the session by). */
  readonly sessionHash: string
  /** Whether the user has a confirmed second factor. */
  readonly enrolled: boolean
  /** When this session passed the second factor, or null. */
  readonly secondFactorAt: number | null
}

/** How long sessions live. */
export interface Lifetimes {
  /** Without activity. */
  readonly idleMs: number
  /** Whatever the activity. */
  readonly maxMs: number
}

const now = Effect.clockWith((c) => c.currentTimeMillis)

/** The live session a cookie's token opens (its last activity moved to now), with its user. */
export const open = (
  token: string,
  idleMs: number
): Effect.Effect<Option.Option<SessionUser>, StoreError, PanelStore> =>
  Effect.gen(function* () {
    if (!/^[A-Za-z0-9]{20,80}$/.test(token)) return Option.none()
    const store = yield* PanelStore
    const hash = hashToken(token)
    const session = yield* store.touchPanelSession(hash, yield* now, idleMs, 60_000)
    if (Option.isNone(session)) return Option.none()
    const user = yield* store.getPanelUser(session.value.userId)
    if (Option.isNone(user)) return Option.none()
    return Option.some({
      id: user.value.id,
      email: user.value.email,
      merchantId: session.value.merchantId,
      role: user.value.role,
      sessionHash: hash,
      enrolled: yield* TwoFactor.enrolled(user.value.id),
      secondFactorAt: session.value.secondFactorAt ?? null
    })
  })

/** A new session of `user`: its token, to be set as the browser's cookie (never stored). */
export const start = (
  user: PanelUser,
  client: Client,
  maxMs: number
): Effect.Effect<string, StoreError, PanelStore> =>
  Effect.gen(function* () {
    const store = yield* PanelStore
    const token = newToken()
    const at = yield* now
    const session: PanelSession = {
      idHash: hashToken(token),
      userId: user.id,
      merchantId: user.merchantId,
      createdAt: at,
      lastSeenAt: at,
      expiresAt: at + maxMs,
      revokedAt: null,
      address: client.address,
      userAgent: client.userAgent === null ? null : client.userAgent.slice(0, 256) || null,
      secondFactorAt: null
    }
    yield* store.createPanelSession(session)
    return token
  })

/** What a sign-in came to. */
export type SignIn =
  /** Too many failures of this account from this address (or from this address): refused. */
  | { readonly _tag: "Throttled" }
  /** Unknown e-mail, no password yet, or the wrong password (the same answer for each). */
  | { readonly _tag: "Wrong" }
  /** A new session (`token` for the cookie); `secondStep`: the user passes the second factor next. */
  | {
      readonly _tag: "SignedIn"
      readonly token: string
      readonly user: PanelUser
      readonly secondStep: boolean
    }

/**
 * Signs a person in with e-mail and password from `client`. Counted by the throttle (in the
 * store, so every instance agrees); the password is checked with the same work whether or not
 * the account exists; failures, refusals and successes of an existing account are audited.
 */
export const signIn = (input: {
  readonly email: unknown
  readonly password: string
  readonly client: Client
  readonly limits: SignInThrottle.Limits
  readonly maxMs: number
}): Effect.Effect<SignIn, StoreError, PanelStore | Passwords> =>
  Effect.gen(function* () {
    const { client, limits } = input
    const store = yield* PanelStore
    const email = normalizeEmail(input.email) ?? ""
    const address = SignInThrottle.addressKey(client.address)
    const decision = yield* SignInThrottle.check(email, address, limits)
    const user = email === "" ? Option.none<PanelUser>() : yield* store.findPanelUser(email)
    const audit = (action: Audit.AuditAction) =>
      Option.isSome(user)
        ? Audit.record(user.value.merchantId, actorOf(user.value, client), action, user.value.id)
        : Effect.void
    if (decision._tag === "Refused") {
      yield* audit("signin.throttled")
      return { _tag: "Throttled" } as const
    }
    if (decision.delayMs > 0) yield* Effect.sleep(decision.delayMs)
    const stored = Option.isSome(user) ? user.value.passwordHash : null
    const matches = yield* Effect.flatMap(Passwords, (p) => p.verify(input.password, stored))
    if (!matches || Option.isNone(user)) {
      yield* SignInThrottle.failed(email, address, limits)
      yield* audit("signin.failure")
      return { _tag: "Wrong" } as const
    }
    yield* SignInThrottle.succeeded(email, address)
    const token = yield* start(user.value, client, input.maxMs)
    const secondStep = yield* TwoFactor.enrolled(user.value.id)
    if (!secondStep) yield* audit("signin.success")
    return { _tag: "SignedIn", token, user: user.value, secondStep } as const
  })

/** Ends a session (sign-out). */
export const signOut = (sessionHash: string): Effect.Effect<void, StoreError, PanelStore> =>
  Effect.flatMap(PanelStore, (s) =>
    Effect.flatMap(now, (at) => Effect.asVoid(s.revokePanelSession(sessionHash, at)))
  )

/** The user's live sessions, newest first. */
export const list = (userId: string): Effect.Effect<ReadonlyArray<PanelSession>, StoreError, PanelStore> =>
  Effect.flatMap(PanelStore, (s) => Effect.flatMap(now, (at) => s.listPanelSessions(userId, at)))

/** Ends another session of the user (by its hash), audited; false when it was not theirs or not live. */
export const revoke = (
  user: SessionUser,
  sessionHash: string,
  client: Client
): Effect.Effect<boolean, StoreError, PanelStore> =>
  Effect.gen(function* () {
    if (!/^[0-9a-f]{64}$/.test(sessionHash)) return false
    const store = yield* PanelStore
    const done = yield* store.revokeUserPanelSession(user.id, sessionHash, yield* now)
    if (done)
      yield* Audit.record(user.merchantId, actorOf(user, client), "session.revoke", sessionHash.slice(0, 12))
    return done
  })

/** Whether the person at the keyboard proved again to be the user. */
export type Proof = "ok" | "wrong" | "throttled"

/**
 * Checks that the person at the keyboard is the user, before a secret is shown again: a code of
 * their second factor (six digits, when they have one) or their password. Counted by the
 * sign-in throttle like a sign-in, so it cannot be used to guess either.
 */
export const confirmIdentity = (
  user: SessionUser,
  answer: string,
  client: Client,
  limits: SignInThrottle.Limits
): Effect.Effect<Proof, StoreError, PanelStore | Passwords> =>
  Effect.gen(function* () {
    if (user.enrolled && /^\s*\d{6}\s*$/.test(answer))
      return yield* SecondFactor.check(user, answer.trim(), client, limits)
    const store = yield* PanelStore
    const address = SignInThrottle.addressKey(client.address)
    const decision = yield* SignInThrottle.check(user.email, address, limits)
    if (decision._tag === "Refused") return "throttled"
    if (decision.delayMs > 0) yield* Effect.sleep(decision.delayMs)
    const stored = Option.flatMap(yield* store.getPanelUser(user.id), (u) =>
      Option.fromNullable(u.passwordHash)
    )
    const matches = yield* Effect.flatMap(Passwords, (p) => p.verify(answer, Option.getOrNull(stored)))
    if (matches) return "ok"
    yield* SignInThrottle.failed(user.email, address, limits)
    return "wrong"
  })
