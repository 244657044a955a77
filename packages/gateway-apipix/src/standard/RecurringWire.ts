/**
 * Pix Automático's JSON as the gateway reads and writes it: the port's requests as API Pix
 * bodies (`RecSolicitada`, `SolicRecSolicitada`, `CobRSolicitada`, amounts as `"35.00"`), and the
 * bank's answers (`RecCompleta`, `SolicRecCompleta`, `CobRCompleta`, `PayloadLocationRecCompleta`)
 * as the port's snapshots, read defensively: a field of the wrong shape is left out, a snapshot
 * without its id or status is None. The OpenAPI's own examples write `nome` instead of `status`
 * in some `atualizacao` entries; both are read.
 */
import { Money, type RecurringGateway as R } from "@pixgate/core"
import { Option } from "effect"
import type { RecebedorAccount } from "./RecurringSettings.js"
import { cents, record, str } from "./Wire.js"

const defined = (o: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined))

const reais = (c: number) => Money.formatReais(c as Money.Cents)

/** `POST /rec`'s body. */
export const recBody = (r: R.RecurrenceRequest) =>
  defined({
    vinculo: defined({
      contrato: r.vinculo.contrato,
      devedor: defined({ ...r.vinculo.devedor }),
      objeto: r.vinculo.objeto
    }),
    calendario: defined({ ...r.calendario }),
    valor: defined({
      valorRec: r.valor.valorRec === undefined ? undefined : reais(r.valor.valorRec),
      valorMinimoRecebedor:
        r.valor.valorMinimoRecebedor === undefined ? undefined : reais(r.valor.valorMinimoRecebedor)
    }),
    politicaRetentativa: r.politicaRetentativa,
    loc: r.loc === undefined ? undefined : Number(r.loc),
    ativacao: r.txid === undefined ? undefined : { dadosJornada: { txid: r.txid } }
  })

/** `POST /solicrec`'s body. */
export const solicRecBody = (s: R.SolicitationRequest) => ({
  idRec: s.idRec,
  calendario: { dataExpiracaoSolicitacao: s.dataExpiracaoSolicitacao },
  destinatario: defined({ ...s.destinatario })
})

/** `PUT /cobr/{txid}`'s body, with the receiver's account. */
export const cobrBody = (c: R.CycleChargeRequest, recebedor: RecebedorAccount) =>
  defined({
    idRec: c.idRec,
    infoAdicional: c.infoAdicional,
    calendario: { dataDeVencimento: c.dataDeVencimento },
    valor: { original: reais(c.valor) },
    ajusteDiaUtil: c.ajusteDiaUtil,
    devedor: c.devedor === undefined ? undefined : defined({ ...c.devedor }),
    recebedor: defined({ ...recebedor })
  })

const history = <S extends string>(v: unknown): ReadonlyArray<R.Atualizacao<S>> =>
  Array.isArray(v)
    ? v.flatMap((item) => {
        const r = record(item)
        const status = str(r.status) ?? str(r.nome)
        const data = str(r.data)
        return status === undefined || data === undefined ? [] : [{ status: status as S, data }]
      })
    : []

const encerramento = (v: unknown): R.Encerramento | undefined => {
  const e = record(v)
  const rej = record(e.rejeicao)
  const can = record(e.cancelamento)
  const codigo = (o: Record<string, unknown>) => str(o.codigo)
  if (codigo(rej) !== undefined)
    return { rejeicao: { codigo: codigo(rej) as string, descricao: str(rej.descricao) ?? "" } }
  if (codigo(can) !== undefined)
    return {
      cancelamento: {
        solicitante: (str(can.solicitante) ?? "PSP_RECEBEDOR") as R.Solicitante,
        codigo: codigo(can) as string,
        descricao: str(can.descricao) ?? ""
      }
    }
  return undefined
}

const money = (v: unknown) => Option.getOrUndefined(cents(v))

/** A location (`PayloadLocationRecCompleta`). */
export const location = (v: unknown): Option.Option<R.RecLocation> => {
  const l = record(v)
  const id = typeof l.id === "number" ? String(l.id) : str(l.id)
  const loc = str(l.location)
  if (id === undefined || loc === undefined) return Option.none()
  const idRec = str(l.idRec)
  return Option.some({
    id,
    location: loc,
    criacao: str(l.criacao) ?? "",
    ...(idRec === undefined ? {} : { idRec })
  })
}

/** A confirmation request (`SolicRecCompleta`). */
export const solicitation = (v: unknown): Option.Option<R.SolicitationSnapshot> => {
  const s = record(v)
  const idSolicRec = str(s.idSolicRec)
  const idRec = str(s.idRec)
  const status = str(s.status)
  if (idSolicRec === undefined || idRec === undefined || status === undefined) return Option.none()
  return Option.some({
    idSolicRec,
    idRec,
    status: status as R.SolicRecStatus,
    dataExpiracaoSolicitacao: str(record(s.calendario).dataExpiracaoSolicitacao) ?? "",
    atualizacao: history(s.atualizacao)
  })
}

