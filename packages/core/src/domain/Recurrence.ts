/**
 * Pix Automático's rules as pure values (API Pix 2.9 `/rec`, `/solicrec`, `/cobr`): the
 * recurrence's identifier, its calendar and the due dates of its cycles on the business-day
 * calendar, when each cycle's charge is created, the retry policy `PERMITE_3R_7D`, and the state
 * machines of a recurrence, a push request, a cycle charge and an attempt. The engine calls a
 * recurrence a *subscription* (docs/decisions.md, "Pix Automático"); names the standard gives
 * stay the standard's, to the letter.
 *
 * Dates are São Paulo calendar days (`DueDate.Day`); the business days are the national bank
 * holidays of `DueDate.holidays` (fixed ones and the Easter-based Carnival, Good Friday and
 * Corpus Christi).
 */
import type { MerchantId, Mode, TransactionId } from "./Domain.js"
import * as DueDate from "./DueDate.js"
import { randomBase62 } from "./Ids.js"

export type Day = DueDate.Day

/** `calendario.periodicidade`. */
export const periodicidades = ["SEMANAL", "MENSAL", "TRIMESTRAL", "SEMESTRAL", "ANUAL"] as const
export type Periodicidade = (typeof periodicidades)[number]

/** `politicaRetentativa`. */
export const politicas = ["NAO_PERMITE", "PERMITE_3R_7D"] as const
export type PoliticaRetentativa = (typeof politicas)[number]

/** The four journeys a payer authorises through. */
export const jornadas = ["JORNADA_1", "JORNADA_2", "JORNADA_3", "JORNADA_4"] as const
export type Jornada = (typeof jornadas)[number]

export const recStatuses = ["CRIADA", "APROVADA", "REJEITADA", "EXPIRADA", "CANCELADA"] as const
export type RecStatus = (typeof recStatuses)[number]

export const solicRecStatuses = [
  "CRIADA",
  "ENVIADA",
  "RECEBIDA",
  "REJEITADA",
  "ACEITA",
  "EXPIRADA",
  "CANCELADA"
] as const
export type SolicRecStatus = (typeof solicRecStatuses)[number]

export const cobrStatuses = ["CRIADA", "ATIVA", "CONCLUIDA", "EXPIRADA", "REJEITADA", "CANCELADA"] as const
export type CobRStatus = (typeof cobrStatuses)[number]

export const tentativaStatuses = [
  "SOLICITADA",
  "AGENDADA",
  "PAGA",
  "CANCELADA",
  "REJEITADA",
  "EXPIRADA"
] as const
export type TentativaStatus = (typeof tentativaStatuses)[number]

export type TentativaTipo = "AGND" | "NTAG" | "RIFL"

export type Solicitante = "PSP_PAGADOR" | "USUARIO_PAGADOR" | "PSP_RECEBEDOR" | "USUARIO_RECEBEDOR"

// ---------------------------------------------------------------------------------------------
// State machines
// ---------------------------------------------------------------------------------------------

const recMoves: Readonly<Record<RecStatus, ReadonlyArray<RecStatus>>> = {
  CRIADA: ["APROVADA", "REJEITADA", "EXPIRADA", "CANCELADA"],
  // An approved recurrence ends by cancellation (either side); nothing else.
  APROVADA: ["CANCELADA"],
  REJEITADA: [],
  EXPIRADA: [],
  CANCELADA: []
}

const solicMoves: Readonly<Record<SolicRecStatus, ReadonlyArray<SolicRecStatus>>> = {
  CRIADA: ["ENVIADA", "REJEITADA", "EXPIRADA", "CANCELADA"],
  ENVIADA: ["RECEBIDA", "REJEITADA", "EXPIRADA", "CANCELADA"],
  RECEBIDA: ["ACEITA", "REJEITADA", "EXPIRADA", "CANCELADA"],
  ACEITA: [],
  REJEITADA: [],
  EXPIRADA: [],
  CANCELADA: []
}

const cobrMoves: Readonly<Record<CobRStatus, ReadonlyArray<CobRStatus>>> = {
  CRIADA: ["ATIVA", "REJEITADA", "CANCELADA"],
  ATIVA: ["CONCLUIDA", "EXPIRADA", "REJEITADA", "CANCELADA"],
  CONCLUIDA: [],
  EXPIRADA: [],
  REJEITADA: [],
  CANCELADA: []
}

