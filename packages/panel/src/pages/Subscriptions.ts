/**
 * Subscriptions (Pix Automático) in the panel: the merchant's subscriptions of the current mode
 * with a status filter; a subscription's page with the recurrence's fields, what the payer needs
 * (journey 1's push request and its state, or the QR as an image and as Pix Copia e Cola), its
 * cycles with their status and attempts, a paid cycle's receipt (the charge's receipt page), a
 * retry where the policy allows it, and the cancellation behind a confirmation page. Cancelling
 * and ordering a retry ask for `charge.create` (money in: owner, finance, developer); every
 * form carries a one-time token (`FormToken`), so a repeated submission acts once.
 */
import {
  DueDate,
  Errors,
  QrImage,
  Recurrence as R,
  type SubscriptionViews,
  SubscriptionViews as Views
} from "@pixgate/core"
import { Effect } from "effect"
import {
  brl,
  type Ctx,
  engine,
  errorBox,
  type Handler,
  pageStatus,
  redirect,
  respond,
  type Signed,
  when
} from "../Ctx.js"
import * as FormToken from "../FormToken.js"
import { type Html, html, type Part } from "../Html.js"
import { csrfField, page as frame } from "../Layout.js"
import type { Route } from "../Routes.js"
import { type SubscriptionWords, subscriptionWords } from "../SubscriptionWords.js"
import { allows } from "./Parts.js"

const w = (s: Ctx): SubscriptionWords => subscriptionWords(s.lang)

/** Whether the role may cancel a subscription or order a retry (money in: `charge.create`). */
export const acts = (s: Signed): boolean => allows(s, "charge.create")

/** `"99.90"` as the panel writes money. */
const money = (s: Ctx, valor: string): string => brl(s, Views.parseValor(valor) ?? 0)

/** A `YYYY-MM-DD` day as the page's language writes it. */
const dayText = (s: Ctx, text: string): string => {
  const [y, m, d] = text.split("-")
  return s.lang === "en" ? text : `${d}/${m}/${y}`
}

const instant = (s: Ctx, iso: string) => when(s, Date.parse(iso))

const recStatus = (s: Ctx, status: R.RecStatus): Html =>
  html`<span class="status-${status}" data-testid="subscription-status" data-status="${status}">${w(s).rec[status]}</span>`

const cobrStatus = (s: Ctx, status: R.CobRStatus): Html =>
  html`<span class="status-${status}" data-testid="cycle-status" data-status="${status}">${w(s).cobr[status]}</span>`

const debtorDocument = (d: R.Devedor): string => d.cpf ?? d.cnpj ?? "—"

// ---------------------------------------------------------------------------------------------
// The list
// ---------------------------------------------------------------------------------------------

const statusOf = (value: string | null): R.RecStatus | undefined =>
  (R.recStatuses as ReadonlyArray<string>).includes(value ?? "") ? (value as R.RecStatus) : undefined

const filterForm = (s: Signed, chosen: R.RecStatus | undefined): Html =>
  html`<form class="filters" method="get" action="${s.cfg.base}/subscriptions" data-testid="subscription-filter">
<div><label for="f-status">${w(s).filter}</label><select id="f-status" name="status"><option value="">${w(s).all}</option>${R.recStatuses.map(
    (st) =>
      html`<option value="${st}"${chosen === st ? html` selected` : ""}>${w(s).rec[st]} (${st})</option>`
  )}</select></div>
<div><button type="submit" class="secondary">${w(s).apply}</button></div>
</form>`