/** A recurrence (`RecCompleta` or `RecGerada`). */
export const recurrence = (v: unknown): Option.Option<R.RecurrenceSnapshot> => {
  const r = record(v)
  const idRec = str(r.idRec)
  const status = str(r.status)
  if (idRec === undefined || status === undefined) return Option.none()
  const vinculo = record(r.vinculo)
  const devedor = record(vinculo.devedor)
  const calendario = record(r.calendario)
  const valor = record(r.valor)
  const ativacao = record(r.ativacao)
  const pagador = record(r.pagador)
  const dadosQR = record(r.dadosQR)
  const txid = str(record(ativacao.dadosJornada).txid)
  const loc = location(r.loc)
  const solicitacoes = Array.isArray(r.solicitacao)
    ? r.solicitacao.flatMap((s) => Option.toArray(solicitation(s)))
    : []
  const ended = encerramento(r.encerramento)
  const snapshot = defined({
    idRec,
    status,
    vinculo:
      str(vinculo.contrato) === undefined
        ? undefined
        : defined({
            contrato: str(vinculo.contrato),
            objeto: str(vinculo.objeto),
            devedor: defined({
              nome: str(devedor.nome) ?? "",
              cpf: str(devedor.cpf),
              cnpj: str(devedor.cnpj)
            })
          }),
    calendario:
      str(calendario.dataInicial) === undefined
        ? undefined
        : defined({
            dataInicial: str(calendario.dataInicial),
            dataFinal: str(calendario.dataFinal),
            periodicidade: str(calendario.periodicidade)
          }),
    valor: defined({
      valorRec: money(valor.valorRec),
      valorMinimoRecebedor: money(valor.valorMinimoRecebedor)
    }),
    politicaRetentativa: str(r.politicaRetentativa),
    loc: Option.getOrUndefined(loc),
    pagador:
      str(pagador.ispbParticipante) === undefined
        ? undefined
        : defined({
            ispbParticipante: str(pagador.ispbParticipante),
            codMun: str(pagador.codMun),
            cpf: str(pagador.cpf),
            cnpj: str(pagador.cnpj)
          }),
    atualizacao: history(r.atualizacao),
    encerramento: ended,
    ativacao:
      str(ativacao.tipoJornada) === undefined
        ? undefined
        : defined({
            tipoJornada: str(ativacao.tipoJornada),
            dadosJornada: txid === undefined ? undefined : { txid }
          }),
    solicitacao: solicitacoes.length > 0 ? solicitacoes : undefined,
    dadosQR:
      str(dadosQR.jornada) === undefined || str(dadosQR.pixCopiaECola) === undefined
        ? undefined
        : { jornada: str(dadosQR.jornada), pixCopiaECola: str(dadosQR.pixCopiaECola) }
  })
  return Option.some(snapshot as unknown as R.RecurrenceSnapshot)
}

const tentativa = (v: unknown): ReadonlyArray<R.Tentativa> => {
  const t = record(v)
  const dataLiquidacao = str(t.dataLiquidacao)
  const tipo = str(t.tipo)
  const status = str(t.status)
  if (dataLiquidacao === undefined || tipo === undefined || status === undefined) return []
  const rej = record(t.rejeicao)
  return [
    defined({
      dataLiquidacao,
      tipo,
      endToEndId: str(t.endToEndId) ?? "",
      status,
      atualizacao: history(t.atualizacao),
      rejeicao:
        str(rej.codigo) === undefined
          ? undefined
          : { codigo: str(rej.codigo), descricao: str(rej.descricao) ?? "" }
    }) as unknown as R.Tentativa
  ]
}

const cyclePix = (v: unknown): ReadonlyArray<R.CyclePix> => {
  const p = record(v)
  const endToEndId = str(p.endToEndId)
  const valor = money(p.valor)
  if (endToEndId === undefined || valor === undefined) return []
  return [{ endToEndId, txid: str(p.txid) ?? "", valor, horario: str(p.horario) ?? "" }]
}

/** A cycle charge (`CobRCompleta` or `CobRGerada`). */
export const cycleCharge = (v: unknown): Option.Option<R.CycleChargeSnapshot> => {
  const c = record(v)
  const idRec = str(c.idRec)
  const txid = str(c.txid)
  const status = str(c.status)
  const calendario = record(c.calendario)
  const due = str(calendario.dataDeVencimento)
  const valor = money(record(c.valor).original)
  if (
    idRec === undefined ||
    txid === undefined ||
    status === undefined ||
    due === undefined ||
    valor === undefined
  )
    return Option.none()
  const tentativas = Array.isArray(c.tentativas) ? c.tentativas.flatMap(tentativa) : undefined
  const pix = Array.isArray(c.pix) ? c.pix.flatMap(cyclePix) : undefined
  return Option.some(
    defined({
      idRec,
      txid,
      status,
      calendario: defined({ criacao: str(calendario.criacao), dataDeVencimento: due }),
      valor,
      politicaRetentativa: str(c.politicaRetentativa),
      ajusteDiaUtil: typeof c.ajusteDiaUtil === "boolean" ? c.ajusteDiaUtil : undefined,
      atualizacao: history(c.atualizacao),
      encerramento: encerramento(c.encerramento),
      tentativas,
      pix
    }) as unknown as R.CycleChargeSnapshot
  )
}