const tentativaMoves: Readonly<Record<TentativaStatus, ReadonlyArray<TentativaStatus>>> = {
  SOLICITADA: ["AGENDADA", "REJEITADA", "CANCELADA"],
  AGENDADA: ["PAGA", "REJEITADA", "CANCELADA", "EXPIRADA"],
  PAGA: [],
  CANCELADA: [],
  REJEITADA: [],
  EXPIRADA: []
}

/** Whether a recurrence may move from `from` to `to`. */
export const canMoveRec = (from: RecStatus, to: RecStatus): boolean => recMoves[from].includes(to)
/** Whether a push request may move from `from` to `to`. */
export const canMoveSolicRec = (from: SolicRecStatus, to: SolicRecStatus): boolean =>
  solicMoves[from].includes(to)
/** Whether a cycle charge may move from `from` to `to`. */
export const canMoveCobR = (from: CobRStatus, to: CobRStatus): boolean => cobrMoves[from].includes(to)
/** Whether an attempt may move from `from` to `to`. */
export const canMoveTentativa = (from: TentativaStatus, to: TentativaStatus): boolean =>
  tentativaMoves[from].includes(to)

/** A status no move leaves. */
export const isFinalRec = (s: RecStatus): boolean => recMoves[s].length === 0
export const isFinalSolicRec = (s: SolicRecStatus): boolean => solicMoves[s].length === 0
export const isFinalCobR = (s: CobRStatus): boolean => cobrMoves[s].length === 0
export const isFinalTentativa = (s: TentativaStatus): boolean => tentativaMoves[s].length === 0

/**
 * Rejection codes of an attempt that reject its cycle charge at once (the standard's list:
 * `AC05`, `AM09`, `DENC`, `DS27`, `DTED`, `MIDI`, `MSUC`, `NITX`, `RC09`); any other rejected
 * attempt leaves the charge `ATIVA` for the receiver's retries when the policy allows them.
 */
export const finalRejectionCodes: ReadonlySet<string> = new Set([
  "AC05",
  "AM09",
  "DENC",
  "DS27",
  "DTED",
  "MIDI",
  "MSUC",
  "NITX",
  "RC09"
])

// ---------------------------------------------------------------------------------------------
// Identifiers
// ---------------------------------------------------------------------------------------------

const idRecPattern = /^R[RN][0-9A-Z]{8}\d{8}[a-zA-Z0-9]{11}$/

/**
 * A new `idRec`: `R`, `R` when retries are allowed else `N`, the ISPB (8), the creation date
 * `yyyyMMdd` (São Paulo) and 11 random alphanumerics: 29 characters.
 */
export const newIdRec = (politica: PoliticaRetentativa, ispb: string, nowMs: number): string =>
  `R${politica === "PERMITE_3R_7D" ? "R" : "N"}${ispb.padStart(8, "0").slice(0, 8)}${DueDate.formatDay(
    DueDate.dayOf(nowMs)
  ).replaceAll("-", "")}${randomBase62(11)}`

/** Whether `s` is an `idRec` (29 characters of the standard's form). */
export const isIdRec = (s: string): boolean => s.length === 29 && idRecPattern.test(s)

/** A new `idSolicRec`: `SC`, the ISPB, `yyyyMMdd` and 11 random alphanumerics (29 characters). */
export const newIdSolicRec = (ispb: string, nowMs: number): string =>
  `SC${ispb.padStart(8, "0").slice(0, 8)}${DueDate.formatDay(DueDate.dayOf(nowMs)).replaceAll("-", "")}${randomBase62(11)}`

// ---------------------------------------------------------------------------------------------
// Calendar
// ---------------------------------------------------------------------------------------------

const dayMs = 86_400_000

const monthsOf: Readonly<Record<Periodicidade, number>> = {
  SEMANAL: 0,
  MENSAL: 1,
  TRIMESTRAL: 3,
  SEMESTRAL: 6,
  ANUAL: 12
}

