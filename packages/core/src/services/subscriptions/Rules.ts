/**
 * The subscriptions' rules: what a merchant asks for and how it is checked against the Pix
 * Automático standard, the sandbox's rhythm and codes, and the retries' refusals.
 */
import { Effect } from "effect"
import * as Errors from "../../contract/Errors.js"
import * as DueDate from "../../domain/DueDate.js"
import * as R from "../../domain/Recurrence.js"

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

export const invalid = (path: string, message: string) =>
  Errors.validation("invalid_recurrence", path, message)
export const refused = (code: Errors.RefusedCode, message: string) => new Errors.Refused({ code, message })

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
export const checkRequest = (input: CreateSubscription, today: DueDate.Day) =>
  Effect.gen(function* () {
    if (!R.jornadas.includes(input.jornada))
      return yield* Effect.fail(invalid("jornada", "jornada must be JORNADA_1 to JORNADA_4"))
    yield* checkVinculo(input)
    const calendar = yield* checkCalendar(input, today)
    const cycleAmount = yield* checkValor(input)
    yield* checkJourney(input)
    return { calendar, cycleAmount }
  })

/** Why a retry is refused, as the merchant is told. */
export const retryMessages: Readonly<Record<Exclude<R.RetryVerdict, { ok: true }>["reason"], string>> = {
  policy_forbids: "The recurrence's politicaRetentativa is NAO_PERMITE: no retries",
  not_failed: "Only a cycle charge that is ATIVA after a failed attempt can be retried",
  attempt_pending: "An attempt is still pending: a retry is ordered after it fails",
  too_many: "At most 3 retries per cycle (PERMITE_3R_7D)",
  outside_window: "A retry must settle within 7 days after the due date (PERMITE_3R_7D)",
  not_after_last: "A retry must settle on a date after every earlier attempt",
  not_future: "A retry must settle on a future date",
  not_business_day: "A retry must settle on a business day"
}
