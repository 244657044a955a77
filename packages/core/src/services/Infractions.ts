/**
 * MED infractions reported by the bank against a PIX a merchant received (docs/decisions.md,
 * "MED infractions"): opening blocks what the available balance has of the claimed amount
 * (`merchant:<id>:held`), the merchant answers before the deadline, and the bank concludes:
 * `rejected` or `cancelled` release the block, `accepted` books the devolução the bank performed
 * (the block first, the available balance for the rest, below zero when short) and releases what
 * is left. A devolução is booked once by the bank's id, whichever source reports it first. Every
 * change sends `chargeback.created` / `chargeback.updated`.
 *
 * A live answer goes to the bank first when the charge's gateway takes defences
 * (`BankGatewayShape.infractionDefence`) and is recorded only once the bank has it; a gateway
 * without the `infractions` capability is refused (`capability_unavailable`), and an answer
 * whose outcome stays unknown records nothing (the same answer may be given again).
 *
 * A store without an `InfractionStore` keeps none: every operation answers `unsupported`.
 */
import { Context, Effect, Layer, Option } from "effect"
import * as Errors from "../contract/Errors.js"
import * as Events from "../contract/Events.js"
import type { Mode, Transaction, TransactionId } from "../domain/Domain.js"
import type {
  Answer,
  Infraction,
  InfractionId,
  InfractionReturn,
  InfractionStatus
} from "../domain/Infractions.js"
import * as Infractions_ from "../domain/Infractions.js"
import * as Ledger from "../domain/Ledger.js"
import type { Cents } from "../domain/Money.js"
import * as Money from "../domain/Money.js"
import { completing } from "../jobs/Jobs.js"
import { capabilitiesOf, Gateways } from "../ports/BankGateway.js"
import {
  type GatewayInfractions,
  type InfractionReport,
  InfractionStore,
  type InfractionStoreShape,
  type ReturnReport
} from "../ports/InfractionStore.js"
import { ReadStore, type StoreError } from "../ports/Store.js"
import { ofTransaction } from "./GatewayRouting.js"

/** Why an infraction operation did nothing. */
export type InfractionRefusal =
  | "unsupported"
  | "not_found"
  | "invalid_amount"
  | "deadline_passed"
  | "not_answerable"
  | "not_pending"
  | "exceeds_received"
  /** The charge's live gateway reads no infractions (or none is configured any more). */
  | "capability_unavailable"
  /** The bank refused the answer (`message`: its words). */
  | "bank_refused"
  /** The bank's answer is not known: nothing was recorded; the same answer may be given again. */
  | "outcome_unknown"

/** A value or why there is none. */
export type Result<A> =
  | { readonly ok: true; readonly value: A }
  | {
      readonly ok: false
      readonly reason: InfractionRefusal
      readonly returnable?: Cents
      readonly message?: string
    }

/** An infraction as the bank reports it. */
export type OpenInput = InfractionReport

/** A devolução the bank performed for a MED. */
export type ReturnInput = ReturnReport

/** The infractions' operations. */
export interface InfractionsShape {
  readonly open: (input: OpenInput) => Effect.Effect<Result<Infraction>, StoreError>
  /** The merchant's answer, before the deadline, of an `open` infraction of its own. */
  readonly answer: (
    owner: { readonly merchantId: Transaction["merchantId"]; readonly mode: Mode },
    id: InfractionId,
    answer: Omit<Answer, "at">
  ) => Effect.Effect<Result<Infraction>, StoreError>
  /** The bank concluded for the merchant (`rejected`) or the payer's bank withdrew (`cancelled`). */
  readonly release: (
    id: InfractionId,
    outcome: "rejected" | "cancelled"
  ) => Effect.Effect<Result<Infraction>, StoreError>
  /** The bank concluded it upheld without returning anything (nothing to return): releases the block. */
  readonly upheldWithoutReturn: (id: InfractionId) => Effect.Effect<Result<Infraction>, StoreError>
  /** Books a devolução the bank performed, once per `returnId`. */
  readonly recordReturn: (
    input: ReturnInput
  ) => Effect.Effect<
    Result<{ readonly booked: InfractionReturn; readonly infraction: Infraction | null }>,
    StoreError
  >
  readonly get: (id: InfractionId) => Effect.Effect<Option.Option<Infraction>, StoreError>
  readonly findByBankId: (mode: Mode, bankId: string) => Effect.Effect<Option.Option<Infraction>, StoreError>
  readonly list: (query: {
    readonly merchantId: Transaction["merchantId"]
    readonly mode: Mode
    readonly statuses?: ReadonlyArray<InfractionStatus>
    readonly limit?: number
  }) => Effect.Effect<ReadonlyArray<Infraction>, StoreError>
  readonly returns: (
    transactionId: TransactionId
  ) => Effect.Effect<ReadonlyArray<InfractionReturn>, StoreError>
  /** Whether the store keeps infractions. */
  readonly supported: boolean
}

