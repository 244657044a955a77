/**
 * Pix Automático's callbacks and webhooks. The bank posts `{ "recs": [...] }` to `<url>/rec` and
 * `{ "cobsr": [...] }` to `<url>/cobr`; callbacks carry no signature, so each item is confirmed
 * with a read (`GET /rec/{idRec}`, `GET /cobr/{txid}`) and what the read says is reported to the
 * engine (`recurringReportsOf(ctx)`: the recurrence and its requests, the cycle charge). A read
 * that fails fails the callback (the bank delivers it again). At start-up, the gateway registers
 * `/webhookrec` and `/webhookcobr` when its settings name the URL (`recurringWebhookUrl`).
 */
import {
  type BankGateway,
  RecurringGateway as Port,
  type RecurringGateway as R,
  type Store
} from "@pixgate/core"
import { Effect, Option } from "effect"
import { record, str } from "./Wire.js"

/** Whether a callback's path is a recurring one (`/rec` or `/cobr`, after the secret). */
export const isRecurring = (path: string) => /\/(rec|cobr)\/?$/.test(path)

/** Handles a `/rec` or `/cobr` callback: every item confirmed with a read, then reported. */
export const callback = (
  port: R.RecurringGateway,
  cb: BankGateway.BankCallback,
  ctx: BankGateway.GatewayContext
): Effect.Effect<void, BankGateway.GatewayFailure | Store.StoreError> =>
  Effect.gen(function* () {
    const reports = Port.recurringReportsOf(ctx)
    const body = record(cb.body)
    if (/\/rec\/?$/.test(cb.path)) {
      for (const item of Array.isArray(body.recs) ? body.recs : []) {
        const idRec = str(record(item).idRec)
        if (idRec === undefined) continue
        const read = yield* port.readRecurrence(idRec)
        if (Option.isNone(read)) {
          yield* Effect.logWarning("A callback named a recurrence the bank does not know; ignored").pipe(
            Effect.annotateLogs({ idRec })
          )
          continue
        }
        if (reports === undefined) continue
        yield* reports.recurrenceRead(read.value)
        for (const solic of read.value.solicitacao ?? []) yield* reports.solicitationRead(solic)
      }
      return
    }
    for (const item of Array.isArray(body.cobsr) ? body.cobsr : []) {
      const txid = str(record(item).txid)
      if (txid === undefined) continue
      const read = yield* port.readCycleCharge(txid)
      if (Option.isNone(read)) {
        yield* Effect.logWarning("A callback named a cycle charge the bank does not know; ignored").pipe(
          Effect.annotateLogs({ txid })
        )
        continue
      }
      if (reports !== undefined) yield* reports.cycleChargeRead(read.value)
    }
  })

/** Registers the recurring webhooks at start-up when a URL is set; a refusal is logged, never fatal. */
export const start = (port: R.RecurringGateway, webhookUrl: string | undefined) =>
  webhookUrl === undefined || port.registerWebhooks === undefined
    ? Effect.void
    : port.registerWebhooks(webhookUrl).pipe(
        Effect.tap(() => Effect.logInfo("Registered /webhookrec and /webhookcobr with the bank")),
        Effect.catchAll((e) =>
          Effect.logWarning("The bank did not take the recurring webhooks; register them again").pipe(
            Effect.annotateLogs({ error: e.message })
          )
        )
      )
