/**
 * The recurring-debits port (Pix Automático): what the engine asks of the receiver's bank (the
 * "PSP recebedor") for live subscriptions, over the Central Bank's API Pix `/locrec`, `/rec`,
 * `/solicrec` and `/cobr`. The sandbox implements it in process; `@pixgate/gateway-apipix`
 * implements it over HTTP. A gateway offers it as `BankGatewayShape.recurring` and declares the
 * `recurring` capability.
 *
 * Names follow API Pix to the letter (`idRec`, `politicaRetentativa`, `dataDeVencimento`,
 * `tentativas`, the statuses in capitals); amounts are integer centavos (`Cents`) on this side
 * and `"35.00"` strings on the wire, which the gateway converts. Dates are `YYYY-MM-DD`,
 * instants RFC 3339 text as the bank wrote them.
 *
 * Failures: every operation fails with `GatewayFailure`. Without `outcome` it is definite (the
 * bank refused or was never reached: nothing was done). With `outcome: "unknown"` (a time-out, a
 * lost connection, a 5xx) the bank may have done it: the engine never repeats a create or a retry
 * blindly, it asks first with the read operations below (`readRecurrence`, `findRecurrences`,
 * `readSolicitation`, `readCycleCharge`) and acts on what the bank holds.
 *
 * What is idempotent on the wire: `createCycleCharge` (`PUT /cobr/{txid}`, the txid is the
 * engine's), the cancellations (`PATCH ... status: CANCELADA`), the reads. What is not:
 * `createLocation`, `createRecurrence`, `requestAuthorization` and `requestRetry` (`POST`s whose
 * ids the bank picks); after an unknown outcome of one of these the engine reads back (a stray
 * location without a recurrence is harmless and is left alone).
 *
 * Bank callbacks (`{url}/rec` with `{recs: [...]}`, `{url}/cobr` with `{cobsr: [...]}`) are the
 * gateway's (`BankGatewayShape.callback`): it confirms each notification with a read and reports
 * the snapshot it read through `recurringReportsOf(ctx)` (`RecurringReports`). Reports are
 * idempotent: a snapshot older than what the engine knows changes nothing.
 *
 * How a gateway offers it (no change to `BankGatewayShape` itself, which this module extends):
 * a `RecurringBankGateway`, i.e. a `BankGatewayShape` with a `recurring` field, and the
 * `recurring: true` capability. The engine finds it with `recurringGatewayOf(gateway)` and gives
 * the gateway's jobs and callbacks a `RecurringGatewayContext` (a `GatewayContext` with
 * `recurring` reports), which the gateway reads with `recurringReportsOf(ctx)`.
 */
import type { Effect, Option } from "effect"
import type { Cents } from "../domain/Money.js"
import type { BankGatewayShape, GatewayContext, GatewayFailure } from "./BankGateway.js"
import type { StoreError } from "./Store.js"

// ---------------------------------------------------------------------------------------------
// The standard's enumerations (API Pix 2.9)
// ---------------------------------------------------------------------------------------------

/** `calendario.periodicidade` of a recurrence. */
export type Periodicidade = "SEMANAL" | "MENSAL" | "TRIMESTRAL" | "SEMESTRAL" | "ANUAL"

/** `politicaRetentativa`: no retries, or up to 3 retries within 7 days after the due date. */
export type PoliticaRetentativa = "NAO_PERMITE" | "PERMITE_3R_7D"

/** A recurrence's `status` (`RecStatus`). */
export type RecStatus = "CRIADA" | "APROVADA" | "REJEITADA" | "EXPIRADA" | "CANCELADA"

/** A push request's `status` (`SolicRecStatus`, journey 1). */
export type SolicRecStatus =
  | "CRIADA"
  | "ENVIADA"
  | "RECEBIDA"
  | "REJEITADA"
  | "ACEITA"
  | "EXPIRADA"
  | "CANCELADA"

/** A cycle charge's `status` (`CobRStatus`). */
export type CobRStatus = "CRIADA" | "ATIVA" | "CONCLUIDA" | "EXPIRADA" | "REJEITADA" | "CANCELADA"

/** An attempt's `status` (`tentativas[].status`). */
export type TentativaStatus = "SOLICITADA" | "AGENDADA" | "PAGA" | "CANCELADA" | "REJEITADA" | "EXPIRADA"

/**
 * An attempt's `tipo`: `AGND` the scheduled debit on the due date, `NTAG` a retry the receiver
 * ordered (not scheduled by the payer), `RIFL` an intraday retry after a failed settlement.
 */
export type TentativaTipo = "AGND" | "NTAG" | "RIFL"

