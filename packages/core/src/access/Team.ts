/**
 * A merchant's team, managed by its owner in the panel: invitations by e-mail (72 hours, used
 * once), role changes, removal (the user's sessions end in the same unit), each user's last
 * sign-in; and "Esqueci minha senha" (a 30-minute link, used once, sent only to an address that
 * signs in, with the same answer either way). Every action is audited; e-mails go to the outbox
 * (`MailStore`) and the job worker sends them (`mail.send`), never the request.
 *
 * Without a `Mailer` (no SMTP configured), invitations are refused with a reason the page shows
 * (the operator's `pixgate user invite` prints a link instead), and a forgotten password
 * is answered the same as always but nothing is sent (a warning is logged).
 */
import { Effect, Option } from "effect"
import { isPanelRole, type MerchantId, type PanelRole, type PanelUser } from "../domain/Domain.js"
import * as Ids from "../domain/Ids.js"
import { type MailBrand, Mailer, type MailerShape } from "../ports/Mail.js"
import { MailStore } from "../ports/MailStore.js"
import { PanelStore, type StoreError } from "../ports/Store.js"
import { TeamStore } from "../ports/TeamStore.js"
import * as Audit from "./Audit.js"
import { actorOf, type Client } from "./Audit.js"
import * as MailBodies from "./MailBodies.js"
import { hashToken, invitePath, newToken, normalizeEmail, resetPath } from "./PanelAccess.js"
import * as SignInThrottle from "./SignInThrottle.js"

/** How long an invitation sent from the panel works: 72 hours. */
export const inviteLifetimeMs = 72 * 3_600_000

/** How long a "forgot password" link works: 30 minutes. */
export const forgotLifetimeMs = 30 * 60_000

/** The job kind that sends one message of the outbox. */
export const mailJobKind = "mail.send"

/** Who acts: a signed-in panel user. */
export interface Acting {
  readonly id: string
  readonly email: string
  readonly merchantId: MerchantId
  readonly role: PanelRole
}

/** One member of the team as the team page shows it. */
export interface Member {
  readonly user: PanelUser
  /** The invitation was not accepted yet (no password). */
  readonly pending: boolean
  readonly lastSignInAt: number | null
}

const now = Effect.clockWith((c) => c.currentTimeMillis)

const roleNames: Readonly<Record<PanelRole, string>> = {
  owner: "Proprietário",
  finance: "Financeiro",
  developer: "Desenvolvedor",
  viewer: "Leitura"
}

/** The configured mailer, if any. */
export const mailer: Effect.Effect<Option.Option<MailerShape>> = Effect.serviceOption(Mailer)

/** Whether e-mail can be sent (a `Mailer` and the outbox are in context). */
export const mailReady: Effect.Effect<boolean> = Effect.map(
  Effect.all([Effect.serviceOption(Mailer), Effect.serviceOption(MailStore)]),
  ([m, s]) => Option.isSome(m) && Option.isSome(s)
)

/** Puts a message in the outbox with the job that sends it now; its id. */
export const enqueue = (mail: {
  readonly merchantId: MerchantId | null
  readonly kind: string
  readonly to: string
  readonly rendered: MailBodies.Rendered
}): Effect.Effect<string, StoreError, MailStore> =>
  Effect.gen(function* () {
    const store = yield* MailStore
    const at = yield* now
    const id = Ids.newId("mail", at)
    yield* store.enqueueMail(
      {
        id,
        merchantId: mail.merchantId,
        kind: mail.kind,
        to: mail.to,
        subject: mail.rendered.subject,
        text: mail.rendered.text,
        html: mail.rendered.html,
        status: "queued",
        attempts: 0,
        lastError: null,
        createdAt: at,
        updatedAt: at,
        sentAt: null
      },
      { id: Ids.jobId(at), kind: mailJobKind, ref: id, runAt: at }
    )
    return id
  })

