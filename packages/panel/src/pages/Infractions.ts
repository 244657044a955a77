/**
 * MED infractions in the panel (issue 36; docs/decisions.md "MED infractions"): the merchant's
 * infractions of the current mode with their state, amounts (claimed, blocked, returned) and
 * deadline (São Paulo time, "vence em N dias"); an infraction's page with the answer form
 * (accept or contest with a justification) for the roles that may move money back (`refund.create`:
 * owner and finance), refused after the deadline with a clear message, and the outcome; the
 * overview's notice while one is open; the MED returns listed on a charge's receipt.
 */
import { type Engine, Errors, Infractions, MedInfractions, PanelRoles } from "@pixgate/core"
import { Effect, Option } from "effect"
import {
  brl,
  type Ctx,
  engine,
  errorBox,
  type Handler,
  redirect,
  respond,
  type Signed,
  when
} from "../Ctx.js"
import * as FormToken from "../FormToken.js"
import { html, type Part } from "../Html.js"
import { type InfractionWords, infractionWords } from "../InfractionWords.js"
import { csrfField, page as frame } from "../Layout.js"
import type { Route } from "../Routes.js"

const w = (s: Ctx): InfractionWords => infractionWords(s.lang)

/** Whether the role may answer an infraction: those who may give money back (owner, finance). */
export const answers = (s: Signed): boolean => PanelRoles.can(s.user?.role ?? "owner", "refund.create")

const dayMs = 86_400_000

/** The most characters of a justification (the admin API's bound). */
const MedInfractions_max = 2000

/** "vence em N dias" (whole days left, rounded up), "vence em menos de 1 dia", or "prazo encerrado". */
export const dueText = (words: InfractionWords, deadline: number, now: number): string => {
  const left = deadline - now
  if (left < 0) return words.deadlinePassed
  if (left < dayMs) return words.dueToday
  return words.dueInDays(Math.ceil(left / dayMs))
}

const statusText = (s: Ctx, status: MedInfractions.InfractionStatus): string => w(s)[status]

const statusPart = (s: Ctx, status: MedInfractions.InfractionStatus): Part =>
  html`<span class="status-${status}" data-testid="infraction-status">${statusText(s, status)}</span>`

const deadlinePart = (s: Ctx, inf: MedInfractions.Infraction, now: number): Part =>
  html`${when(s, inf.deadline)}${
    inf.status === "open"
      ? html` <span class="hint" data-testid="infraction-due">(${dueText(w(s), inf.deadline, now)})</span>`
      : ""
  }`

const list = (s: Signed): Handler =>
  Effect.gen(function* () {
    const rows = yield* engine((e) =>
      e.infractions.supported
        ? e.infractions.list({ merchantId: s.merchant.id, mode: s.mode, limit: 200 })
        : Effect.succeed([])
    )
    const now = Date.now()
    const table =
      rows.length === 0
        ? html`<p data-testid="no-infractions">${w(s).noInfractions}</p>`
        : html`<div class="table-wrap"><table class="responsive" data-testid="infractions">
<thead><tr><th scope="col">${w(s).openedAt}</th><th scope="col">${s.t.status}</th><th scope="col" class="num">${w(s).claimed}</th><th scope="col" class="num">${w(s).blocked}</th><th scope="col" class="num">${w(s).returned}</th><th scope="col">${w(s).deadline}</th><th scope="col">${w(s).charge}</th></tr></thead>
<tbody>${rows.map(
            (i) =>
              html`<tr data-id="${i.id}"><td data-label="${w(s).openedAt}"><a href="${s.cfg.base}/infractions/${i.id}">${when(s, i.openedAt)}</a></td><td data-label="${s.t.status}">${statusPart(s, i.status)}</td><td class="num" data-label="${w(s).claimed}">${brl(s, i.amountClaimed)}</td><td class="num" data-label="${w(s).blocked}">${brl(s, i.blockedAmount)}</td><td class="num" data-label="${w(s).returned}">${brl(s, i.returnedAmount)}</td><td data-label="${w(s).deadline}">${deadlinePart(s, i, now)}</td><td data-label="${w(s).charge}"><a class="mono" href="${s.cfg.base}/transactions/${i.transactionId}">${i.transactionId}</a></td></tr>`
          )}</tbody></table></div>`
    return respond(s, frame(s.view, w(s).infractions, html`<p>${w(s).intro}</p>${table}`))
  })

const own = (s: Signed, id: string) =>
  Effect.flatMap(
    engine((e) =>
      MedInfractions.isInfractionId(id) && e.infractions.supported
        ? e.infractions.get(id)
        : Effect.succeed(Option.none<MedInfractions.Infraction>())
    ),
    (found) =>
      Option.isSome(found) && found.value.merchantId === s.merchant.id && found.value.mode === s.mode
        ? Effect.succeed(found.value)
        : Effect.fail(Errors.notFound("Infraction"))
  )