/** `ativacao.tipoJornada`: how the payer authorised it (`AGUARDANDO_DEFINICAO` until then). */
export type TipoJornada = "JORNADA_1" | "JORNADA_2" | "JORNADA_3" | "JORNADA_4" | "AGUARDANDO_DEFINICAO"

/** Who ended a recurrence or a cycle charge (`encerramento.cancelamento.solicitante`). */
export type Solicitante = "PSP_PAGADOR" | "USUARIO_PAGADOR" | "PSP_RECEBEDOR" | "USUARIO_RECEBEDOR"

/** One entry of an `atualizacao` history. Gateways accept the examples' `nome` for `status`. */
export interface Atualizacao<S extends string> {
  readonly status: S
  /** RFC 3339. */
  readonly data: string
}

/** Why a recurrence or a cycle charge ended (`encerramento`): one of the two. */
export interface Encerramento {
  /** Recurrence: `AP13`, `AP14`; cycle charge: the catalogue's rejection codes (`AM02`, ...). */
  readonly rejeicao?: { readonly codigo: string; readonly descricao: string }
  readonly cancelamento?: {
    readonly solicitante: Solicitante
    /** Recurrence: `ACCL`, `CPCL`, `DCSD`, `ERSL`, `FRUD`, `PCFD`, `SLCR`, `SLDB`; cycle: `ACCT`, ... */
    readonly codigo: string
    readonly descricao: string
  }
}

/** `vinculo.devedor`: a person (`cpf`) or a company (`cnpj`), exactly one, with a name. */
export interface Devedor {
  readonly cpf?: string
  readonly cnpj?: string
  readonly nome: string
}

// ---------------------------------------------------------------------------------------------
// Locations (/locrec)
// ---------------------------------------------------------------------------------------------

/** A recurrence's payload location (`PayloadLocationRecGerada`): journeys 2 to 4 need one. */
export interface RecLocation {
  /** The bank's integer id, as text. */
  readonly id: string
  /** Without scheme, e.g. `pix.example.com/qr/v2/rec/2353c790...` (BR Code field 80). */
  readonly location: string
  /** RFC 3339. */
  readonly criacao: string
  /** The recurrence it serves, once one was created with it. */
  readonly idRec?: string
}

// ---------------------------------------------------------------------------------------------
// Recurrences (/rec)
// ---------------------------------------------------------------------------------------------

/** What `POST /rec` is asked to create (`RecSolicitada`). */
export interface RecurrenceRequest {
  readonly vinculo: {
    /** The contract's number or code, at most 35 characters. */
    readonly contrato: string
    readonly devedor: Devedor
    /** What the payer is paying for, at most 35 characters. */
    readonly objeto?: string
  }
  readonly calendario: {
    readonly dataInicial: string
    readonly dataFinal?: string
    readonly periodicidade: Periodicidade
  }
  /** A fixed amount, or the receiver's floor for the payer's maximum, or neither; never both. */
  readonly valor: { readonly valorRec?: Cents; readonly valorMinimoRecebedor?: Cents }
  readonly politicaRetentativa: PoliticaRetentativa
  /** Journeys 2 to 4: the id of a location from `createLocation`. */
  readonly loc?: string
  /**
   * Journey 3 (`ativacao.dadosJornada.txid`): the txid of the immediate charge (cob) paid with
   * the authorisation. Journey 4 names its cobv only when reading the composite QR.
   */
  readonly txid?: string
}

/** A push request (`SolicRecCompleta`), journey 1. */
export interface SolicitationSnapshot {
  /** `SC` + ISPB + yyyyMMdd + 11 alphanumerics (29 characters). */
  readonly idSolicRec: string
  readonly idRec: string
  readonly status: SolicRecStatus
  /** `calendario.dataExpiracaoSolicitacao`, RFC 3339. */
  readonly dataExpiracaoSolicitacao: string
  readonly atualizacao: ReadonlyArray<Atualizacao<SolicRecStatus>>
}

