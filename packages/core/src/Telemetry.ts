/**
 * The engine's units as spans and counters: `Engine` wraps each service it exposes here, so the
 * services stay free of telemetry. Every operation runs in a span named `pixgate.<service>.<op>`
 * (a no-op span unless the runtime has a tracer enabled); a create is counted by mode and
 * outcome (`Metrics`) and its transaction remembered as the origin of its webhooks
 * (`TraceContext`).
 */
import { Effect } from "effect"
import type { AuthShape } from "./Auth.js"
import type { BankEventsShape } from "./BankEvents.js"
import type { ChargesShape } from "./Charges.js"
import * as Metrics from "./Metrics.js"
import type { PaymentsShape } from "./Payments.js"
import type { PayoutsShape } from "./Payouts.js"
import * as TraceContext from "./TraceContext.js"
import type { TransactionsShape } from "./Transactions.js"

const created = <A, E, R>(effect: Effect.Effect<A, E, R>, id: (view: A) => string) =>
  Effect.tap(effect, (view) => TraceContext.remember(id(view)))

/** Charges with spans, counted by outcome. */
export const charges = (service: ChargesShape): ChargesShape => ({
  create: (caller, input) =>
    Metrics.countCreate(
      Metrics.charges,
      caller.mode,
      created(service.create(caller, input), (view) => view.transactionId)
    ).pipe(Effect.withSpan("pixgate.charges.create", { attributes: { "pixgate.mode": caller.mode } })),
  expire: (id) => Effect.withSpan(service.expire(id), "pixgate.charges.expire")
})

/** Payouts with spans, counted by outcome. */
export const payouts = (service: PayoutsShape): PayoutsShape => ({
  create: (caller, input) =>
    Metrics.countCreate(
      Metrics.payouts,
      caller.mode,
      created(service.create(caller, input), (view) => view.transactionId)
    ).pipe(Effect.withSpan("pixgate.payouts.create", { attributes: { "pixgate.mode": caller.mode } })),
  settle: (id, endToEndId) => Effect.withSpan(service.settle(id, endToEndId), "pixgate.payouts.settle"),
  fail: (id, reason) => Effect.withSpan(service.fail(id, reason), "pixgate.payouts.fail")
})

/** Payments with spans, counted by outcome. */
export const payments = (service: PaymentsShape): PaymentsShape => ({
  create: (caller, request) =>
    Metrics.countCreate(
      Metrics.payments,
      caller.mode,
      created(service.create(caller, request), (view) => view.id)
    ).pipe(Effect.withSpan("pixgate.payments.create", { attributes: { "pixgate.mode": caller.mode } }))
})

/** The transaction list with a span. */
export const transactions = (service: TransactionsShape): TransactionsShape => ({
  list: (caller, input) => Effect.withSpan(service.list(caller, input), "pixgate.transactions.list")
})

/** Authentication with a span. */
export const auth = (service: AuthShape): AuthShape => ({
  authenticate: (rawKey) => Effect.withSpan(service.authenticate(rawKey), "pixgate.auth.authenticate")
})

/** What the bank reports, with spans. */
export const bankEvents = (service: BankEventsShape): BankEventsShape => ({
  chargePaid: (event) => Effect.withSpan(service.chargePaid(event), "pixgate.bank.charge_paid"),
  pixReceived: (event) => Effect.withSpan(service.pixReceived(event), "pixgate.bank.pix_received"),
  pixReturned: (id) => Effect.withSpan(service.pixReturned(id), "pixgate.bank.pix_returned")
})
