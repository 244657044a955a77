/**
 * The team (owners only): the users with their role and last sign-in, invitations by e-mail,
 * role changes and removal (with a confirmation page); each user's notification choices; and
 * "Esqueci minha senha" before sign-in. The rules, the audit entries and the e-mails are core's
 * (`Team`, `Notifications`); forms carry the CSRF value and a one-time form token, like every
 * other form of the panel, and a repeated form changes nothing twice.
 */
import {
  Errors,
  type Mail,
  MailStore,
  Notifications,
  PanelRoles,
  type Store,
  Team,
  TeamStore
} from "@pixgate/core"
import { Effect, Either, Option, Schema } from "effect"
import { access, type Ctx, clientOf, type Handler, redirect, respond, type Signed, when } from "../Ctx.js"
import * as FormToken from "../FormToken.js"
import { type Html, html } from "../Html.js"
import { type Dictionary, parseAmount } from "../I18n.js"
import { bare, csrfField, page } from "../Layout.js"
import type { Route } from "../Routes.js"
import { fill, teamWords } from "../TeamWords.js"

/** The outbox and the team's store of the host's store, or 503 when it has none (an embedder's own store). */
const withStores = <A>(
  effect: Effect.Effect<A, Store.StoreError, Store.PanelStore | MailStore.MailStore | TeamStore.TeamStore>
): Effect.Effect<A, Errors.PixgateError, Store.Store> =>
  Effect.gen(function* () {
    const mail = yield* Effect.serviceOption(MailStore.MailStore)
    const team = yield* Effect.serviceOption(TeamStore.TeamStore)
    if (Option.isNone(mail) || Option.isNone(team)) return yield* Effect.fail(Errors.unavailable())
    const provided: Effect.Effect<A, Store.StoreError, Store.PanelStore> = effect.pipe(
      Effect.provideService(MailStore.MailStore, mail.value),
      Effect.provideService(TeamStore.TeamStore, team.value)
    )
    return yield* access(provided)
  })

/** The signed-in owner as core's acting user. */
const acting = (s: Signed): Team.Acting | undefined =>
  s.user === null
    ? undefined
    : { id: s.user.id, email: s.user.email, merchantId: s.merchant.id, role: s.user.role }

/** The panel's white-label brand over the mailer's, for the e-mails sent from here. */
const brandOf = (ctx: Ctx): Partial<Mail.MailBrand> => ({
  ...(ctx.cfg.brand.productName === undefined ? {} : { productName: ctx.cfg.brand.productName }),
  ...(ctx.cfg.brand.primaryColor === undefined ? {} : { primaryColor: ctx.cfg.brand.primaryColor }),
  ...(ctx.cfg.brand.supportUrl === undefined ? {} : { supportUrl: ctx.cfg.brand.supportUrl })
})

const roleName = (s: Ctx, role: PanelRoles.PanelRole) => s.t[`role_${role}` as keyof Dictionary]

const roleOptions = (s: Ctx, selected: PanelRoles.PanelRole) =>
  PanelRoles.panelRoles.map(
    (r) => html`<option value="${r}"${r === selected ? html` selected` : ""}>${roleName(s, r)}</option>`
  )

/** A notice or an error above the page, named by `?done=` / `?error=` with the e-mail concerned. */
const flash = (s: Signed): Html | "" => {
  const w = teamWords(s.lang)
  const email = s.url.searchParams.get("email") ?? ""
  const done = s.url.searchParams.get("done")
  const error = s.url.searchParams.get("error")
  const texts: Record<string, string> = {
    inviteSent: w.inviteSent,
    roleChanged: w.roleChanged,
    removed: w.removed,
    formRepeated: s.t.formRepeated,
    notifySaved: w.notifySaved
  }
  const errors: Record<string, string> = {
    NoMail: w.inviteNoMail,
    BadEmail: w.inviteBadEmail,
    BadRole: w.inviteBadRole,
    Member: w.inviteMember,
    Taken: w.inviteTaken,
    Self: w.self,
    NotFound: w.notFound
  }
  if (error !== null && error in errors)
    return html`<p class="error" role="alert" data-testid="team-error">${fill(errors[error] ?? "", email)}</p>`
  if (done !== null && done in texts)
    return html`<p class="notice" role="status" data-testid="team-done">${fill(texts[done] ?? "", email)}</p>`
  return ""
}

