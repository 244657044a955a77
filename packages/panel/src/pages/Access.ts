/**
 * Access for real money: the second step at sign-in, second-factor enrolment (QR of the
 * `otpauth://` URI, confirmed by a code, recovery codes shown once), the user's sessions, the
 * owner's audit log (with CSV export), the operator's password reset link, and the audit entry
 * of every sensitive action. The rules are core's (`PanelSessions`, `PanelSecondFactor`,
 * `PanelPasswords`, `Audit`): these pages read forms and draw answers.
 */
import {
  Audit,
  type Domain,
  PanelPasswords,
  PanelSecondFactor,
  PanelSessions,
  QrImage,
  type TwoFactor
} from "@pixgate/core"
import { Effect, Option } from "effect"
import * as AuditLog from "../AuditLog.js"
import {
  access,
  type Ctx,
  clientOf,
  cookieNames,
  type Handler,
  notice,
  type PanelError,
  type PanelServices,
  redirect,
  respond,
  type Signed,
  setCookie,
  when
} from "../Ctx.js"
import { fileDay } from "../Exports.js"
import * as Flows from "../Flows.js"
import { type Html, html } from "../Html.js"
import { bare, csrfField, page } from "../Layout.js"
import * as Password from "../Password.js"
import { weakness } from "./Account.js"

/** Who acts, from where: the signed-in user (or the embedding platform) and the request. */
export const actor = (ctx: Ctx, user: { readonly id: string; readonly email: string } | null): Audit.Actor =>
  user === null ? { userId: null, actor: "platform", ...clientOf(ctx) } : Audit.actorOf(user, clientOf(ctx))

/** Appends an audit entry; a store failure is the engine's `StorageUnavailable`. */
export const record = (
  ctx: Ctx,
  merchantId: Domain.MerchantId,
  user: { readonly id: string; readonly email: string } | null,
  action: Audit.AuditAction,
  objectId: string | null = null,
  detail: string | null = null
): Effect.Effect<void, PanelError, PanelServices> =>
  Effect.asVoid(access(Audit.record(merchantId, actor(ctx, user), action, objectId, detail)))

const codeField = (ctx: Ctx) =>
  html`<div><label for="code">${ctx.t.twoFactorCode}</label><input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" required maxlength="32"></div>`

// ---- The second step at sign-in ----

const secondStepForm = (s: Signed, error?: string, next?: string) =>
  bare(
    { base: s.cfg.base, lang: s.lang },
    s.t.twoFactor,
    html`${error ? html`<p class="error" role="alert">${error}</p>` : ""}
<p>${s.t.twoFactorStep}</p>
<form class="stack" method="post" action="${s.cfg.base}/signin/2fa">${csrfField(s)}
${next === undefined ? "" : html`<input type="hidden" name="next" value="${next}">`}
${codeField(s)}
<div><button type="submit">${s.t.twoFactorConfirm}</button></div>
</form>
<form class="inline" method="post" action="${s.cfg.base}/signout">${csrfField(s)}<button type="submit" class="secondary">${s.t.signOut}</button></form>`
  )

/** The second step's page; `?next=` (a same-origin panel path) is where a passed step goes. */
export const secondStepPage = (s: Signed): Handler =>
  Effect.succeed(respond(s, secondStepForm(s, undefined, Flows.safeNext(s.url.searchParams.get("next")))))

export const secondStep = (s: Signed, f: URLSearchParams): Handler =>
  Effect.gen(function* () {
    const user = s.user
    if (user === null) return redirect(s, "/")
    const outcome = yield* access(
      PanelSecondFactor.pass(user, user.sessionHash, f.get("code") ?? "", clientOf(s), s.cfg.throttle)
    )
    const next = Flows.safeNext(f.get("next"))
    if (outcome === "throttled") return respond(s, secondStepForm(s, s.t.tooMany, next), 429)
    if (outcome === "wrong") return respond(s, secondStepForm(s, s.t.twoFactorWrong, next), 401)
    return redirect(s, next ?? "/")
  })

// ---- Enrolment ----

const securityBody = (s: Signed, totp: Option.Option<Domain.PanelTotp>) => {
  const on = Option.isSome(totp) && totp.value.confirmedAt !== null
  return on
    ? html`<p data-testid="2fa-status">${s.t.twoFactorOn}</p>
<p>${s.t.recoveryLeft}: <span data-testid="recovery-left">${Option.isSome(totp) ? totp.value.recoveryCodesLeft : 0}</span></p>
<form class="stack" method="post" action="${s.cfg.base}/security/disable">${csrfField(s)}
${codeField(s)}
<div><button type="submit" class="danger">${s.t.twoFactorDisable}</button></div>
</form>`
    : html`<p data-testid="2fa-status">${s.t.twoFactorOff}</p>
<form method="post" action="${s.cfg.base}/security/enrol">${csrfField(s)}<button type="submit">${s.t.twoFactorStart}</button></form>`
}