const list = (s: Signed): Handler =>
  Effect.gen(function* () {
    const status = statusOf(s.url.searchParams.get("status"))
    const rows = yield* engine((e) => e.subscriptions.list(s.caller, { status, limit: 100 }))
    const table =
      rows.length === 0
        ? html`<p data-testid="no-subscriptions">${status === undefined ? w(s).none : w(s).noneWithStatus}</p>`
        : html`<div class="table-wrap"><table class="responsive" data-testid="subscriptions">
<thead><tr><th scope="col">${w(s).created}</th><th scope="col">${w(s).contract}</th><th scope="col">${w(s).debtor}</th><th scope="col">${s.t.status}</th><th scope="col">${w(s).period}</th><th scope="col" class="num">${w(s).cycleAmount}</th></tr></thead>
<tbody>${rows.map(
            (r) =>
              html`<tr data-id="${r.id}"><td data-label="${w(s).created}"><a href="${s.cfg.base}/subscriptions/${r.id}">${instant(s, r.createdAt)}</a></td><td data-label="${w(s).contract}">${r.vinculo.contrato}</td><td data-label="${w(s).debtor}">${r.vinculo.devedor.nome}</td><td data-label="${s.t.status}">${recStatus(s, r.status)}</td><td data-label="${w(s).period}">${w(s)[r.calendario.periodicidade]}</td><td class="num" data-label="${w(s).cycleAmount}">${money(s, r.valorCiclo)}</td></tr>`
          )}</tbody></table></div>`
    return respond(
      s,
      frame(s.view, w(s).subscriptions, html`<p>${w(s).intro}</p>${filterForm(s, status)}${table}`)
    )
  })

// ---------------------------------------------------------------------------------------------
// A subscription
// ---------------------------------------------------------------------------------------------

const own = (s: Signed, id: string) => engine((e) => e.subscriptions.get(s.caller, id))

const ending = (s: Signed, sub: SubscriptionViews.SubscriptionJson): Part => {
  const e = sub.encerramento
  if (e === undefined) return ""
  const text =
    e.cancelamento !== undefined
      ? `${e.cancelamento.solicitante === "USUARIO_RECEBEDOR" ? w(s).byReceiver : w(s).byPayer} (${e.cancelamento.codigo}: ${e.cancelamento.descricao})`
      : e.rejeicao !== undefined
        ? `${w(s).rejectedBy} (${e.rejeicao.codigo}: ${e.rejeicao.descricao})`
        : ""
  return html`<dt>${w(s).ended}</dt><dd data-testid="subscription-ended">${text}</dd>`
}

const fields = (s: Signed, sub: SubscriptionViews.SubscriptionJson): Html =>
  html`<dl class="fields">
<dt>${s.t.status}</dt><dd>${recStatus(s, sub.status)} <span class="hint">${sub.status}</span></dd>
<dt>idRec</dt><dd class="mono" data-testid="subscription-idrec">${sub.idRec ?? "—"}</dd>
<dt>${w(s).contract}</dt><dd data-testid="subscription-contract">${sub.vinculo.contrato}</dd>
${sub.vinculo.objeto === undefined ? "" : html`<dt>${w(s).object}</dt><dd>${sub.vinculo.objeto}</dd>`}
<dt>${w(s).debtor}</dt><dd data-testid="subscription-debtor">${sub.vinculo.devedor.nome}</dd>
<dt>${w(s).document}</dt><dd class="mono">${debtorDocument(sub.vinculo.devedor)}</dd>
<dt>${w(s).journey}</dt><dd>${w(s)[sub.jornada]}</dd>
<dt>${w(s).period}</dt><dd>${w(s)[sub.calendario.periodicidade]}</dd>
<dt>${w(s).start}</dt><dd>${dayText(s, sub.calendario.dataInicial)}</dd>
<dt>${w(s).end}</dt><dd>${sub.calendario.dataFinal === undefined ? w(s).noEnd : dayText(s, sub.calendario.dataFinal)}</dd>
${sub.valor.valorRec === undefined ? "" : html`<dt>${w(s).fixedAmount}</dt><dd>${money(s, sub.valor.valorRec)}</dd>`}
${
  sub.valor.valorMinimoRecebedor === undefined
    ? ""
    : html`<dt>${w(s).minimumAmount}</dt><dd>${money(s, sub.valor.valorMinimoRecebedor)}</dd>`
}
<dt>${w(s).cycleAmount}</dt><dd data-testid="subscription-amount">${money(s, sub.valorCiclo)}</dd>
${
  sub.valorMaximoPagador === undefined
    ? ""
    : html`<dt>${w(s).payerMaximum}</dt><dd data-testid="subscription-maximum">${money(s, sub.valorMaximoPagador)}</dd>`
}
<dt>${w(s).retryPolicy}</dt><dd>${w(s)[sub.politicaRetentativa]}</dd>
<dt>${w(s).created}</dt><dd>${instant(s, sub.createdAt)}</dd>
${ending(s, sub)}
${
  sub.cobranca === undefined
    ? ""
    : html`<dt>${w(s).firstCharge}</dt><dd><a class="mono" href="${s.cfg.base}/transactions/${sub.cobranca.transactionId}">${sub.cobranca.transactionId}</a></dd>`
}
</dl>`