/** What a team form records under its token: the outcome's tag and the e-mail concerned. */
const TeamRecord = Schema.Struct({ tag: Schema.String, email: Schema.String })

const query = (o: Record<string, string>) => `?${new URLSearchParams(o).toString()}`

/** The team page: users, their role and last sign-in, the invitation form. */
export const teamPage = (s: Signed): Handler =>
  Effect.gen(function* () {
    const w = teamWords(s.lang)
    const members = yield* withStores(Team.members(s.merchant.id))
    const ready = yield* Team.mailReady
    const me = s.user?.id
    const rows = members.map((m) => {
      const self = m.user.id === me
      return html`<tr data-user="${m.user.email}"><td data-label="${w.member}">${m.user.email}${self ? html` <span class="hint">(${w.you})</span>` : ""}</td>
<td data-label="${w.role}" data-testid="role">${roleName(s, m.user.role)}</td>
<td data-label="${w.lastSignIn}" data-testid="last-sign-in">${m.pending ? w.pendingInvite : m.lastSignInAt === null ? w.never : when(s, m.lastSignInAt)}</td>
<td>${
        self
          ? ""
          : html`<form class="inline" method="post" action="${s.cfg.base}/team/${m.user.id}/role">${csrfField(s)}${FormToken.field(s)}<label class="visually-hidden" for="role-${m.user.id}">${fill(w.changeRoleOf, m.user.email)}</label><select id="role-${m.user.id}" name="role">${roleOptions(s, m.user.role)}</select> <button type="submit" class="secondary">${w.changeRole}</button></form>
<a class="button danger" href="${s.cfg.base}/team/${m.user.id}/remove" aria-label="${fill(w.removeOf, m.user.email)}">${w.remove}</a>`
      }</td></tr>`
    })
    const body = html`${ready ? "" : html`<p class="notice" role="status" data-testid="no-mail">${w.inviteNoMail}</p>`}
<div class="table-wrap"><table class="responsive" data-testid="team">
<thead><tr><th scope="col">${w.member}</th><th scope="col">${w.role}</th><th scope="col">${w.lastSignIn}</th><th scope="col"><span class="visually-hidden">${w.changeRole}</span></th></tr></thead>
<tbody>${rows}</tbody></table></div>
<h2>${w.inviteTitle}</h2>
<form class="stack" method="post" action="${s.cfg.base}/team/invite">${csrfField(s)}${FormToken.field(s)}
<div><label for="invite-email">${w.inviteEmail}</label><input id="invite-email" name="email" type="email" autocomplete="off" required></div>
<div><label for="invite-role">${w.inviteRole}</label><select id="invite-role" name="role">${roleOptions(s, "viewer")}</select></div>
<p class="hint">${w.inviteHint}</p>
<div><button type="submit">${w.inviteSend}</button></div>
</form>`
    return respond(s, page(s.view, w.team, body, flash(s)))
  })

/** Invites by e-mail (core sends the message through the outbox). */
export const invite = (s: Signed, f: URLSearchParams): Handler =>
  Effect.gen(function* () {
    const actor = acting(s)
    if (actor === undefined) return yield* Effect.fail(Errors.notFound("Panel user"))
    const { outcome } = yield* FormToken.once(
      s,
      f,
      "team.invite",
      withStores(
        Team.invite({
          actor,
          merchantName: s.merchant.name,
          email: f.get("email"),
          role: f.get("role"),
          client: clientOf(s),
          brand: brandOf(s)
        })
      ).pipe(
        Effect.map((o) => ({ tag: o._tag, email: o._tag === "Sent" ? o.email : (f.get("email") ?? "") }))
      ),
      (r) => r,
      TeamRecord
    )
    const r = outcome.record
    if (outcome._tag === "Repeat") return redirect(s, `/team${query({ done: "formRepeated" })}`)
    return r.tag === "Sent"
      ? redirect(s, `/team${query({ done: "inviteSent", email: r.email })}`)
      : redirect(s, `/team${query({ error: r.tag, email: r.email.slice(0, 254) })}`)
  })

