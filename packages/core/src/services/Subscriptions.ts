/**
 * Subscriptions: Pix Automático recurrences (API Pix `/rec`, `/solicrec`, `/cobr`, `/locrec`).
 * A merchant creates one through a journey (1: a push request to the payer's bank; 2: a QR of
 * the recurrence; 3: a composite QR with an immediate charge paid with the authorisation; 4: a
 * composite QR with a due-date charge); the payer approves, rejects or lets it expire; once
 * approved, the worker (`tick`) creates each cycle's charge 2 to 10 days before its due date,
 * one per cycle and never after the end, the payer's bank attempts the debit on the settlement
 * day, and under `PERMITE_3R_7D` the merchant may order up to 3 retries within 7 days.
 *
 * Money: each cycle is booked as a charge transaction (a pending deposit with the merchant's
 * charge fee, created with the cycle); a paid cycle completes it through `BankEvents.pixReceived`
 * exactly as a paid charge (fee, ledger, `transaction.completed`), an unpaid one fails it.
 *
 * Every change is written over the version it read (`SubscriptionStore`), and the store keeps
 * one cycle per (subscription, sequence): two workers racing create one cycle, and a cycle is
 * paid at most once (the charge's own guard). Every change sends `subscription.updated` or
 * `subscription.cycle.updated`.
 *
 * The sandbox plays the payer and their bank: the payer's answer comes 2-3 s after creation
 * (`payer.answer`), debits settle on their day unless the payer has no funds for that cycle or
 * the cycle is above the payer's maximum; admin actions change the payer's behaviour.
 */
import { Context, type Duration, Effect, FiberRef, Layer, Option, Schedule } from "effect"
import * as Errors from "../contract/Errors.js"
import * as Events from "../contract/Events.js"
import type { CreateCharge } from "../contract/Requests.js"
import * as SubscriptionEvents from "../contract/SubscriptionEvents.js"
import {
  type CycleJson,
  cycleJson,
  type SubscriptionJson,
  subscriptionJson
} from "../contract/SubscriptionViews.js"
import { type Event, type MerchantId, newTransaction, type TransactionId } from "../domain/Domain.js"
import * as DueDate from "../domain/DueDate.js"
import * as Fees from "../domain/Fees.js"
import * as Ids from "../domain/Ids.js"
import type * as Money from "../domain/Money.js"
import * as R from "../domain/Recurrence.js"
import * as BrCode from "../pix/BrCode.js"
import { Gateways } from "../ports/BankGateway.js"
import {
  type CycleChargeSnapshot,
  type RecLocation,
  type RecurrenceRequest,
  type RecurrenceSnapshot,
  type RecurringGateway,
  type RecurringReports,
  recurringGatewayOf,
  type SolicitationSnapshot
} from "../ports/RecurringGateway.js"
import { LedgerStore, MerchantStore, ReadStore, type StoreError } from "../ports/Store.js"
import { SubscriptionStore } from "../ports/SubscriptionStore.js"
import { EngineConfig } from "../runtime/Config.js"
import type { Caller } from "./Auth.js"
import { BankEvents } from "./BankEvents.js"
import { Charges } from "./Charges.js"
import * as Idempotency from "./Idempotency.js"

// ---------------------------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------------------------

/** What a merchant asks for (amounts in cents, dates `YYYY-MM-DD`). */
export interface CreateSubscription {
  readonly jornada: R.Jornada
  readonly vinculo: {
    readonly contrato: string
    readonly devedor: R.Devedor
    readonly objeto?: string | undefined
  }
  readonly calendario: {
    readonly dataInicial: string
    readonly dataFinal?: string | undefined
    readonly periodicidade: R.Periodicidade
  }
  readonly valor: {
    readonly valorRec?: number | undefined
    readonly valorMinimoRecebedor?: number | undefined
  }
  /** Each cycle's amount when `valorRec` is not given (at least `valorMinimoRecebedor`). */
  readonly valorCiclo?: number | undefined
  readonly politicaRetentativa: R.PoliticaRetentativa
  /** Journey 1: the payer's account at their bank. */
  readonly pagador?:
    | { readonly ispbParticipante: string; readonly conta: string; readonly agencia?: string | undefined }
    | undefined
  /** Journey 1: when the push request expires (RFC 3339; default 7 days). */
  readonly dataExpiracaoSolicitacao?: string | undefined
  /** Journeys 3 and 4: the first payment (an immediate charge, or a due-date one on `dueDate`). */
  readonly cobranca?: { readonly valor: number; readonly dueDate?: string | undefined } | undefined
}

/** The sandbox payer's actions (admin actions or magic values). */
export type PayerAction =
  | { readonly _tag: "approve" }
  | { readonly _tag: "reject" }
  | { readonly _tag: "revoke" }
  | { readonly _tag: "setMaximum"; readonly cents: number | null }
  | { readonly _tag: "insufficientFunds"; readonly cycles: ReadonlyArray<number> }
  | { readonly _tag: "payOnRetry"; readonly pay: boolean }
  | { readonly _tag: "cancelCycle"; readonly txid: string }

/** What the subscription operations fail with. */
export type SubscriptionError =
  | Errors.ValidationError
  | Errors.NotFound
  | Errors.Refused
  | Errors.GatewayUnavailable
  | Errors.StorageUnavailable
  | Errors.Conflict

export interface SubscriptionsShape {
  readonly create: (
    caller: Caller,
    input: CreateSubscription
  ) => Effect.Effect<SubscriptionJson, SubscriptionError>
  readonly get: (caller: Caller, id: string) => Effect.Effect<SubscriptionJson, SubscriptionError>
  readonly list: (
    caller: Caller,
    page: {
      readonly status?: R.RecStatus | undefined
      readonly before?: string | undefined
      readonly limit: number
    }
  ) => Effect.Effect<ReadonlyArray<SubscriptionJson>, SubscriptionError>
  readonly cycles: (caller: Caller, id: string) => Effect.Effect<ReadonlyArray<CycleJson>, SubscriptionError>
  /** The merchant ends the subscription (`USUARIO_RECEBEDOR`); cycles not yet due are cancelled. */
  readonly cancel: (caller: Caller, id: string) => Effect.Effect<SubscriptionJson, SubscriptionError>
  /** The merchant orders a retry of a failed cycle on `data` (`YYYY-MM-DD`) under `PERMITE_3R_7D`. */
  readonly retry: (caller: Caller, txid: string, data: string) => Effect.Effect<CycleJson, SubscriptionError>
  /** The sandbox's payer acts on a test subscription. */
  readonly payer: (
    merchantId: MerchantId,
    id: string,
    action: PayerAction
  ) => Effect.Effect<SubscriptionJson, SubscriptionError>
  /** Runs what is due at the clock's time (cycles to create, debits to settle, ends); how many changed. */
  readonly tick: Effect.Effect<number, StoreError>
  /** What a live gateway reports of recurrences, as it read them from the bank (`RecurringReports`). */
  readonly reports: RecurringReports
}

export class Subscriptions extends Context.Tag("@pixgate/core/Subscriptions")<
  Subscriptions,
  SubscriptionsShape
>() {}

// ---------------------------------------------------------------------------------------------
// Rules
// ---------------------------------------------------------------------------------------------

/** How long the sandbox's payer takes to answer (ms): the sandbox's 2-3 s rhythm. */
export const payerDelay = 2_500
/** Journey 1's push request expires after this by default (ms). */
export const defaultSolicitationLifetime = 7 * 86_400_000
/** The sandbox's rejection codes: above the payer's maximum, and no funds (docs/decisions.md). */
export const rejection = {
  aboveMaximum: { codigo: "AM02", descricao: "Valor acima do máximo definido pelo usuário pagador" },
  noFunds: { codigo: "NIEC", descricao: "Saldo insuficiente na conta do usuário pagador" }
} as const
/** Cancellation codes: the receiver's (`SLCR`) and the payer's (`SLDB` for a recurrence, `SLBD` for a cycle). */
export const cancellation = {
  recByReceiver: {
    solicitante: "USUARIO_RECEBEDOR",
    codigo: "SLCR",
    descricao: "Cancelamento solicitado pelo usuário recebedor"
  },
  recByPayer: {
    solicitante: "USUARIO_PAGADOR",
    codigo: "SLDB",
    descricao: "Cancelamento solicitado pelo usuário pagador"
  },
  cycleByReceiver: {
    solicitante: "USUARIO_RECEBEDOR",
    codigo: "SLCR",
    descricao: "Cancelamento solicitado pelo usuário recebedor"
  },
  cycleByPayer: {
    solicitante: "USUARIO_PAGADOR",
    codigo: "SLBD",
    descricao: "Cancelamento solicitado pelo usuário pagador"
  }
} as const

const invalid = (path: string, message: string) => Errors.validation("invalid_recurrence", path, message)
const refused = (code: Errors.RefusedCode, message: string) => new Errors.Refused({ code, message })

const cpfPattern = /^\d{11}$/
const cnpjPattern = /^[0-9A-Z]{14}$/
const ispbPattern = /^[0-9A-Z]{8}$/