/** What the payer needs: journey 1's push request and its state, or the QR while it waits. */
const share = (s: Signed, sub: SubscriptionViews.SubscriptionJson): Part => {
  if (sub.solicitacao !== undefined) {
    const solic = sub.solicitacao
    return html`<section aria-labelledby="push-heading" data-testid="subscription-push"><h2 id="push-heading">${w(s).pushTitle}</h2>
<dl class="fields">
<dt>${w(s).pushState}</dt><dd data-testid="push-status" data-status="${solic.status}">${w(s).solic[solic.status]}</dd>
<dt>${w(s).pushExpires}</dt><dd>${instant(s, solic.calendario.dataExpiracaoSolicitacao)}</dd>
<dt>${w(s).pushBank}</dt><dd class="mono">${solic.destinatario.ispbParticipante}</dd>
<dt>idSolicRec</dt><dd class="mono">${solic.idSolicRec}</dd>
</dl></section>`
  }
  if (sub.dadosQR === undefined || sub.status !== "CRIADA") return ""
  const code = sub.dadosQR.pixCopiaECola
  return html`<section class="qr" aria-labelledby="qr-heading" data-testid="subscription-qr"><h2 id="qr-heading">${w(s).qrTitle}</h2>
<img src="data:image/png;base64,${QrImage.pngBase64(code)}" alt="${w(s).qrAlt}" data-testid="qr">
<p><span id="copy-label">${w(s).copyPaste}</span></p>
<code class="secret" id="brcode" aria-labelledby="copy-label" data-testid="brcode">${code}</code>
<p><button type="button" class="secondary" data-copy="brcode" data-copied="${w(s).copied}">${w(s).copy}</button></p>
</section>`
}

const attempts = (s: Signed, c: SubscriptionViews.CycleJson): Part =>
  c.tentativas.length === 0
    ? w(s).noAttempts
    : html`<ul class="plain" data-testid="cycle-attempts">${c.tentativas.map(
        (t) =>
          html`<li data-tipo="${t.tipo}" data-status="${t.status}">${t.tipo} ${dayText(s, t.dataLiquidacao)}: ${w(s).tentativa[t.status]}${
            t.rejeicao === undefined
              ? ""
              : html` <span class="hint">(${t.rejeicao.codigo}: ${t.rejeicao.descricao})</span>`
          }</li>`
      )}</ul>`

/** The days a retry of `c` may settle on from today, when the policy allows one now. */
const retryDays = (
  sub: SubscriptionViews.SubscriptionJson,
  c: SubscriptionViews.CycleJson,
  today: DueDate.Day
): { readonly first: DueDate.Day; readonly last: DueDate.Day } | undefined => {
  if (sub.status !== "APROVADA") return undefined
  const due = DueDate.parseDay(c.dataLiquidacao)
  if (due === undefined) return undefined
  const attemptDays = c.tentativas.map((t) => ({
    ...t,
    dataLiquidacao: DueDate.parseDay(t.dataLiquidacao) ?? due
  }))
  const after = Math.max(today, ...attemptDays.map((a) => a.dataLiquidacao))
  const first = DueDate.nextBusinessDay(after + 1)
  const last = R.lastRetryDay(c.politicaRetentativa, due)
  const verdict = R.retryVerdict({
    politica: c.politicaRetentativa,
    status: c.status,
    due,
    attempts: attemptDays,
    day: first,
    today
  })
  return verdict.ok ? { first, last } : undefined
}

