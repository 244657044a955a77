/**
 * The sandbox bank's MED infractions (README, "Sandbox magic values"): a test charge of one of
 * these amounts is paid as usual, an infraction is opened against it 1 s after the payment (the
 * bank blocks the amount: `chargeback.created` with the deadline) and the bank concludes it 3 s
 * after the payment:
 *
 * - 7.71: upheld, the whole amount returned (`MED_FRAUDE`): the charge becomes `refunded`;
 * - 7.72: upheld with a partial return on a short balance: the bank could block only R$ 5.00 (or
 *   what the available balance had, if less) and returns what it blocked; the charge stays
 *   `completed`, `returnedAmount` says how much went back;
 * - 7.73: rejected (for the merchant) after the defence window: contest it in the 2 s between
 *   opening and conclusion (admin API / CLI) to see `defended` first; the block is released;
 * - 7.74: cancelled by the payer's bank: the block is released.
 */
import { Effect, Option } from "effect"
import { idDecoder, type Job, type Transaction, TransactionId } from "../domain/Domain.js"
import * as Ids from "../domain/Ids.js"
import * as Money from "../domain/Money.js"
import type { GatewayContext, JobRun } from "../ports/BankGateway.js"
import type { ClaimedJob } from "../ports/Store.js"

/** The magic amounts (centavos) and what the sandbox bank does with each. */
export const infractionAmounts = {
  fullReturn: 771,
  partialReturn: 772,
  rejected: 773,
  cancelled: 774
} as const

/** What the sandbox bank can block for a 7.72 infraction. */
export const partialBlock = 500

/** The sandbox bank's id of the infraction against a charge, and of its devolução. */
export const bankIdOf = (tx: TransactionId): string => `SBX${tx.slice(3)}`
/** The sandbox bank's `rtrId` of the devolução of a charge's infraction. */
export const returnIdOf = (tx: TransactionId): string => `D${tx.slice(3)}`

const isMagic = (amount: number): boolean => Object.values(infractionAmounts).some((a) => a === amount)

/** The timers written when a magic charge is paid: the infraction opens 1 s later, concludes 3 s later. */
export const timersOnPaid = (tx: Transaction, now: number): ReadonlyArray<Job> =>
  isMagic(tx.amount)
    ? [
        { id: Ids.jobId(now + 1000), kind: "sandbox.infraction.open", ref: tx.id, runAt: now + 1000 },
        { id: Ids.jobId(now + 3000), kind: "sandbox.infraction.conclude", ref: tx.id, runAt: now + 3000 }
      ]
    : []

const onCharge =
  (says: (tx: Transaction, ctx: GatewayContext) => Effect.Effect<boolean, unknown>): JobRun =>
  (job: ClaimedJob, ctx) =>
    ctx.asJob(
      job,
      Option.match(idDecoder(TransactionId)(job.ref), {
        onNone: () => Effect.succeed(false),
        onSome: (id) =>
          Effect.flatMap(ctx.getTransaction(id), (tx) =>
            Option.isNone(tx) || ctx.infractions === undefined
              ? Effect.succeed(false)
              : (says(tx.value, ctx) as Effect.Effect<boolean, never>)
          )
      })
    )

/** The sandbox bank's MED timers, registered with its other jobs. */
export const jobs: Readonly<Record<string, JobRun>> = {
  "sandbox.infraction.open": onCharge((tx, ctx) =>
    Effect.map(
      (ctx.infractions as NonNullable<GatewayContext["infractions"]>).opened({
        transactionId: tx.id,
        bankId: bankIdOf(tx.id),
        type: tx.amount === infractionAmounts.rejected ? "operational_failure" : "fraud",
        reason:
          tx.amount === infractionAmounts.rejected
            ? "Sandbox: falha operacional alegada pelo banco do pagador"
            : "Sandbox: golpe alegado pelo pagador",
        ...(tx.amount === infractionAmounts.partialReturn ? { blockAmount: Money.Cents(partialBlock) } : {})
      }),
      Option.isSome
    )
  ),
  "sandbox.infraction.conclude": onCharge((tx, ctx) =>
    Effect.gen(function* () {
      const med = ctx.infractions as NonNullable<GatewayContext["infractions"]>
      const found = yield* med.find(tx.mode, bankIdOf(tx.id))
      if (Option.isNone(found)) return false
      const inf = found.value
      switch (tx.amount) {
        case infractionAmounts.rejected:
          return yield* med.concluded(tx.mode, inf.bankId, "rejected")
        case infractionAmounts.cancelled:
          return yield* med.concluded(tx.mode, inf.bankId, "cancelled")
        default: {
          const amount = tx.amount === infractionAmounts.fullReturn ? inf.amountClaimed : inf.blockedAmount
          if (amount <= 0) return yield* med.concluded(tx.mode, inf.bankId, "accepted")
          return yield* med.returned({
            mode: tx.mode,
            returnId: returnIdOf(tx.id),
            transactionId: tx.id,
            infractionId: inf.id,
            nature: inf.type === "fraud" ? "MED_FRAUDE" : "MED_OPERACIONAL",
            amount,
            conclude: true
          })
        }
      }
    })
  )
}