export const securityPage = (s: Signed): Handler =>
  Effect.gen(function* () {
    const user = s.user
    if (user === null) return redirect(s, "/")
    const totp = yield* access(PanelSecondFactor.state(user.id))
    return respond(s, page(s.view, s.t.security, securityBody(s, totp), notice(s)))
  })

const enrolForm = (s: Signed, enrolment: TwoFactor.Enrolment, error?: string) =>
  page(
    s.view,
    s.t.twoFactor,
    html`${error ? html`<p class="error" role="alert">${error}</p>` : ""}
<p>${s.t.twoFactorScan}</p>
<img class="qr" src="data:image/png;base64,${QrImage.pngBase64(enrolment.uri)}" alt="QR Code ${s.t.twoFactor}" data-testid="totp-qr">
<p>${s.t.twoFactorSecret}: <code class="secret" data-testid="totp-secret">${enrolment.secret}</code></p>
<form class="stack" method="post" action="${s.cfg.base}/security/confirm">${csrfField(s)}
${codeField(s)}
<div><button type="submit">${s.t.twoFactorConfirm}</button></div>
</form>`
  )

export const enrol = (s: Signed): Handler =>
  Effect.gen(function* () {
    const user = s.user
    if (user === null) return redirect(s, "/")
    const started = yield* access(PanelSecondFactor.enrol(user, s.cfg.issuer))
    return Option.isNone(started) ? redirect(s, "/security") : respond(s, enrolForm(s, started.value))
  })

export const confirm = (s: Signed, f: URLSearchParams): Handler =>
  Effect.gen(function* () {
    const user = s.user
    if (user === null) return redirect(s, "/")
    const result = yield* access(
      PanelSecondFactor.confirm(user, user.sessionHash, f.get("code") ?? "", s.cfg.issuer, clientOf(s))
    )
    if (result._tag === "NotPending") return redirect(s, "/security")
    if (result._tag === "Wrong") return respond(s, enrolForm(s, result.enrolment, s.t.twoFactorWrong), 422)
    const body = html`<p class="notice" role="status">${s.t.twoFactorOn}</p>
<h2>${s.t.recoveryCodes}</h2>
<p>${s.t.recoveryCodesNote}</p>
<ul class="mono" data-testid="recovery-codes">${result.recoveryCodes.map((c) => html`<li>${c}</li>`)}</ul>
<p><a class="button" href="${s.cfg.base}/">${s.t.overview}</a></p>`
    return respond(s, page(s.view, s.t.recoveryCodes, body))
  })

export const disable = (s: Signed, f: URLSearchParams): Handler =>
  Effect.gen(function* () {
    const user = s.user
    if (user === null) return redirect(s, "/")
    const outcome = yield* access(
      PanelSecondFactor.turnOff(user, f.get("code") ?? "", clientOf(s), s.cfg.throttle)
    )
    if (outcome !== "ok") {
      const totp = yield* access(PanelSecondFactor.state(user.id))
      const error = html`<p class="error" role="alert">${outcome === "throttled" ? s.t.tooMany : s.t.twoFactorWrong}</p>`
      return respond(
        s,
        page(s.view, s.t.security, html`${error}${securityBody(s, totp)}`),
        outcome === "throttled" ? 429 : 422
      )
    }
    return redirect(s, "/security", "twoFactorDisabled")
  })

// ---- Sessions ----

export const sessionsPage = (s: Signed): Handler =>
  Effect.gen(function* () {
    const user = s.user
    if (user === null) return redirect(s, "/")
    const list = yield* access(PanelSessions.list(user.id))
    const rows = list.map(
      (x) => html`<tr${x.idHash === user.sessionHash ? html` data-current="true"` : ""}>
<td data-label="${s.t.started}">${when(s, x.createdAt)}${x.idHash === user.sessionHash ? html` <strong>(${s.t.currentSession})</strong>` : ""}</td>
<td data-label="${s.t.address}">${x.address ?? "—"}</td>
<td data-label="${s.t.browser}">${(x.userAgent ?? "—").slice(0, 80)}</td>
<td>${
        x.idHash === user.sessionHash
          ? ""
          : html`<form class="inline" method="post" action="${s.cfg.base}/sessions/revoke">${csrfField(s)}<input type="hidden" name="session" value="${x.idHash}"><button type="submit" class="secondary">${s.t.endSession}</button></form>`
      }</td></tr>`
    )
    const body = html`<div class="table-wrap"><table class="responsive" data-testid="sessions"><thead><tr><th>${s.t.started}</th><th>${s.t.address}</th><th>${s.t.browser}</th><th><span class="visually-hidden">${s.t.endSession}</span></th></tr></thead>
<tbody>${rows}</tbody></table></div>`
    return respond(s, page(s.view, s.t.sessions, body, notice(s)))
  })

export const revokeSession = (s: Signed, f: URLSearchParams): Handler =>
  Effect.gen(function* () {
    const user = s.user
    if (user === null) return redirect(s, "/")
    yield* access(PanelSessions.revoke(user, f.get("session") ?? "", clientOf(s)))
    return redirect(s, "/sessions", "sessionRevoked")
  })