const retryForm = (
  s: Signed,
  sub: SubscriptionViews.SubscriptionJson,
  c: SubscriptionViews.CycleJson
): Part => {
  const days = retryDays(sub, c, DueDate.dayOf(Date.now()))
  if (days === undefined || !acts(s)) return ""
  const first = DueDate.formatDay(days.first)
  const last = DueDate.formatDay(days.last)
  return html`<form class="stack" method="post" action="${s.cfg.base}/subscriptions/${sub.id}/cycles/${c.txid}/retry" data-testid="retry-form">${csrfField(s)}${FormToken.field(s)}
<div><label for="r-${c.txid}">${w(s).retryDate} <span class="hint">(${w(s).retryHint(dayText(s, last))})</span></label><input id="r-${c.txid}" name="data" type="date" min="${first}" max="${last}" value="${first}" required></div>
<div><button type="submit" data-testid="retry-send">${w(s).retrySend}</button></div>
</form>`
}

const cyclesTable = (
  s: Signed,
  sub: SubscriptionViews.SubscriptionJson,
  cycles: ReadonlyArray<SubscriptionViews.CycleJson>
): Html =>
  cycles.length === 0
    ? html`<p data-testid="no-cycles">${w(s).noCycles}</p>`
    : html`<div class="table-wrap"><table class="responsive" data-testid="cycles">
<thead><tr><th scope="col">${w(s).cycle}</th><th scope="col">${w(s).due}</th><th scope="col">${w(s).settles}</th><th scope="col" class="num">${w(s).amount}</th><th scope="col">${s.t.status}</th><th scope="col">${w(s).attempts}</th><th scope="col"><span class="visually-hidden">${w(s).receipt}</span></th></tr></thead>
<tbody>${cycles.map(
        (c) =>
          html`<tr data-txid="${c.txid}" data-ciclo="${c.ciclo}"><td data-label="${w(s).cycle}">${c.ciclo}</td><td data-label="${w(s).due}">${dayText(s, c.calendario.dataDeVencimento)}</td><td data-label="${w(s).settles}">${dayText(s, c.dataLiquidacao)}</td><td class="num" data-label="${w(s).amount}">${money(s, c.valor.original)}</td><td data-label="${s.t.status}">${cobrStatus(s, c.status)}</td><td data-label="${w(s).attempts}">${attempts(s, c)}${retryForm(s, sub, c)}</td><td data-label="${w(s).receipt}">${
            c.status === "CONCLUIDA"
              ? html`<a href="${s.cfg.base}/transactions/${c.transactionId}/receipt" data-testid="cycle-receipt">${w(s).receipt}</a>`
              : ""
          }</td></tr>`
      )}</tbody></table></div>`

const done = (s: Signed): Part => {
  const key = s.url.searchParams.get("done")
  const text =
    key === "cancelled"
      ? w(s).cancelled
      : key === "retried"
        ? w(s).retried
        : key === "formRepeated"
          ? w(s).repeated
          : undefined
  return text === undefined
    ? ""
    : html`<p class="notice" role="status" data-testid="subscription-notice">${text}</p>`
}

const actions = (s: Signed, sub: SubscriptionViews.SubscriptionJson): Part => {
  if (R.isFinalRec(sub.status)) return ""
  if (!acts(s)) return html`<p class="hint" data-testid="not-allowed">${w(s).notAllowed}</p>`
  return html`<p><a class="button danger" href="${s.cfg.base}/subscriptions/${sub.id}/cancel" data-testid="cancel-link">${w(s).cancel}</a></p>`
}

const detail = (s: Signed, id: string, error?: Errors.PixgateError): Handler =>
  Effect.gen(function* () {
    const sub = yield* own(s, id)
    const cycles = yield* engine((e) => e.subscriptions.cycles(s.caller, sub.id))
    const body = html`${error === undefined ? "" : errorBox(error, s.lang)}${fields(s, sub)}
${share(s, sub)}
${actions(s, sub)}
<h2>${w(s).cycles}</h2>
${cyclesTable(s, sub, cycles)}
<h2>${w(s).history}</h2>
<ul class="plain" data-testid="subscription-history">${sub.atualizacao.map(
      (a) => html`<li>${instant(s, a.data)}: ${w(s).rec[a.status]} <span class="hint">${a.status}</span></li>`
    )}</ul>`
    return respond(
      s,
      frame(s.view, `${w(s).subscription} ${sub.vinculo.contrato}`, body, done(s)),
      pageStatus(error)
    )
  })