const refuse = (reason: InfractionRefusal, returnable?: Cents): Result<never> =>
  returnable === undefined ? { ok: false, reason } : { ok: false, reason, returnable }
const refuseWith = (reason: InfractionRefusal, message: string): Result<never> => ({
  ok: false,
  reason,
  message
})

/**
 * The error a transport answers for a refused answer: 409 `infraction_deadline_passed` /
 * `infraction_not_answerable` / `infraction_bank_refused` / `infraction_answer_unknown`, 422
 * `capability_unavailable`, else 404.
 */
export const answerError = (
  r: { readonly reason: InfractionRefusal; readonly message?: string },
  infraction: Pick<Infraction, "deadline" | "status">
): Errors.Refused | Errors.ValidationError | Errors.NotFound => {
  switch (r.reason) {
    case "deadline_passed":
      return new Errors.Refused({
        code: "infraction_deadline_passed",
        message: `The deadline to answer this infraction passed at ${new Date(infraction.deadline).toISOString()}${r.message === undefined ? "" : ` (the bank: ${r.message})`}`
      })
    case "not_answerable":
    case "not_pending":
      return new Errors.Refused({
        code: "infraction_not_answerable",
        message: `This infraction can no longer be answered${r.message === undefined ? ` (it is ${infraction.status})` : ` (the bank: ${r.message})`}`
      })
    case "bank_refused":
      return new Errors.Refused({
        code: "infraction_bank_refused",
        message: `The bank refused the answer: ${r.message ?? "no reason given"}`
      })
    case "outcome_unknown":
      return new Errors.Refused({
        code: "infraction_answer_unknown",
        message:
          "The bank's answer is not known yet and nothing was recorded; sending the same answer again is safe"
      })
    case "capability_unavailable":
      return Errors.validation(
        "capability_unavailable",
        "infractionId",
        r.message ?? "this merchant's bank offers no infractions"
      )
    default:
      return Errors.notFound("Infraction")
  }
}
const ok = <A>(value: A): Result<A> => ({ ok: true, value })

const now = Effect.clockWith((c) => c.currentTimeMillis)

/** What the operations work with: the service's dependencies. */
interface InfractionsContext {
  readonly store: InfractionStoreShape
  readonly reads: Context.Tag.Service<ReadStore>
  readonly gateways: Option.Option<Context.Tag.Service<Gateways>>
}

/**
 * A live answer goes to the charge's bank first (when its gateway takes defences): None when it
 * may be recorded, else why not.
 */
const forward = ({ reads, gateways }: InfractionsContext, inf: Infraction, answer: Answer) =>
  Effect.gen(function* () {
    if (inf.mode !== "live" || Option.isNone(gateways)) return Option.none<Result<never>>()
    const charge = yield* reads.getTransaction(inf.transactionId)
    if (Option.isNone(charge)) return Option.some(refuse("not_found"))
    const gateway = yield* ofTransaction(gateways.value, charge.value)
    if (Option.isNone(gateway) || !capabilitiesOf(gateway.value).infractions)
      return Option.some(refuseWith("capability_unavailable", "this merchant's bank offers no infractions"))
    const defence = gateway.value.infractionDefence
    if (defence === undefined) return Option.none<Result<never>>()
    const outcome = yield* defence.send(inf, answer)
    switch (outcome._tag) {
      case "Sent":
        return Option.none<Result<never>>()
      case "Refused":
        yield* Effect.logWarning("The bank refused an answer to an infraction").pipe(
          Effect.annotateLogs({ infractionId: inf.id, bankId: inf.bankId, bankReason: outcome.message })
        )
        return Option.some(
          refuseWith(outcome.reason === "invalid" ? "bank_refused" : outcome.reason, outcome.message)
        )
      case "Unknown":
        yield* Effect.logWarning("An answer to an infraction had an unknown outcome; nothing recorded").pipe(
          Effect.annotateLogs({ infractionId: inf.id, bankId: inf.bankId, reason: outcome.reason })
        )
        return Option.some(refuse("outcome_unknown"))
    }
  })

const returnIdsOf = ({ store }: InfractionsContext, inf: Infraction) =>
  Effect.map(store.listInfractionReturns(inf.transactionId), (rs) =>
    rs.filter((r) => r.infractionId === inf.id).map((r) => r.id)
  )

