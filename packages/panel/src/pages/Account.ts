/** Sign-in, sessions, invites and the password page of the panel's own users. */
import { PanelAccess, PanelPasswords, PanelSessions, type Passwords } from "@pixgate/core"
import { Effect } from "effect"
import * as Csrf from "../Csrf.js"
import {
  access,
  type Ctx,
  clientOf,
  cookieNames,
  type Handler,
  notice,
  redirect,
  respond,
  type Signed,
  setCookie
} from "../Ctx.js"
import * as Flows from "../Flows.js"
import { type Html, html } from "../Html.js"
import { bare, csrfField, page } from "../Layout.js"
import * as Password from "../Password.js"
import { teamWords } from "../TeamWords.js"

const signInForm = (ctx: Ctx, email: string, error?: string, next?: string, expired = false) =>
  bare(
    { base: ctx.cfg.base, lang: ctx.lang, brand: ctx.cfg.brand },
    ctx.t.signIn,
    html`${error ? html`<p class="error" role="alert">${error}</p>` : ""}${
      expired && !error
        ? html`<p class="notice" role="status" data-testid="session-expired">${ctx.t.sessionExpired}</p>`
        : ""
    }
<form class="stack" method="post" action="${ctx.cfg.base}/signin">${csrfField(ctx)}${
      next === undefined ? "" : html`<input type="hidden" name="next" value="${next}">`
    }
<div><label for="email">${ctx.t.email}</label><input id="email" name="email" type="email" autocomplete="username" required value="${email}"></div>
<div><label for="password">${ctx.t.passwordLabel}</label><input id="password" name="password" type="password" autocomplete="current-password" required></div>
<div><button type="submit">${ctx.t.signIn}</button></div>
</form>
<p><a href="${ctx.cfg.base}/forgot" data-testid="forgot-link">${teamWords(ctx.lang).forgotLink}</a></p>
<p><a href="${ctx.cfg.base}/lang?to=${ctx.lang === "en" ? "pt-BR" : "en"}&amp;back=%2Fsignin">${ctx.lang === "en" ? "Português" : "English"}</a></p>`
  )

export const signInPage = (ctx: Ctx): Handler =>
  Effect.succeed(
    respond(
      ctx,
      signInForm(
        ctx,
        "",
        undefined,
        Flows.safeNext(ctx.url.searchParams.get("next")),
        ctx.url.searchParams.get("expired") === "1"
      )
    )
  )

/**
 * A session began: its cookie, and a new pre-session CSRF cookie, so no value planted or seen
 * before the sign-in is worth anything after it.
 */
const sessionStarted = (ctx: Ctx, token: string) => {
  setCookie(ctx, cookieNames.session, token, Math.floor(ctx.cfg.maxMs / 1000))
  setCookie(ctx, cookieNames.csrf, Csrf.fresh())
}

export const signIn = (ctx: Ctx, f: URLSearchParams): Handler =>
  Effect.gen(function* () {
    const next = Flows.safeNext(f.get("next"))
    const outcome = yield* access(
      PanelSessions.signIn({
        email: f.get("email"),
        password: f.get("password") ?? "",
        client: clientOf(ctx),
        limits: ctx.cfg.throttle,
        maxMs: ctx.cfg.maxMs
      })
    )
    const email = PanelAccess.normalizeEmail(f.get("email")) ?? ""
    if (outcome._tag === "Throttled") return respond(ctx, signInForm(ctx, email, ctx.t.tooMany, next), 429)
    if (outcome._tag === "Wrong") return respond(ctx, signInForm(ctx, email, ctx.t.wrongPassword, next), 401)
    sessionStarted(ctx, outcome.token)
    // The page asked for before signing in survives the second step (`next` travels with it).
    return outcome.secondStep
      ? redirect(ctx, next === undefined ? "/signin/2fa" : `/signin/2fa?next=${encodeURIComponent(next)}`)
      : redirect(ctx, next ?? "/")
  })

/** Ends the session: its cookie cleared, and a new pre-session CSRF cookie. */
export const signOut = (s: Signed): Handler =>
  Effect.gen(function* () {
    const hash = s.user?.sessionHash
    if (hash !== undefined) yield* access(PanelSessions.signOut(hash))
    setCookie(s, cookieNames.session, "", 0)
    setCookie(s, cookieNames.csrf, Csrf.fresh())
    return redirect(s, "/signin")
  })

/**
 * Why a new password was refused, in the page's words: the rule, or the estimator's reasons (their
 * texts come with the estimator, loaded by the judgement that refused it).
 */