/** The request's contract and debtor checked. */
const checkVinculo = (input: CreateSubscription) =>
  Effect.gen(function* () {
    const { vinculo } = input
    if (vinculo.contrato.length < 1 || vinculo.contrato.length > 35)
      return yield* Effect.fail(invalid("vinculo.contrato", "vinculo.contrato must have 1 to 35 characters"))
    if (vinculo.objeto !== undefined && vinculo.objeto.length > 35)
      return yield* Effect.fail(invalid("vinculo.objeto", "vinculo.objeto must have at most 35 characters"))
    const { cpf, cnpj, nome } = vinculo.devedor
    if ((cpf === undefined) === (cnpj === undefined))
      return yield* Effect.fail(
        invalid("vinculo.devedor", "vinculo.devedor needs exactly one of cpf and cnpj")
      )
    if (cpf !== undefined && !cpfPattern.test(cpf))
      return yield* Effect.fail(invalid("vinculo.devedor.cpf", "cpf must be 11 digits"))
    if (cnpj !== undefined && !cnpjPattern.test(cnpj))
      return yield* Effect.fail(invalid("vinculo.devedor.cnpj", "cnpj must be 14 characters of [0-9A-Z]"))
    if (nome.length < 1 || nome.length > 140)
      return yield* Effect.fail(
        invalid("vinculo.devedor.nome", "vinculo.devedor.nome must have 1 to 140 characters")
      )
  })

/** The request's calendar checked, as days. */
const checkCalendar = (input: CreateSubscription, today: DueDate.Day) =>
  Effect.gen(function* () {
    const { calendario } = input
    if (!R.periodicidades.includes(calendario.periodicidade))
      return yield* Effect.fail(
        invalid(
          "calendario.periodicidade",
          "periodicidade must be SEMANAL, MENSAL, TRIMESTRAL, SEMESTRAL or ANUAL"
        )
      )
    const start = DueDate.parseDay(calendario.dataInicial)
    if (start === undefined)
      return yield* Effect.fail(invalid("calendario.dataInicial", "dataInicial must be a YYYY-MM-DD date"))
    if (start < today)
      return yield* Effect.fail(
        invalid("calendario.dataInicial", "dataInicial must be today or later (São Paulo)")
      )
    const end = calendario.dataFinal === undefined ? null : DueDate.parseDay(calendario.dataFinal)
    if (end === undefined)
      return yield* Effect.fail(invalid("calendario.dataFinal", "dataFinal must be a YYYY-MM-DD date"))
    const calendar: R.Calendar = {
      dataInicial: start,
      dataFinal: end,
      periodicidade: calendario.periodicidade
    }
    const problem = R.calendarProblem(calendar)
    if (problem !== undefined) return yield* Effect.fail(invalid("calendario.dataFinal", problem))
    return calendar
  })

/** The request's retry policy and amounts checked; each cycle's amount. */
const checkValor = (input: CreateSubscription) =>
  Effect.gen(function* () {
    const { valor } = input
    if (!R.politicas.includes(input.politicaRetentativa))
      return yield* Effect.fail(
        invalid("politicaRetentativa", "politicaRetentativa must be NAO_PERMITE or PERMITE_3R_7D")
      )
    if (valor.valorRec !== undefined && valor.valorMinimoRecebedor !== undefined)
      return yield* Effect.fail(invalid("valor", "valor takes valorRec or valorMinimoRecebedor, never both"))
    const cycleAmount = valor.valorRec ?? input.valorCiclo
    if (cycleAmount === undefined)
      return yield* Effect.fail(
        invalid("valorCiclo", "valorCiclo is required when valor.valorRec is not given")
      )
    if (valor.valorRec !== undefined && input.valorCiclo !== undefined && input.valorCiclo !== valor.valorRec)
      return yield* Effect.fail(
        invalid("valorCiclo", "valorCiclo must equal valor.valorRec when both are given")
      )
    for (const [path, cents] of [
      ["valor.valorRec", valor.valorRec],
      ["valor.valorMinimoRecebedor", valor.valorMinimoRecebedor],
      ["valorCiclo", cycleAmount]
    ] as const)
      if (cents !== undefined && !(Number.isSafeInteger(cents) && cents > 0))
        return yield* Effect.fail(invalid(path, `${path} must be a positive amount`))
    if (valor.valorMinimoRecebedor !== undefined && cycleAmount < valor.valorMinimoRecebedor)
      return yield* Effect.fail(
        invalid("valorCiclo", "valorCiclo must be at least valor.valorMinimoRecebedor")
      )
    return cycleAmount
  })

/** The request's journey's own fields checked: the payer's account (1), the first payment (3, 4). */
const checkJourney = (input: CreateSubscription) =>
  Effect.gen(function* () {
    if (input.jornada === "JORNADA_1") {
      const p = input.pagador
      if (p === undefined)
        return yield* Effect.fail(
          invalid("pagador", "pagador (the payer's bank and account) is required for JORNADA_1")
        )
      if (!ispbPattern.test(p.ispbParticipante))
        return yield* Effect.fail(
          invalid("pagador.ispbParticipante", "ispbParticipante must be 8 characters of [0-9A-Z]")
        )
      if (p.conta.length < 1 || p.conta.length > 20)
        return yield* Effect.fail(invalid("pagador.conta", "conta must have 1 to 20 characters"))
      if (p.agencia !== undefined && !/^\d{1,4}$/.test(p.agencia))
        return yield* Effect.fail(invalid("pagador.agencia", "agencia must be 1 to 4 digits"))
    } else if (input.pagador !== undefined) {
      return yield* Effect.fail(invalid("pagador", "pagador is only for JORNADA_1 (the push request)"))
    }
    if (input.jornada === "JORNADA_3" || input.jornada === "JORNADA_4") {
      const c = input.cobranca
      if (c === undefined)
        return yield* Effect.fail(
          invalid("cobranca", `cobranca (the first payment) is required for ${input.jornada}`)
        )
      if (input.jornada === "JORNADA_4" && c.dueDate === undefined)
        return yield* Effect.fail(
          invalid("cobranca.dueDate", "cobranca.dueDate is required for JORNADA_4 (a due-date charge)")
        )
      if (input.jornada === "JORNADA_3" && c.dueDate !== undefined)
        return yield* Effect.fail(
          invalid("cobranca.dueDate", "cobranca.dueDate is for JORNADA_4; JORNADA_3 pays an immediate charge")
        )
    } else if (input.cobranca !== undefined) {
      return yield* Effect.fail(invalid("cobranca", "cobranca is only for JORNADA_3 and JORNADA_4"))
    }
  })

/** The request checked against the standard's rules; the calendar as days. */
const checkRequest = (input: CreateSubscription, today: DueDate.Day) =>
  Effect.gen(function* () {
    if (!R.jornadas.includes(input.jornada))
      return yield* Effect.fail(invalid("jornada", "jornada must be JORNADA_1 to JORNADA_4"))
    yield* checkVinculo(input)
    const calendar = yield* checkCalendar(input, today)
    const cycleAmount = yield* checkValor(input)
    yield* checkJourney(input)
    return { calendar, cycleAmount }
  })

const tlv = (id: string, value: string) => `${id}${String(value.length).padStart(2, "0")}${value}`

/** A BR Code with the recurrence's location in field 80 (a composite QR), its CRC computed again. */
export const withRecurrence = (brCode: string, location: string): string => {
  const payload = `${brCode.slice(0, -8)}${tlv("80", tlv("00", BrCode.pixGui) + tlv("25", location))}6304`
  return payload + BrCode.crc16(payload)
}

/** Journey 2's QR: the recurrence alone (field 80), the merchant's name and city. */
export const recurrenceQr = (location: string, merchantName: string, city: string): string => {
  const payload =
    tlv("00", "01") +
    tlv("01", "12") +
    tlv("52", "0000") +
    tlv("53", "986") +
    tlv("58", "BR") +
    tlv("59", BrCode.toBrCodeText(merchantName, BrCode.maxMerchantName)) +
    tlv("60", BrCode.toBrCodeText(city, BrCode.maxMerchantCity)) +
    tlv("62", tlv("05", "***")) +
    tlv("80", tlv("00", BrCode.pixGui) + tlv("25", location)) +
    "6304"
  return payload + BrCode.crc16(payload)
}

const isoOf = (ms: number) => new Date(ms).toISOString()
/** The first instant of a São Paulo day. */
const startOfDay = (day: DueDate.Day) => DueDate.endOfDay(day - 1)

/** Journeys 3 and 4: the first payment's charge request, on the subscription's debtor. */
const firstChargeRequest = (input: CreateSubscription): CreateCharge => {
  const first = input.cobranca as NonNullable<CreateSubscription["cobranca"]>
  const devedor = input.vinculo.devedor
  const document = devedor.cpf ?? devedor.cnpj
  return {
    amount: first.valor as Money.Cents,
    clientName: devedor.nome,
    ...(document === undefined ? {} : { clientDocument: document }),
    description: `${input.vinculo.objeto ?? "Assinatura"} ${input.vinculo.contrato}`.slice(0, 140),
    ...(first.dueDate === undefined ? {} : { dueDate: first.dueDate })
  }
}