const change = (
  ctx: InfractionsContext,
  id: InfractionId,
  from: ReadonlyArray<InfractionStatus>,
  to: InfractionStatus,
  release: boolean,
  answer?: Answer
) =>
  Effect.gen(function* () {
    const { store } = ctx
    const current = yield* store.getInfraction(id)
    if (Option.isNone(current)) return refuse("not_found")
    const returnIds = yield* returnIdsOf(ctx, current.value)
    const at = yield* now
    const job = yield* completing
    const done = yield* store.changeInfraction({
      id,
      from,
      to,
      at,
      release,
      ...(answer === undefined ? {} : { answer }),
      entry: (inf, released) => Ledger.infractionReleased(inf, released, at),
      effects: (updated, charge) => ({
        events: [Events.infractionUpdated(charge, updated, returnIds, at)],
        jobs: [],
        ...job
      })
    })
    return Option.match(done, { onNone: () => refuse("not_pending"), onSome: ok })
  })

/** Opens an infraction on a charge (`InfractionsShape.open`). */
const openInfraction = (
  { store, reads }: InfractionsContext,
  input: OpenInput
): ReturnType<InfractionsShape["open"]> =>
  Effect.gen(function* () {
    const found = yield* reads.getTransaction(input.transactionId)
    if (Option.isNone(found) || found.value.type !== "deposit") return refuse("not_found")
    const charge = found.value
    const received = charge.receivedAmount ?? charge.amount
    const claimed = input.amountClaimed ?? received
    if (!Number.isSafeInteger(claimed) || claimed <= 0 || claimed > received) return refuse("invalid_amount")
    const at = yield* now
    const openedAt = input.openedAt ?? at
    const job = yield* completing
    const infraction: Infraction = {
      id: Infractions_.infractionId(at),
      transactionId: charge.id,
      merchantId: charge.merchantId,
      mode: charge.mode,
      bankId: input.bankId,
      endToEndId: charge.endToEndId,
      type: input.type,
      reason: input.reason,
      amountClaimed: claimed,
      blockedAmount: Money.zero,
      returnedAmount: Money.zero,
      status: "open",
      answer: null,
      openedAt,
      deadline: input.deadline ?? openedAt + Infractions_.defaultAnswerWindow,
      createdAt: at,
      updatedAt: at
    }
    const done = yield* store.openInfraction({
      infraction,
      block:
        input.block === false
          ? Money.zero
          : Money.Cents(Math.max(0, Math.min(claimed, input.blockAmount ?? claimed))),
      entry: (opened) =>
        opened.blockedAmount > 0 ? Ledger.infractionBlocked(opened, opened.blockedAmount, at) : null,
      effects: (opened, paid) => ({
        events: [Events.infractionCreated(paid, opened, at)],
        jobs: [],
        ...job
      })
    })
    switch (done._tag) {
      case "Opened":
      case "Exists":
        return ok(done.infraction)
      case "NotFound":
        return refuse("not_found")
    }
  })

/** The merchant's answer to an infraction (`InfractionsShape.answer`). */
const answerInfraction = (
  ctx: InfractionsContext,
  ...[owner, id, answer]: Parameters<InfractionsShape["answer"]>
): ReturnType<InfractionsShape["answer"]> =>
  Effect.gen(function* () {
    const { store } = ctx
    const current = yield* store.getInfraction(id)
    if (
      Option.isNone(current) ||
      current.value.merchantId !== owner.merchantId ||
      current.value.mode !== owner.mode
    )
      return refuse("not_found")
    const at = yield* now
    if (!Infractions_.answerable.includes(current.value.status)) return refuse("not_answerable")
    if (at > current.value.deadline) return refuse("deadline_passed")
    const to: InfractionStatus = answer.analysis === "accepted" ? "accepted" : "defended"
    const refused = yield* forward(ctx, current.value, { ...answer, at })
    if (Option.isSome(refused)) return refused.value
    return yield* change(ctx, id, Infractions_.answerable, to, false, { ...answer, at })
  })