/**
 * The nominal due date of cycle `n` (0 the first, on `dataInicial`): weekly adds 7 days a cycle;
 * the others add months counted from the first date, so a 31st falls on the last day of shorter
 * months and comes back to the 31st after them (never drifting to the 28th).
 */
export const nominalDueDay = (dataInicial: Day, periodicidade: Periodicidade, n: number): Day => {
  if (periodicidade === "SEMANAL") return dataInicial + 7 * n
  const start = new Date(dataInicial * dayMs)
  const months = start.getUTCMonth() + monthsOf[periodicidade] * n
  const year = start.getUTCFullYear() + Math.floor(months / 12)
  const month = ((months % 12) + 12) % 12
  const last = new Date(Date.UTC(year, month + 1, 0)).getUTCDate()
  return Date.UTC(year, month, Math.min(start.getUTCDate(), last)) / dayMs
}

/** The settlement day of a due date: the next business day when `ajusteDiaUtil`, else itself. */
export const settlementDay = (due: Day, ajusteDiaUtil: boolean): Day =>
  ajusteDiaUtil ? DueDate.nextBusinessDay(due) : due

/** A recurrence's calendar as days. */
export interface Calendar {
  readonly dataInicial: Day
  readonly dataFinal: Day | null
  readonly periodicidade: Periodicidade
}

/**
 * The cycles' nominal due dates from cycle `from` on, while they fall on or before `dataFinal`
 * (at most `limit`). Never before `dataInicial`, never after `dataFinal`.
 */
export const dueDays = (calendar: Calendar, from: number, limit: number): ReadonlyArray<Day> => {
  const out: Array<Day> = []
  for (let n = Math.max(0, from); out.length < limit; n++) {
    const day = nominalDueDay(calendar.dataInicial, calendar.periodicidade, n)
    if (calendar.dataFinal !== null && day > calendar.dataFinal) break
    out.push(day)
  }
  return out
}

/** Whether cycle `n` exists in the calendar (on or before the end date). */
export const cycleExists = (calendar: Calendar, n: number): boolean =>
  n >= 0 &&
  (calendar.dataFinal === null ||
    nominalDueDay(calendar.dataInicial, calendar.periodicidade, n) <= calendar.dataFinal)

/** The standard's window for creating a cycle charge: 2 to 10 days before its due date. */
export const chargeLeadDays = { earliest: 10, latest: 2 } as const

/**
 * When the engine creates a cycle's charge: `earliest` days before the due date (10), or at
 * once when that has passed; too late (none) once fewer than 2 days are left: that cycle is not
 * charged (a debit the payer's bank could not schedule in time is not sent late).
 */
export const chargeWindow = (due: Day): { readonly opens: Day; readonly closes: Day } => ({
  opens: due - chargeLeadDays.earliest,
  closes: due - chargeLeadDays.latest
})

/**
 * The first cycle whose charge can still be created on `today`: the lowest `n >= from` whose
 * window has not closed. Cycles whose window closed before the recurrence was approved are
 * skipped, never charged late.
 */
export const firstChargeableCycle = (calendar: Calendar, from: number, today: Day): number | undefined => {
  for (let n = Math.max(0, from); cycleExists(calendar, n); n++) {
    const due = nominalDueDay(calendar.dataInicial, calendar.periodicidade, n)
    if (chargeWindow(due).closes >= today) return n
    if (n > from + 10_000) return undefined
  }
  return undefined
}

/** How a recurrence's calendar must look: the end date on or after the start, a real period. */
export const calendarProblem = (calendar: Calendar): string | undefined => {
  if (calendar.dataFinal !== null && calendar.dataFinal < calendar.dataInicial)
    return "calendario.dataFinal must not be before calendario.dataInicial"
  return undefined
}

// ---------------------------------------------------------------------------------------------
// Retries (PERMITE_3R_7D)
// ---------------------------------------------------------------------------------------------

/** At most 3 retries, within 7 days after the due date. */
export const retryRules = { maxRetries: 3, windowDays: 7 } as const

/** What the retry policy says about one asked retry. */
export type RetryVerdict =
  | { readonly ok: true }
  | {
      readonly ok: false
      readonly reason:
        | "policy_forbids"
        | "not_failed"
        | "attempt_pending"
        | "too_many"
        | "outside_window"
        | "not_after_last"
        | "not_future"
        | "not_business_day"
    }

