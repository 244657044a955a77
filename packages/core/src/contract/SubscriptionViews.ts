/**
 * What the API shows of a subscription (an API Pix recurrence, `/rec`) and of its cycles (cycle
 * charges, `/cobr`): the standard's field names and statuses to the letter, amounts as the
 * standard writes them (`"99.90"`), plus the engine's own ids (`id`, `transactionId`).
 */
import * as DueDate from "../domain/DueDate.js"
import type * as R from "../domain/Recurrence.js"

/** Cents as the standard writes amounts: `"99.90"`. */
export const valor = (cents: number): string => {
  const fraction = cents % 100
  return `${(cents - fraction) / 100}.${String(fraction).padStart(2, "0")}`
}

/** `"99.90"` (the standard's `\d{1,10}\.\d{2}`) as cents, or undefined. */
export const parseValor = (text: string): number | undefined => {
  const match = /^(\d{1,10})\.(\d{2})$/.exec(text)
  return match === null ? undefined : Number(match[1]) * 100 + Number(match[2])
}

/** A subscription as the API shows it. */
export interface SubscriptionJson {
  readonly id: string
  readonly idRec: string | null
  readonly status: R.RecStatus
  readonly jornada: R.Jornada
  readonly vinculo: {
    readonly contrato: string
    readonly devedor: R.Devedor
    readonly objeto?: string
  }
  readonly calendario: {
    readonly dataInicial: string
    readonly dataFinal?: string
    readonly periodicidade: R.Periodicidade
  }
  readonly valor: { readonly valorRec?: string; readonly valorMinimoRecebedor?: string }
  /** The amount each cycle charges. */
  readonly valorCiclo: string
  readonly politicaRetentativa: R.PoliticaRetentativa
  readonly atualizacao: ReadonlyArray<R.Atualizacao<R.RecStatus>>
  readonly encerramento?: R.Encerramento
  readonly ativacao: {
    readonly tipoJornada: R.Jornada | "AGUARDANDO_DEFINICAO"
    readonly dadosJornada?: { readonly txid: string }
  }
  /** Journey 1: the push request sent to the payer's bank. */
  readonly solicitacao?: {
    readonly idSolicRec: string
    readonly status: R.SolicRecStatus
    readonly calendario: { readonly dataExpiracaoSolicitacao: string }
    readonly destinatario: R.Solicitacao["destinatario"]
    readonly atualizacao: ReadonlyArray<R.Atualizacao<R.SolicRecStatus>>
  }
  /** Journeys 2 to 4: the location and the QR to show the payer (`dadosQR`). */
  readonly loc?: { readonly location: string }
  readonly dadosQR?: {
    readonly jornada: "JORNADA_2" | "JORNADA_3" | "JORNADA_4"
    readonly pixCopiaECola: string
  }
  /** Journeys 3 and 4: the first payment's charge. */
  readonly cobranca?: { readonly transactionId: string; readonly txid: string }
  /** The payer's maximum, when known. */
  readonly valorMaximoPagador?: string
  readonly createdAt: string
  readonly updatedAt: string
}

/** A cycle as the API shows it (a `CobRCompleta` with the engine's ids). */
export interface CycleJson {
  readonly txid: string
  readonly idRec: string
  readonly subscriptionId: string
  /** 1 for the first cycle. */
  readonly ciclo: number
  readonly status: R.CobRStatus
  readonly calendario: { readonly criacao: string; readonly dataDeVencimento: string }
  /** The day the debit settles (`dataDeVencimento` moved to a business day). */
  readonly dataLiquidacao: string
  readonly valor: { readonly original: string }
  readonly ajusteDiaUtil: boolean
  readonly politicaRetentativa: R.PoliticaRetentativa
  readonly atualizacao: ReadonlyArray<R.Atualizacao<R.CobRStatus>>
  readonly encerramento?: R.Encerramento
  readonly tentativas: ReadonlyArray<R.Tentativa>
  /** The charge transaction that books the cycle's money. */
  readonly transactionId: string
}

const iso = (ms: number) => new Date(ms).toISOString()

/** A subscription's view. */
export const subscriptionJson = (s: R.Subscription): SubscriptionJson => ({
  id: s.id,
  idRec: s.idRec,
  status: s.status,
  jornada: s.jornada,
  vinculo: {
    contrato: s.vinculo.contrato,
    devedor: s.vinculo.devedor,
    ...(s.vinculo.objeto === null ? {} : { objeto: s.vinculo.objeto })
  },
  calendario: {
    dataInicial: s.calendario.dataInicial,
    ...(s.calendario.dataFinal === null ? {} : { dataFinal: s.calendario.dataFinal }),
    periodicidade: s.calendario.periodicidade
  },
  valor: {
    ...(s.valor.valorRec === null ? {} : { valorRec: valor(s.valor.valorRec) }),
    ...(s.valor.valorMinimoRecebedor === null
      ? {}
      : { valorMinimoRecebedor: valor(s.valor.valorMinimoRecebedor) })
  },
  valorCiclo: valor(s.valorCiclo),
  politicaRetentativa: s.politicaRetentativa,
  atualizacao: s.atualizacao,
  ...(s.encerramento === null ? {} : { encerramento: s.encerramento }),
  ativacao: {
    tipoJornada: s.tipoJornada,
    ...(s.jornada === "JORNADA_3" && s.txid !== null ? { dadosJornada: { txid: s.txid } } : {})
  },
  ...(s.solicitacao === null
    ? {}
    : {
        solicitacao: {
          idSolicRec: s.solicitacao.idSolicRec,
          status: s.solicitacao.status,
          calendario: { dataExpiracaoSolicitacao: s.solicitacao.dataExpiracaoSolicitacao },
          destinatario: s.solicitacao.destinatario,
          atualizacao: s.solicitacao.atualizacao
        }
      }),
  ...(s.location === null ? {} : { loc: { location: s.location } }),
  ...(s.pixCopiaECola === null || s.jornada === "JORNADA_1"
    ? {}
    : { dadosQR: { jornada: s.jornada, pixCopiaECola: s.pixCopiaECola } }),
  ...(s.chargeId === null || s.txid === null
    ? {}
    : { cobranca: { transactionId: s.chargeId, txid: s.txid } }),
  ...(s.valorMaximoPagador === null ? {} : { valorMaximoPagador: valor(s.valorMaximoPagador) }),
  createdAt: iso(s.createdAt),
  updatedAt: iso(s.updatedAt)
})

/** A cycle's view. */
export const cycleJson = (c: R.Cycle): CycleJson => ({
  txid: c.txid,
  idRec: c.idRec,
  subscriptionId: c.subscriptionId,
  ciclo: c.sequence + 1,
  status: c.status,
  calendario: {
    criacao: DueDate.formatDay(DueDate.dayOf(c.createdAt)),
    dataDeVencimento: c.dataDeVencimento
  },
  dataLiquidacao: c.dataLiquidacao,
  valor: { original: valor(c.valor) },
  ajusteDiaUtil: c.ajusteDiaUtil,
  politicaRetentativa: c.politicaRetentativa,
  atualizacao: c.atualizacao,
  ...(c.encerramento === null ? {} : { encerramento: c.encerramento }),
  tentativas: c.tentativas,
  transactionId: c.transactionId
})
