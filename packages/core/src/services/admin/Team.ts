/**
 * The admin service's team: panel invites, password reset links and the audit log.
 */
import { Effect } from "effect"
import * as Audit from "../../access/Audit.js"
import * as PanelAccess from "../../access/PanelAccess.js"
import type * as AdminViews from "../../contract/AdminViews.js"
import type * as Errors from "../../contract/Errors.js"
import type * as Requests from "../../contract/Requests.js"
import * as Views from "../../contract/Views.js"
import { MerchantStore, type PanelStore } from "../../ports/Store.js"
import { merchantOf, storeSafe, type View } from "./Support.js"

/** Panel invites, reset links and the audit log. */
export interface TeamAdmin {
  /** Invites a panel user: a one-time sign-in link. */
  readonly inviteUser: (
    merchantId: string,
    input: Requests.InvitePanelUser
  ) => Effect.Effect<
    View<typeof AdminViews.PanelInvite>,
    Errors.ValidationError | Errors.NotFound | Errors.Refused | Errors.StorageUnavailable
  >
  /** A one-time password reset link for a panel user (optionally removing the second factor). */
  readonly resetLink: (
    merchantId: string,
    input: Requests.PanelResetLink
  ) => Effect.Effect<
    View<typeof AdminViews.PanelResetLink>,
    Errors.ValidationError | Errors.NotFound | Errors.StorageUnavailable
  >
  /** A page of a merchant's audit log, newest first. */
  readonly auditLog: (
    merchantId: string,
    query: Requests.AuditQuery
  ) => Effect.Effect<View<typeof AdminViews.AuditLog>, Errors.NotFound | Errors.StorageUnavailable>
}

/** What the operations use. */
const dependencies = Effect.gen(function* () {
  return {
    panel: yield* Effect.context<MerchantStore | PanelStore>(),
    merchant: merchantOf(yield* MerchantStore)
  }
})
type Deps = Effect.Effect.Success<typeof dependencies>

/**
 * Invites a person to the merchant panel of a merchant: the one-time token of the link
 * `<panel>/invite/<token>` (shown only now), valid for 7 days.
 */
const inviteUser =
  ({ panel }: Deps) =>
  (merchantId: string, input: Requests.InvitePanelUser) =>
    Effect.map(Effect.provide(PanelAccess.invite(merchantId, input.email, input.role), panel), (invite) => ({
      userId: invite.userId,
      merchantId: invite.merchantId,
      email: invite.email,
      token: invite.token,
      path: PanelAccess.invitePath(invite.token),
      expiresAt: Views.iso(invite.expiresAt),
      role: invite.role
    }))

/**
 * A one-time password reset link for a panel user (1 hour): `<panel>/reset/<token>`, shown
 * only now; with `resetSecondFactor` the user's second factor is removed too.
 */
const resetLink =
  ({ panel }: Deps) =>
  (merchantId: string, input: Requests.PanelResetLink) =>
    Effect.map(
      Effect.provide(PanelAccess.resetLink(merchantId, input.email, input.resetSecondFactor ?? false), panel),
      (link) => ({
        userId: link.userId,
        merchantId: link.merchantId,
        email: link.email,
        token: link.token,
        path: PanelAccess.resetPath(link.token),
        expiresAt: Views.iso(link.expiresAt),
        secondFactorReset: link.secondFactorReset
      })
    )

/** A page of a merchant's audit log, newest first. */
const auditLog =
  ({ panel, merchant }: Deps) =>
  (merchantId: string, query: Requests.AuditQuery) =>
    Effect.gen(function* () {
      const m = yield* merchant(merchantId)
      const limit = Math.max(1, Math.min(Audit.maxPage, query.limit ?? 50))
      const rows = yield* Effect.provide(Audit.list(m.id, { before: query.before, limit }), panel)
      return {
        data: rows.map((e) => ({
          id: e.id,
          at: Views.iso(e.at),
          actor: e.actor,
          userId: e.userId,
          action: e.action,
          objectId: e.objectId,
          address: e.address,
          userAgent: e.userAgent,
          detail: e.detail
        })),
        next: rows.length === limit ? (rows[rows.length - 1]?.id ?? null) : null
      }
    })

/** The team's operations over the panel's stores. */
export const make: Effect.Effect<TeamAdmin, never, MerchantStore | PanelStore> = Effect.map(
  dependencies,
  (d) => ({
    inviteUser: storeSafe(inviteUser(d)),
    resetLink: storeSafe(resetLink(d)),
    auditLog: storeSafe(auditLog(d))
  })
)
