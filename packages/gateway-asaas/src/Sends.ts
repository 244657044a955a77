/**
 * Payouts as Asaas transfers to a Pix key (`POST /transfers`, `operationType: PIX`), each with
 * `externalReference` = the payout id. Asaas takes no idempotency key and no id of the caller's,
 * so a payout's transfer is found by that reference: `status` pages the transfers created since
 * the payout's day (`GET /transfers?dateCreated[ge]=`) and reads the one that carries it. The
 * engine asks `status` before any send but a first attempt, so a send whose answer was lost is
 * found, never made twice.
 *
 * A 400 on the request (balance, key, value) is a definite refusal. A 409 is Asaas's guard
 * against an identical transfer (same value and key) within 15 minutes: maybe this payout's own
 * earlier attempt, maybe another payout's, so it is an unknown outcome, asked about again.
 */
import type { BankGateway, Domain } from "@pixgate/core"
import { Effect, Either, Option } from "effect"
import type { AsaasClient, AsaasError } from "./Client.js"
import type { Resolved } from "./Settings.js"
import * as Wire from "./Wire.js"

/** At most this many pages of 100 transfers are read to find one payout's transfer. */
export const maxPages = 50

const unknown = (e: AsaasError): BankGateway.SendStatus => ({
  _tag: "Unknown",
  reason: `${e.reason}: ${e.message}`
})

/** The transfer carrying `reference`, paging the transfers created since `since` (a day). */
export const findTransfer = (
  client: AsaasClient,
  reference: string,
  since: string
): Effect.Effect<Option.Option<Wire.WireTransfer>, AsaasError | string> =>
  Effect.gen(function* () {
    for (let page = 0; page < maxPages; page++) {
      const res = yield* client.call({
        method: "GET",
        path: "/transfers",
        query: { "dateCreated[ge]": since, offset: String(page * 100), limit: "100" }
      })
      if (res.status !== 200) return yield* Effect.fail(Wire.describe(res.status, res.body))
      const { data, hasMore } = Wire.list(res.body)
      for (const item of data) {
        const t = Wire.transfer(item)
        if (Option.isSome(t) && t.value.externalReference === reference) return t
      }
      if (!hasMore) return Option.none()
    }
    return yield* Effect.fail(`no transfer for ${reference} in ${maxPages} pages`)
  })

/** What a transfer request's answer says. */
const answered = (status: number, body: unknown): BankGateway.SendStatus => {
  if (status === 200)
    return Option.match(Wire.transfer(body), {
      onNone: () => ({ _tag: "Unknown", reason: "Asaas's answer holds no transfer" }),
      onSome: Wire.sendStatus
    })
  const { code } = Wire.errorOf(body)
  if (status === 400)
    return { _tag: "Rejected", reason: Wire.describe(status, body), code: code ?? `HTTP ${status}` }
  return { _tag: "Unknown", reason: Wire.describe(status, body) }
}

/** The gateway's sender. */
export const make = (settings: Resolved, client: AsaasClient): BankGateway.PixSender => ({
  pollDelay: settings.pollDelayMs,
  inlineBudget: settings.sendBudgetMs,
  status: (payout: Domain.Transaction) =>
    findTransfer(client, payout.id, Wire.day(payout.createdAt)).pipe(
      Effect.map(
        Option.match({
          onNone: (): BankGateway.SendStatus => ({ _tag: "NotFound" }),
          onSome: Wire.sendStatus
        })
      ),
      Effect.catchAll((e) =>
        Effect.succeed(typeof e === "string" ? { _tag: "Unknown" as const, reason: e } : unknown(e))
      )
    ),
  send: (payout: Domain.Transaction) => {
    const key = Wire.pixKey(payout.pixKey ?? "")
    if (Either.isLeft(key))
      return Effect.succeed({
        _tag: "Rejected",
        reason: `not a PIX key Asaas takes: ${key.left}`,
        code: "pix_key"
      } as const)
    return client
      .call({
        method: "POST",
        path: "/transfers",
        body: {
          value: Wire.reais(payout.amount),
          operationType: "PIX",
          ...key.right,
          externalReference: payout.id,
          ...(payout.description === null ? {} : { description: payout.description.slice(0, 140) })
        }
      })
      .pipe(
        Effect.map((res) => answered(res.status, res.body)),
        Effect.catchAll((e) => Effect.succeed(unknown(e)))
      )
  }
})
