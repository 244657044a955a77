/**
 * Access to the merchant panel: one-time invites that let a person set the password of a panel
 * user of one merchant. Only the SHA-256 of an invite's token is stored; the link is shown once
 * (by `pixgate user invite` or the admin API). Passwords are hashed by `@pixgate/panel`.
 */
import { Effect, Option } from "effect"
import * as Errors from "../contract/Errors.js"
import { findById, isPanelRole, MerchantId, type PanelRole, type PanelUser } from "../domain/Domain.js"
import * as Ids from "../domain/Ids.js"
import * as Sha256 from "../domain/Sha256.js"
import { MerchantStore, PanelStore } from "../ports/Store.js"
import * as Audit from "./Audit.js"

/** How long an invite link works (7 days). */
export const inviteLifetimeMs = 7 * 86_400_000

/** Path of the page an invite opens, under the panel's base path. */
export const invitePath = (token: string): string => `/invite/${token}`

/** The stored form of an invite token or a session id. */
export const hashToken = (token: string): string => Sha256.hex(token)

/** A new random secret (238 bits, base62): invite tokens and session ids. */
export const newToken = (): string => Ids.randomBase62(40)

/** A lower-cased e-mail address, or undefined when it does not look like one. */
export const normalizeEmail = (raw: unknown): string | undefined => {
  if (typeof raw !== "string") return undefined
  const email = raw.trim().toLowerCase()
  const ok = email.length <= 254 && !email.includes("\u0000") && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)
  return ok ? email : undefined
}

/** A new invite: the token (shown once) and who it is for. */
export interface Invite {
  readonly token: string
  readonly userId: string
  readonly merchantId: MerchantId
  readonly email: string
  readonly expiresAt: number
}

/** How long a password reset link works (1 hour). */
export const resetLifetimeMs = 3_600_000

/** Path of the page a password reset link opens, under the panel's base path. */
export const resetPath = (token: string): string => `/reset/${token}`

/**
 * Invites `email` to the panel of `merchantId` (creating the user when new) with `role`: by
 * default "owner" for the merchant's first user and "viewer" for later ones. A role given for a
 * user already invited replaces the user's role.
 */
export const invite = (
  merchantId: string,
  email: unknown,
  role?: unknown
): Effect.Effect<
  Invite & { readonly role: PanelRole },
  Errors.ValidationError | Errors.NotFound | Errors.Refused | Errors.StorageUnavailable,
  PanelStore | MerchantStore
> =>
  Effect.gen(function* () {
    if (role !== undefined && !isPanelRole(role))
      return yield* Effect.fail(
        Errors.validation("invalid_field", "role", "role must be one of: owner, finance, developer, viewer")
      )
    const store = yield* PanelStore
    const merchants = yield* MerchantStore
    const address = normalizeEmail(email)
    if (address === undefined)
      return yield* Effect.fail(
        Errors.validation("invalid_email", "email", "email must be a valid e-mail address")
      )
    const merchant = yield* findById(MerchantId, merchantId, merchants.getMerchant)
    if (Option.isNone(merchant)) return yield* Effect.fail(Errors.notFound("Merchant"))
    const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
    const token = newToken()
    const existing = yield* store.listPanelUsers(merchant.value.id)
    const user: PanelUser = {
      id: Ids.newId("usr", now),
      merchantId: merchant.value.id,
      email: address,
      passwordHash: null,
      role: role ?? (existing.length === 0 ? "owner" : "viewer"),
      createdAt: now,
      updatedAt: now
    }
    const expiresAt = now + inviteLifetimeMs
    const result = yield* store.invitePanelUser(user, {
      tokenHash: hashToken(token),
      expiresAt,
      createdAt: now
    })
    if (result._tag === "Taken") {
      return yield* Effect.fail(
        new Errors.Refused({
          code: "email_taken",
          message: "This e-mail already signs in to another merchant's panel"
        })
      )
    }
    let stored = result.user
    if (role !== undefined && stored.role !== role) {
      yield* store.setPanelUserRole(stored.id, role, now)
      yield* Audit.record(
        stored.merchantId,
        Audit.operator,
        "role.change",
        stored.id,
        `${stored.role} -> ${role}`
      )
      stored = { ...stored, role }
    }
    yield* Audit.record(
      stored.merchantId,
      Audit.operator,
      "user.invite",
      stored.id,
      `${address} as ${stored.role}`
    )
    return {
      token,
      userId: stored.id,
      merchantId: merchant.value.id,
      email: address,
      expiresAt,
      role: stored.role
    }
  }).pipe(Effect.catchTag("StoreError", () => Effect.fail(Errors.unavailable())))

/** A password reset link: the token (shown once) and whose password it sets. */
export interface ResetLink {
  readonly token: string
  readonly userId: string
  readonly merchantId: MerchantId
  readonly email: string
  readonly expiresAt: number
  /** Whether the user's second factor was removed too (they set it up again). */
  readonly secondFactorReset: boolean
}

/**
 * Issues a one-time password reset link (1 hour) for an existing panel user of `merchantId`,
 * by the operator: using it sets a new password and signs the user out everywhere. With
 * `resetSecondFactor` the user's TOTP factor and recovery codes are removed too (a lost phone).
 */
export const resetLink = (
  merchantId: string,
  email: unknown,
  resetSecondFactor = false
): Effect.Effect<
  ResetLink,
  Errors.ValidationError | Errors.NotFound | Errors.StorageUnavailable,
  PanelStore | MerchantStore
> =>
  Effect.gen(function* () {
    const store = yield* PanelStore
    const merchants = yield* MerchantStore
    const address = normalizeEmail(email)
    if (address === undefined)
      return yield* Effect.fail(
        Errors.validation("invalid_email", "email", "email must be a valid e-mail address")
      )
    const merchant = yield* findById(MerchantId, merchantId, merchants.getMerchant)
    if (Option.isNone(merchant)) return yield* Effect.fail(Errors.notFound("Merchant"))
    const user = yield* store.findPanelUser(address)
    if (Option.isNone(user) || user.value.merchantId !== merchant.value.id)
      return yield* Effect.fail(Errors.notFound("Panel user"))
    const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
    const token = newToken()
    const expiresAt = now + resetLifetimeMs
    const result = yield* store.invitePanelUser(user.value, {
      tokenHash: hashToken(token),
      expiresAt,
      createdAt: now
    })
    if (result._tag === "Taken") return yield* Effect.fail(Errors.notFound("Panel user"))
    const removed = resetSecondFactor ? yield* store.removePanelTotp(user.value.id) : false
    yield* Audit.record(merchant.value.id, Audit.operator, "password.reset-link", user.value.id, address)
    if (removed)
      yield* Audit.record(merchant.value.id, Audit.operator, "2fa.disable", user.value.id, "by the operator")
    return {
      token,
      userId: user.value.id,
      merchantId: merchant.value.id,
      email: address,
      expiresAt,
      secondFactorReset: removed
    }
  }).pipe(Effect.catchTag("StoreError", () => Effect.fail(Errors.unavailable())))