/** The team of a merchant, oldest first, with each user's last sign-in. */
export const members = (
  merchantId: MerchantId
): Effect.Effect<ReadonlyArray<Member>, StoreError, PanelStore | TeamStore> =>
  Effect.gen(function* () {
    const users = yield* Effect.flatMap(PanelStore, (s) => s.listPanelUsers(merchantId))
    const last = yield* Effect.flatMap(TeamStore, (s) => s.lastSignIns(merchantId))
    return users.map((user) => ({
      user,
      pending: user.passwordHash === null,
      lastSignInAt: last.get(user.id) ?? null
    }))
  })

/** What an invitation came to. */
export type InviteOutcome =
  | { readonly _tag: "Sent"; readonly email: string; readonly role: PanelRole; readonly expiresAt: number }
  | { readonly _tag: "NoMail" }
  | { readonly _tag: "BadEmail" }
  | { readonly _tag: "BadRole" }
  /** The address already signs in to this panel. */
  | { readonly _tag: "Member" }
  /** The address signs in to another merchant's panel. */
  | { readonly _tag: "Taken" }

/**
 * The owner invites `email` with `role`: a new user (or a pending one, whose role and link are
 * renewed) and an e-mail with a link that works once within 72 hours. Audited (`user.invite`).
 */
export const invite = (input: {
  readonly actor: Acting
  readonly merchantName: string
  readonly email: unknown
  readonly role: unknown
  readonly client: Client
  /** The panel's white-label brand, over the mailer's. */
  readonly brand?: Partial<MailBrand> | undefined
}): Effect.Effect<InviteOutcome, StoreError, PanelStore | MailStore> =>
  Effect.gen(function* () {
    const { actor } = input
    const mail = yield* mailer
    if (Option.isNone(mail) || !(yield* mailReady)) return { _tag: "NoMail" } as const
    const email = normalizeEmail(input.email)
    if (email === undefined) return { _tag: "BadEmail" } as const
    if (!isPanelRole(input.role)) return { _tag: "BadRole" } as const
    const role = input.role
    const store = yield* PanelStore
    const existing = yield* store.findPanelUser(email)
    if (Option.isSome(existing)) {
      if (existing.value.merchantId !== actor.merchantId) return { _tag: "Taken" } as const
      if (existing.value.passwordHash !== null) return { _tag: "Member" } as const
    }
    const at = yield* now
    const token = newToken()
    const expiresAt = at + inviteLifetimeMs
    const result = yield* store.invitePanelUser(
      {
        id: Ids.newId("usr", at),
        merchantId: actor.merchantId,
        email,
        passwordHash: null,
        role,
        createdAt: at,
        updatedAt: at
      },
      { tokenHash: hashToken(token), expiresAt, createdAt: at }
    )
    if (result._tag === "Taken") return { _tag: "Taken" } as const
    if (result.user.role !== role) yield* store.setPanelUserRole(result.user.id, role, at)
    yield* Audit.record(
      actor.merchantId,
      actorOf(actor, input.client),
      "user.invite",
      result.user.id,
      `${email} as ${role}`
    )
    yield* enqueue({
      merchantId: actor.merchantId,
      kind: "team.invite",
      to: email,
      rendered: MailBodies.invite(
        { ...mail.value.brand, ...input.brand },
        {
          merchantName: input.merchantName,
          inviter: actor.email,
          role: roleNames[role],
          url: `${mail.value.panelUrl}${invitePath(token)}`,
          lifetimeMs: inviteLifetimeMs
        }
      )
    })
    return { _tag: "Sent", email, role, expiresAt } as const
  })

/** What a change to another user came to. */
export type ChangeOutcome =
  | { readonly _tag: "Done"; readonly user: PanelUser }
  | { readonly _tag: "NotFound" }
  | { readonly _tag: "BadRole" }
  /** Owners do not change or remove themselves here (nobody locks the team out). */
  | { readonly _tag: "Self" }

const teammate = (actor: Acting, userId: string) =>
  Effect.map(
    Effect.flatMap(PanelStore, (s) => s.getPanelUser(userId)),
    Option.filter((u) => u.merchantId === actor.merchantId)
  )

