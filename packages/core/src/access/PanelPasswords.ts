/**
 * Setting a panel user's password: through an invite link (which then signs the person in),
 * through the operator's reset link (which signs the user out everywhere), and by the user
 * (which ends their other sessions). Every new password passes `Passwords.judge` first; each
 * change is audited.
 */
import { Effect, Option } from "effect"
import type { PanelUser } from "../domain/Domain.js"
import { PanelStore, type StoreError } from "../ports/Store.js"
import * as Audit from "./Audit.js"
import { actorOf, type Client } from "./Audit.js"
import { hashToken } from "./PanelAccess.js"
import * as PanelSessions from "./PanelSessions.js"
import { accountWords, judge, Passwords, type Weakness } from "./Passwords.js"

/** What an invite or reset link is now. */
export type LinkState = "valid" | "used" | "expired" | "unknown"

const now = Effect.clockWith((c) => c.currentTimeMillis)

/** What a stored link is at `now` (undefined: no such link). */
export const stateAt = (
  link: { readonly usedAt: number | null; readonly expiresAt: number } | undefined,
  at: number
): LinkState =>
  link === undefined ? "unknown" : link.usedAt !== null ? "used" : link.expiresAt <= at ? "expired" : "valid"

/** The state of the invite (or reset) link with this token, without using it. */
export const linkState = (token: string): Effect.Effect<LinkState, StoreError, PanelStore> =>
  Effect.gen(function* () {
    const found = yield* Effect.flatMap(PanelStore, (s) => s.findPanelInvite(hashToken(token)))
    return stateAt(Option.getOrUndefined(found), yield* now)
  })

/** What using a link came to. */
export type LinkOutcome =
  /** The password is refused (too short or long, or easy to guess): nothing changed. */
  | { readonly _tag: "Weak"; readonly weakness: Weakness }
  /** The link is used, expired or unknown: nothing changed. */
  | { readonly _tag: "Closed"; readonly state: Exclude<LinkState, "valid"> }
  /** The password is set; `token` is the new session's when the link signs the person in. */
  | { readonly _tag: "Set"; readonly user: PanelUser; readonly token: string | null }

/** The e-mail of the link's user, for judging the password by it ("" for a link of nobody). */
const linkEmail = (token: string) =>
  Effect.gen(function* () {
    const store = yield* PanelStore
    const invite = yield* store.findPanelInvite(hashToken(token))
    if (Option.isNone(invite)) return ""
    const user = yield* store.getPanelUser(invite.value.userId)
    return Option.match(user, { onNone: () => "", onSome: (u) => u.email })
  })

/**
 * Uses an invite or reset link once: sets the password (judged first) and ends the user's
 * sessions, in one unit. An invite then starts a session for the person (`signIn`); a reset
 * leaves them to sign in again with the new password and their second factor.
 */
export const useLink = (input: {
  readonly token: string
  readonly password: string
  readonly client: Client
  readonly kind: "invite" | "reset"
  readonly maxMs: number
}): Effect.Effect<LinkOutcome, StoreError, PanelStore | Passwords> =>
  Effect.gen(function* () {
    const { token, client } = input
    const weakness = yield* judge(input.password, accountWords(yield* linkEmail(token)))
    if (weakness !== undefined) return { _tag: "Weak", weakness } as const
    const hashed = yield* Effect.flatMap(Passwords, (p) => p.hash(input.password))
    const store = yield* PanelStore
    const user = yield* store.usePanelInvite(hashToken(token), hashed, yield* now)
    if (Option.isNone(user)) {
      const state = yield* linkState(token)
      return { _tag: "Closed", state: state === "valid" ? "used" : state } as const
    }
    const detail = input.kind === "invite" ? "invite" : "reset link"
    yield* Audit.record(
      user.value.merchantId,
      actorOf(user.value, client),
      "password.set",
      user.value.id,
      detail
    )
    const session =
      input.kind === "invite" ? yield* PanelSessions.start(user.value, client, input.maxMs) : null
    return { _tag: "Set", user: user.value, token: session } as const
  })

/** What a password change came to. */
export type Change =
  | { readonly _tag: "WrongPassword" }
  | { readonly _tag: "Weak"; readonly weakness: Weakness }
  | { readonly _tag: "Changed" }

/**
 * The user changes their own password: the current one first, then the new one is judged; the
 * other sessions end, this one (`sessionHash`) stays. Audited.
 */
export const change = (input: {
  readonly user: PanelSessions.SessionUser
  readonly current: string
  readonly next: string
  readonly client: Client
}): Effect.Effect<Change, StoreError, PanelStore | Passwords> =>
  Effect.gen(function* () {
    const { user } = input
    const store = yield* PanelStore
    const passwords = yield* Passwords
    const stored = Option.flatMap(yield* store.getPanelUser(user.id), (u) =>
      Option.fromNullable(u.passwordHash)
    )
    if (!(yield* passwords.verify(input.current, Option.getOrNull(stored))))
      return { _tag: "WrongPassword" } as const
    const weakness = yield* judge(input.next, accountWords(user.email))
    if (weakness !== undefined) return { _tag: "Weak", weakness } as const
    const hashed = yield* passwords.hash(input.next)
    yield* store.setPanelPassword(user.id, hashed, yield* now, user.sessionHash)
    yield* Audit.record(user.merchantId, actorOf(user, input.client), "password.set", user.id, "changed")
    return { _tag: "Changed" } as const
  })