/** A recurrence as the bank holds it (`RecCompleta`, or `RecGerada` right after creation). */
export interface RecurrenceSnapshot {
  /** `R` + `R`|`N` + ISPB + yyyyMMdd + 11 alphanumerics (29 characters). */
  readonly idRec: string
  readonly status: RecStatus
  readonly vinculo?: RecurrenceRequest["vinculo"]
  readonly calendario?: RecurrenceRequest["calendario"]
  readonly valor?: RecurrenceRequest["valor"]
  readonly politicaRetentativa?: PoliticaRetentativa
  readonly loc?: RecLocation
  /** The payer's bank, once the payer answered (`pagador`). */
  readonly pagador?: {
    readonly ispbParticipante: string
    readonly codMun?: string
    readonly cpf?: string
    readonly cnpj?: string
  }
  readonly atualizacao: ReadonlyArray<Atualizacao<RecStatus>>
  readonly encerramento?: Encerramento
  readonly ativacao?: { readonly tipoJornada: TipoJornada; readonly dadosJornada?: { readonly txid: string } }
  /** Push requests linked to it (`solicitacao`): how an unknown `requestAuthorization` is found. */
  readonly solicitacao?: ReadonlyArray<SolicitationSnapshot>
  /** The composite QR, when read with `readRecurrence(idRec, { txid })` or alone for journey 2. */
  readonly dadosQR?: {
    readonly jornada: "JORNADA_2" | "JORNADA_3" | "JORNADA_4"
    readonly pixCopiaECola: string
  }
}

/** `GET /rec` filters: recurrences created in a window for one debtor (unknown creates). */
export interface RecurrenceQuery {
  /** RFC 3339, both required by the standard. */
  readonly inicio: string
  readonly fim: string
  readonly cpf?: string
  readonly cnpj?: string
  readonly status?: RecStatus
}

/** `POST /solicrec` (`SolicRecSolicitada`): the push request to the payer's bank. */
export interface SolicitationRequest {
  readonly idRec: string
  /** `calendario.dataExpiracaoSolicitacao`, RFC 3339. */
  readonly dataExpiracaoSolicitacao: string
  /** The payer's account at their bank, and their CPF or CNPJ. */
  readonly destinatario: {
    readonly ispbParticipante: string
    readonly conta: string
    readonly agencia?: string
    readonly cpf?: string
    readonly cnpj?: string
  }
}

// ---------------------------------------------------------------------------------------------
// Cycle charges (/cobr)
// ---------------------------------------------------------------------------------------------

/** `PUT /cobr/{txid}` (`CobRSolicitada`): one cycle's charge. */
export interface CycleChargeRequest {
  readonly idRec: string
  readonly infoAdicional?: string
  /** The cycle's due date, `YYYY-MM-DD` (`calendario.dataDeVencimento`). */
  readonly dataDeVencimento: string
  /** `valor.original`. */
  readonly valor: Cents
  /** Move the settlement to the next business day when the due date is not one (default true). */
  readonly ajusteDiaUtil: boolean
  /** `devedor`'s optional contact fields; the gateway adds `recebedor` (its account) itself. */
  readonly devedor?: {
    readonly email?: string
    readonly logradouro?: string
    readonly cidade?: string
    readonly uf?: string
    readonly cep?: string
  }
}

/** One attempt to debit a cycle (`tentativas[]`). */
export interface Tentativa {
  /** `YYYY-MM-DD`. */
  readonly dataLiquidacao: string
  readonly tipo: TentativaTipo
  readonly endToEndId: string
  readonly status: TentativaStatus
  readonly atualizacao: ReadonlyArray<Atualizacao<TentativaStatus>>
  readonly rejeicao?: { readonly codigo: string; readonly descricao: string }
}

/** A PIX received for a cycle (`pix[]`, `PixAutomatico`). */
export interface CyclePix {
  readonly endToEndId: string
  readonly txid: string
  readonly valor: Cents
  /** RFC 3339. */
  readonly horario: string
}

/** A cycle charge as the bank holds it (`CobRCompleta`). */
export interface CycleChargeSnapshot {
  readonly idRec: string
  readonly txid: string
  readonly status: CobRStatus
  readonly calendario: { readonly criacao?: string; readonly dataDeVencimento: string }
  readonly valor: Cents
  readonly politicaRetentativa?: PoliticaRetentativa
  readonly ajusteDiaUtil?: boolean
  readonly atualizacao: ReadonlyArray<Atualizacao<CobRStatus>>
  readonly encerramento?: Encerramento
  readonly tentativas?: ReadonlyArray<Tentativa>
  readonly pix?: ReadonlyArray<CyclePix>
}

// ---------------------------------------------------------------------------------------------
// The port
// ---------------------------------------------------------------------------------------------

