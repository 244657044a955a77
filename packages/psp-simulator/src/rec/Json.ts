/** The API Pix representations of Pix Automático's resources (field names as in the OpenAPI). */
import type { CobR, Historico, LocRec, Rec, RecState, SolicRec, Tentativa } from "./Model.js"

const iso = (at: Date) => at.toISOString()
const history = <S>(items: ReadonlyArray<Historico<S>>) =>
  items.map((h) => ({ status: h.status, data: iso(h.data) }))
const defined = <T extends Record<string, unknown>>(value: T) =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T

/** A location of a recurrence (PayloadLocationRecCompleta). */
export const locRecJson = (loc: LocRec) =>
  defined({ id: loc.id, location: loc.location, criacao: iso(loc.criacao), idRec: loc.idRec })

const ativacaoJson = (rec: Rec) =>
  defined({
    tipoJornada: rec.ativacao.tipoJornada,
    dadosJornada: rec.ativacao.dadosJornada ? { txid: rec.ativacao.dadosJornada.txid } : undefined
  })

/** The fields every shape of a recurrence shares (RecBase, recebedor, status, history, end). */
const recBase = (rec: Rec, state: RecState) => {
  const loc = rec.loc === undefined ? undefined : state.locs.get(rec.loc)
  return defined({
    idRec: rec.idRec,
    vinculo: defined({
      objeto: rec.vinculo.objeto,
      contrato: rec.vinculo.contrato,
      devedor: rec.vinculo.devedor
    }),
    calendario: defined({ ...rec.calendario }),
    valor: defined({ ...rec.valor }),
    politicaRetentativa: rec.politicaRetentativa,
    recebedor: defined({ ...rec.recebedor }),
    status: rec.status,
    loc: loc ? locRecJson(loc) : undefined,
    atualizacao: history(rec.atualizacao),
    encerramento: rec.encerramento,
    ativacao: ativacaoJson(rec)
  })
}

/** A recurrence as created or revised (RecGerada). */
export const recGeradaJson = (rec: Rec, state: RecState) => recBase(rec, state)

/** A recurrence as read (RecCompleta), with its payer and requests; `dadosQR` when asked. */
export const recCompletaJson = (
  rec: Rec,
  state: RecState,
  dadosQR?: { readonly jornada: string; readonly pixCopiaECola: string }
) =>
  defined({
    ...recBase(rec, state),
    pagador: rec.pagador,
    solicitacao: rec.solicitacoes.flatMap((id) => {
      const solic = state.solicitacoes.get(id)
      return solic ? [solicRecJson(solic, state, false)] : []
    }),
    dadosQR
  })

/** What the payer's bank shows of a recurrence (RecPayload). */
export const recPayloadJson = (rec: Rec, ispb: string) =>
  defined({
    idRec: rec.idRec,
    vinculo: defined({
      objeto: rec.vinculo.objeto,
      contrato: rec.vinculo.contrato,
      devedor: rec.vinculo.devedor
    }),
    calendario: defined({ ...rec.calendario }),
    valor: defined({ ...rec.valor }),
    politicaRetentativa: rec.politicaRetentativa,
    recebedor: { cnpj: rec.recebedor.cnpj, nome: rec.recebedor.nome, ispbParticipante: ispb },
    atualizacao: history(rec.atualizacao)
  })

/** A confirmation request (SolicRecCompleta). */
export const solicRecJson = (solic: SolicRec, state: RecState, withPayload = true, ispb = "") => {
  const rec = state.recs.get(solic.idRec)
  return defined({
    idSolicRec: solic.idSolicRec,
    idRec: solic.idRec,
    calendario: { dataExpiracaoSolicitacao: iso(solic.dataExpiracaoSolicitacao) },
    destinatario: solic.destinatario,
    status: solic.status,
    atualizacao: history(solic.atualizacao),
    recPayload: withPayload && rec ? recPayloadJson(rec, ispb) : undefined
  })
}

const tentativaJson = (t: Tentativa) =>
  defined({
    dataLiquidacao: t.dataLiquidacao,
    tipo: t.tipo,
    status: t.status,
    endToEndId: t.endToEndId,
    atualizacao: history(t.atualizacao),
    rejeicao: t.rejeicao
  })

const pixJson = (cobr: CobR) =>
  cobr.pix
    ? [
        {
          endToEndId: cobr.pix.endToEndId,
          txid: cobr.txid,
          valor: cobr.pix.valor,
          horario: iso(cobr.pix.horario)
        }
      ]
    : undefined

/** A recurring charge (CobRCompleta). */
export const cobrJson = (cobr: CobR, state: RecState) =>
  defined({
    idRec: cobr.idRec,
    txid: cobr.txid,
    infoAdicional: cobr.infoAdicional,
    calendario: { criacao: iso(cobr.criacao).slice(0, 10), dataDeVencimento: cobr.dataDeVencimento },
    valor: { original: cobr.valor.original },
    status: cobr.status,
    politicaRetentativa: state.recs.get(cobr.idRec)?.politicaRetentativa ?? "NAO_PERMITE",
    ajusteDiaUtil: cobr.ajusteDiaUtil,
    devedor: cobr.devedor,
    recebedor: cobr.recebedor,
    pix: pixJson(cobr),
    atualizacao: history(cobr.atualizacao),
    encerramento: cobr.encerramento,
    tentativas: cobr.tentativas.length > 0 ? cobr.tentativas.map(tentativaJson) : undefined
  })

/** A recurrence in a callback (RecNotification). */
export const recNotificationJson = (rec: Rec) =>
  defined({
    idRec: rec.idRec,
    status: rec.status,
    atualizacao: history(rec.atualizacao),
    encerramento: rec.encerramento,
    ativacao: ativacaoJson(rec)
  })

/** A recurring charge in a callback (CobRNotification). */
export const cobrNotificationJson = (cobr: CobR) =>
  defined({
    idRec: cobr.idRec,
    txid: cobr.txid,
    status: cobr.status,
    atualizacao: history(cobr.atualizacao),
    encerramento: cobr.encerramento,
    tentativas: cobr.tentativas.length > 0 ? cobr.tentativas.map(tentativaJson) : undefined,
    pix: pixJson(cobr)
  })
