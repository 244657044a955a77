/**
 * Charges as API Pix cobs: `PUT /cob/{txid}` (or `/cobv/{txid}` for a due-date charge) with the
 * engine's txid, so a retry with the same txid cannot create two; the BR Code is the PSP's
 * `pixCopiaECola`, and a cob that is not `ATIVA` is not served. A refused token sent nothing; a
 * time-out, a lost connection or a 5xx may have created the cob, so that outcome is unknown.
 * While a charge is pending, `apipix.cob.check` asks `GET /cob/{txid}` and credits what it lists.
 */
import { BankGateway, Domain, Money, type Store } from "@pixgate/core"
import { Clock, Effect, Option } from "effect"
import * as CobV from "./CobV.js"
import { credit } from "./Pix.js"
import * as Problem from "./Problem.js"
import type { Setup } from "./Setup.js"
import { failure, receivedPix, record, str, unknownFailure } from "./Wire.js"

/** The cob's (or cobv's) body for a charge: its calendar, its value and the payer when given. */
const body = (charge: Domain.Transaction, now: number, pixKey: string): Record<string, unknown> => {
  const expiresAt = charge.expiresAt ?? now + 3_600_000
  // A due-date charge is a cobv: its calendar is the due date and the days after it, and its
  // value carries the terms the payer's bank applies on the day of payment.
  const cob: Record<string, unknown> =
    charge.dueTerms === null
      ? {
          calendario: { expiracao: Math.max(1, Math.ceil((expiresAt - charge.createdAt) / 1000)) },
          valor: { original: Money.formatReais(charge.amount) },
          chave: pixKey
        }
      : {
          calendario: {
            dataDeVencimento: charge.dueTerms.dueDate,
            validadeAposVencimento: charge.dueTerms.daysAfterDue
          },
          valor: CobV.valor(charge.amount, charge.dueTerms),
          chave: pixKey
        }
  if (charge.clientName !== null && charge.clientDocument !== null) {
    const digits = charge.clientDocument.replace(/\D/g, "")
    cob.devedor =
      digits.length === 14
        ? { cnpj: digits, nome: charge.clientName }
        : { cpf: digits, nome: charge.clientName }
  }
  if (charge.description !== null) cob.solicitacaoPagador = charge.description
  return cob
}

/** Registers a charge at the bank (`BankGatewayShape.createCharge`). */
export const create = (setup: Setup) => (charge: Domain.Transaction) =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    const res = yield* setup.psp
      .call({
        method: "PUT",
        path: `${setup.pix}/${CobV.kind(charge)}/${charge.txid}`,
        body: body(charge, now, setup.settings.pixKey)
      })
      .pipe(
        Effect.tapError((e) =>
          Effect.logWarning("The PSP did not answer the creation of a charge").pipe(
            Effect.annotateLogs({ txid: charge.txid, reason: e.reason, error: e.message })
          )
        ),
        // A refused token sent nothing; a time-out or a lost connection may have created the cob.
        Effect.mapError((e) =>
          e.reason === "token" ? failure("Creating the charge")(e) : unknownFailure("Creating the charge")(e)
        )
      )
    const b = record(res.body)
    const location = str(record(b.loc).location) ?? str(b.location)
    const brCode = str(b.pixCopiaECola)
    const status = str(b.status) ?? "ATIVA"
    const created = res.status === 200 || res.status === 201
    if (created && location !== undefined && status === "ATIVA") {
      return brCode === undefined ? { location } : { location, brCode }
    }
    yield* Effect.logWarning("The PSP refused the creation of a charge").pipe(
      Effect.annotateLogs({
        txid: charge.txid,
        ...(res.status < 300 ? { cobStatus: status } : {}),
        ...Problem.fields(res.status, res.body)
      })
    )
    if (created) {
      // The bank holds this txid: withdrawn, paid or removed it can never be served (definite);
      // active but without a location, it is not usable yet, and is found out as unknown.
      const why = `Creating the charge: the bank's cob is ${status}${location === undefined ? " without a location" : ""}`
      return yield* Effect.fail(
        new BankGateway.GatewayFailure({
          message: why,
          ...(status === "ATIVA" ? { outcome: "unknown" as const } : {})
        })
      )
    }
    // A 5xx may have been answered after the cob was made; a 4xx (429 included) made nothing.
    return yield* Effect.fail(
      res.status >= 500 ? unknownFailure("Creating the charge")(res) : failure("Creating the charge")(res)
    )
  })

/** One charge still pending (`apipix.cob.check`): asks `GET /cob/{txid}` and credits what it lists. */
export const check = (setup: Setup) => (j: Store.ClaimedJob, ctx: BankGateway.GatewayContext) =>
  Effect.gen(function* () {
    const found = yield* Domain.findById(Domain.TransactionId, j.ref, ctx.getTransaction)
    const now = yield* Clock.currentTimeMillis
    if (Option.isNone(found) || found.value.status !== "pending" || found.value.txid === null) {
      return yield* ctx.finishJob(j.id)
    }
    const charge = found.value
    const txid = found.value.txid
    const res = yield* Effect.either(
      setup.psp.call({ method: "GET", path: `${setup.pix}/${CobV.kind(charge)}/${charge.txid}` })
    )
    if (res._tag === "Right" && res.right.status === 200) {
      const pix = record(res.right.body).pix
      for (const item of Array.isArray(pix) ? pix : []) {
        const p = receivedPix(item)
        if (Option.isSome(p)) yield* credit(ctx, { txid, ...p.value })
      }
    }
    // Ask again while the charge can still be paid (and once after its expiry).
    const expiresAt = charge.expiresAt ?? now
    return yield* now > expiresAt + setup.interval
      ? ctx.finishJob(j.id)
      : ctx.retryJob(j.id, Math.min(now + setup.interval, Math.max(now + 1000, expiresAt + 1000)))
  })
