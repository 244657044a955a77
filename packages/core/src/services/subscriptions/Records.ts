/**
 * The subscriptions' records as they are built and moved: a new subscription (test or live),
 * its push request, its cycles and their attempts, the QR codes of the recurrence, and the
 * requests a live bank is sent. Pure functions of what they are given.
 */
import type { CreateCharge } from "../../contract/Requests.js"
import type { TransactionId } from "../../domain/Domain.js"
import * as DueDate from "../../domain/DueDate.js"
import * as Ids from "../../domain/Ids.js"
import type * as Money from "../../domain/Money.js"
import * as R from "../../domain/Recurrence.js"
import * as BrCode from "../../pix/BrCode.js"
import type { RecLocation, RecurrenceRequest } from "../../ports/RecurringGateway.js"
import type { Caller } from "../Auth.js"
import { type CreateSubscription, defaultSolicitationLifetime } from "./Rules.js"

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

export const isoOf = (ms: number) => new Date(ms).toISOString()
/** The first instant of a São Paulo day. */
export const startOfDay = (day: DueDate.Day) => DueDate.endOfDay(day - 1)

/** Journeys 3 and 4: the first payment's charge request, on the subscription's debtor. */
export const firstChargeRequest = (input: CreateSubscription): CreateCharge => {
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

/**
 * Journey 1's push request as it is created, its id given by `idSolicRec` (a test one's own; a
 * live one's "" until the bank has it); none for the other journeys.
 */
export const solicitationOf = (
  input: CreateSubscription,
  idSolicRec: () => string,
  at: number
): R.Solicitacao | null =>
  input.jornada === "JORNADA_1" && input.pagador !== undefined
    ? {
        idSolicRec: idSolicRec(),
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
export const sandboxAnswerOf = (contrato: string) =>
  contrato.endsWith("-REJEITA") ? "reject" : contrato.endsWith("-ESPERA") ? "wait" : "approve"

/** The push request is sent (ENVIADA) as it is created: the sandbox's payer's bank has it. */
export const withSentSolicitation = (
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

/** What a new subscription's record takes from its mode: a test one's or a live one's. */
export interface NewSubscriptionParts {
  /** A test recurrence's own id; null for a live one until the bank answers. */
  readonly idRec: string | null
  /** Journeys 3 and 4: the first payment's charge. */
  readonly chargeId: TransactionId | null
  readonly txid: string | null
  readonly solicitacao: R.Solicitacao | null
  readonly location: string | null
  readonly pixCopiaECola: string | null
  /** The sandbox's payer (test); null for a live one. */
  readonly payer: R.Subscription["payer"]
  /** The worker's first turn: the sandbox payer's answer, or the live bank's first poll. */
  readonly nextAt: number
}

/** A new subscription as it is stored: CRIADA, its journey not yet defined, no cycle begun. */
export const subscriptionOf = (
  caller: Caller,
  input: CreateSubscription,
  cycleAmount: number,
  parts: NewSubscriptionParts,
  at: number
): R.Subscription => ({
  id: Ids.newId("sub", at),
  merchantId: caller.merchant.id,
  mode: caller.mode,
  idRec: parts.idRec,
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
  chargeId: parts.chargeId,
  txid: parts.txid,
  solicitacao: parts.solicitacao,
  location: parts.location,
  pixCopiaECola: parts.pixCopiaECola,
  valorMaximoPagador: null,
  valorCiclo: cycleAmount,
  payer: parts.payer,
  nextCycle: 0,
  nextAt: parts.nextAt,
  createdAt: at,
  updatedAt: at,
  version: 1
})

/** The recurrence a live subscription asks the bank for (`POST /rec`). */
export const recurrenceRequestOf = (
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

export const recMove = (s: R.Subscription, to: R.RecStatus, at: number): Partial<R.Subscription> => ({
  status: to,
  atualizacao: [...s.atualizacao, { status: to, data: isoOf(at) }]
})
export const cycleMove = (c: R.Cycle, to: R.CobRStatus, at: number): Partial<R.Cycle> => ({
  status: to,
  atualizacao: [...c.atualizacao, { status: to, data: isoOf(at) }]
})
export const attemptMove = (t: R.Tentativa, to: R.TentativaStatus, at: number): R.Tentativa => ({
  ...t,
  status: to,
  atualizacao: [...t.atualizacao, { status: to, data: isoOf(at) }]
})

export const calendarOf = (s: R.Subscription): R.Calendar => ({
  dataInicial: DueDate.checkedDay(s.calendario.dataInicial),
  dataFinal: s.calendario.dataFinal === null ? null : DueDate.checkedDay(s.calendario.dataFinal),
  periodicidade: s.calendario.periodicidade
})

/** When cycle `n`'s charge is created: the start of its window's first day, or now when open. */
export const openingOf = (calendar: R.Calendar, n: number, at: number) =>
  Math.max(
    at,
    startOfDay(R.chargeWindow(R.nominalDueDay(calendar.dataInicial, calendar.periodicidade, n)).opens)
  )

/** When an unanswered recurrence expires: journey 1's request expiry, else the end of its first day. */
export const expiresAt = (s: R.Subscription): number =>
  s.solicitacao !== null
    ? Date.parse(s.solicitacao.dataExpiracaoSolicitacao)
    : DueDate.endOfDay(DueDate.checkedDay(s.calendario.dataInicial))

/** An attempt the payer's bank has scheduled (AGND: the due date's; NTAG: a retry's) on `dataLiquidacao`. */
export const scheduledAttempt = (
  tipo: R.Tentativa["tipo"],
  dataLiquidacao: string,
  ispb: string,
  at: number
): R.Tentativa => ({
  dataLiquidacao,
  tipo,
  endToEndId: Ids.newEndToEndId(ispb, at),
  status: "AGENDADA",
  atualizacao: [
    { status: "SOLICITADA", data: isoOf(at) },
    { status: "AGENDADA", data: isoOf(at) }
  ]
})

/**
 * Cycle `n` of `s`, due on `due` and settled on `settle`, as it is created: a test one ATIVA
 * with its debit scheduled (the sandbox's payer's bank accepts it at once), a live one CRIADA
 * until the bank's charge is asked for (`runLiveCycle`, a PUT idempotent on the txid).
 */
export const cycleOf = (
  s: R.Subscription,
  n: number,
  due: DueDate.Day,
  settle: DueDate.Day,
  ispb: string,
  at: number
): R.Cycle => {
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
    tentativas: [scheduledAttempt("AGND", DueDate.formatDay(settle), ispb, at)],
    transactionId,
    nextAt: Math.max(at, startOfDay(settle)),
    createdAt: at,
    updatedAt: at,
    version: 1
  }
  return s.mode === "live"
    ? {
        ...cycle,
        status: "CRIADA",
        atualizacao: [{ status: "CRIADA", data: isoOf(at) }],
        tentativas: [],
        nextAt: at
      }
    : cycle
}

/** The cycle's charge a live bank is asked for (`PUT /cobr/{txid}`). */
export const cycleRequest = (c: R.Cycle) => ({
  idRec: c.idRec,
  dataDeVencimento: c.dataDeVencimento,
  valor: c.valor as Money.Cents,
  ajusteDiaUtil: c.ajusteDiaUtil
})
