/**
 * Merchants' refunds (devoluções) of received PIX: `PUT /pix/{e2eid}/devolucao/{id}` with the
 * refund's bank id (fixed before the first send, so a retry repeats it), and its `GET`. A refund
 * of a charge the bank has no PIX for, or that its rules refuse (a 4xx problem), is rejected; a
 * 429 made nothing (the bank refused it for now: it is sent again after the poll delay); no
 * answer or a 5xx is unknown, and asked about again. Only a settled devolução carries its
 * `rtrId` (the returned PIX's end-to-end id): the bank assigns one while it is processing, but a
 * devolução that then fails never returned a PIX.
 */
import { type BankGateway, type Domain, Money, Refunds } from "@pixgate/core"
import { Effect } from "effect"
import type { Setup } from "./Setup.js"
import { codeOf, describe, record, str, unknownStatus } from "./Wire.js"

/** Maps an API Pix devolução (`PUT`/`GET /pix/{e2eid}/devolucao/{id}`) to the engine's outcome. */
export const status = (body: unknown): BankGateway.SendStatus => {
  const b = record(body)
  const rtr = str(b.rtrId)
  switch (b.status) {
    case "DEVOLVIDO":
      return { _tag: "Settled", ...(rtr === undefined ? {} : { endToEndId: rtr }) }
    case "NAO_REALIZADO":
      return { _tag: "Rejected", reason: str(b.motivo) ?? "NAO_REALIZADO" }
    case "EM_PROCESSAMENTO":
      return { _tag: "Processing" }
    default:
      return { _tag: "Unknown", reason: `unexpected devolução status ${String(b.status)}` }
  }
}

const path = (setup: Setup, refund: Domain.Refund, charge: Domain.Transaction) =>
  `${setup.pix}/pix/${encodeURIComponent(charge.endToEndId ?? "")}/devolucao/${Refunds.bankRefundId(refund.id)}`

/** The refunder over the standard's devolução (`BankGatewayShape.refunder`). */
export const refunder = (setup: Setup): BankGateway.PixRefunder => ({
  pollDelay: setup.pollDelay,
  status: (refund, charge) =>
    charge.endToEndId === null
      ? Effect.succeed({ _tag: "Rejected", reason: "The charge has no end-to-end id" } as const)
      : setup.psp.call({ method: "GET", path: path(setup, refund, charge) }).pipe(
          Effect.map((res) =>
            res.status === 404
              ? ({ _tag: "NotFound" } as const)
              : res.status === 200
                ? status(res.body)
                : ({ _tag: "Unknown", reason: describe(res) } as const)
          ),
          Effect.catchAll((e) => Effect.succeed(unknownStatus(e)))
        ),
  send: (refund, charge) =>
    setup.psp
      .call({
        method: "PUT",
        path: path(setup, refund, charge),
        body: {
          valor: Money.formatReais(refund.amount),
          natureza: "ORIGINAL",
          ...(refund.description === null ? {} : { descricao: refund.description.slice(0, 140) })
        }
      })
      .pipe(
        Effect.flatMap((res): Effect.Effect<BankGateway.SendStatus> => {
          if (res.status === 200 || res.status === 201) return Effect.succeed(status(res.body))
          if (res.status === 400 || res.status === 403 || res.status === 404 || res.status === 422)
            return Effect.succeed({ _tag: "Rejected", reason: describe(res), code: codeOf(res) })
          if (res.status === 429)
            return Effect.as(
              Effect.logWarning(
                "The PSP refused a refund's devolução for now (429, rate limited): nothing was made, it is sent again later"
              ).pipe(
                Effect.annotateLogs({
                  refundId: refund.id,
                  bankReason: describe(res),
                  ...(res.retryAfterMs === undefined ? {} : { retryAfterMs: res.retryAfterMs })
                })
              ),
              { _tag: "NotFound" } as const
            )
          return Effect.succeed({ _tag: "Unknown", reason: describe(res) })
        }),
        Effect.catchAll((e) => Effect.succeed(unknownStatus(e)))
      )
})