/** The receiver's bank's recurring operations (see the module's comment for failures). */
export interface RecurringGateway {
  /** `POST /locrec` `{tipo: "rec"}`: a location for journeys 2 to 4. */
  readonly createLocation: () => Effect.Effect<RecLocation, GatewayFailure>
  /** `POST /rec`: the bank picks `idRec`. After an unknown outcome: `findRecurrences`. */
  readonly createRecurrence: (request: RecurrenceRequest) => Effect.Effect<RecurrenceSnapshot, GatewayFailure>
  /**
   * `GET /rec/{idRec}` (with `?txid=` of a cob or cobv for the composite QR of journeys 3 and 4);
   * none on a 404.
   */
  readonly readRecurrence: (
    idRec: string,
    options?: { readonly txid?: string }
  ) => Effect.Effect<Option.Option<RecurrenceSnapshot>, GatewayFailure>
  /** `GET /rec?inicio&fim&cpf|cnpj&status`: every page, for finding an unknown create. */
  readonly findRecurrences: (
    query: RecurrenceQuery
  ) => Effect.Effect<ReadonlyArray<RecurrenceSnapshot>, GatewayFailure>
  /** `PATCH /rec/{idRec}` `{status: "CANCELADA"}`: the receiver ends it (`USUARIO_RECEBEDOR`). */
  readonly cancelRecurrence: (idRec: string) => Effect.Effect<RecurrenceSnapshot, GatewayFailure>

  /**
   * `POST /solicrec`: journey 1's push request. After an unknown outcome: `readRecurrence`'s
   * `solicitacao`.
   */
  readonly requestAuthorization: (
    request: SolicitationRequest
  ) => Effect.Effect<SolicitationSnapshot, GatewayFailure>
  /** `GET /solicrec/{idSolicRec}`; none on a 404. */
  readonly readSolicitation: (
    idSolicRec: string
  ) => Effect.Effect<Option.Option<SolicitationSnapshot>, GatewayFailure>
  /** `PATCH /solicrec/{idSolicRec}` `{status: "CANCELADA"}`. */
  readonly cancelSolicitation: (idSolicRec: string) => Effect.Effect<SolicitationSnapshot, GatewayFailure>

  /** `PUT /cobr/{txid}`: idempotent on the engine's txid (a repeat after an unknown outcome is a read). */
  readonly createCycleCharge: (
    txid: string,
    request: CycleChargeRequest
  ) => Effect.Effect<CycleChargeSnapshot, GatewayFailure>
  /** `GET /cobr/{txid}`; none on a 404. */
  readonly readCycleCharge: (
    txid: string
  ) => Effect.Effect<Option.Option<CycleChargeSnapshot>, GatewayFailure>
  /**
   * `POST /cobr/{txid}/retentativa/{data}` (`data`: `YYYY-MM-DD`, the settlement date asked).
   * After an unknown outcome: `readCycleCharge` and look for a `tentativas` entry on that date.
   */
  readonly requestRetry: (txid: string, data: string) => Effect.Effect<CycleChargeSnapshot, GatewayFailure>
  /** `PATCH /cobr/{txid}` `{status: "CANCELADA"}`: refused by the bank on or after settlement. */
  readonly cancelCycleCharge: (txid: string) => Effect.Effect<CycleChargeSnapshot, GatewayFailure>

  /** `PUT /webhookrec` and `PUT /webhookcobr` with `webhookUrl`, when the bank takes them by API. */
  readonly registerWebhooks?: (webhookUrl: string) => Effect.Effect<void, GatewayFailure>
  /** How long to wait before reading again something not final yet (ms). */
  readonly pollDelay: number
}

/**
 * What a gateway reports of recurrences (`GatewayContext.recurring`): each snapshot as it read
 * it from the bank (after a callback, a poll or an unknown outcome). Idempotent; answers whether
 * anything changed. A snapshot of something the engine does not know changes nothing.
 */
export interface RecurringReports {
  readonly recurrenceRead: (snapshot: RecurrenceSnapshot) => Effect.Effect<boolean, StoreError>
  readonly solicitationRead: (snapshot: SolicitationSnapshot) => Effect.Effect<boolean, StoreError>
  readonly cycleChargeRead: (snapshot: CycleChargeSnapshot) => Effect.Effect<boolean, StoreError>
}

/** A bank gateway that offers recurring debits. */
export type RecurringBankGateway = BankGatewayShape & { readonly recurring?: RecurringGateway }

/** The context the engine gives a gateway's jobs and callbacks, with the recurring reports. */
export type RecurringGatewayContext = GatewayContext & { readonly recurring?: RecurringReports }

/** A gateway's recurring operations, when it offers them (and declares the capability). */
export const recurringGatewayOf = (gateway: BankGatewayShape): RecurringGateway | undefined =>
  gateway.capabilities?.recurring === false ? undefined : (gateway as RecurringBankGateway).recurring

/** The engine's recurring reports in a gateway's context; undefined from an engine without them. */
export const recurringReportsOf = (ctx: GatewayContext): RecurringReports | undefined =>
  (ctx as RecurringGatewayContext).recurring