/** An attempt as the retry rules read it. */
export interface AttemptDay {
  readonly dataLiquidacao: Day
  readonly tipo: TentativaTipo
  readonly status: TentativaStatus
}

/**
 * Whether a retry settling on `day` may be ordered on `today` for a cycle charge in `status`
 * whose settlement day is `due`: the policy allows retries, the charge is `ATIVA` after a failed
 * attempt, no attempt is pending, fewer than 3 retries were ordered, the day is a business day
 * after today and after every earlier attempt (so on a date of its own), and within 7 days after
 * the due date.
 */
export const retryVerdict = (input: {
  readonly politica: PoliticaRetentativa
  readonly status: CobRStatus
  readonly due: Day
  readonly attempts: ReadonlyArray<AttemptDay>
  readonly day: Day
  readonly today: Day
}): RetryVerdict => {
  const { politica, status, due, attempts, day, today } = input
  if (politica !== "PERMITE_3R_7D") return { ok: false, reason: "policy_forbids" }
  if (status !== "ATIVA") return { ok: false, reason: "not_failed" }
  if (attempts.some((a) => a.status === "SOLICITADA" || a.status === "AGENDADA"))
    return { ok: false, reason: "attempt_pending" }
  if (!attempts.some((a) => a.status === "REJEITADA" || a.status === "EXPIRADA"))
    return { ok: false, reason: "not_failed" }
  if (attempts.filter((a) => a.tipo === "NTAG").length >= retryRules.maxRetries)
    return { ok: false, reason: "too_many" }
  if (day <= today) return { ok: false, reason: "not_future" }
  if (attempts.some((a) => a.dataLiquidacao >= day)) return { ok: false, reason: "not_after_last" }
  if (day > due + retryRules.windowDays) return { ok: false, reason: "outside_window" }
  if (!DueDate.isBusinessDay(day)) return { ok: false, reason: "not_business_day" }
  return { ok: true }
}

/** The last day a cycle charge can still be paid: its due date with no retries, else 7 days after. */
export const lastRetryDay = (politica: PoliticaRetentativa, due: Day): Day =>
  politica === "PERMITE_3R_7D" ? due + retryRules.windowDays : due

/**
 * Whether the receiver may still cancel a cycle charge on `today`: never on or after its
 * settlement date (the standard refuses it then). The payer may cancel a scheduled debit until
 * the day before as well.
 */
export const canCancelCycle = (status: CobRStatus, settlement: Day, today: Day): boolean =>
  !isFinalCobR(status) && today < settlement

// ---------------------------------------------------------------------------------------------
// Records: a subscription (the recurrence) and its cycles (the cycle charges)
// ---------------------------------------------------------------------------------------------

/** One entry of an `atualizacao` history (`data`: RFC 3339). */
export interface Atualizacao<S extends string> {
  readonly status: S
  readonly data: string
}

/** Why a recurrence or a cycle charge ended (`encerramento`): one of the two. */
export interface Encerramento {
  readonly rejeicao?: { readonly codigo: string; readonly descricao: string }
  readonly cancelamento?: {
    readonly solicitante: Solicitante
    readonly codigo: string
    readonly descricao: string
  }
}

/** `vinculo.devedor`: exactly one of `cpf` and `cnpj`, with a name. */
export interface Devedor {
  readonly cpf?: string
  readonly cnpj?: string
  readonly nome: string
}

/** Journey 1's push request (`solicitacao`). */
export interface Solicitacao {
  readonly idSolicRec: string
  readonly status: SolicRecStatus
  readonly dataExpiracaoSolicitacao: string
  readonly destinatario: {
    readonly ispbParticipante: string
    readonly conta: string
    readonly agencia?: string
    readonly cpf?: string
    readonly cnpj?: string
  }
  readonly atualizacao: ReadonlyArray<Atualizacao<SolicRecStatus>>
}

/**
 * How the sandbox's payer behaves (magic values at creation, or admin actions later): approve or
 * reject the authorisation, a maximum amount, cycles whose scheduled debit fails for lack of
 * funds, and whether a retry of such a cycle is paid.
 */