/** Journey 1's push request of a test subscription, as it is created. */
const testSolicitacaoOf = (input: CreateSubscription, ispb: string, at: number): R.Solicitacao | null =>
  input.jornada === "JORNADA_1" && input.pagador !== undefined
    ? {
        idSolicRec: R.newIdSolicRec(ispb, at),
        status: "CRIADA",
        dataExpiracaoSolicitacao: input.dataExpiracaoSolicitacao ?? isoOf(at + defaultSolicitationLifetime),
        destinatario: {
          ispbParticipante: input.pagador.ispbParticipante,
          conta: input.pagador.conta,
          ...(input.pagador.agencia === undefined ? {} : { agencia: input.pagador.agencia }),
          ...(input.vinculo.devedor.cpf === undefined ? {} : { cpf: input.vinculo.devedor.cpf }),
          ...(input.vinculo.devedor.cnpj === undefined ? {} : { cnpj: input.vinculo.devedor.cnpj })
        },
        atualizacao: [{ status: "CRIADA", data: isoOf(at) }]
      }
    : null

/**
 * The sandbox's magic values: a contract ending in `-REJEITA` is rejected, `-ESPERA` waits for an
 * admin action; any other is approved 2-3 s after creation.
 */
const sandboxAnswerOf = (contrato: string) =>
  contrato.endsWith("-REJEITA") ? "reject" : contrato.endsWith("-ESPERA") ? "wait" : "approve"

/** The push request is sent (ENVIADA) as it is created: the sandbox's payer's bank has it. */
const withSentSolicitation = (
  subscription: R.Subscription,
  solicitacao: R.Solicitacao | null,
  at: number
): R.Subscription =>
  solicitacao === null
    ? subscription
    : {
        ...subscription,
        solicitacao: {
          ...solicitacao,
          status: "ENVIADA",
          atualizacao: [...solicitacao.atualizacao, { status: "ENVIADA", data: isoOf(at) }]
        }
      }

/** A live subscription as it is stored before the bank answers (its idRec still unknown). */
const liveSubscriptionOf = (
  caller: Caller,
  input: CreateSubscription,
  cycleAmount: number,
  chargeId: TransactionId | null,
  txid: string | null,
  loc: RecLocation | null,
  pollDelay: number,
  at: number
): R.Subscription => ({
  id: Ids.newId("sub", at),
  merchantId: caller.merchant.id,
  mode: caller.mode,
  idRec: null,
  jornada: input.jornada,
  vinculo: {
    contrato: input.vinculo.contrato,
    devedor: input.vinculo.devedor,
    objeto: input.vinculo.objeto ?? null
  },
  calendario: {
    dataInicial: input.calendario.dataInicial,
    dataFinal: input.calendario.dataFinal ?? null,
    periodicidade: input.calendario.periodicidade
  },
  valor: {
    valorRec: input.valor.valorRec ?? null,
    valorMinimoRecebedor: input.valor.valorMinimoRecebedor ?? null
  },
  politicaRetentativa: input.politicaRetentativa,
  status: "CRIADA",
  atualizacao: [{ status: "CRIADA", data: isoOf(at) }],
  encerramento: null,
  tipoJornada: "AGUARDANDO_DEFINICAO",
  chargeId,
  txid,
  // Journey 1: the push request to send, kept until the bank has it (idSolicRec "" until then).
  solicitacao:
    input.jornada === "JORNADA_1" && input.pagador !== undefined
      ? {
          idSolicRec: "",
          status: "CRIADA",
          dataExpiracaoSolicitacao: input.dataExpiracaoSolicitacao ?? isoOf(at + defaultSolicitationLifetime),
          destinatario: {
            ispbParticipante: input.pagador.ispbParticipante,
            conta: input.pagador.conta,
            ...(input.pagador.agencia === undefined ? {} : { agencia: input.pagador.agencia }),
            ...(input.vinculo.devedor.cpf === undefined ? {} : { cpf: input.vinculo.devedor.cpf }),
            ...(input.vinculo.devedor.cnpj === undefined ? {} : { cnpj: input.vinculo.devedor.cnpj })
          },
          atualizacao: [{ status: "CRIADA", data: isoOf(at) }]
        }
      : null,
  location: loc?.location ?? null,
  pixCopiaECola: null,
  valorMaximoPagador: null,
  valorCiclo: cycleAmount,
  payer: null,
  nextCycle: 0,
  nextAt: at + pollDelay,
  createdAt: at,
  updatedAt: at,
  version: 1
})

/** The recurrence a live subscription asks the bank for (`POST /rec`). */
const recurrenceRequestOf = (
  input: CreateSubscription,
  loc: RecLocation | null,
  txid: string | null
): RecurrenceRequest => ({
  vinculo: {
    contrato: input.vinculo.contrato,
    devedor: input.vinculo.devedor,
    ...(input.vinculo.objeto === undefined ? {} : { objeto: input.vinculo.objeto })
  },
  calendario: {
    dataInicial: input.calendario.dataInicial,
    ...(input.calendario.dataFinal === undefined ? {} : { dataFinal: input.calendario.dataFinal }),
    periodicidade: input.calendario.periodicidade
  },
  valor: {
    ...(input.valor.valorRec === undefined ? {} : { valorRec: input.valor.valorRec as Money.Cents }),
    ...(input.valor.valorMinimoRecebedor === undefined
      ? {}
      : { valorMinimoRecebedor: input.valor.valorMinimoRecebedor as Money.Cents })
  },
  politicaRetentativa: input.politicaRetentativa,
  ...(loc === null ? {} : { loc: loc.id }),
  ...(input.jornada === "JORNADA_3" && txid !== null ? { txid } : {})
})

// ---------------------------------------------------------------------------------------------
// The service
// ---------------------------------------------------------------------------------------------

/** Every operation refused: the engine's store keeps no subscriptions (a store of an embedder's own). */
const unsupported = (): SubscriptionsShape => {
  const no = Effect.fail(
    refused("recurring_unsupported", "This store keeps no subscriptions (SubscriptionStore)")
  )
  const never = Effect.succeed(false)
  return {
    create: () => no,
    get: () => no,
    list: () => no,
    cycles: () => no,
    cancel: () => no,
    retry: () => no,
    payer: () => no,
    tick: Effect.succeed(0),
    reports: { recurrenceRead: () => never, solicitationRead: () => never, cycleChargeRead: () => never }
  }
}

/** The service; without a `SubscriptionStore` in context, every operation is refused. */
export const make = Effect.flatMap(Effect.serviceOption(SubscriptionStore), (found) =>
  Option.isNone(found)
    ? Effect.succeed(unsupported())
    : Effect.provideService(over, SubscriptionStore, found.value)
)