// ---- Audit log (owners) ----

const pageSize = 50

export const auditPage = (s: Signed): Handler =>
  Effect.gen(function* () {
    const before = s.url.searchParams.get("before") ?? undefined
    const entries = yield* access(Audit.list(s.merchant.id, { before, limit: pageSize }))
    const rows = entries.map(
      (e) => html`<tr>
<td data-label="${s.t.auditWhen}">${when(s, e.at)}</td>
<td data-label="${s.t.who}">${e.actor}</td>
<td data-label="${s.t.action}" data-testid="audit-action" data-action="${e.action}">${AuditLog.actionLabel(s.lang, e.action)}</td>
<td data-label="${s.t.object}" class="mono">${e.objectId ?? "—"}</td>
<td data-label="${s.t.address}">${e.address ?? "—"}</td></tr>`
    )
    const last = entries[entries.length - 1]
    const body = html`<p><a class="button secondary" href="${s.cfg.base}/audit.csv" download data-testid="audit-csv">${s.t.exportCsv}</a> <a href="${s.cfg.base}/audit.csv?format=international" download>${s.t.exportCsvIntl}</a></p>
<div class="table-wrap"><table class="responsive" data-testid="audit"><thead><tr><th>${s.t.auditWhen}</th><th>${s.t.who}</th><th>${s.t.action}</th><th>${s.t.object}</th><th>${s.t.address}</th></tr></thead>
<tbody>${rows}</tbody></table></div>
${entries.length === pageSize && last !== undefined ? html`<p><a href="${s.cfg.base}/audit?before=${last.id}">${s.t.older}</a></p>` : ""}`
    return respond(s, page(s.view, s.t.audit, body))
  })

/**
 * The whole log as CSV (newest first), read by pages of 500: in the form of the panel's other
 * exports (`;`, BOM, São Paulo time, Portuguese headers and labels), `?format=international` for
 * `,`, UTC and the action codes.
 */
export const auditCsv = (s: Signed): Handler =>
  Effect.gen(function* () {
    const format: AuditLog.AuditCsvFormat =
      s.url.searchParams.get("format") === "international" ? "international" : "br"
    const lines: Array<string> = [AuditLog.csvHeader(format)]
    let before: string | undefined
    for (;;) {
      const chunk = yield* access(Audit.list(s.merchant.id, { before, limit: Audit.maxPage }))
      for (const e of chunk) lines.push(AuditLog.csvLine(e, format))
      const last = chunk[chunk.length - 1]
      if (chunk.length < Audit.maxPage || last === undefined) break
      before = last.id
    }
    const response = respond(s, lines.join(""), 200, "text/csv; charset=utf-8; header=present")
    const name =
      format === "br"
        ? `pixgate-auditoria-${s.merchant.id}-${fileDay(Date.now())}.csv`
        : `pixgate-audit-${s.merchant.id}-${fileDay(Date.now())}.csv`
    response.headers.set("content-disposition", `attachment; filename="${name}"`)
    return response
  })

// ---- Password reset link (issued by the operator) ----

const resetForm = (ctx: Ctx, token: string, error?: Html | string, status = 200) =>
  respond(
    ctx,
    bare(
      { base: ctx.cfg.base, lang: ctx.lang },
      ctx.t.resetPassword,
      html`${error === undefined ? "" : typeof error === "string" ? html`<p class="error" role="alert">${error}</p>` : error}
<form class="stack" method="post" action="${ctx.cfg.base}/reset/${token}">${csrfField(ctx)}
<div><label for="new-password">${ctx.t.newPassword} <span class="hint">(${ctx.t.passwordRule} ${ctx.t.passwordAdvice})</span></label><input id="new-password" name="password" type="password" autocomplete="new-password" minlength="${Password.limits.min}" maxlength="${Password.limits.max}" required></div>
<div><button type="submit">${ctx.t.setPassword}</button></div>
</form>`
    ),
    status
  )

export const resetPage = (ctx: Ctx, token: string): Handler => Effect.succeed(resetForm(ctx, token))

/** Sets the password through the operator's reset link (judged first); the user signs in again everywhere. */
export const acceptReset = (ctx: Ctx, token: string, f: URLSearchParams): Handler =>
  Effect.gen(function* () {
    const outcome = yield* access(
      PanelPasswords.useLink({
        token,
        password: f.get("password") ?? "",
        client: clientOf(ctx),
        kind: "reset",
        maxMs: ctx.cfg.maxMs
      })
    )
    if (outcome._tag === "Weak") return resetForm(ctx, token, yield* weakness(ctx, outcome.weakness), 422)
    if (outcome._tag === "Closed") return resetForm(ctx, token, ctx.t.resetInvalid, 410)
    // Signed out everywhere: sign in again with the new password (and the second factor).
    setCookie(ctx, cookieNames.session, "", 0)
    return redirect(ctx, "/signin")
  })