/** A return of a charge's money, booked (`InfractionsShape.recordReturn`). */
const recordReturn = (
  { store }: InfractionsContext,
  input: ReturnInput
): ReturnType<InfractionsShape["recordReturn"]> =>
  Effect.gen(function* () {
    if (!Number.isSafeInteger(input.amount) || input.amount <= 0) return refuse("invalid_amount")
    const at = yield* now
    const before = yield* store.listInfractionReturns(input.transactionId)
    const job = yield* completing
    const done = yield* store.bookReturn({
      mode: input.mode,
      id: input.returnId,
      transactionId: input.transactionId,
      infractionId: input.infractionId ?? null,
      nature: input.nature,
      amount: input.amount,
      returnedAt: input.returnedAt ?? at,
      at,
      conclude: input.conclude ?? false,
      entries: (booked, inf, released) => [
        Ledger.infractionReturned(booked, at),
        ...(inf !== null && released > 0 ? [Ledger.infractionReleased(inf, released, at)] : [])
      ],
      effects: (booked, inf, charge) => ({
        events:
          inf === null
            ? []
            : [
                Events.infractionUpdated(
                  charge,
                  inf,
                  [...before.filter((r) => r.infractionId === inf.id).map((r) => r.id), booked.id],
                  at
                )
              ],
        jobs: [],
        ...job
      })
    })
    switch (done._tag) {
      case "Booked":
        return ok({ booked: done.booked, infraction: done.infraction })
      case "Exists": {
        const inf =
          done.booked.infractionId === null
            ? Option.none()
            : yield* store.getInfraction(done.booked.infractionId)
        return ok({ booked: done.booked, infraction: Option.getOrNull(inf) })
      }
      case "NotFound":
        return refuse("not_found")
      case "Exceeds":
        return refuse("exceeds_received", done.returnable)
    }
  })

const over = (
  store: InfractionStoreShape,
  reads: Context.Tag.Service<ReadStore>,
  gateways: Option.Option<Context.Tag.Service<Gateways>>
): InfractionsShape => {
  const ctx: InfractionsContext = { store, reads, gateways }
  return {
    supported: true,
    open: (input) => openInfraction(ctx, input),

    answer: (owner, id, answer) => answerInfraction(ctx, owner, id, answer),

    release: (id, outcome) => change(ctx, id, ["open", "defended", "accepted"], outcome, true),

    upheldWithoutReturn: (id) => change(ctx, id, ["open", "defended", "accepted"], "accepted", true),

    recordReturn: (input) => recordReturn(ctx, input),

    get: store.getInfraction,
    findByBankId: store.findInfractionByBankId,
    list: (q) =>
      store.listInfractions({
        merchantId: q.merchantId,
        mode: q.mode,
        limit: q.limit ?? 100,
        ...(q.statuses === undefined ? {} : { statuses: q.statuses })
      }),
    returns: store.listInfractionReturns
  }
}

const unsupported: InfractionsShape = {
  supported: false,
  open: () => Effect.succeed(refuse("unsupported")),
  answer: () => Effect.succeed(refuse("unsupported")),
  release: () => Effect.succeed(refuse("unsupported")),
  upheldWithoutReturn: () => Effect.succeed(refuse("unsupported")),
  recordReturn: () => Effect.succeed(refuse("unsupported")),
  get: () => Effect.succeed(Option.none()),
  findByBankId: () => Effect.succeed(Option.none()),
  list: () => Effect.succeed([]),
  returns: () => Effect.succeed([])
}

/** Builds the service over the `InfractionStore` in context, when there is one. */
export const make: Effect.Effect<InfractionsShape, never, ReadStore> = Effect.gen(function* () {
  const reads = yield* ReadStore
  const store = yield* Effect.serviceOption(InfractionStore)
  const gateways = yield* Effect.serviceOption(Gateways)
  return Option.match(store, { onNone: () => unsupported, onSome: (s) => over(s, reads, gateways) })
})

/** What a bank gateway may tell the engine (`GatewayContext.infractions`), over the service. */
export const forGateway = (service: InfractionsShape): GatewayInfractions | undefined =>
  service.supported
    ? {
        opened: (report) =>
          Effect.map(service.open(report), (r) => (r.ok ? Option.some(r.value) : Option.none())),
        concluded: (mode, bankId, outcome) =>
          Effect.flatMap(service.findByBankId(mode, bankId), (found) =>
            Option.isNone(found)
              ? Effect.succeed(false)
              : Effect.map(
                  outcome === "accepted"
                    ? service.upheldWithoutReturn(found.value.id)
                    : service.release(found.value.id, outcome),
                  (r) => r.ok
                )
          ),
        returned: (report) => Effect.map(service.recordReturn(report), (r) => r.ok),
        find: service.findByBankId
      }
    : undefined

/** MED infractions, for the services and transports that use them. */
export class Infractions extends Context.Tag("@pixgate/core/Infractions")<Infractions, InfractionsShape>() {}

/** The service over its dependencies. */
export const layer = Layer.effect(Infractions, make)
