/** Charges: the new-charge form and the latest charges. */
import { Errors, Requests } from "@pixgate/core"
import { Effect } from "effect"
import {
  engine,
  errorBox,
  type Handler,
  notice,
  pageStatus,
  redirect,
  respond,
  type Signed,
  textField
} from "../Ctx.js"
import * as Flows from "../Flows.js"
import * as FormToken from "../FormToken.js"
import { html } from "../Html.js"
import { parseAmount } from "../I18n.js"
import { csrfField, page as frame } from "../Layout.js"
import { type LinkWords, linkWords } from "../LinkWords.js"
import { gated, txTable } from "./Parts.js"

const chargeForm = (s: Signed, f?: URLSearchParams) =>
  html`<form class="stack" method="post" action="${s.cfg.base}/charges">${csrfField(s)}${FormToken.field(s)}
<div><label for="c-amount">${s.t.amount} <span class="hint">(${s.t.amountHint})</span></label><input id="c-amount" name="amount" type="text" inputmode="decimal" required value="${f?.get("amount") ?? ""}"></div>
<div><label for="c-description">${s.t.description} <span class="hint">(${s.t.optional})</span></label><input id="c-description" name="description" type="text" maxlength="140" value="${f?.get("description") ?? ""}"></div>
<div><label for="c-name">${s.t.payerName} <span class="hint">(${s.t.optional})</span></label><input id="c-name" name="clientName" type="text" maxlength="140" value="${f?.get("clientName") ?? ""}"></div>
<div><label for="c-doc">${s.t.payerDoc} <span class="hint">(${s.t.optional})</span></label><input id="c-doc" name="clientDoc" type="text" inputmode="numeric" value="${f?.get("clientDoc") ?? ""}"></div>
${dueFields(s, f)}
<div><button type="submit">${s.t.create}</button></div>
</form>`

type RuleKey = keyof LinkWords

/** A rule's kind (a select) and its value (reais or percent, as the API takes them). */
const rule = (
  s: Signed,
  f: URLSearchParams | undefined,
  name: string,
  label: string,
  kinds: ReadonlyArray<readonly [string, RuleKey]>
) => {
  const w = linkWords(s.lang)
  const chosen = f?.get(`${name}Type`) ?? ""
  return html`<div class="due-rule"><label for="c-${name}-type">${label}</label><select id="c-${name}-type" name="${name}Type"><option value="">${w.ruleNone}</option>${kinds.map(
    ([value, key]) =>
      html`<option value="${value}"${chosen === value ? html` selected` : ""}>${w[key]}</option>`
  )}</select>
<label for="c-${name}-value" class="visually-hidden">${label}: ${w.ruleValue}</label><input id="c-${name}-value" name="${name}Value" type="text" inputmode="decimal" value="${f?.get(`${name}Value`) ?? ""}"></div>`
}

/** The due-date (cobv) part of the form, folded unless a due date was given. */
const dueFields = (s: Signed, f?: URLSearchParams) => {
  const w = linkWords(s.lang)
  return html`<details class="due" data-testid="due-fields"${(f?.get("dueDate") ?? "") === "" ? "" : html` open`}><summary>${w.dueCharge}</summary>
<div><label for="c-due">${w.dueDateField} <span class="hint">(${w.dueDateHint})</span></label><input id="c-due" name="dueDate" type="date" value="${f?.get("dueDate") ?? ""}"></div>
<div><label for="c-days">${w.daysAfterDue} <span class="hint">(${s.t.optional})</span></label><input id="c-days" name="daysAfterDue" type="number" min="0" max="365" step="1" value="${f?.get("daysAfterDue") ?? ""}"></div>
${rule(s, f, "fine", w.fineField, [
  ["fixed", "ruleFixed"],
  ["percent", "rulePercent"]
])}
${rule(s, f, "interest", w.interestField, [
  ["amountPerDay", "ruleAmountPerDay"],
  ["percentPerDay", "rulePercentPerDay"],
  ["percentPerMonth", "rulePercentPerMonth"],
  ["percentPerYear", "rulePercentPerYear"]
])}
${rule(s, f, "discount", w.discountField, [
  ["fixedUntil", "ruleFixedUntil"],
  ["percentUntil", "rulePercentUntil"]
])}
<div><label for="c-discount-until">${w.discountUntil} <span class="hint">(${s.t.optional})</span></label><input id="c-discount-until" name="discountUntil" type="date" value="${f?.get("discountUntil") ?? ""}"></div>
${rule(s, f, "abatement", w.abatementField, [
  ["fixed", "ruleFixed"],
  ["percent", "rulePercent"]
])}
</details>`
}

/** The due-date fields of the request body, as the API takes them (absent when not given). */
export const dueBody = (f: URLSearchParams): Record<string, unknown> => {
  const dueDate = textField(f, "dueDate")
  if (dueDate === undefined) return {}
  const out: Record<string, unknown> = { dueDate }
  const days = textField(f, "daysAfterDue")
  if (days !== undefined) out.daysAfterDue = Number(days)
  const typed = (name: string) => {
    const text = textField(f, `${name}Value`)
    return text === undefined ? undefined : parseAmount(text)
  }
  for (const name of ["fine", "interest", "abatement"] as const) {
    const type = textField(f, `${name}Type`)
    if (type !== undefined) out[name] = { type, value: typed(name) }
  }
  const discountType = textField(f, "discountType")
  if (discountType !== undefined)
    out.discount = {
      type: discountType,
      dates: [{ until: textField(f, "discountUntil") ?? dueDate, value: typed("discount") }]
    }
  return out
}

/** The charges page, with the form refilled and the engine's error above it after a refused charge. */
export const page = (s: Signed, f?: URLSearchParams, error?: Errors.PixgateError): Handler =>
  Effect.gen(function* () {
    const recent = yield* engine((e) =>
      e.transactions.list(s.caller, { page: 1, limit: 10, type: "deposit" })
    )
    const liveEnabled = yield* engine((e) => Effect.succeed(e.liveEnabled))
    const body = html`${Flows.liveNotice(s, liveEnabled, error, (e) => errorBox(e, s.lang))}<h2>${s.t.newCharge}</h2>${gated(s, "charge.create", s.t.newCharge, chargeForm(s, f))}<h2>${s.t.charges}</h2>${txTable(s, recent.data)}`
    return respond(s, frame(s.view, s.t.charges, body, notice(s)), pageStatus(error))
  })

export const create = (s: Signed, f: URLSearchParams): Handler => {
  const body = {
    amount: parseAmount(f.get("amount") ?? ""),
    description: textField(f, "description"),
    clientName: textField(f, "clientName"),
    clientDoc: textField(f, "clientDoc"),
    ...dueBody(f)
  }
  // Once per form token: the repeat of a submission is sent to the charge the first one made.
  return FormToken.once(
    s,
    f,
    "charge.create",
    engine((e) =>
      Effect.flatMap(Requests.decode(Requests.CreateCharge, e.config)(body), (input) =>
        e.charges.create(s.caller, input)
      )
    ),
    (charge) => ({ transactionId: charge.transactionId }),
    FormToken.CreatedTransaction
  ).pipe(
    Effect.map(({ outcome }) =>
      redirect(
        s,
        `/transactions/${outcome.record.transactionId}`,
        outcome._tag === "Done" ? "chargeCreated" : "formRepeated"
      )
    ),
    Effect.catchIf(Errors.isPixgateError, (error) => page(s, f, error))
  )
}