/** Gives another user a new role. */
export const changeRole = (s: Signed, userId: string, f: URLSearchParams): Handler =>
  Effect.gen(function* () {
    const actor = acting(s)
    if (actor === undefined) return yield* Effect.fail(Errors.notFound("Panel user"))
    const { outcome } = yield* FormToken.once(
      s,
      f,
      "team.role",
      withStores(Team.changeRole({ actor, userId, role: f.get("role"), client: clientOf(s) })).pipe(
        Effect.map((o) => ({ tag: o._tag, email: o._tag === "Done" ? o.user.email : "" }))
      ),
      (r) => r,
      TeamRecord
    )
    if (outcome._tag === "Repeat") return redirect(s, `/team${query({ done: "formRepeated" })}`)
    const r = outcome.record
    return r.tag === "Done"
      ? redirect(s, `/team${query({ done: "roleChanged", email: r.email })}`)
      : redirect(s, `/team${query({ error: r.tag })}`)
  })

/** The confirmation before removing a user. */
export const removePage = (s: Signed, userId: string): Handler =>
  Effect.gen(function* () {
    const w = teamWords(s.lang)
    const members = yield* withStores(Team.members(s.merchant.id))
    const member = members.find((m) => m.user.id === userId)
    if (member === undefined || member.user.id === s.user?.id)
      return yield* Effect.fail(Errors.notFound("Panel user"))
    const body = html`<p>${fill(w.removeConfirm, member.user.email)}</p>
<form method="post" action="${s.cfg.base}/team/${member.user.id}/remove">${csrfField(s)}${FormToken.field(s)}<button type="submit" class="danger">${w.remove}</button> <a class="button secondary" href="${s.cfg.base}/team">${w.cancel}</a></form>`
    return respond(s, page(s.view, fill(w.removeOf, member.user.email), body))
  })

/** Removes another user: their sessions end at once. */
export const remove = (s: Signed, userId: string, f: URLSearchParams): Handler =>
  Effect.gen(function* () {
    const actor = acting(s)
    if (actor === undefined) return yield* Effect.fail(Errors.notFound("Panel user"))
    const { outcome } = yield* FormToken.once(
      s,
      f,
      "team.remove",
      withStores(Team.remove({ actor, userId, client: clientOf(s) })).pipe(
        Effect.map((o) => ({ tag: o._tag, email: o._tag === "Done" ? o.user.email : "" }))
      ),
      (r) => r,
      TeamRecord
    )
    if (outcome._tag === "Repeat") return redirect(s, `/team${query({ done: "formRepeated" })}`)
    const r = outcome.record
    return r.tag === "Done"
      ? redirect(s, `/team${query({ done: "removed", email: r.email })}`)
      : redirect(s, `/team${query({ error: r.tag })}`)
  })

// ---- Notifications (every signed-in user, their own choices) ----

const centsText = (cents: number) => (cents / 100).toFixed(2).replace(".", ",")

const checkbox = (id: string, name: string, label: string, on: boolean) =>
  html`<div><label for="${id}"><input id="${id}" name="${name}" type="checkbox" value="on"${on ? html` checked` : ""}> ${label}</label></div>`

/** The user's notification choices. */
export const notificationsPage = (s: Signed, error?: string): Handler =>
  Effect.gen(function* () {
    const w = teamWords(s.lang)
    const user = s.user
    if (user === null) return yield* Effect.fail(Errors.notFound("Panel user"))
    const prefs = yield* withStores(Notifications.prefsOf(user.id, s.merchant.id))
    const ready = yield* Team.mailReady
    const body = html`<p>${w.notificationsIntro}</p>${
      ready ? "" : html`<p class="notice" role="status" data-testid="no-mail">${w.notifyNoMail}</p>`
    }${error === undefined ? "" : html`<p class="error" role="alert">${error}</p>`}
<form class="stack" method="post" action="${s.cfg.base}/notifications">${csrfField(s)}${FormToken.field(s)}
<fieldset><legend>${w.notifyPix}</legend>
<div><label for="pix-min">${w.notifyPixMin} <span class="hint">(${w.notifyPixHint})</span></label><input id="pix-min" name="pixMin" inputmode="decimal" autocomplete="off" value="${prefs.pixReceivedMin === null ? "" : centsText(prefs.pixReceivedMin)}"></div>
</fieldset>
${checkbox("n-payouts", "payouts", w.notifyPayouts, prefs.payouts)}
${checkbox("n-webhooks", "webhookFailing", w.notifyWebhooks, prefs.webhookFailing)}
${checkbox("n-infractions", "infractions", w.notifyInfractions, prefs.infractions)}
<div><button type="submit">${w.notifySave}</button></div>
</form>`
    return respond(s, page(s.view, w.notifications, body, flash(s)), error === undefined ? 200 : 422)
  })

