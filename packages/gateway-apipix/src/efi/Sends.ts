/**
 * Efí's "Envio de Pix", outside the BCB standard: `PUT /v3/gn/pix/{idEnvio}`, `idEnvio` derived
 * from the payout id (so a retry repeats the same send), and its status by
 * `GET /v2/gn/pix/enviados/id-envio/{idEnvio}` (asked before any send but a first attempt, see
 * `PixSender`; a `REALIZADO` answer to the `PUT` settles with no further call). A send's
 * callback arrives among the PIX of `{ "pix": [...] }`, marked by its `gnExtras.idEnvio`; it is a
 * trigger only: the send's status, asked of the PSP, decides.
 */
import { type BankGateway, Domain, Money, type Store } from "@pixgate/core"
import { Effect, Option } from "effect"
import type { Sends } from "../Profile.js"
import { defaults } from "../Settings.js"
import type { Setup } from "../standard/Setup.js"
import { alphanumeric, codeOf, describe, record, str, unknownStatus } from "../standard/Wire.js"

/** The `idEnvio` of a payout: its id's 26 characters after `tx_` (Efí: `^[a-zA-Z0-9]{1,35}$`). */
export const idEnvio = (payoutId: string): string => alphanumeric(payoutId)

/** The payout id of an `idEnvio` (`idEnvio` inverted), to decode as a `Domain.TransactionId`. */
export const payoutIdOf = (id: string): string => `tx_${id}`

/** Maps an Efí send or its status to the engine's outcome. */
export const status = (body: unknown): BankGateway.SendStatus => {
  const b = record(body)
  const e2e = str(b.e2eId) ?? str(b.endToEndId)
  const withE2e = e2e === undefined ? {} : { endToEndId: e2e }
  switch (b.status) {
    case "REALIZADO":
      return { _tag: "Settled", ...withE2e }
    case "NAO_REALIZADO": {
      const erro = { ...record(b.erro), ...record(record(b.gnExtras).erro) }
      const code = str(erro.codigo)
      return {
        _tag: "Rejected",
        reason: str(erro.motivo) ?? "NAO_REALIZADO",
        ...(code === undefined ? {} : { code })
      }
    }
    case "EM_PROCESSAMENTO":
      return { _tag: "Processing", ...withE2e }
    default:
      return { _tag: "Unknown", reason: `unexpected send status ${String(b.status)}` }
  }
}

/** The engine's sender over Efí's send API. */
export const sender = (setup: Setup): BankGateway.PixSender => ({
  pollDelay: setup.pollDelay,
  inlineBudget: setup.settings.sendBudgetMs ?? defaults.sendBudgetMs,
  status: (payout) =>
    setup.psp.call({ method: "GET", path: `/v2/gn/pix/enviados/id-envio/${idEnvio(payout.id)}` }).pipe(
      Effect.map((res) =>
        res.status === 404
          ? ({ _tag: "NotFound" } as const)
          : res.status === 200
            ? status(res.body)
            : ({ _tag: "Unknown", reason: describe(res) } as const)
      ),
      Effect.catchAll((e) => Effect.succeed(unknownStatus(e)))
    ),
  send: (payout) =>
    setup.psp
      .call({
        method: "PUT",
        path: `/v3/gn/pix/${idEnvio(payout.id)}`,
        body: {
          valor: Money.formatReais(payout.amount),
          pagador: { chave: setup.settings.pixKey, infoPagador: payout.description ?? undefined },
          favorecido: { chave: payout.pixKey }
        }
      })
      .pipe(
        Effect.map((res): BankGateway.SendStatus => {
          if (res.status === 200 || res.status === 201) return status(res.body)
          // A definite refusal of the request itself (bad key, no funds, bad amount). A 409
          // (idEnvio already used) means an earlier send got through: ask its status.
          if (res.status === 400 || res.status === 403 || res.status === 422)
            return { _tag: "Rejected", reason: describe(res), code: codeOf(res) }
          return { _tag: "Unknown", reason: describe(res) }
        }),
        Effect.catchAll((e) => Effect.succeed(unknownStatus(e)))
      )
})

/** A callback item that reports a send: its status, asked of the PSP, settles or fails the payout. */
const callbackItem =
  (send: BankGateway.PixSender) =>
  (
    item: Record<string, unknown>,
    ctx: BankGateway.GatewayContext
  ): Effect.Effect<boolean, Store.StoreError> =>
    Effect.gen(function* () {
      const envio = str(record(item.gnExtras).idEnvio) ?? str(item.idEnvio)
      if (envio === undefined) return false
      const payout = yield* Domain.findById(Domain.TransactionId, payoutIdOf(envio), ctx.getTransaction)
      if (Option.isNone(payout) || payout.value.status !== "pending") return true
      const answer = yield* send.status(payout.value)
      if (answer._tag === "Settled") yield* ctx.payoutSettled(payout.value.id, answer.endToEndId)
      else if (answer._tag === "Rejected") {
        yield* Effect.logWarning("The bank rejected a payout; its money returns").pipe(
          Effect.annotateLogs({
            transactionId: payout.value.id,
            bankReason: answer.reason,
            bankCode: answer.code
          })
        )
        yield* ctx.payoutFailed(payout.value.id, "bank_rejected")
      }
      return true
    })

/** Efí's sends over the gateway's setup. */
export const make = (setup: Setup): Sends => {
  const send = sender(setup)
  return { sender: send, callbackItem: callbackItem(send) }
}