const over = Effect.gen(function* () {
  const store = yield* SubscriptionStore
  const ledger = yield* LedgerStore
  const reads = yield* ReadStore
  const merchants = yield* MerchantStore
  const config = yield* EngineConfig
  const bankEvents = yield* BankEvents
  const charges = yield* Charges
  const gateways = yield* Gateways
  const now = Effect.clockWith((c) => c.currentTimeMillis)
  /** The live bank's recurring operations, when its gateway offers them. */
  const liveGateway = (): Option.Option<RecurringGateway> =>
    Option.flatMap(gateways.forMode("live"), (g) => Option.fromNullable(recurringGatewayOf(g)))

  const emit = (events: ReadonlyArray<Event>) =>
    events.length === 0
      ? Effect.void
      : Effect.asVoid(
          ledger.insertTransactions({
            transactions: [],
            entry: null,
            guard: null,
            effects: { events, jobs: [] }
          })
        )

  /** Writes `next` over `prev` (its version + 1) and sends its event; false when someone else wrote first. */
  const saveSubscription = (prev: R.Subscription, change: Partial<R.Subscription>, at: number) =>
    Effect.gen(function* () {
      const next: R.Subscription = { ...prev, ...change, updatedAt: at, version: prev.version + 1 }
      const written = yield* store.replaceSubscription(next)
      if (!written) return Option.none<R.Subscription>()
      yield* emit([SubscriptionEvents.subscriptionUpdated(next, at)])
      return Option.some(next)
    })

  const saveCycle = (prev: R.Cycle, change: Partial<R.Cycle>, at: number) =>
    Effect.gen(function* () {
      const next: R.Cycle = { ...prev, ...change, updatedAt: at, version: prev.version + 1 }
      const written = yield* store.replaceCycle(next)
      if (!written) return Option.none<R.Cycle>()
      yield* emit([SubscriptionEvents.cycleUpdated(next, at)])
      return Option.some(next)
    })

  const recMove = (s: R.Subscription, to: R.RecStatus, at: number): Partial<R.Subscription> => ({
    status: to,
    atualizacao: [...s.atualizacao, { status: to, data: isoOf(at) }]
  })
  const cycleMove = (c: R.Cycle, to: R.CobRStatus, at: number): Partial<R.Cycle> => ({
    status: to,
    atualizacao: [...c.atualizacao, { status: to, data: isoOf(at) }]
  })
  const attemptMove = (t: R.Tentativa, to: R.TentativaStatus, at: number): R.Tentativa => ({
    ...t,
    status: to,
    atualizacao: [...t.atualizacao, { status: to, data: isoOf(at) }]
  })

  /** Fails a cycle's charge transaction when the cycle ends unpaid. */
  const failCharge = (c: R.Cycle, reason: string, at: number) =>
    Effect.asVoid(
      ledger.advance({
        id: c.transactionId,
        type: "deposit",
        from: "pending",
        to: "failed",
        at,
        failureReason: reason,
        entry: null,
        effects: (failed) => ({ events: [Events.transactionFailed(failed, reason, at)], jobs: [] })
      })
    )

  const owned = (caller: Caller, id: string) =>
    Effect.flatMap(store.getSubscription(id), (found) =>
      Option.isSome(found) &&
      found.value.merchantId === caller.merchant.id &&
      found.value.mode === caller.mode
        ? Effect.succeed(found.value)
        : Effect.fail(Errors.notFound("Subscription"))
    )

  // -------------------------------------------------------------------------------------------
  // Expiry of an unanswered recurrence (also applied on read, so a read never shows a stale CRIADA)
  // -------------------------------------------------------------------------------------------

  /** When an unanswered recurrence expires: journey 1's request expiry, else the end of its first day. */
  const expiresAt = (s: R.Subscription): number =>
    s.solicitacao !== null
      ? Date.parse(s.solicitacao.dataExpiracaoSolicitacao)
      : DueDate.endOfDay(DueDate.checkedDay(s.calendario.dataInicial))

  const expireIfDue = (s: R.Subscription, at: number) =>
    Effect.gen(function* () {
      // Live: the bank says when it expired (its snapshot), not the engine's clock.
      if (s.mode === "live" || s.status !== "CRIADA" || at < expiresAt(s)) return s
      const solicitacao =
        s.solicitacao !== null && !R.isFinalSolicRec(s.solicitacao.status)
          ? {
              ...s.solicitacao,
              status: "EXPIRADA" as const,
              atualizacao: [...s.solicitacao.atualizacao, { status: "EXPIRADA" as const, data: isoOf(at) }]
            }
          : s.solicitacao
      const saved = yield* saveSubscription(
        s,
        { ...recMove(s, "EXPIRADA", at), solicitacao, nextAt: null },
        at
      )
      return Option.getOrElse(saved, () => s)
    })

  const fresh = (s: R.Subscription) =>
    Effect.flatMap(now, (at) =>
      Effect.flatMap(expireIfDue(s, at), (e) =>
        e === s && s.status === "CRIADA" && at >= expiresAt(s)
          ? Effect.map(
              store.getSubscription(s.id),
              Option.getOrElse(() => s)
            )
          : Effect.succeed(e)
      )
    )

  // -------------------------------------------------------------------------------------------
  // Create
  // -------------------------------------------------------------------------------------------

  const create = (caller: Caller, input: CreateSubscription) =>
    Effect.gen(function* () {
      const at = yield* now
      const today = DueDate.dayOf(at)
      const { calendar, cycleAmount } = yield* checkRequest(input, today)
      if (caller.mode === "live") return yield* createLive(caller, input, cycleAmount, at)
      const fees = Fees.forCharge(caller.merchant.feePlan, cycleAmount as Money.Cents)
      if (fees.netAmount <= 0)
        return yield* Effect.fail(
          Errors.validation(
            "amount_below_fee",
            "valorCiclo",
            "valorCiclo must be greater than the charge fee"
          )
        )
      const idRec = R.newIdRec(input.politicaRetentativa, config.ispb, at)
      const location = `${config.pixLocationHost}/qr/v2/rec/${Ids.randomBase62(32)}`
      const city = caller.merchant.city || config.defaultCity
      const { chargeId, txid, pixCopiaECola } = yield* testQrOf(caller, input, location, city)
      const solicitacao: R.Solicitacao | null = testSolicitacaoOf(input, config.ispb, at)
      if (solicitacao !== null && !(Date.parse(solicitacao.dataExpiracaoSolicitacao) > at))
        return yield* Effect.fail(
          invalid("dataExpiracaoSolicitacao", "dataExpiracaoSolicitacao must be a future RFC 3339 instant")
        )
      // The sandbox's magic values: a contract ending in `-REJEITA` is rejected, `-ESPERA` waits
      // for an admin action; any other is approved 2-3 s after creation.
      const contrato = input.vinculo.contrato
      const answer = sandboxAnswerOf(contrato)
      const subscription: R.Subscription = {
        id: Ids.newId("sub", at),
        merchantId: caller.merchant.id,
        mode: caller.mode,
        idRec,
        jornada: input.jornada,
        vinculo: { contrato, devedor: input.vinculo.devedor, objeto: input.vinculo.objeto ?? null },
        calendario: {
          dataInicial: input.calendario.dataInicial,
          dataFinal: input.calendario.dataFinal ?? null,
          periodicidade: calendar.periodicidade
        },
        valor: {
          valorRec: input.valor.valorRec ?? null,
          valorMinimoRecebedor: input.valor.valorMinimoRecebedor ?? null
        },
        politicaRetentativa: input.politicaRetentativa,
        status: "CRIADA",
        atualizacao: [{ status: "CRIADA", data: isoOf(at) }],
        encerramento: null,
        tipoJornada: "AGUARDANDO_DEFINICAO",
        chargeId,
        txid,
        solicitacao,
        location: input.jornada === "JORNADA_1" ? null : location,
        pixCopiaECola,
        valorMaximoPagador: null,
        valorCiclo: cycleAmount,
        payer: { answer, insufficientFunds: [], payOnRetry: true },
        nextCycle: 0,
        // The payer's answer 2-3 s from now, or (waiting) the recurrence's expiry.
        nextAt: at + payerDelay,
        createdAt: at,
        updatedAt: at,
        version: 1
      }
      // The push request is sent (ENVIADA) as it is created: the sandbox's payer's bank has it.
      const sent: R.Subscription = withSentSolicitation(subscription, solicitacao, at)
      return yield* insertOnce(sent, at)
    }).pipe(
      Effect.catchTag("StoreError", (e) => Effect.fail(Errors.unavailable(e))),
      // Once begun, the subscription is stored with its key's answer or not at all.
      Effect.uninterruptible
    )

  /**
   * Stores a new subscription with its Idempotency-Key's answer in the same unit (`resultFor`):
   * of two requests under one key only one stores anything; the other is told the key is in
   * flight, and its retry replays the answer.
   */
  const insertOnce = (s: R.Subscription, at: number) =>
    Effect.gen(function* () {
      const json = subscriptionJson(s)
      const idempotency = yield* Idempotency.resultFor(json)
      const inserted = yield* store.insertSubscription(s, idempotency)
      if (inserted === "conflict") return yield* Effect.fail(Idempotency.inFlight())
      if (inserted === "exists") return yield* Effect.fail(Errors.unavailable())
      yield* emit([SubscriptionEvents.subscriptionUpdated(s, at)])
      return json
    })

  /**
   * The first payment of journeys 3 and 4, a charge of its own: created outside the request's
   * Idempotency-Key, whose answer is the subscription's (stored with it by `insertOnce`).
   */
  const firstCharge = (caller: Caller, request: CreateCharge) =>
    charges
      .create(caller, request)
      .pipe(
        Effect.mapInputContext((context: Context.Context<never>) =>
          Context.omit(Idempotency.StartedKey, Idempotency.Resumable)(context)
        )
      )

  /** A test subscription's QR (journeys 2 to 4), with its first payment's charge (3, 4). */
  const testQrOf = (caller: Caller, input: CreateSubscription, location: string, city: string) =>
    Effect.gen(function* () {
      let chargeId: TransactionId | null = null
      let txid: string | null = null
      let pixCopiaECola: string | null = null
      if (input.jornada === "JORNADA_2") pixCopiaECola = recurrenceQr(location, caller.merchant.name, city)
      if (input.jornada === "JORNADA_3" || input.jornada === "JORNADA_4") {
        const request: CreateCharge = firstChargeRequest(input)
        const charge = yield* firstCharge(caller, request)
        chargeId = charge.transactionId as TransactionId
        txid = charge.txid
        pixCopiaECola = withRecurrence(charge.qrCode, location)
      }
      return { chargeId, txid, pixCopiaECola }
    })

  // -------------------------------------------------------------------------------------------
  // The payer's answer (sandbox) and the end of a recurrence
  // -------------------------------------------------------------------------------------------

  const answer = (s: R.Subscription, approve: boolean, at: number) =>
    Effect.gen(function* () {
      if (s.status !== "CRIADA") return Option.none<R.Subscription>()
      const solic = s.solicitacao
      const solicitacao =
        solic === null
          ? null
          : {
              ...solic,
              status: approve ? ("ACEITA" as const) : ("REJEITADA" as const),
              atualizacao: [
                ...solic.atualizacao,
                ...(solic.status === "ENVIADA" ? [{ status: "RECEBIDA" as const, data: isoOf(at) }] : []),
                { status: approve ? ("ACEITA" as const) : ("REJEITADA" as const), data: isoOf(at) }
              ]
            }
      if (!approve) {
        return yield* saveSubscription(
          s,
          {
            ...recMove(s, "REJEITADA", at),
            solicitacao,
            encerramento: {
              rejeicao: { codigo: "AP13", descricao: "Recorrência rejeitada pelo usuário pagador" }
            },
            nextAt: null
          },
          at
        )
      }
      // Journeys 3 and 4: the payer authorises by paying the first charge (the composite QR).
      if (s.chargeId !== null && s.txid !== null) {
        const charge = yield* reads.getTransaction(s.chargeId)
        if (Option.isSome(charge) && charge.value.status === "pending")
          yield* bankEvents.pixReceived({ txid: s.txid, paidAt: at, charge: charge.value })
      }
      const calendar = calendarOf(s)
      const first = R.firstChargeableCycle(calendar, 0, DueDate.dayOf(at))
      return yield* saveSubscription(
        s,
        {
          ...recMove(s, "APROVADA", at),
          solicitacao,
          tipoJornada: s.jornada,
          nextCycle: first ?? s.nextCycle,
          nextAt: first === undefined ? null : openingOf(calendar, first, at)
        },
        at
      )
    })

  const calendarOf = (s: R.Subscription): R.Calendar => ({
    dataInicial: DueDate.checkedDay(s.calendario.dataInicial),
    dataFinal: s.calendario.dataFinal === null ? null : DueDate.checkedDay(s.calendario.dataFinal),
    periodicidade: s.calendario.periodicidade
  })

  /** When cycle `n`'s charge is created: the start of its window's first day, or now when open. */
  const openingOf = (calendar: R.Calendar, n: number, at: number) =>
    Math.max(
      at,
      startOfDay(R.chargeWindow(R.nominalDueDay(calendar.dataInicial, calendar.periodicidade, n)).opens)
    )

  /** Ends a recurrence by cancellation and cancels its cycles that may still be cancelled. */
  const end = (s: R.Subscription, by: "receiver" | "payer", at: number) =>
    Effect.gen(function* () {
      if (R.isFinalRec(s.status)) return Option.none<R.Subscription>()
      const today = DueDate.dayOf(at)
      const solic = s.solicitacao
      const solicitacao =
        solic !== null && !R.isFinalSolicRec(solic.status)
          ? {
              ...solic,
              status: "CANCELADA" as const,
              atualizacao: [...solic.atualizacao, { status: "CANCELADA" as const, data: isoOf(at) }]
            }
          : solic
      const saved = yield* saveSubscription(
        s,
        {
          ...recMove(s, "CANCELADA", at),
          solicitacao,
          encerramento: {
            cancelamento: by === "receiver" ? cancellation.recByReceiver : cancellation.recByPayer
          },
          nextAt: null
        },
        at
      )
      if (Option.isNone(saved)) return saved
      // Cycles not final: the receiver cancels those not yet on their settlement day; a revocation
      // stops every debit not yet made (the payer's bank debits nothing after it).
      for (const c of yield* store.listCycles(s.id)) {
        if (R.isFinalCobR(c.status)) continue
        if (by === "receiver" && !R.canCancelCycle(c.status, DueDate.checkedDay(c.dataLiquidacao), today))
          continue
        yield* cancelCycle(c, by, at)
      }
      return saved
    })

  const cancelCycle = (c: R.Cycle, by: "receiver" | "payer", at: number) =>
    Effect.gen(function* () {
      const tentativas = c.tentativas.map((t) =>
        R.isFinalTentativa(t.status) ? t : attemptMove(t, "CANCELADA", at)
      )
      const saved = yield* saveCycle(
        c,
        {
          ...cycleMove(c, "CANCELADA", at),
          tentativas,
          encerramento: {
            cancelamento: by === "receiver" ? cancellation.cycleByReceiver : cancellation.cycleByPayer
          },
          nextAt: null
        },
        at
      )
      if (Option.isSome(saved)) yield* failCharge(c, "cancelled", at)
      return saved
    })

  // -------------------------------------------------------------------------------------------
  // Cycles
  // -------------------------------------------------------------------------------------------

  /** Creates cycle `s.nextCycle`'s charge when its window is open; moves on to the next one. */
  const createCycle = (s: R.Subscription, at: number) =>
    Effect.gen(function* () {
      const calendar = calendarOf(s)
      const today = DueDate.dayOf(at)
      const n = R.firstChargeableCycle(calendar, s.nextCycle, today)
      if (n === undefined) return yield* saveSubscription(s, { nextAt: null }, at)
      const due = R.nominalDueDay(calendar.dataInicial, calendar.periodicidade, n)
      if (today < R.chargeWindow(due).opens)
        return yield* saveSubscription(s, { nextCycle: n, nextAt: openingOf(calendar, n, at) }, at)
      const merchant = yield* merchants.getMerchant(s.merchantId)
      if (Option.isNone(merchant)) return Option.none<R.Subscription>()
      const settle = R.settlementDay(due, true)
      const txid = Ids.newTxid(at)
      const transactionId = Ids.transactionId(at)
      const cycle: R.Cycle = {
        txid,
        subscriptionId: s.id,
        merchantId: s.merchantId,
        mode: s.mode,
        idRec: s.idRec ?? "",
        sequence: n,
        dataDeVencimento: DueDate.formatDay(due),
        dataLiquidacao: DueDate.formatDay(settle),
        ajusteDiaUtil: true,
        valor: s.valorCiclo,
        politicaRetentativa: s.politicaRetentativa,
        status: "ATIVA",
        atualizacao: [
          { status: "CRIADA", data: isoOf(at) },
          // The sandbox's payer's bank accepts it at once and schedules the debit (AGND).
          { status: "ATIVA", data: isoOf(at) }
        ],
        encerramento: null,
        tentativas: [
          {
            dataLiquidacao: DueDate.formatDay(settle),
            tipo: "AGND",
            endToEndId: Ids.newEndToEndId(config.ispb, at),
            status: "AGENDADA",
            atualizacao: [
              { status: "SOLICITADA", data: isoOf(at) },
              { status: "AGENDADA", data: isoOf(at) }
            ]
          }
        ],
        transactionId,
        nextAt: Math.max(at, startOfDay(settle)),
        createdAt: at,
        updatedAt: at,
        version: 1
      }
      // Live: the bank's charge is asked for right after (`runLiveCycle`, a PUT idempotent on the txid).
      const live: R.Cycle =
        s.mode === "live"
          ? {
              ...cycle,
              status: "CRIADA",
              atualizacao: [{ status: "CRIADA", data: isoOf(at) }],
              tentativas: [],
              nextAt: at
            }
          : cycle
      // One cycle per (subscription, sequence): a second worker's insert finds it there.
      const inserted = yield* store.insertCycle(live)
      if (inserted === "created") {
        yield* ensureCharge(live, merchant.value.feePlan, s, at)
        yield* emit([SubscriptionEvents.cycleUpdated(live, at)])
      }
      const next = n + 1
      return yield* saveSubscription(
        s,
        {
          nextCycle: next,
          nextAt: R.cycleExists(calendar, next) ? openingOf(calendar, next, at) : null
        },
        at
      )
    })

  /** The cycle's charge transaction, created with the cycle (again after a crash between the two). */
  const ensureCharge = (c: R.Cycle, feePlan: Fees.FeePlan, s: R.Subscription, at: number) =>
    Effect.gen(function* () {
      if (Option.isSome(yield* reads.getTransaction(c.transactionId))) return
      const fees = Fees.forCharge(feePlan, c.valor as Money.Cents)
      const charge = newTransaction({
        id: c.transactionId,
        merchantId: c.merchantId,
        mode: c.mode,
        type: "deposit",
        status: "pending",
        amount: c.valor as Money.Cents,
        feeAmount: fees.feeAmount,
        gatewayFeeAmount: fees.gatewayFeeAmount,
        netAmount: fees.netAmount,
        clientName: s.vinculo.devedor.nome,
        clientDocument: s.vinculo.devedor.cpf ?? s.vinculo.devedor.cnpj ?? null,
        txid: c.txid,
        description: `Pix Automático ${s.vinculo.contrato} ciclo ${c.sequence + 1}`.slice(0, 140),
        // Payable until the end of the last day a retry may settle on.
        expiresAt: DueDate.endOfDay(
          R.lastRetryDay(c.politicaRetentativa, DueDate.checkedDay(c.dataLiquidacao))
        ),
        createdAt: at
      })
      yield* ledger.insertTransactions({
        transactions: [charge],
        entry: null,
        guard: null,
        effects: { events: [Events.transactionCreated(charge, at)], jobs: [] }
      })
    })

  /** The sandbox's payer's bank settles a cycle's attempt due now, or ends a cycle past its window. */
  const runCycle = (c: R.Cycle, at: number) =>
    Effect.gen(function* () {
      if (R.isFinalCobR(c.status)) return yield* saveCycle(c, { nextAt: null }, at)
      if (c.mode === "live") return yield* runLiveCycle(c, at)
      const sub = yield* store.getSubscription(c.subscriptionId)
      if (Option.isNone(sub)) return Option.none<R.Cycle>()
      const s = sub.value
      const today = DueDate.dayOf(at)
      const pending = c.tentativas.findIndex((t) => t.status === "AGENDADA" || t.status === "SOLICITADA")
      const settle = DueDate.checkedDay(c.dataLiquidacao)
      const lastDay = R.lastRetryDay(c.politicaRetentativa, settle)
      if (pending < 0) {
        if (today > lastDay) {
          const saved = yield* saveCycle(c, { ...cycleMove(c, "EXPIRADA", at), nextAt: null }, at)
          if (Option.isSome(saved)) yield* failCharge(c, "expired", at)
          return saved
        }
        return yield* saveCycle(c, { nextAt: DueDate.endOfDay(lastDay) }, at)
      }
      const attempt = c.tentativas[pending] as R.Tentativa
      const day = DueDate.checkedDay(attempt.dataLiquidacao)
      if (today < day) return yield* saveCycle(c, { nextAt: startOfDay(day) }, at)
      const payer = s.payer ?? { answer: "approve" as const, insufficientFunds: [], payOnRetry: true }
      const aboveMaximum = s.valorMaximoPagador !== null && c.valor > s.valorMaximoPagador
      const noFunds =
        payer.insufficientFunds.includes(c.sequence + 1) && (attempt.tipo === "AGND" || !payer.payOnRetry)
      const replace = (t: R.Tentativa) => c.tentativas.map((x, i) => (i === pending ? t : x))
      if (!aboveMaximum && !noFunds) {
        const paid = attemptMove(attempt, "PAGA", at)
        const saved = yield* saveCycle(
          c,
          { ...cycleMove(c, "CONCLUIDA", at), tentativas: replace(paid), nextAt: null },
          at
        )
        if (Option.isSome(saved)) {
          const charge = yield* reads.getTransaction(c.transactionId)
          yield* bankEvents.pixReceived({
            txid: c.txid,
            endToEndId: attempt.endToEndId,
            paidAt: at,
            amount: c.valor as Money.Cents,
            ...(Option.isSome(charge) ? { charge: charge.value } : {})
          })
        }
        return saved
      }
      const reason = aboveMaximum ? rejection.aboveMaximum : rejection.noFunds
      const rejected: R.Tentativa = { ...attemptMove(attempt, "REJEITADA", at), rejeicao: reason }
      const final = c.politicaRetentativa === "NAO_PERMITE" || R.finalRejectionCodes.has(reason.codigo)
      if (final) {
        const saved = yield* saveCycle(
          c,
          {
            ...cycleMove(c, "REJEITADA", at),
            tentativas: replace(rejected),
            encerramento: { rejeicao: reason },
            nextAt: null
          },
          at
        )
        if (Option.isSome(saved)) yield* failCharge(c, "cycle_rejected", at)
        return saved
      }
      // Retries allowed: the charge stays ATIVA for the merchant's retries until its window ends.
      return yield* saveCycle(c, { tentativas: replace(rejected), nextAt: DueDate.endOfDay(lastDay) }, at)
    })

  // -------------------------------------------------------------------------------------------
  // Live: the receiver's bank over the RecurringGateway port. A create, a cycle charge or a
  // retry whose outcome is unknown is found out by reading (never repeated blindly); the bank's
  // snapshots (callbacks, polls, read-backs) move the records forward, never back.
  // -------------------------------------------------------------------------------------------

  const gatewayFailed = (cause: unknown) => new Errors.GatewayUnavailable({ operation: "charge", cause })

  /** Applies a recurrence's snapshot: a forward move of its status, its push request, its end. */
  const applyRec = (s: R.Subscription, snap: RecurrenceSnapshot, at: number) =>
    Effect.gen(function* () {
      const moves = snap.status !== s.status && R.reachesRec(s.status, snap.status)
      // A push request of unknown id ("": sent with an unknown outcome) is the bank's first one.
      const solic = snap.solicitacao?.find(
        (x) =>
          s.solicitacao === null ||
          s.solicitacao.idSolicRec === "" ||
          x.idSolicRec === s.solicitacao.idSolicRec
      )
      const solicChanged =
        solic !== undefined &&
        (s.solicitacao === null ||
          s.solicitacao.idSolicRec === "" ||
          (solic.status !== s.solicitacao.status && R.reachesSolicRec(s.solicitacao.status, solic.status)))
      if (!moves && !solicChanged && s.idRec !== null) return Option.none<R.Subscription>()
      const change: { -readonly [K in keyof R.Subscription]?: R.Subscription[K] } = { idRec: snap.idRec }
      if (solicChanged && solic !== undefined)
        change.solicitacao = {
          idSolicRec: solic.idSolicRec,
          status: solic.status,
          dataExpiracaoSolicitacao: solic.dataExpiracaoSolicitacao,
          destinatario: s.solicitacao?.destinatario ?? { ispbParticipante: "", conta: "" },
          atualizacao: solic.atualizacao
        }
      if (moves) {
        change.status = snap.status
        change.atualizacao =
          snap.atualizacao.length > 0
            ? snap.atualizacao
            : [...s.atualizacao, { status: snap.status, data: isoOf(at) }]
        change.encerramento = snap.encerramento ?? null
        if (snap.status === "APROVADA") {
          const calendar = calendarOf(s)
          const first = R.firstChargeableCycle(calendar, s.nextCycle, DueDate.dayOf(at))
          change.tipoJornada =
            snap.ativacao?.tipoJornada === "AGUARDANDO_DEFINICAO" || snap.ativacao === undefined
              ? s.jornada
              : snap.ativacao.tipoJornada
          change.nextCycle = first ?? s.nextCycle
          change.nextAt = first === undefined ? null : openingOf(calendar, first, at)
        } else if (R.isFinalRec(snap.status)) change.nextAt = null
      }
      const saved = yield* saveSubscription(s, change, at)
      // Ended at the bank: its cycles not final are asked about (the bank cancels them itself).
      if (Option.isSome(saved) && moves && R.isFinalRec(snap.status))
        for (const c of yield* store.listCycles(s.id))
          if (!R.isFinalCobR(c.status)) yield* saveCycle(c, { nextAt: at }, at)
      return saved
    })

  /** Applies a cycle charge's snapshot: status forward, attempts, and the money when paid or ended. */
  const applyCycle = (c: R.Cycle, snap: CycleChargeSnapshot, at: number) =>
    Effect.gen(function* () {
      const moves = snap.status !== c.status && R.reachesCobR(c.status, snap.status)
      const attemptsChanged = JSON.stringify(snap.tentativas ?? []) !== JSON.stringify(c.tentativas)
      if (!moves && !attemptsChanged) return Option.none<R.Cycle>()
      const final = moves && R.isFinalCobR(snap.status)
      const saved = yield* saveCycle(
        c,
        {
          ...(moves
            ? { status: snap.status, atualizacao: snap.atualizacao, encerramento: snap.encerramento ?? null }
            : {}),
          tentativas: (snap.tentativas ?? []).map((t) => ({ ...t })),
          nextAt: final ? null : c.nextAt
        },
        at
      )
      if (Option.isNone(saved) || !final) return saved
      if (snap.status === "CONCLUIDA") {
        const pix = snap.pix?.[0]
        const charge = yield* reads.getTransaction(c.transactionId)
        yield* bankEvents.pixReceived({
          txid: c.txid,
          ...(pix === undefined
            ? {}
            : { endToEndId: pix.endToEndId, amount: pix.valor, paidAt: Date.parse(pix.horario) }),
          ...(pix === undefined ? { amount: c.valor as Money.Cents } : {}),
          ...(Option.isSome(charge) ? { charge: charge.value } : {})
        })
      } else {
        yield* failCharge(
          c,
          snap.status === "CANCELADA"
            ? "cancelled"
            : snap.status === "EXPIRADA"
              ? "expired"
              : "cycle_rejected",
          at
        )
      }
      return saved
    })

  /**
   * Journey 1's push request, once the recurrence is at the bank: sent when the bank shows none
   * (`solicitacao` of its recurrence), so a request of unknown outcome is never sent twice.
   */
  const sendSolicitation = (
    g: RecurringGateway,
    s: R.Subscription
  ): Effect.Effect<R.Subscription, StoreError> =>
    Effect.gen(function* () {
      const pending = s.solicitacao
      if (s.idRec === null || pending === null || pending.idSolicRec !== "") return s
      const idRec = s.idRec
      const known = yield* Effect.either(g.readRecurrence(idRec))
      const atBank = known._tag === "Right" ? Option.getOrUndefined(known.right)?.solicitacao?.[0] : undefined
      if (known._tag === "Left") return s
      const sent =
        atBank ??
        (yield* Effect.either(
          g.requestAuthorization({
            idRec,
            dataExpiracaoSolicitacao: pending.dataExpiracaoSolicitacao,
            destinatario: pending.destinatario
          })
        ).pipe(Effect.map((r) => (r._tag === "Right" ? r.right : undefined))))
      if (sent === undefined) return s
      return {
        ...s,
        solicitacao: {
          idSolicRec: sent.idSolicRec,
          status: sent.status,
          dataExpiracaoSolicitacao: sent.dataExpiracaoSolicitacao,
          destinatario: pending.destinatario,
          atualizacao: sent.atualizacao
        }
      }
    })

  const createLive = (caller: Caller, input: CreateSubscription, cycleAmount: number, at: number) =>
    Effect.gen(function* () {
      const gateway = yield* Option.match(liveGateway(), {
        onNone: () =>
          Effect.fail(
            refused("recurring_unsupported", "The live bank's gateway does not offer Pix Automático")
          ),
        onSome: Effect.succeed
      })
      const loc =
        input.jornada === "JORNADA_1" ? null : yield* Effect.mapError(gateway.createLocation(), gatewayFailed)
      let chargeId: TransactionId | null = null
      let txid: string | null = null
      if (input.jornada === "JORNADA_3" || input.jornada === "JORNADA_4") {
        const charge = yield* firstCharge(caller, firstChargeRequest(input))
        chargeId = charge.transactionId as TransactionId
        txid = charge.txid
      }
      const base: R.Subscription = liveSubscriptionOf(
        caller,
        input,
        cycleAmount,
        chargeId,
        txid,
        loc,
        gateway.pollDelay,
        at
      )
      const created = yield* Effect.either(gateway.createRecurrence(recurrenceRequestOf(input, loc, txid)))
      if (created._tag === "Left" && created.left.outcome !== "unknown")
        return yield* Effect.fail(gatewayFailed(created.left))
      // Unknown: stored without its idRec; the worker finds it at the bank (`findRecurrences`).
      let stored = created._tag === "Right" ? { ...base, idRec: created.right.idRec } : base
      if (stored.idRec !== null) stored = yield* sendSolicitation(gateway, stored)
      if (stored.idRec !== null && input.jornada !== "JORNADA_1") {
        const read = yield* Effect.either(gateway.readRecurrence(stored.idRec, txid === null ? {} : { txid }))
        const qr =
          read._tag === "Right" ? Option.getOrUndefined(read.right)?.dadosQR?.pixCopiaECola : undefined
        stored = {
          ...stored,
          pixCopiaECola:
            qr ??
            (stored.location === null
              ? null
              : recurrenceQr(
                  stored.location,
                  caller.merchant.name,
                  caller.merchant.city || config.defaultCity
                ))
        }
      }
      return yield* insertOnce(stored, at)
    })

  /** A live subscription's turn of the worker: find an unknown create, read it, create its cycle. */
  const runLive = (s: R.Subscription, at: number) =>
    Effect.gen(function* () {
      const gateway = liveGateway()
      if (Option.isNone(gateway)) return false
      const g = gateway.value
      if (s.idRec === null) {
        const found = yield* Effect.either(
          g.findRecurrences({
            inicio: isoOf(s.createdAt - 60_000),
            fim: isoOf(s.createdAt + 600_000),
            ...(s.vinculo.devedor.cpf === undefined ? {} : { cpf: s.vinculo.devedor.cpf }),
            ...(s.vinculo.devedor.cnpj === undefined ? {} : { cnpj: s.vinculo.devedor.cnpj })
          })
        )
        if (found._tag === "Left")
          return Option.isSome(yield* saveSubscription(s, { nextAt: at + g.pollDelay }, at))
        for (const snap of found.right) {
          if (snap.vinculo?.contrato !== s.vinculo.contrato) continue
          if (Option.isSome(yield* store.findSubscriptionByIdRec(snap.idRec))) continue
          return Option.isSome(yield* applyRec(s, snap, at))
        }
        // The bank has none: the create was never carried out.
        if (at > s.createdAt + 600_000)
          return Option.isSome(
            yield* saveSubscription(
              s,
              {
                ...recMove(s, "CANCELADA", at),
                encerramento: {
                  cancelamento: {
                    solicitante: "PSP_RECEBEDOR",
                    codigo: "ERSL",
                    descricao: "O banco não registrou a recorrência"
                  }
                },
                nextAt: null
              },
              at
            )
          )
        return Option.isSome(yield* saveSubscription(s, { nextAt: at + g.pollDelay }, at))
      }
      if (s.status === "CRIADA" && s.solicitacao !== null && s.solicitacao.idSolicRec === "") {
        const sent = yield* sendSolicitation(g, s)
        if (sent !== s)
          return Option.isSome(yield* saveSubscription(s, { solicitacao: sent.solicitacao }, at))
      }
      if (s.status === "CRIADA") {
        const read = yield* Effect.either(g.readRecurrence(s.idRec))
        if (read._tag === "Right" && Option.isSome(read.right)) {
          const applied = yield* applyRec(s, read.right.value, at)
          if (Option.isSome(applied)) return true
        }
        return Option.isSome(yield* saveSubscription(s, { nextAt: at + g.pollDelay }, at))
      }
      if (s.status === "APROVADA") return Option.isSome(yield* createCycle(s, at))
      return Option.isSome(yield* saveSubscription(s, { nextAt: null }, at))
    })

  /** A live cycle's turn: ask the bank for it (PUT again when it has none: idempotent on the txid). */
  const runLiveCycle = (c: R.Cycle, at: number) =>
    Effect.gen(function* () {
      const gateway = liveGateway()
      if (Option.isNone(gateway)) return Option.none<R.Cycle>()
      const g = gateway.value
      const read = yield* Effect.either(g.readCycleCharge(c.txid))
      if (read._tag === "Right" && Option.isSome(read.right)) {
        const applied = yield* applyCycle(c, read.right.value, at)
        if (Option.isSome(applied)) {
          if (!R.isFinalCobR(applied.value.status))
            return yield* saveCycle(applied.value, { nextAt: at + g.pollDelay }, at)
          return applied
        }
      } else if (read._tag === "Right") {
        const put = yield* Effect.either(g.createCycleCharge(c.txid, cycleRequest(c)))
        if (put._tag === "Right") {
          const applied = yield* applyCycle(c, put.right, at)
          if (Option.isSome(applied)) return yield* saveCycle(applied.value, { nextAt: at + g.pollDelay }, at)
        }
      }
      return yield* saveCycle(c, { nextAt: at + g.pollDelay }, at)
    })

  const cycleRequest = (c: R.Cycle) => ({
    idRec: c.idRec,
    dataDeVencimento: c.dataDeVencimento,
    valor: c.valor as Money.Cents,
    ajusteDiaUtil: c.ajusteDiaUtil
  })

  /** Cancels at the bank (`PATCH /rec`), read back after an unknown outcome, then applied. */
  const cancelLive = (s: R.Subscription, at: number) =>
    Effect.gen(function* () {
      const g = yield* Option.match(liveGateway(), {
        onNone: () =>
          Effect.fail(
            refused("recurring_unsupported", "The live bank's gateway does not offer Pix Automático")
          ),
        onSome: Effect.succeed
      })
      if (s.idRec === null) return yield* Effect.fail(new Errors.Conflict())
      const idRec = s.idRec
      const snap = yield* g.cancelRecurrence(idRec).pipe(
        Effect.catchIf(
          (e) => e.outcome === "unknown",
          () =>
            Effect.flatMap(g.readRecurrence(idRec), (o) =>
              Option.isSome(o) ? Effect.succeed(o.value) : Effect.fail(gatewayFailed(o))
            )
        ),
        Effect.mapError((e) => (e instanceof Errors.GatewayUnavailable ? e : gatewayFailed(e)))
      )
      if (snap.status !== "CANCELADA") return yield* Effect.fail(gatewayFailed(snap))
      const applied = yield* applyRec(s, snap, at)
      return subscriptionJson(Option.getOrElse(applied, () => s))
    })

  const reports: RecurringReports = {
    recurrenceRead: (snap) =>
      Effect.gen(function* () {
        const found = yield* store.findSubscriptionByIdRec(snap.idRec)
        if (Option.isNone(found)) return false
        return Option.isSome(yield* applyRec(found.value, snap, yield* now))
      }),
    solicitationRead: (snap: SolicitationSnapshot) =>
      Effect.gen(function* () {
        const found = yield* store.findSubscriptionByIdRec(snap.idRec)
        if (Option.isNone(found)) return false
        const s = found.value
        const at = yield* now
        return Option.isSome(
          yield* applyRec(
            s,
            { idRec: snap.idRec, status: s.status, atualizacao: [], solicitacao: [snap] },
            at
          )
        )
      }),
    cycleChargeRead: (snap) =>
      Effect.gen(function* () {
        const found = yield* store.getCycle(snap.txid)
        if (Option.isNone(found)) return false
        return Option.isSome(yield* applyCycle(found.value, snap, yield* now))
      })
  }

  // -------------------------------------------------------------------------------------------
  // The worker's tick
  // -------------------------------------------------------------------------------------------

  const runSubscription = (s: R.Subscription, at: number) =>
    Effect.gen(function* () {
      if (s.mode === "live" && !R.isFinalRec(s.status)) return yield* runLive(s, at)
      if (s.status === "CRIADA") {
        if (at >= expiresAt(s)) {
          yield* expireIfDue(s, at)
          return true
        }
        if (
          s.mode === "test" &&
          s.payer !== null &&
          s.payer.answer !== "wait" &&
          at >= s.createdAt + payerDelay
        )
          return Option.isSome(yield* answer(s, s.payer.answer === "approve", at))
        return Option.isSome(yield* saveSubscription(s, { nextAt: expiresAt(s) }, at))
      }
      if (s.status === "APROVADA") return Option.isSome(yield* createCycle(s, at))
      return Option.isSome(yield* saveSubscription(s, { nextAt: null }, at))
    })

  // The polls make no span (an idle engine sends none); work found is one root span with its
  // store calls under it, as the job worker's jobs are.
  const tick = Effect.gen(function* () {
    const traced = yield* FiberRef.get(FiberRef.currentTracerEnabled)
    const untraced = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.withTracerEnabled(effect, false)
    const work = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      effect.pipe(
        Effect.withSpan("pixgate.subscriptions.tick", { root: true }),
        Effect.withTracerEnabled(traced)
      )
    const at = yield* now
    let changed = 0
    const subscriptions = yield* untraced(store.dueSubscriptions(at, 100))
    if (subscriptions.length > 0)
      yield* work(
        Effect.forEach(subscriptions, (s) => Effect.map(runSubscription(s, at), (c) => (c ? changed++ : 0)), {
          discard: true
        })
      )
    const cycles = yield* untraced(store.dueCycles(at, 100))
    if (cycles.length > 0)
      yield* work(
        Effect.forEach(
          cycles,
          (c) => Effect.map(runCycle(c, at), (r) => (Option.isSome(r) ? changed++ : 0)),
          {
            discard: true
          }
        )
      )
    return changed
  })

  // -------------------------------------------------------------------------------------------
  // The merchant's and the payer's operations
  // -------------------------------------------------------------------------------------------

  const storage = <A, E, Rq>(effect: Effect.Effect<A, E | StoreError, Rq>) =>
    Effect.catchTag(effect as Effect.Effect<A, StoreError, Rq>, "StoreError", (e) =>
      Effect.fail(Errors.unavailable(e))
    ) as Effect.Effect<A, Exclude<E, StoreError> | Errors.StorageUnavailable, Rq>

  const get = (caller: Caller, id: string) =>
    storage(Effect.map(Effect.flatMap(owned(caller, id), fresh), subscriptionJson))

  const list: SubscriptionsShape["list"] = (caller, page) =>
    storage(
      Effect.gen(function* () {
        const rows = yield* store.listSubscriptions({
          merchantId: caller.merchant.id,
          mode: caller.mode,
          status: page.status,
          before: page.before,
          limit: Math.min(Math.max(page.limit, 1), 100)
        })
        return yield* Effect.forEach(rows, (s) => Effect.map(fresh(s), subscriptionJson))
      })
    )

  const cycles = (caller: Caller, id: string) =>
    storage(
      Effect.flatMap(owned(caller, id), (s) => Effect.map(store.listCycles(s.id), (cs) => cs.map(cycleJson)))
    )

  const cancel = (caller: Caller, id: string) =>
    storage(
      Effect.gen(function* () {
        const at = yield* now
        const s = yield* Effect.flatMap(owned(caller, id), fresh)
        if (R.isFinalRec(s.status))
          return yield* Effect.fail(
            refused("subscription_not_cancellable", `The subscription is ${s.status}: it has ended`)
          )
        if (s.mode === "live") return yield* cancelLive(s, at)
        const ended = yield* end(s, "receiver", at)
        if (Option.isNone(ended)) return yield* Effect.fail(new Errors.Conflict())
        return subscriptionJson(ended.value)
      })
    )

  const retry = (caller: Caller, txid: string, data: string) =>
    storage(
      Effect.gen(function* () {
        const at = yield* now
        const found = yield* store.getCycle(txid)
        if (
          Option.isNone(found) ||
          found.value.merchantId !== caller.merchant.id ||
          found.value.mode !== caller.mode
        )
          return yield* Effect.fail(Errors.notFound("Cycle"))
        const c = found.value
        const day = DueDate.parseDay(data)
        if (day === undefined)
          return yield* Effect.fail(
            Errors.validation("invalid_retry_date", "data", "data must be a YYYY-MM-DD date")
          )
        const sub = yield* store.getSubscription(c.subscriptionId)
        if (Option.isSome(sub) && sub.value.status !== "APROVADA")
          return yield* Effect.fail(
            refused("retry_not_allowed", `The subscription is ${sub.value.status}: no retry after its end`)
          )
        const verdict = R.retryVerdict({
          politica: c.politicaRetentativa,
          status: c.status,
          due: DueDate.checkedDay(c.dataLiquidacao),
          attempts: c.tentativas.map((t) => ({ ...t, dataLiquidacao: DueDate.checkedDay(t.dataLiquidacao) })),
          day,
          today: DueDate.dayOf(at)
        })
        if (!verdict.ok)
          return yield* Effect.fail(refused("retry_not_allowed", retryMessages[verdict.reason]))
        if (c.mode === "live") {
          const g = yield* Option.match(liveGateway(), {
            onNone: () =>
              Effect.fail(
                refused("recurring_unsupported", "The live bank's gateway does not offer Pix Automático")
              ),
            onSome: Effect.succeed
          })
          // After an unknown outcome the cycle is read: the retry is there on that date, or not.
          const snap = yield* g.requestRetry(c.txid, data).pipe(
            Effect.catchIf(
              (e) => e.outcome === "unknown",
              () =>
                Effect.flatMap(g.readCycleCharge(c.txid), (o) =>
                  Option.isSome(o) && (o.value.tentativas ?? []).some((t) => t.dataLiquidacao === data)
                    ? Effect.succeed(o.value)
                    : Effect.fail(gatewayFailed(o))
                )
            ),
            Effect.mapError((e) => (e instanceof Errors.GatewayUnavailable ? e : gatewayFailed(e)))
          )
          const applied = yield* applyCycle(c, snap, at)
          return cycleJson(Option.getOrElse(applied, () => c))
        }
        const attempt: R.Tentativa = {
          dataLiquidacao: data,
          tipo: "NTAG",
          endToEndId: Ids.newEndToEndId(config.ispb, at),
          status: "AGENDADA",
          atualizacao: [
            { status: "SOLICITADA", data: isoOf(at) },
            { status: "AGENDADA", data: isoOf(at) }
          ]
        }
        const saved = yield* saveCycle(
          c,
          { tentativas: [...c.tentativas, attempt], nextAt: startOfDay(day) },
          at
        )
        if (Option.isNone(saved)) return yield* Effect.fail(new Errors.Conflict())
        return cycleJson(saved.value)
      })
    )

  const payer: SubscriptionsShape["payer"] = (merchantId, id, action) =>
    storage(
      Effect.gen(function* () {
        const at = yield* now
        const found = yield* store.getSubscription(id)
        if (Option.isNone(found) || found.value.merchantId !== merchantId)
          return yield* Effect.fail(Errors.notFound("Subscription"))
        if (found.value.mode !== "test")
          return yield* Effect.fail(
            refused("sandbox_only", "The payer's actions are for test subscriptions only")
          )
        const s = yield* fresh(found.value)
        const p = s.payer ?? { answer: "approve" as const, insufficientFunds: [], payOnRetry: true }
        const done = (o: Option.Option<R.Subscription>) =>
          Option.isSome(o) ? Effect.succeed(subscriptionJson(o.value)) : Effect.fail(new Errors.Conflict())
        switch (action._tag) {
          case "approve":
          case "reject": {
            if (s.status !== "CRIADA")
              return yield* Effect.fail(
                refused("subscription_not_pending", `The subscription is ${s.status}: it was answered`)
              )
            return yield* Effect.flatMap(answer(s, action._tag === "approve", at), done)
          }
          case "revoke": {
            if (R.isFinalRec(s.status))
              return yield* Effect.fail(
                refused("subscription_not_cancellable", `The subscription is ${s.status}: it has ended`)
              )
            return yield* Effect.flatMap(end(s, "payer", at), done)
          }
          case "setMaximum": {
            if (
              action.cents !== null &&
              s.valor.valorMinimoRecebedor !== null &&
              action.cents < s.valor.valorMinimoRecebedor
            )
              return yield* Effect.fail(
                invalid("valorMaximoPagador", "The payer's maximum cannot be below valorMinimoRecebedor")
              )
            return yield* Effect.flatMap(saveSubscription(s, { valorMaximoPagador: action.cents }, at), done)
          }
          case "insufficientFunds":
            return yield* Effect.flatMap(
              saveSubscription(s, { payer: { ...p, insufficientFunds: action.cycles } }, at),
              done
            )
          case "payOnRetry":
            return yield* Effect.flatMap(
              saveSubscription(s, { payer: { ...p, payOnRetry: action.pay } }, at),
              done
            )
          case "cancelCycle": {
            const c = yield* store.getCycle(action.txid)
            if (Option.isNone(c) || c.value.subscriptionId !== s.id)
              return yield* Effect.fail(Errors.notFound("Cycle"))
            // The payer may cancel a scheduled debit until the day before it.
            if (
              !R.canCancelCycle(c.value.status, DueDate.checkedDay(c.value.dataLiquidacao), DueDate.dayOf(at))
            )
              return yield* Effect.fail(
                refused("cycle_not_cancellable", "A debit can be cancelled until the day before it")
              )
            yield* cancelCycle(c.value, "payer", at)
            return subscriptionJson(s)
          }
        }
      })
    )

  return { create, get, list, cycles, cancel, retry, payer, tick, reports } satisfies SubscriptionsShape
})

