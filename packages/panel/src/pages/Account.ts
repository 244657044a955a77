/** Sign-in, sessions, invites and the password page of the panel's own users. */
import { type Domain, PanelAccess, SignInThrottle, TwoFactor } from "@pixgate/core"
import { Effect, Option } from "effect"
import {
  type Ctx,
  cookie,
  cookieNames,
  type Handler,
  notice,
  type PanelError,
  type PanelServices,
  promise,
  redirect,
  respond,
  type Signed,
  store
} from "../Ctx.js"
import * as Flows from "../Flows.js"
import { html } from "../Html.js"
import { bare, csrfField, page } from "../Layout.js"
import * as Password from "../Password.js"
import * as Access from "./Access.js"

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

const startSession = (ctx: Ctx, user: Domain.PanelUser): Effect.Effect<void, PanelError, PanelServices> => {
  const token = PanelAccess.newToken()
  return store((st) =>
    Effect.gen(function* () {
      const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
      yield* st.createPanelSession({
        idHash: PanelAccess.hashToken(token),
        userId: user.id,
        merchantId: user.merchantId,
        createdAt: now,
        lastSeenAt: now,
        expiresAt: now + ctx.cfg.maxMs,
        revokedAt: null,
        address: ctx.address === "unknown" ? null : ctx.address,
        userAgent: (ctx.request.headers.get("user-agent") ?? "").slice(0, 256) || null,
        secondFactorAt: null
      })
    })
  ).pipe(
    Effect.tap(() => {
      ctx.setCookies.push(cookie(ctx, cookieNames.session, token, Math.floor(ctx.cfg.maxMs / 1000)))
    })
  )
}

export const signIn = (ctx: Ctx, f: URLSearchParams, address: string): Handler =>
  Effect.gen(function* () {
    const email = PanelAccess.normalizeEmail(f.get("email")) ?? ""
    const password = f.get("password") ?? ""
    const next = Flows.safeNext(f.get("next"))
    // Counted in the store, so every instance sees the same failures; never an account-wide lock.
    const decision = yield* Access.core(SignInThrottle.check(email, address, ctx.cfg.throttle))
    const user = email === "" ? Option.none() : yield* store((s) => s.findPanelUser(email))
    if (decision._tag === "Refused") {
      if (Option.isSome(user))
        yield* Access.record(
          ctx,
          user.value.merchantId,
          { id: user.value.id, email },
          "signin.throttled",
          user.value.id
        )
      return respond(ctx, signInForm(ctx, email, ctx.t.tooMany, next), 429)
    }
    if (decision.delayMs > 0) yield* Effect.sleep(decision.delayMs)
    const stored = Option.isSome(user) ? user.value.passwordHash : null
    // The same work whether or not the account exists.
    const matches = yield* promise("password", () => Password.verify(password, stored ?? Password.decoy))
    if (!matches || stored === null || Option.isNone(user)) {
      yield* Access.core(SignInThrottle.failed(email, address, ctx.cfg.throttle))
      if (Option.isSome(user))
        yield* Access.record(
          ctx,
          user.value.merchantId,
          { id: user.value.id, email },
          "signin.failure",
          user.value.id
        )
      return respond(ctx, signInForm(ctx, email, ctx.t.wrongPassword, next), 401)
    }
    yield* Access.core(SignInThrottle.succeeded(email, address))
    yield* startSession(ctx, user.value)
    const enrolled = yield* Access.core(TwoFactor.enrolled(user.value.id))
    if (enrolled) return redirect(ctx, "/signin/2fa")
    yield* Access.record(ctx, user.value.merchantId, user.value, "signin.success", user.value.id)
    return redirect(ctx, next ?? "/")
  })

export const signOut = (s: Signed): Handler =>
  Effect.gen(function* () {
    const hash = s.user?.sessionHash
    if (hash !== undefined) yield* store((st) => st.revokePanelSession(hash, Date.now()))
    s.setCookies.push(cookie(s, cookieNames.session, "", 0))
    return redirect(s, "/signin")
  })

const passwordField = (ctx: Ctx) =>
  html`<div><label for="new-password">${ctx.t.newPassword} <span class="hint">(${ctx.t.passwordRule})</span></label><input id="new-password" name="password" type="password" autocomplete="new-password" minlength="${Password.limits.min}" maxlength="${Password.limits.max}" required></div>`

const inviteForm = (ctx: Ctx, token: string, error?: string, status = 200, welcome = false) =>
  respond(
    ctx,
    bare(
      { base: ctx.cfg.base, lang: ctx.lang, brand: ctx.cfg.brand },
      ctx.t.setPassword,
      html`${error ? html`<p class="error" role="alert">${error}</p>` : ""}${
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
  Effect.gen(function* () {
    const found = yield* store((st) => st.findPanelInvite(PanelAccess.hashToken(token)))
    const state = Flows.inviteState(Option.getOrUndefined(found), Date.now())
    if (state === "valid") return inviteForm(ctx, token, undefined, 200, true)
    return inviteClosed(ctx, state)
  })

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

const validPassword = (p: string) => p.length >= Password.limits.min && p.length <= Password.limits.max

export const acceptInvite = (ctx: Ctx, token: string, f: URLSearchParams): Handler =>
  Effect.gen(function* () {
    const password = f.get("password") ?? ""
    if (!validPassword(password)) return inviteForm(ctx, token, ctx.t.passwordRule, 422)
    const hashed = yield* promise("password", () => Password.hash(password))
    const hash = PanelAccess.hashToken(token)
    const user = yield* store((st) => st.usePanelInvite(hash, hashed, Date.now()))
    if (Option.isNone(user)) {
      // Say which: used, expired or unknown (the same page as the link's).
      const found = yield* store((st) => st.findPanelInvite(hash))
      const state = Flows.inviteState(Option.getOrUndefined(found), Date.now())
      return inviteClosed(ctx, state === "valid" ? "used" : state)
    }
    yield* Access.record(ctx, user.value.merchantId, user.value, "password.set", user.value.id, "invite")
    yield* startSession(ctx, user.value)
    return redirect(ctx, "/")
  })

const passwordForm = (s: Signed, error?: string, status = 200) =>
  respond(
    s,
    page(
      s.view,
      s.t.changePassword,
      html`${error ? html`<p class="error" role="alert">${error}</p>` : ""}
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

export const changePassword = (s: Signed, f: URLSearchParams): Handler =>
  Effect.gen(function* () {
    const user = s.user
    // The router offers this page to the panel's own users only.
    if (user === null) return passwordForm(s, s.t.wrongPassword, 422)
    const stored = yield* store((st) => st.getPanelUser(user.id))
    const hash = Option.isSome(stored) ? stored.value.passwordHash : null
    const current = f.get("current") ?? ""
    const matches = hash === null ? false : yield* promise("password", () => Password.verify(current, hash))
    if (!matches) return passwordForm(s, s.t.wrongPassword, 422)
    const next = f.get("password") ?? ""
    if (!validPassword(next)) return passwordForm(s, s.t.passwordRule, 422)
    const hashed = yield* promise("password", () => Password.hash(next))
    yield* store((st) => st.setPanelPassword(user.id, hashed, Date.now(), user.sessionHash))
    return redirect(s, "/password", "passwordChanged")
  })
