/**
 * Pix Automático as the API Pix 2.9 names it: locations of recurrences (`locrec`), recurrences
 * (`rec`), confirmation requests sent to the payer's bank (`solicrec`), recurring charges (`cobr`)
 * and their attempts (`tentativas`). Field names and states follow the Central Bank's OpenAPI.
 */

export type RecStatus = "CRIADA" | "APROVADA" | "REJEITADA" | "EXPIRADA" | "CANCELADA"
export type SolicRecStatus =
  | "CRIADA"
  | "ENVIADA"
  | "RECEBIDA"
  | "REJEITADA"
  | "ACEITA"
  | "EXPIRADA"
  | "CANCELADA"
export type CobRStatus = "CRIADA" | "ATIVA" | "CONCLUIDA" | "EXPIRADA" | "REJEITADA" | "CANCELADA"
export type TentativaStatus = "SOLICITADA" | "AGENDADA" | "PAGA" | "CANCELADA" | "REJEITADA" | "EXPIRADA"
export type Periodicidade = "SEMANAL" | "MENSAL" | "TRIMESTRAL" | "SEMESTRAL" | "ANUAL"
export type PoliticaRetentativa = "NAO_PERMITE" | "PERMITE_3R_7D"
export type Jornada = "JORNADA_1" | "JORNADA_2" | "JORNADA_3" | "JORNADA_4"
export type Solicitante = "PSP_PAGADOR" | "USUARIO_PAGADOR" | "PSP_RECEBEDOR" | "USUARIO_RECEBEDOR"

export const periodicidades: ReadonlyArray<Periodicidade> = [
  "SEMANAL",
  "MENSAL",
  "TRIMESTRAL",
  "SEMESTRAL",
  "ANUAL"
]

/** Codes of a rejected recurrence (`encerramento.rejeicao.codigo`). */
export const recRejeicaoCodigos = ["AP13", "AP14"] as const
/** Codes of a cancelled recurrence (`encerramento.cancelamento.codigo`). */
export const recCancelamentoCodigos = [
  "ACCL",
  "CPCL",
  "DCSD",
  "ERSL",
  "FRUD",
  "PCFD",
  "SLCR",
  "SLDB"
] as const
/** Codes of a cancelled recurring charge. */
export const cobrCancelamentoCodigos = ["ACCT", "BLCK", "CCLD", "FAIL", "OTHR", "SLBD", "SLCR"] as const
/** Codes of a rejected attempt or recurring charge. */
export const rejeicaoCodigos = [
  "AB10",
  "AC05",
  "AC06",
  "AM02",
  "AM09",
  "DENC",
  "DS27",
  "DTED",
  "DTNT",
  "FBRD",
  "IRNT",
  "MIDI",
  "MSUC",
  "NIEC",
  "NIPA",
  "NITX",
  "QUNT",
  "RC09",
  "UDEI"
] as const
/** Attempt rejections that also reject the charge (no retry), as the OpenAPI lists them. */
export const finalRejeicaoCodigos: ReadonlyArray<string> = [
  "AC05",
  "AM09",
  "DENC",
  "DS27",
  "DTED",
  "MIDI",
  "MSUC",
  "NITX",
  "RC09"
]

export type Pessoa =
  | { readonly nome: string; readonly cpf: string }
  | { readonly nome: string; readonly cnpj: string }
export type Documento = { readonly cpf: string } | { readonly cnpj: string }

export interface Encerramento {
  readonly rejeicao?: { readonly codigo: string; readonly descricao: string }
  readonly cancelamento?: {
    readonly solicitante: Solicitante
    readonly codigo: string
    readonly descricao: string
  }
}

export interface Historico<S> {
  readonly status: S
  readonly data: Date
}

/** A location of a recurrence (`/locrec`). */
export interface LocRec {
  readonly id: number
  readonly location: string
  readonly criacao: Date
  idRec?: string
}

/** A recurrence (`/rec`). */
export interface Rec {
  readonly idRec: string
  readonly criacao: Date
  vinculo: {
    readonly objeto?: string
    readonly contrato: string
    devedor: Pessoa
  }
  calendario: {
    dataInicial: string
    readonly dataFinal?: string
    readonly periodicidade: Periodicidade
  }
  readonly valor: { readonly valorRec?: string; readonly valorMinimoRecebedor?: string }
  readonly politicaRetentativa: PoliticaRetentativa
  readonly recebedor: { readonly cnpj: string; readonly nome: string; readonly convenio?: string }
  status: RecStatus
  readonly atualizacao: Array<Historico<RecStatus>>
  encerramento?: Encerramento
  loc?: number
  ativacao: { tipoJornada: Jornada | "AGUARDANDO_DEFINICAO"; dadosJornada?: { readonly txid: string } }
  pagador?: Documento & { readonly ispbParticipante: string; readonly codMun?: string }
  /** idSolicRec of the confirmation requests, oldest first. */
  readonly solicitacoes: Array<string>
  /** The payer's maximum per debit (centavos), set in the payer's bank; none when absent. */
  valorMaximoPagador?: number
  /** Attempts the payer's account will refuse for lack of funds, from the next one. */
  semSaldo: number
}

/** A confirmation request sent to the payer's bank (`/solicrec`, journey 1). */
export interface SolicRec {
  readonly idSolicRec: string
  readonly idRec: string
  readonly dataExpiracaoSolicitacao: Date
  readonly destinatario: Documento & {
    readonly conta: string
    readonly ispbParticipante: string
    readonly agencia?: string
  }
  status: SolicRecStatus
  readonly atualizacao: Array<Historico<SolicRecStatus>>
}

/** One attempt to settle a recurring charge. */
export interface Tentativa {
  readonly dataLiquidacao: string
  /** AGND: the scheduled debit; NTAG: a retry ordered by the receiver; RIFL: an intraday retry. */
  readonly tipo: "AGND" | "NTAG" | "RIFL"
  status: TentativaStatus
  readonly endToEndId: string
  readonly atualizacao: Array<Historico<TentativaStatus>>
  rejeicao?: { readonly codigo: string; readonly descricao: string }
}

/** A recurring charge (`/cobr`): one cycle of a recurrence. */
export interface CobR {
  readonly idRec: string
  readonly txid: string
  readonly criacao: Date
  readonly infoAdicional?: string
  readonly dataDeVencimento: string
  readonly valor: { readonly original: string }
  readonly ajusteDiaUtil: boolean
  readonly devedor?: Readonly<Record<string, string>>
  readonly recebedor: Readonly<Record<string, string>>
  status: CobRStatus
  readonly atualizacao: Array<Historico<CobRStatus>>
  encerramento?: Encerramento
  readonly tentativas: Array<Tentativa>
  /** The Pix received when an attempt was paid. */
  pix?: { readonly endToEndId: string; readonly valor: string; readonly horario: Date }
}

/** A recurring webhook (`/webhookrec` or `/webhookcobr`). */
export interface RecWebhook {
  readonly webhookUrl: string
  readonly criacao: Date
}

/** What the simulated PSP remembers of Pix Automático. */
export interface RecState {
  readonly locs: Map<number, LocRec>
  readonly recs: Map<string, Rec>
  readonly solicitacoes: Map<string, SolicRec>
  readonly cobsr: Map<string, CobR>
  readonly webhooks: Map<"rec" | "cobr", RecWebhook>
  nextLocId: number
}

export const emptyRecState = (): RecState => ({
  locs: new Map(),
  recs: new Map(),
  solicitacoes: new Map(),
  cobsr: new Map(),
  webhooks: new Map(),
  nextLocId: 1
})