const retryMessages: Readonly<Record<Exclude<R.RetryVerdict, { ok: true }>["reason"], string>> = {
  policy_forbids: "The recurrence's politicaRetentativa is NAO_PERMITE: no retries",
  not_failed: "Only a cycle charge that is ATIVA after a failed attempt can be retried",
  attempt_pending: "An attempt is still pending: a retry is ordered after it fails",
  too_many: "At most 3 retries per cycle (PERMITE_3R_7D)",
  outside_window: "A retry must settle within 7 days after the due date (PERMITE_3R_7D)",
  not_after_last: "A retry must settle on a date after every earlier attempt",
  not_future: "A retry must settle on a future date",
  not_business_day: "A retry must settle on a business day"
}

/** The service over its dependencies. */
export const layer = Layer.effect(Subscriptions, make)

/**
 * The subscriptions' worker: `tick` every `interval` (1 s by default, the sandbox's rhythm),
 * for the life of the layer's scope; a failed tick is logged and the next one runs.
 */
export const worker = (interval?: Duration.DurationInput) =>
  Layer.scopedDiscard(
    Effect.forkScoped(
      Effect.flatMap(Effect.zip(Subscriptions, EngineConfig), ([s, config]) =>
        Effect.repeat(
          Effect.catchAllCause(s.tick, (cause) => Effect.logWarning("A subscriptions tick failed", cause)),
          Schedule.spaced(interval ?? config.subscriptionTickInterval)
        )
      )
    )
  )