const outcomeText = (s: Ctx, status: MedInfractions.InfractionStatus): string =>
  status === "open"
    ? w(s).outcomeOpen
    : status === "defended"
      ? w(s).outcomeDefended
      : status === "accepted"
        ? w(s).outcomeAccepted
        : status === "rejected"
          ? w(s).outcomeRejected
          : w(s).outcomeCancelled

const answerForm = (s: Signed, inf: MedInfractions.Infraction, now: number, f?: URLSearchParams): Part => {
  if (inf.status !== "open") return ""
  if (now > inf.deadline)
    return html`<div class="error" role="alert" data-testid="deadline-passed"><p>${w(s).closedAnswer}</p></div>`
  if (!answers(s)) return html`<p data-testid="not-allowed">${w(s).notAllowed}</p>`
  const analysis = f?.get("analysis") === "accepted" ? "accepted" : "contested"
  return html`<h2>${w(s).answerTitle}</h2><p>${w(s).answerHint}</p>
<form class="stack" method="post" action="${s.cfg.base}/infractions/${inf.id}/answer" data-testid="answer-form">${csrfField(s)}${FormToken.field(s)}
<fieldset><legend>${w(s).analysis}</legend>
<div><input id="a-contested" name="analysis" type="radio" value="contested"${analysis === "contested" ? html` checked` : ""}> <label for="a-contested">${w(s).contest}</label></div>
<div><input id="a-accepted" name="analysis" type="radio" value="accepted"${analysis === "accepted" ? html` checked` : ""}> <label for="a-accepted">${w(s).accept}</label></div>
</fieldset>
<div><label for="a-justification">${w(s).justification} <span class="hint">(${w(s).justificationHint})</span></label><textarea id="a-justification" name="justification" rows="5" maxlength="${MedInfractions_max}" required>${f?.get("justification") ?? ""}</textarea></div>
<div><button type="submit" data-testid="send-answer">${w(s).send}</button></div>
</form>`
}

const done = (s: Signed): Part => {
  const key = s.url.searchParams.get("done")
  return key === "answered"
    ? html`<p class="notice" role="status" data-testid="infraction-notice">${w(s).answered}</p>`
    : key === "formRepeated"
      ? html`<p class="notice" role="status">${s.t.formRepeated}</p>`
      : ""
}

const detail = (s: Signed, id: string, f?: URLSearchParams, error?: Errors.PixgateError): Handler =>
  Effect.gen(function* () {
    const inf = yield* own(s, id)
    const now = Date.now()
    const returns = (yield* engine((e) => e.infractions.returns(inf.transactionId))).filter(
      (r) => r.infractionId === inf.id
    )
    const body = html`${error === undefined ? "" : errorBox(error, s.lang)}<dl class="fields">
<dt>${s.t.status}</dt><dd>${statusPart(s, inf.status)}</dd>
<dt>${w(s).type}</dt><dd>${w(s)[inf.type]}</dd>
<dt>${w(s).reason}</dt><dd>${inf.reason}</dd>
<dt>${w(s).claimed}</dt><dd data-testid="infraction-claimed">${brl(s, inf.amountClaimed)}</dd>
<dt>${w(s).blocked}</dt><dd data-testid="infraction-blocked">${brl(s, inf.blockedAmount)}</dd>
<dt>${w(s).returned}</dt><dd data-testid="infraction-returned">${brl(s, inf.returnedAmount)}</dd>
<dt>${w(s).openedAt}</dt><dd>${when(s, inf.openedAt)}</dd>
<dt>${w(s).deadline}</dt><dd data-testid="infraction-deadline">${deadlinePart(s, inf, now)}</dd>
<dt>${w(s).charge}</dt><dd><a class="mono" href="${s.cfg.base}/transactions/${inf.transactionId}">${inf.transactionId}</a></dd>
<dt>${w(s).bankId}</dt><dd class="mono">${inf.bankId}</dd>
${
  inf.answer === null
    ? ""
    : html`<dt>${w(s).yourAnswer}</dt><dd data-testid="infraction-answer">${inf.answer.analysis === "contested" ? w(s).contest : w(s).accept}: ${inf.answer.justification}</dd>
<dt>${w(s).answeredAt}</dt><dd>${when(s, inf.answer.at)}</dd>`
}
</dl>
<h2>${w(s).outcome}</h2><p data-testid="infraction-outcome">${outcomeText(s, inf.status)}</p>
${returns.length === 0 ? "" : returnsTable(s, returns)}
${answerForm(s, inf, now, f)}`
    return respond(
      s,
      frame(s.view, `${w(s).infraction} ${brl(s, inf.amountClaimed)}`, body, done(s)),
      error === undefined ? 200 : 409
    )
  })