/** The owner gives another user of the team a new role. Audited (`role.change`). */
export const changeRole = (input: {
  readonly actor: Acting
  readonly userId: string
  readonly role: unknown
  readonly client: Client
}): Effect.Effect<ChangeOutcome, StoreError, PanelStore> =>
  Effect.gen(function* () {
    const { actor } = input
    if (!isPanelRole(input.role)) return { _tag: "BadRole" } as const
    const user = yield* teammate(actor, input.userId)
    if (Option.isNone(user)) return { _tag: "NotFound" } as const
    if (user.value.id === actor.id) return { _tag: "Self" } as const
    const role = input.role
    if (user.value.role === role) return { _tag: "Done", user: user.value } as const
    yield* Effect.flatMap(PanelStore, (s) =>
      Effect.flatMap(now, (at) => s.setPanelUserRole(user.value.id, role, at))
    )
    yield* Audit.record(
      actor.merchantId,
      actorOf(actor, input.client),
      "role.change",
      user.value.id,
      `${user.value.email}: ${user.value.role} -> ${role}`
    )
    return { _tag: "Done", user: { ...user.value, role } } as const
  })

/**
 * The owner removes another user: their sessions end at once (the next request of that browser
 * is signed out), their links, second factor and notification choices go. Audited
 * (`user.remove`); the audit log keeps what they did.
 */
export const remove = (input: {
  readonly actor: Acting
  readonly userId: string
  readonly client: Client
}): Effect.Effect<ChangeOutcome, StoreError, PanelStore | TeamStore> =>
  Effect.gen(function* () {
    const { actor } = input
    const user = yield* teammate(actor, input.userId)
    if (Option.isNone(user)) return { _tag: "NotFound" } as const
    if (user.value.id === actor.id) return { _tag: "Self" } as const
    const removed = yield* Effect.flatMap(TeamStore, (s) =>
      s.removePanelUser(actor.merchantId, user.value.id)
    )
    if (!removed) return { _tag: "NotFound" } as const
    yield* Audit.record(
      actor.merchantId,
      actorOf(actor, input.client),
      "user.remove",
      user.value.id,
      user.value.email
    )
    return { _tag: "Done", user: user.value } as const
  })

/**
 * "Esqueci minha senha": when `email` is a user who signs in (has a password), a reset link
 * (30 minutes, used once; using it ends the user's sessions) is e-mailed and the request is
 * audited (`password.reset-request`). The caller answers the same whatever happened, and should
 * run this apart from the request (it does more work for an address that exists). Requests
 * are counted per address and per client like failed sign-ins, so nobody floods a mailbox.
 */
export const forgot = (input: {
  readonly email: unknown
  readonly client: Client
  readonly limits: SignInThrottle.Limits
  /** The panel's white-label brand, over the mailer's. */
  readonly brand?: Partial<MailBrand> | undefined
}): Effect.Effect<void, StoreError, PanelStore | MailStore> =>
  Effect.gen(function* () {
    const email = normalizeEmail(input.email)
    if (email === undefined) return
    const account = `forgot:${email}`
    const address = SignInThrottle.addressKey(input.client.address)
    const decision = yield* SignInThrottle.check(account, address, input.limits)
    if (decision._tag === "Refused") return
    yield* SignInThrottle.failed(account, address, input.limits)
    const store = yield* PanelStore
    const user = yield* store.findPanelUser(email)
    if (Option.isNone(user) || user.value.passwordHash === null) return
    const mail = yield* mailer
    if (Option.isNone(mail) || !(yield* mailReady)) {
      yield* Effect.logWarning("A password reset was asked for, but no SMTP is configured: nothing was sent")
      return
    }
    const at = yield* now
    const token = newToken()
    const result = yield* store.invitePanelUser(user.value, {
      tokenHash: hashToken(token),
      expiresAt: at + forgotLifetimeMs,
      createdAt: at
    })
    if (result._tag === "Taken") return
    yield* Audit.record(
      user.value.merchantId,
      actorOf(user.value, input.client),
      "password.reset-request",
      user.value.id,
      "by e-mail"
    )
    yield* enqueue({
      merchantId: user.value.merchantId,
      kind: "password.reset",
      to: email,
      rendered: MailBodies.passwordReset(
        { ...mail.value.brand, ...input.brand },
        {
          url: `${mail.value.panelUrl}${resetPath(token)}`,
          lifetimeMs: forgotLifetimeMs
        }
      )
    })
  })
