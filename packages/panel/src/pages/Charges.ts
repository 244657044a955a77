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
import { gated, txTable } from "./Parts.js"

const chargeForm = (s: Signed, f?: URLSearchParams) =>
  html`<form class="stack" method="post" action="${s.cfg.base}/charges">${csrfField(s)}${FormToken.field(s)}
<div><label for="c-amount">${s.t.amount} <span class="hint">(${s.t.amountHint})</span></label><input id="c-amount" name="amount" type="text" inputmode="decimal" required value="${f?.get("amount") ?? ""}"></div>
<div><label for="c-description">${s.t.description} <span class="hint">(${s.t.optional})</span></label><input id="c-description" name="description" type="text" maxlength="140" value="${f?.get("description") ?? ""}"></div>
<div><label for="c-name">${s.t.payerName} <span class="hint">(${s.t.optional})</span></label><input id="c-name" name="clientName" type="text" maxlength="140" value="${f?.get("clientName") ?? ""}"></div>
<div><label for="c-doc">${s.t.payerDoc} <span class="hint">(${s.t.optional})</span></label><input id="c-doc" name="clientDoc" type="text" inputmode="numeric" value="${f?.get("clientDoc") ?? ""}"></div>
<div><button type="submit">${s.t.create}</button></div>
</form>`

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
    clientDoc: textField(f, "clientDoc")
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
