/** Refunds (devoluções) of a received charge: the review step and the refund itself. */

import { Errors, Money, Requests } from "@pixgate/core"
import { Effect, Either } from "effect"
import { brl, engine, type Handler, redirect, respond, type Signed, textField } from "../Ctx.js"
import * as FormToken from "../FormToken.js"
import { html } from "../Html.js"
import { parseAmount } from "../I18n.js"
import { csrfField, page } from "../Layout.js"
import { refundWords } from "../RefundWords.js"
import { detail } from "./Detail.js"
import { engineConfig, ownTransaction } from "./Parts.js"

const refundFields = (f: URLSearchParams) => ({
  amount: parseAmount(f.get("amount") ?? ""),
  description: textField(f, "description")
})

/**
 * The confirmation step: what leaves the balance, and a one-time form token that becomes the
 * refund's Idempotency-Key, so submitting the confirmation twice (a double click, a reload, a
 * retry after a lost answer) shows the first refund and never makes a second one.
 */
export const review = (s: Signed, id: string, f: URLSearchParams): Handler =>
  Effect.gen(function* () {
    const tx = yield* ownTransaction(s, id)
    const config = yield* engineConfig
    const input = Requests.decodeEither(Requests.CreateRefund, config)(refundFields(f))
    if (Either.isLeft(input)) return yield* detail(s, tx.id, input.left)
    // Refused here, with what is left, rather than after "Confirmar devolução": the engine's own
    // refusal (the same code and message), read from the same summary the charge's page shows.
    const summary = yield* engine((e) => e.refunds.list(s.merchant.id, tx.id))
    if (input.right.amount > summary.refundable)
      return yield* detail(
        s,
        tx.id,
        Errors.validation(
          "refund_exceeds_received",
          "amount",
          `amount exceeds what is left to refund of the charge (${Money.formatReais(summary.refundable)})`
        ),
        422
      )
    const hidden = (name: string, value: string) =>
      html`<input type="hidden" name="${name}" value="${value}">`
    const body = html`<dl class="fields" data-testid="refund-review">
<dt>${s.t.amount}</dt><dd data-testid="refund-amount">${brl(s, input.right.amount)}</dd>
<dt>${s.t.debited}</dt><dd>${brl(s, input.right.amount)}</dd>
<dt>${s.t.id}</dt><dd class="mono">${tx.id}</dd>
</dl>
<p>${refundWords(s.lang).refundDebit}</p>
<form method="post" action="${s.cfg.base}/transactions/${tx.id}/refunds">${csrfField(s)}${hidden("amount", f.get("amount") ?? "")}${hidden("description", f.get("description") ?? "")}${FormToken.field(s)}
<button type="submit" data-testid="confirm-refund">${refundWords(s.lang).confirmRefund}</button> <a class="button secondary" href="${s.cfg.base}/transactions/${tx.id}">${s.t.cancel}</a></form>`
    return respond(s, page(s.view, refundWords(s.lang).confirmRefund, body))
  })

export const create = (s: Signed, id: string, f: URLSearchParams): Handler =>
  Effect.gen(function* () {
    const tx = yield* ownTransaction(s, id)
    // The token's nonce is the refund's own idempotency key (the refund's id derives from it).
    const nonce = FormToken.nonceOf(s, f)
    if (Either.isLeft(nonce)) return yield* detail(s, tx.id, nonce.left, 422)
    const key = `panel-${nonce.right}`
    return yield* engine((e) =>
      Effect.flatMap(Requests.decode(Requests.CreateRefund, e.config)(refundFields(f)), (input) =>
        e.refunds.create(s.merchant.id, tx.id, input, key)
      )
    ).pipe(
      Effect.as(redirect(s, `/transactions/${tx.id}`, "refundCreated")),
      Effect.catchAll((error) => detail(s, tx.id, error))
    )
  })
