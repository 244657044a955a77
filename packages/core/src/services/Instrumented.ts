/**
 * The engine's units as spans and counters: `Engine` wraps each service it exposes here, so the
 * services stay free of telemetry. Every operation runs in a span named `pixgate.<service>.<op>`
 * when the runtime traces; a create is counted by mode and outcome (`Metrics`) and its
 * transaction remembered as the origin of its webhooks (`TraceContext`).
 */
import { Effect } from "effect"
import * as Metrics from "../runtime/Metrics.js"
import type { Span } from "../runtime/Telemetry.js"
import * as TraceContext from "../runtime/TraceContext.js"
import type { AuthShape } from "./Auth.js"
import type { BankEventsShape } from "./BankEvents.js"
import type { ChargesShape } from "./Charges.js"
import type { PaymentsShape } from "./Payments.js"
import type { PayoutsShape } from "./Payouts.js"
import type { TransactionsShape } from "./Transactions.js"

const created = <A, E, R>(effect: Effect.Effect<A, E, R>, id: (view: A) => string) =>
  Effect.tap(effect, (view) => TraceContext.remember(id(view)))

/** Charges with spans, counted by outcome. */
export const charges = (service: ChargesShape, span: Span): ChargesShape => ({
  create: (caller, input) =>
    Metrics.countCreate(
      Metrics.charges,
      caller.mode,
      created(service.create(caller, input), (view) => view.transactionId)
    ).pipe(span("pixgate.charges.create", { attributes: { "pixgate.mode": caller.mode } })),
  expire: (id) => span("pixgate.charges.expire")(service.expire(id))
})

/** Payouts with spans, counted by outcome. */
export const payouts = (service: PayoutsShape, span: Span): PayoutsShape => ({
  create: (caller, input) =>
    Metrics.countCreate(
      Metrics.payouts,
      caller.mode,
      created(service.create(caller, input), (view) => view.transactionId)
    ).pipe(span("pixgate.payouts.create", { attributes: { "pixgate.mode": caller.mode } })),
  settle: (id, endToEndId) => span("pixgate.payouts.settle")(service.settle(id, endToEndId)),
  settleEach: (settlements) =>
    span("pixgate.payouts.settle_each", { attributes: { "pixgate.payout_count": settlements.length } })(
      service.settleEach(settlements)
    ),
  fail: (id, reason) => span("pixgate.payouts.fail")(service.fail(id, reason)),
  send: (job) => span("pixgate.payouts.send")(service.send(job))
})

/** Payments with spans, counted by outcome. */
export const payments = (service: PaymentsShape, span: Span): PaymentsShape => ({
  create: (caller, request) =>
    Metrics.countCreate(
      Metrics.payments,
      caller.mode,
      created(service.create(caller, request), (view) => view.id)
    ).pipe(span("pixgate.payments.create", { attributes: { "pixgate.mode": caller.mode } }))
})

/** The transaction list with a span. */
export const transactions = (service: TransactionsShape, span: Span): TransactionsShape => ({
  list: (caller, input) => span("pixgate.transactions.list")(service.list(caller, input))
})

/** Authentication with a span. */
export const auth = (service: AuthShape, span: Span): AuthShape => ({
  authenticate: (rawKey) => span("pixgate.auth.authenticate")(service.authenticate(rawKey))
})

/** What the bank reports, with spans. */
export const bankEvents = (service: BankEventsShape, span: Span): BankEventsShape => ({
  chargePaid: (event) => span("pixgate.bank.charge_paid")(service.chargePaid(event)),
  pixReceived: (event) => span("pixgate.bank.pix_received")(service.pixReceived(event)),
  pixReceivedEach: (payments) =>
    span("pixgate.bank.pix_received_each", { attributes: { "pixgate.payment_count": payments.length } })(
      service.pixReceivedEach(payments)
    ),
  pixReturned: (id) => span("pixgate.bank.pix_returned")(service.pixReturned(id))
})
