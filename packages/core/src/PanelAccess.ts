/**
 * Access to the merchant panel: one-time invites that let a person set the password of a panel
 * user of one merchant. Only the SHA-256 of an invite's token is stored; the link is shown once
 * (by `pixgate user invite` or the admin API). Passwords are hashed by `@pixgate/panel`.
 */
import { Effect, Option } from "effect"
import { findById, MerchantId, type PanelUser } from "./Domain.js"
import * as Errors from "./Errors.js"
import * as Ids from "./Ids.js"
import * as Sha256 from "./Sha256.js"
import { MerchantStore, PanelStore } from "./Store.js"

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

/** Invites `email` to the panel of `merchantId` (creating the user when new). */
export const invite = (
  merchantId: string,
  email: unknown
): Effect.Effect<Invite, Errors.PixgateError, PanelStore | MerchantStore> =>
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
    const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
    const token = newToken()
    const user: PanelUser = {
      id: Ids.newId("usr", now),
      merchantId: merchant.value.id,
      email: address,
      passwordHash: null,
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
    return { token, userId: result.user.id, merchantId: merchant.value.id, email: address, expiresAt }
  }).pipe(Effect.catchTag("StoreError", () => Effect.fail(Errors.unavailable())))