// ---------------------------------------------------------------------------------------------
// Cancel and retry
// ---------------------------------------------------------------------------------------------

const cancelPage = (s: Signed, id: string): Handler =>
  Effect.map(own(s, id), (sub) => {
    const body = html`<p>${w(s).cancelConfirm}</p>
<p><strong>${sub.vinculo.contrato}</strong> · ${sub.vinculo.devedor.nome} · ${money(s, sub.valorCiclo)}</p>
<form method="post" action="${s.cfg.base}/subscriptions/${sub.id}/cancel" data-testid="cancel-form">${csrfField(s)}${FormToken.field(s)}<button type="submit" class="danger" data-testid="cancel-confirm">${w(s).cancelYes}</button> <a class="button secondary" href="${s.cfg.base}/subscriptions/${sub.id}">${w(s).keep}</a></form>`
    return respond(s, frame(s.view, w(s).cancelTitle, body))
  })

const cancel = (s: Signed, id: string, f: URLSearchParams): Handler =>
  Effect.gen(function* () {
    const sub = yield* own(s, id)
    const { outcome } = yield* FormToken.once(
      s,
      f,
      "subscription.cancel",
      Effect.as(
        engine((e) => e.subscriptions.cancel(s.caller, sub.id)),
        { done: true as const }
      ),
      (r) => r,
      FormToken.Done
    )
    return redirect(
      s,
      `/subscriptions/${sub.id}?done=${outcome._tag === "Done" ? "cancelled" : "formRepeated"}`
    )
  }).pipe(Effect.catchIf(Errors.isPixgateError, (error) => detail(s, id, error)))

const retry = (s: Signed, id: string, txid: string, f: URLSearchParams): Handler =>
  Effect.gen(function* () {
    const sub = yield* own(s, id)
    const cycles = yield* engine((e) => e.subscriptions.cycles(s.caller, sub.id))
    if (!cycles.some((c) => c.txid === txid)) return yield* Effect.fail(Errors.notFound("Cycle"))
    const data = f.get("data") ?? ""
    const { outcome } = yield* FormToken.once(
      s,
      f,
      "subscription.retry",
      Effect.as(
        engine((e) => e.subscriptions.retry(s.caller, txid, data)),
        { done: true as const }
      ),
      (r) => r,
      FormToken.Done
    )
    return redirect(
      s,
      `/subscriptions/${sub.id}?done=${outcome._tag === "Done" ? "retried" : "formRepeated"}`
    )
  }).pipe(Effect.catchIf(Errors.isPixgateError, (error) => detail(s, id, error)))

const sub = "(sub_[A-Za-z0-9]+)"
const tx = "([A-Za-z0-9]{1,35})"

/** The subscriptions' routes (registered in `Routes.ts`). */
export const routes: ReadonlyArray<Route> = [
  { method: "GET", path: /^\/subscriptions$/, handle: (s) => list(s) },
  { method: "GET", path: new RegExp(`^/subscriptions/${sub}$`), handle: (s, p) => detail(s, p[0] ?? "") },
  {
    method: "GET",
    path: new RegExp(`^/subscriptions/${sub}/cancel$`),
    need: "charge.create",
    handle: (s, p) => cancelPage(s, p[0] ?? "")
  },
  {
    method: "POST",
    path: new RegExp(`^/subscriptions/${sub}/cancel$`),
    need: "charge.create",
    audit: "subscription.cancel",
    handle: (s, p, f) => cancel(s, p[0] ?? "", f)
  },
  {
    method: "POST",
    path: new RegExp(`^/subscriptions/${sub}/cycles/${tx}/retry$`),
    need: "charge.create",
    audit: "subscription.retry",
    handle: (s, p, f) => retry(s, p[0] ?? "", p[1] ?? "", f)
  }
]