export const weakness = (ctx: Ctx, w: Passwords.Weakness): Effect.Effect<Html> =>
  w._tag === "Length"
    ? Effect.succeed(
        html`<p class="error" role="alert" data-testid="password-refused">${ctx.t.passwordRule}</p>`
      )
    : Effect.all({
        warning:
          w.warning === null ? Effect.succeed(null) : Password.feedbackText(ctx.lang, "warnings", w.warning),
        suggestions: Effect.forEach(w.suggestions, (x) => Password.feedbackText(ctx.lang, "suggestions", x))
      }).pipe(
        Effect.map(
          ({ warning, suggestions }) =>
            html`<div class="error" role="alert" data-testid="password-refused"><p>${ctx.t.passwordWeak}</p>${
              warning === null ? "" : html`<p>${warning}</p>`
            }<ul>${suggestions.map((x) => html`<li>${x}</li>`)}<li>${ctx.t.passwordAdvice}</li></ul></div>`
        )
      )

const passwordField = (ctx: Ctx) =>
  html`<div><label for="new-password">${ctx.t.newPassword} <span class="hint">(${ctx.t.passwordRule} ${ctx.t.passwordAdvice})</span></label><input id="new-password" name="password" type="password" autocomplete="new-password" minlength="${Password.limits.min}" maxlength="${Password.limits.max}" required></div>`

/** An error above a form: a plain message, or markup made for it (`weakness`). */
const errorPart = (error: string | Html | undefined) =>
  error === undefined
    ? ""
    : typeof error === "string"
      ? html`<p class="error" role="alert">${error}</p>`
      : error

const inviteForm = (ctx: Ctx, token: string, error?: string | Html, status = 200, welcome = false) =>
  respond(
    ctx,
    bare(
      { base: ctx.cfg.base, lang: ctx.lang, brand: ctx.cfg.brand },
      ctx.t.setPassword,
      html`${errorPart(error)}${
        welcome ? html`<p data-testid="invite-state" data-state="valid">${ctx.t.inviteValid}</p>` : ""
      }
<form class="stack" method="post" action="${ctx.cfg.base}/invite/${token}">${csrfField(ctx)}
${passwordField(ctx)}
<div><button type="submit">${ctx.t.setPassword}</button></div>
</form>`
    ),
    status
  )

/**
 * The invite link's page: what the link is before any form. A valid link shows the password
 * form; a used or expired one says so (410), an unknown one too (404), with no form.
 */
export const invitePage = (ctx: Ctx, token: string): Handler =>
  Effect.map(access(PanelPasswords.linkState(token)), (state) =>
    state === "valid" ? inviteForm(ctx, token, undefined, 200, true) : inviteClosed(ctx, state)
  )

const inviteClosed = (ctx: Ctx, state: Exclude<Flows.InviteState, "valid">) =>
  respond(
    ctx,
    bare(
      { base: ctx.cfg.base, lang: ctx.lang },
      ctx.t.setPassword,
      html`<p class="error" role="alert" data-testid="invite-state" data-state="${state}">${Flows.inviteMessage(ctx.t, state)}</p>
<p><a href="${ctx.cfg.base}/signin">${ctx.t.goToSignIn}</a></p>`
    ),
    Flows.inviteStatus(state)
  )

/** Sets the password through an invite link (judged first), then signs the person in. */
export const acceptInvite = (ctx: Ctx, token: string, f: URLSearchParams): Handler =>
  Effect.gen(function* () {
    const outcome = yield* access(
      PanelPasswords.useLink({
        token,
        password: f.get("password") ?? "",
        client: clientOf(ctx),
        kind: "invite",
        maxMs: ctx.cfg.maxMs
      })
    )
    if (outcome._tag === "Weak") return inviteForm(ctx, token, yield* weakness(ctx, outcome.weakness), 422)
    // Say which: used, expired or unknown (the same page as the link's).
    if (outcome._tag === "Closed") return inviteClosed(ctx, outcome.state)
    if (outcome.token !== null) sessionStarted(ctx, outcome.token)
    return redirect(ctx, "/")
  })

const passwordForm = (s: Signed, error?: string | Html, status = 200) =>
  respond(
    s,
    page(
      s.view,
      s.t.changePassword,
      html`${errorPart(error)}
<form class="stack" method="post" action="${s.cfg.base}/password">${csrfField(s)}
<div><label for="current-password">${s.t.currentPassword}</label><input id="current-password" name="current" type="password" autocomplete="current-password" required></div>
${passwordField(s)}
<div><button type="submit">${s.t.changePassword}</button></div>
</form>`,
      notice(s)
    ),
    status
  )

export const passwordPage = (s: Signed): Handler => Effect.succeed(passwordForm(s))

/** The user's own password: the current one, then the new one judged; the other sessions end. */
export const changePassword = (s: Signed, f: URLSearchParams): Handler =>
  Effect.gen(function* () {
    const user = s.user
    // The router offers this page to the panel's own users only.
    if (user === null) return passwordForm(s, s.t.wrongPassword, 422)
    const outcome = yield* access(
      PanelPasswords.change({
        user,
        current: f.get("current") ?? "",
        next: f.get("password") ?? "",
        client: clientOf(s)
      })
    )
    if (outcome._tag === "WrongPassword") return passwordForm(s, s.t.wrongPassword, 422)
    if (outcome._tag === "Weak") return passwordForm(s, yield* weakness(s, outcome.weakness), 422)
    return redirect(s, "/password", "passwordChanged")
  })
