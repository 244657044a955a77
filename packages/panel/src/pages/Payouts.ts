/** Payouts: the form, the review step (fee and debit) and the payout itself. */
import { Errors, Fees, Money, Requests } from "@pixgate/core"
import { Effect, Either } from "effect"
import {
  brl,
  engine,
  errorBox,
  type Handler,
  notice,
  pageStatus,
  redirect,
  respond,
  type Signed,
  store,
  textField
} from "../Ctx.js"
import * as Flows from "../Flows.js"
import * as FormToken from "../FormToken.js"
import { html } from "../Html.js"
import { parseAmount } from "../I18n.js"
import { csrfField, page as frame } from "../Layout.js"
import { engineConfig, gated, txTable } from "./Parts.js"

const payoutFields = (f: URLSearchParams) => ({
  amount: parseAmount(f.get("amount") ?? ""),
  pixKey: textField(f, "pixKey"),
  description: textField(f, "description")
})

/** The payouts page, with the form refilled and the engine's error above it after a refusal. */
export const page = (s: Signed, f?: URLSearchParams, error?: Errors.PixgateError): Handler =>
  Effect.gen(function* () {
    const balance = yield* store((st) => st.balance(s.merchant.id, s.mode))
    const recent = yield* engine((e) =>
      e.transactions.list(s.caller, { page: 1, limit: 10, type: "withdrawal" })
    )
    const liveEnabled = yield* engine((e) => Effect.succeed(e.liveEnabled))
    const body = html`${Flows.liveNotice(s, liveEnabled, error, (e) => errorBox(e, s.lang))}<p>${s.t.available}: <strong data-testid="available">${brl(s, balance.available)}</strong></p>
<h2>${s.t.newPayout}</h2>
${gated(
  s,
  "payout.create",
  s.t.newPayout,
  html`<form class="stack" method="post" action="${s.cfg.base}/payouts/review">${csrfField(s)}
<div><label for="p-amount">${s.t.amount} <span class="hint">(${s.t.amountHint})</span></label><input id="p-amount" name="amount" type="text" inputmode="decimal" required value="${f?.get("amount") ?? ""}"></div>
<div><label for="p-key">${s.t.pixKey}</label><input id="p-key" name="pixKey" type="text" required value="${f?.get("pixKey") ?? ""}"></div>
<div><label for="p-description">${s.t.description} <span class="hint">(${s.t.optional})</span></label><input id="p-description" name="description" type="text" maxlength="140" value="${f?.get("description") ?? ""}"></div>
<div><button type="submit">${s.t.review}</button></div>
</form>`
)}
<h2>${s.t.payouts}</h2>${txTable(s, recent.data)}`
    return respond(s, frame(s.view, s.t.payouts, body, notice(s)), pageStatus(error))
  })

export const review = (s: Signed, f: URLSearchParams): Handler =>
  Effect.gen(function* () {
    const config = yield* engineConfig
    const input = Requests.decodeEither(Requests.CreatePayout, config)(payoutFields(f))
    if (Either.isLeft(input)) return yield* page(s, f, input.left)
    const amount = input.right.amount
    // As the engine moves it: the recipient receives `amount`; the fee is debited on top.
    const fees = Fees.forPayout(s.merchant.feePlan, amount)
    const debit = Money.add(amount, fees.feeAmount)
    const balance = yield* store((st) => st.balance(s.merchant.id, s.mode))
    const after = balance.available - debit
    const hidden = (name: string) => html`<input type="hidden" name="${name}" value="${f.get(name) ?? ""}">`
    const body = html`<dl class="fields" data-testid="payout-review">
<dt>${s.t.amountSent}</dt><dd data-testid="payout-amount">${brl(s, amount)}</dd>
<dt>${s.t.fee}</dt><dd data-testid="payout-fee">${brl(s, fees.feeAmount)}</dd>
<dt>${s.t.totalDebited}</dt><dd data-testid="payout-debit">${brl(s, debit)}</dd>
<dt>${s.t.balanceNow}</dt><dd data-testid="payout-balance">${brl(s, balance.available)}</dd>
<dt>${s.t.balanceAfter}</dt><dd data-testid="payout-balance-after">${brl(s, after)}</dd>
<dt>${s.t.pixKey}</dt><dd class="mono">${input.right.pixKey.value}</dd>
</dl>
<p class="hint">${s.t.feeOnTop}</p>
${
  after < 0
    ? html`<div class="error" role="alert" data-testid="payout-short"><p>${s.t.balanceShort} ${brl(s, -after)}.</p><p>${s.t.balanceShortHint}</p></div>`
    : ""
}
<form method="post" action="${s.cfg.base}/payouts">${csrfField(s)}${FormToken.field(s)}${hidden("amount")}${hidden("pixKey")}${hidden("description")}
<button type="submit" data-testid="confirm-payout">${s.t.confirmPayout}</button> <a class="button secondary" href="${s.cfg.base}/payouts">${s.t.cancel}</a></form>`
    return respond(s, frame(s.view, s.t.confirmPayout, body))
  })

/**
 * The confirmed payout, once per form token: the engine stores the payout's answer with its debit
 * under the token, so a repeated confirmation is sent to the first payout and never debits twice.
 */
export const create = (s: Signed, f: URLSearchParams): Handler =>
  FormToken.once(
    s,
    f,
    "payout.create",
    engine((e) =>
      Effect.flatMap(Requests.decode(Requests.CreatePayout, e.config)(payoutFields(f)), (input) =>
        e.payouts.create(s.caller, input)
      )
    ),
    (payout) => ({ transactionId: payout.transactionId }),
    FormToken.CreatedTransaction
  ).pipe(
    Effect.map(({ outcome }) =>
      redirect(
        s,
        `/transactions/${outcome.record.transactionId}`,
        outcome._tag === "Done" ? "payoutCreated" : "formRepeated"
      )
    ),
    Effect.catchIf(Errors.isPixgateError, (error) => page(s, f, error))
  )