/** Saves the user's choices. */
export const saveNotifications = (s: Signed, f: URLSearchParams): Handler =>
  Effect.gen(function* () {
    const w = teamWords(s.lang)
    const user = s.user
    if (user === null) return yield* Effect.fail(Errors.notFound("Panel user"))
    const nonce = FormToken.nonceOf(s, f)
    if (Either.isLeft(nonce)) return yield* Effect.fail(nonce.left)
    const amount = parseAmount(f.get("pixMin") ?? "")
    if (
      amount !== undefined &&
      (typeof amount !== "number" || !Number.isFinite(amount) || amount < 0 || amount > 1e9)
    )
      return yield* notificationsPage(s, w.notifyBadAmount)
    // Saving the same choices twice is harmless: no one-time record is needed here.
    yield* withStores(
      Notifications.choose({
        userId: user.id,
        merchantId: s.merchant.id,
        pixReceivedMin: amount === undefined ? null : Math.round((amount as number) * 100),
        payouts: f.get("payouts") === "on",
        webhookFailing: f.get("webhookFailing") === "on",
        infractions: f.get("infractions") === "on"
      })
    )
    return redirect(s, `/notifications${query({ done: "notifySaved" })}`)
  })

// ---- "Esqueci minha senha" (before sign-in) ----

const forgotForm = (ctx: Ctx, done: boolean) => {
  const w = teamWords(ctx.lang)
  return respond(
    ctx,
    bare(
      { base: ctx.cfg.base, lang: ctx.lang, brand: ctx.cfg.brand },
      w.forgotTitle,
      html`${
        done
          ? html`<p class="notice" role="status" data-testid="forgot-done">${w.forgotDone}</p>`
          : html`<p>${w.forgotIntro}</p>
<form class="stack" method="post" action="${ctx.cfg.base}/forgot">${csrfField(ctx)}
<div><label for="email">${w.email}</label><input id="email" name="email" type="email" autocomplete="username" required></div>
<div><button type="submit">${w.forgotSend}</button></div>
</form>`
      }
<p><a href="${ctx.cfg.base}/signin">${w.backToSignIn}</a></p>`
    )
  )
}

export const forgotPage = (ctx: Ctx): Handler => Effect.succeed(forgotForm(ctx, false))

/**
 * Answers the same at once whatever the address: the look-up, the link and the e-mail happen in
 * a fiber of their own after the answer (so neither the words nor the time tell whether the
 * address exists); a failure there is logged.
 */
export const forgot = (ctx: Ctx, f: URLSearchParams): Handler =>
  Effect.gen(function* () {
    const work = withStores(
      Team.forgot({
        email: f.get("email"),
        client: clientOf(ctx),
        limits: ctx.cfg.throttle,
        brand: brandOf(ctx)
      })
    ).pipe(Effect.catchAllCause((cause) => Effect.logError("Password reset e-mail failed", cause)))
    yield* Effect.forkDaemon(work)
    return forgotForm(ctx, true)
  })

const at = (pattern: string) => new RegExp(`^${pattern}$`)
const param = (params: ReadonlyArray<string>) => params[0] ?? ""

/**
 * The routes of these pages, registered in `Routes.ts`: the team's need `users.manage` (owners);
 * the notification choices are every user's own. Core audits each team action with its actor.
 */
export const routes: ReadonlyArray<Route> = [
  { method: "GET", path: at("/team"), ownUsers: true, need: "users.manage", handle: (s) => teamPage(s) },
  {
    method: "POST",
    path: at("/team/invite"),
    ownUsers: true,
    need: "users.manage",
    handle: (s, _, f) => invite(s, f)
  },
  {
    method: "POST",
    path: at("/team/([^/]+)/role"),
    ownUsers: true,
    need: "users.manage",
    handle: (s, p, f) => changeRole(s, param(p), f)
  },
  {
    method: "GET",
    path: at("/team/([^/]+)/remove"),
    ownUsers: true,
    need: "users.manage",
    handle: (s, p) => removePage(s, param(p))
  },
  {
    method: "POST",
    path: at("/team/([^/]+)/remove"),
    ownUsers: true,
    need: "users.manage",
    handle: (s, p, f) => remove(s, param(p), f)
  },
  { method: "GET", path: at("/notifications"), ownUsers: true, handle: (s) => notificationsPage(s) },
  {
    method: "POST",
    path: at("/notifications"),
    ownUsers: true,
    handle: (s, _, f) => saveNotifications(s, f)
  }
]