const answer = (s: Signed, id: string, f: URLSearchParams): Handler =>
  Effect.gen(function* () {
    const inf = yield* own(s, id)
    const analysis = f.get("analysis")
    const justification = (f.get("justification") ?? "").trim()
    if (analysis !== "accepted" && analysis !== "contested")
      return yield* Effect.fail(
        Errors.validation("invalid_field", "analysis", "analysis must be one of: accepted, contested")
      )
    if (
      justification.length === 0 ||
      justification.length > MedInfractions_max ||
      justification.includes("\u0000")
    )
      return yield* Effect.fail(
        Errors.validation(
          "invalid_field",
          "justification",
          `justification must be a string of 1 to ${MedInfractions_max} characters`
        )
      )
    const { outcome } = yield* FormToken.once(
      s,
      f,
      "infraction.answer",
      Effect.gen(function* () {
        const r = yield* engine((e) =>
          e.infractions.answer({ merchantId: s.merchant.id, mode: s.mode }, inf.id, {
            analysis,
            justification
          })
        )
        if (r.ok) return { done: true as const }
        return yield* Effect.fail(Infractions.answerError(r, inf))
      }),
      (r) => r,
      FormToken.Done
    )
    return redirect(s, `/infractions/${inf.id}?done=${outcome._tag === "Done" ? "answered" : "formRepeated"}`)
  }).pipe(Effect.catchIf(Errors.isPixgateError, (error) => detail(s, id, f, error)))

/** The overview's notice while infractions of this mode are open (nothing otherwise). */
export const overviewNotice = (s: Signed): Effect.Effect<Part, Errors.PixgateError, Engine.Engine> =>
  Effect.map(
    engine((e) =>
      e.infractions.supported
        ? e.infractions.list({ merchantId: s.merchant.id, mode: s.mode, statuses: ["open"], limit: 100 })
        : Effect.succeed([])
    ),
    (open): Part =>
      open.length === 0
        ? ""
        : html`<div class="banner" role="alert" data-testid="infraction-banner">${w(s).overviewNotice(open.length)} <a href="${s.cfg.base}/infractions">${w(s).overviewLink}</a></div>`
  )

const returnsTable = (s: Ctx, rows: ReadonlyArray<MedInfractions.InfractionReturn>): Part =>
  html`<h2>${w(s).returnsTitle}</h2><div class="table-wrap"><table class="responsive" data-testid="med-returns">
<thead><tr><th scope="col">${w(s).returnedAt}</th><th scope="col">${w(s).nature}</th><th scope="col" class="num">${w(s).returned}</th><th scope="col" class="num">${w(s).fromBlocked}</th><th scope="col" class="num">${w(s).fromAvailable}</th><th scope="col">${w(s).returnId}</th></tr></thead>
<tbody>${rows.map(
    (r) =>
      html`<tr><td data-label="${w(s).returnedAt}">${when(s, r.returnedAt)}</td><td data-label="${w(s).nature}">${w(s)[r.nature]}</td><td class="num" data-label="${w(s).returned}">${brl(s, r.amount)}</td><td class="num" data-label="${w(s).fromBlocked}">${brl(s, r.fromBlocked)}</td><td class="num" data-label="${w(s).fromAvailable}">${brl(s, r.fromAvailable)}</td><td class="mono" data-label="${w(s).returnId}">${r.id}</td></tr>`
  )}</tbody></table></div>`

/** The MED returns of a charge for its receipt page (nothing when there are none). */
export const receiptReturns = (
  s: Signed,
  transactionId: MedInfractions.InfractionReturn["transactionId"]
): Effect.Effect<Part, Errors.PixgateError, Engine.Engine> =>
  Effect.map(
    engine((e) => (e.infractions.supported ? e.infractions.returns(transactionId) : Effect.succeed([]))),
    (rows): Part => (rows.length === 0 ? "" : returnsTable(s, rows))
  )

/** The infractions' routes (registered in `Routes.ts`). */
export const routes: ReadonlyArray<Route> = [
  { method: "GET", path: /^\/infractions$/, handle: (s) => list(s) },
  { method: "GET", path: /^\/infractions\/(inf_[A-Za-z0-9]+)$/, handle: (s, p) => detail(s, p[0] ?? "") },
  {
    method: "POST",
    path: /^\/infractions\/(inf_[A-Za-z0-9]+)\/answer$/,
    need: "refund.create",
    audit: "infraction.answer",
    handle: (s, p, f) => answer(s, p[0] ?? "", f)
  }
]