export interface SandboxPayer {
  readonly answer: "approve" | "reject" | "wait"
  /** 1-based cycle numbers whose debits fail for lack of funds. */
  readonly insufficientFunds: ReadonlyArray<number>
  /** Whether a retry of a cycle that failed for lack of funds is paid. */
  readonly payOnRetry: boolean
}

/** A subscription: the engine's record of one recurrence (`/rec`) of a merchant. */
export interface Subscription {
  /** The engine's id (`sub_...`). */
  readonly id: string
  readonly merchantId: MerchantId
  readonly mode: Mode
  /** The recurrence's id at the bank; null while a live creation's outcome is unknown. */
  readonly idRec: string | null
  /** The journey the merchant asked for. */
  readonly jornada: Jornada
  readonly vinculo: { readonly contrato: string; readonly devedor: Devedor; readonly objeto: string | null }
  readonly calendario: {
    readonly dataInicial: string
    readonly dataFinal: string | null
    readonly periodicidade: Periodicidade
  }
  /** Cents; exactly one of the two, or neither (a variable amount with no floor). */
  readonly valor: { readonly valorRec: number | null; readonly valorMinimoRecebedor: number | null }
  readonly politicaRetentativa: PoliticaRetentativa
  readonly status: RecStatus
  readonly atualizacao: ReadonlyArray<Atualizacao<RecStatus>>
  readonly encerramento: Encerramento | null
  /** `ativacao.tipoJornada`: `AGUARDANDO_DEFINICAO` until approved. */
  readonly tipoJornada: Jornada | "AGUARDANDO_DEFINICAO"
  /** Journeys 3 and 4: the first payment's charge (cob or cobv) and its txid. */
  readonly chargeId: TransactionId | null
  readonly txid: string | null
  /** Journey 1's push request. */
  readonly solicitacao: Solicitacao | null
  /** Journeys 2 to 4: the location and the QR's text (`pixCopiaECola`). */
  readonly location: string | null
  readonly pixCopiaECola: string | null
  /** The payer's maximum (cents), when known: a cycle above it is rejected. */
  readonly valorMaximoPagador: number | null
  /** The amount of each cycle (cents): `valorRec`, or what the merchant set for variable ones. */
  readonly valorCiclo: number
  readonly payer: SandboxPayer | null
  /** The next cycle (0-based) to create a charge for. */
  readonly nextCycle: number
  /** When the worker next looks at it (creates the next cycle's charge, expires it); null: never. */
  readonly nextAt: number | null
  readonly createdAt: number
  readonly updatedAt: number
  /** Bumped by every change: a change is written only over the version it read. */
  readonly version: number
}

/** One attempt of a cycle (`tentativas[]`, days as `YYYY-MM-DD`). */
export interface Tentativa {
  readonly dataLiquidacao: string
  readonly tipo: TentativaTipo
  readonly endToEndId: string
  readonly status: TentativaStatus
  readonly atualizacao: ReadonlyArray<Atualizacao<TentativaStatus>>
  readonly rejeicao?: { readonly codigo: string; readonly descricao: string }
}

/** One cycle of a subscription: its charge (`/cobr`), attempts and the transaction it books. */
export interface Cycle {
  readonly txid: string
  readonly subscriptionId: string
  readonly merchantId: MerchantId
  readonly mode: Mode
  readonly idRec: string
  /** 0-based; one cycle per (subscription, sequence), never two. */
  readonly sequence: number
  /** `calendario.dataDeVencimento` (nominal) and the settlement day after `ajusteDiaUtil`. */
  readonly dataDeVencimento: string
  readonly dataLiquidacao: string
  readonly ajusteDiaUtil: boolean
  /** `valor.original`, cents. */
  readonly valor: number
  readonly politicaRetentativa: PoliticaRetentativa
  readonly status: CobRStatus
  readonly atualizacao: ReadonlyArray<Atualizacao<CobRStatus>>
  readonly encerramento: Encerramento | null
  readonly tentativas: ReadonlyArray<Tentativa>
  /** The charge transaction that books the cycle's money (completed when paid). */
  readonly transactionId: TransactionId
  /** When the worker next looks at it (an attempt settles, the window closes); null: never. */
  readonly nextAt: number | null
  readonly createdAt: number
  readonly updatedAt: number
  readonly version: number
}
