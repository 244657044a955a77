/**
 * A completed charge's or payout's receipt (comprovante) and a transaction's small JSON status,
 * which a pending charge's page polls to turn to paid by itself.
 */
import { Domain, Errors, Store } from "@pixgate/core"
import { Effect, Stream } from "effect"
import { engine, type Handler, lift, promise, respond, type Signed } from "../Ctx.js"
import * as Exports from "../Exports.js"
import { html } from "../Html.js"
import { saoPauloDayStart } from "../I18n.js"
import { page, productName, securityHeaders } from "../Layout.js"
import * as LiveStatus from "../LiveStatus.js"
import * as Paper from "../Paper.js"
import * as Receipt from "../Receipt.js"
import { receiptReturns } from "./Infractions.js"
import { ownTransaction } from "./Parts.js"

/** The receipt page of the merchant's transaction `id`; not found unless it has one (`Receipt.has`). */
export const receipt = (s: Signed, id: string): Handler =>
  Effect.gen(function* () {
    const tx = yield* ownTransaction(s, id)
    if (!Receipt.has(tx)) return yield* Effect.fail(Errors.notFound("Receipt"))
    const returns = tx.type === "deposit" ? yield* receiptReturns(s, tx.id) : ""
    return respond(
      s,
      page(s.view, Receipt.title(s.view, tx), html`${Receipt.body(s.view, tx, s.merchant)}${returns}`)
    )
  })

/** The merchant's transaction `id`'s status as JSON (id, status, paid, times). */
export const status = (s: Signed, id: string): Handler =>
  Effect.map(ownTransaction(s, id), (tx) => {
    const response = LiveStatus.response(tx, securityHeaders)
    for (const c of s.setCookies) response.headers.append("set-cookie", c)
    return response
  })

// ---- PDF ----

const issuer = (s: Signed): Paper.Issuer => ({
  merchantName: s.merchant.name,
  productName: productName(s.view)
})

/** A PDF answer, downloaded under `name`. */
const pdf = (s: Signed, paper: Paper.Paper, name: string): Handler =>
  Effect.map(
    promise("pdf", () => Paper.render(paper)),
    (bytes) => {
      const headers = new Headers({
        ...securityHeaders,
        "content-type": "application/pdf",
        "content-disposition": `attachment; filename="${name}"`
      })
      for (const c of s.setCookies) headers.append("set-cookie", c)
      return new Response(bytes as Uint8Array<ArrayBuffer>, { status: 200, headers })
    }
  )

/** GET /transactions/:id/receipt.pdf: a paid charge's (with its refunds) or a completed payout's receipt. */
export const receiptPdf = (s: Signed, id: string): Handler =>
  Effect.gen(function* () {
    const tx = yield* ownTransaction(s, id)
    if (!Paper.hasReceipt(tx)) return yield* Effect.fail(Errors.notFound("Receipt"))
    const deposit = tx.type === "deposit"
    const refunds = deposit ? (yield* engine((e) => e.refunds.list(s.merchant.id, tx.id))).refunds : []
    const bankReturns = deposit
      ? yield* engine((e) => (e.infractions.supported ? e.infractions.returns(tx.id) : Effect.succeed([])))
      : []
    return yield* pdf(
      s,
      Paper.transactionReceipt(tx, refunds, issuer(s), bankReturns),
      `comprovante-${tx.id}.pdf`
    )
  })

/** GET /transactions/:id/refunds/:refundId/receipt.pdf: a refund's receipt. */
export const refundPdf = (s: Signed, id: string, refundId: string): Handler =>
  Effect.gen(function* () {
    const summary = yield* engine((e) => e.refunds.list(s.merchant.id, id))
    const refund = summary.refunds.find((r) => r.id === refundId)
    if (refund === undefined) return yield* Effect.fail(Errors.notFound("Refund"))
    return yield* pdf(
      s,
      Paper.refundReceipt(refund, summary.charge, issuer(s)),
      `comprovante-${refund.id}.pdf`
    )
  })

/**
 * GET /statement.pdf?month=YYYY-MM (São Paulo; this month by default): the available balance's
 * monthly statement, its balances and movements read from the ledger (the OFX's lines).
 */
export const statementPdf = (s: Signed): Handler =>
  Effect.gen(function* () {
    const now = Date.now()
    const month = s.url.searchParams.get("month") || Paper.monthOf(now)
    const from = /^\d{4}-\d{2}$/.test(month) ? saoPauloDayStart(`${month}-01`) : undefined
    if (from === undefined)
      return yield* Effect.fail(
        Errors.validation("invalid_query", "month", "month must be a valid month in YYYY-MM format")
      )
    // The next month's first day, in São Paulo.
    const next = saoPauloDayStart(`${Paper.monthOf(from + 32 * 86_400_000)}-01`) ?? from + 31 * 86_400_000
    const to = Math.min(next, now + 1)
    const account = Domain.availableAccount(s.merchant.id)
    const { opening, closing, rows } = yield* lift(
      Effect.gen(function* () {
        const st = yield* Store.Store
        const opening = from > now ? 0 : yield* st.accountBalanceBefore(s.mode, account, from)
        const closing = from > now ? 0 : yield* st.accountBalanceBefore(s.mode, account, to)
        const pages =
          from > now
            ? []
            : yield* Stream.runCollect(
                Exports.movementPages({ merchantId: s.merchant.id, mode: s.mode, from, to })
              )
        const rows = [...pages].flat().flatMap(Exports.statementLines)
        return { opening, closing, rows }
      })
    )
    const paper = Paper.statement(
      {
        month,
        mode: s.mode,
        opening,
        closing,
        rows: rows.map((r) => ({ postedAt: r.postedAt, memo: r.memo, amount: r.amount })),
        until: Math.min(to, now + 1) - 1
      },
      issuer(s)
    )
    const mode = s.mode === "live" ? "producao" : "teste"
    return yield* pdf(s, paper, `pixgate-extrato-${mode}-${month}.pdf`)
  })
