/**
 * The payer's side of Pix Automático (and the cancellations both sides share): approve, reject,
 * revoke, let lapse, set a maximum, lack funds, cancel a debit; the attempts the payer's bank
 * carries out. Every status change is recorded and notified (see `Base.ts`).
 */
import { ControlError } from "../Bank.js"
import type { CallbackMode } from "../Callbacks.js"
import { fromCents, toCents } from "../Model.js"
import { type ApproveOptions, AutomaticoBase, isOpenCobr, isOpenSolic, pending } from "./Base.js"
import { addDays, today } from "./Calendar.js"
import { finalRejeicaoCodigos, type Jornada, type Rec, type Solicitante } from "./Model.js"

export type { ApproveOptions, AutomaticoSettings } from "./Base.js"

export class Automatico extends AutomaticoBase {
  /** The payer approves the recurrence (through the journey given or inferred). */
  async approve(idRec: string, options: ApproveOptions = {}) {
    this.sweep()
    const rec = this.rec(idRec)
    if (rec.status !== "CRIADA") throw new ControlError(409, `the rec is ${rec.status}, not CRIADA`)
    const solic = this.openSolic(rec)
    const txid = options.txid ?? rec.ativacao.dadosJornada?.txid
    const jornada: Jornada =
      options.jornada ?? (solic ? "JORNADA_1" : rec.ativacao.dadosJornada ? "JORNADA_3" : "JORNADA_2")
    if (jornada === "JORNADA_1" && !solic)
      throw new ControlError(409, "no open confirmation request (JORNADA_1)")
    if (jornada !== "JORNADA_1" && rec.loc === undefined)
      throw new ControlError(409, "the rec has no location (QR)")
    if (jornada === "JORNADA_3") {
      if (txid === undefined) throw new ControlError(400, "JORNADA_3 needs the cob's txid")
      await this.settings.payCob(txid)
    }
    if (solic) this.solicStatus(solic, jornada === "JORNADA_1" ? "ACEITA" : "CANCELADA")
    const documento = options.pagador?.cnpj
      ? { cnpj: options.pagador.cnpj }
      : {
          cpf:
            options.pagador?.cpf ?? ("cpf" in rec.vinculo.devedor ? rec.vinculo.devedor.cpf : "00000000000")
        }
    rec.pagador = {
      ...(solic && jornada === "JORNADA_1" ? solic.destinatario : documento),
      ispbParticipante:
        options.pagador?.ispbParticipante ?? solic?.destinatario.ispbParticipante ?? "00000000",
      ...(options.pagador?.codMun ? { codMun: options.pagador.codMun } : {})
    } as NonNullable<Rec["pagador"]>
    rec.ativacao = {
      tipoJornada: jornada,
      ...(jornada === "JORNADA_3" && txid ? { dadosJornada: { txid } } : {})
    }
    await this.recStatus(rec, "APROVADA", options.callback)
    return rec
  }

  /** The payer (or their bank) rejects the recurrence: AP13 or AP14. */
  async reject(
    idRec: string,
    options: { codigo?: string; descricao?: string; callback?: CallbackMode } = {}
  ) {
    this.sweep()
    const rec = this.rec(idRec)
    if (rec.status !== "CRIADA") throw new ControlError(409, `the rec is ${rec.status}, not CRIADA`)
    const solic = this.openSolic(rec)
    if (solic) this.solicStatus(solic, "REJEITADA")
    rec.encerramento = {
      rejeicao: {
        codigo: options.codigo ?? "AP13",
        descricao: options.descricao ?? "Rejeitada pelo usuário pagador"
      }
    }
    await this.recStatus(rec, "REJEITADA", options.callback)
    return rec
  }

  /** Ends a recurrence (CANCELADA) and cancels its open charges and requests. */
  async cancel(rec: Rec, solicitante: Solicitante, codigo: string, descricao: string, mode?: CallbackMode) {
    for (const id of rec.solicitacoes) {
      const solic = this.state.solicitacoes.get(id)
      if (solic && isOpenSolic(solic.status)) this.solicStatus(solic, "CANCELADA")
    }
    rec.encerramento = { cancelamento: { solicitante, codigo, descricao } }
    const cobrs = [...this.state.cobsr.values()].filter((c) => c.idRec === rec.idRec && isOpenCobr(c.status))
    for (const cobr of cobrs) {
      for (const t of cobr.tentativas) if (pending(t)) this.attemptStatus(t, "CANCELADA")
      cobr.encerramento = {
        cancelamento: {
          solicitante,
          codigo: solicitante.endsWith("PAGADOR") ? "SLBD" : "SLCR",
          descricao: "Recorrência cancelada"
        }
      }
      this.cobrStatus(cobr, "CANCELADA")
    }
    await this.recStatus(rec, "CANCELADA", mode)
    for (const cobr of cobrs) await this.notifyCobr(cobr, mode)
  }

  /** The payer revokes the authorisation (any time): CANCELADA by USUARIO_PAGADOR, SLDB. */
  async revoke(idRec: string, options: { callback?: CallbackMode } = {}) {
    this.sweep()
    const rec = this.rec(idRec)
    if (rec.status !== "APROVADA" && rec.status !== "CRIADA")
      throw new ControlError(409, `the rec is ${rec.status}: nothing to revoke`)
    await this.cancel(
      rec,
      "USUARIO_PAGADOR",
      "SLDB",
      "Autorização revogada pelo usuário pagador",
      options.callback
    )
    return rec
  }

  /** The payer lets the recurrence's request or QR lapse: EXPIRADA. */
  async expire(idRec: string, options: { callback?: CallbackMode } = {}) {
    const rec = this.rec(idRec)
    if (rec.status !== "CRIADA") throw new ControlError(409, `the rec is ${rec.status}, not CRIADA`)
    const solic = this.openSolic(rec)
    if (solic) this.solicStatus(solic, "EXPIRADA")
    await this.recStatus(rec, "EXPIRADA", options.callback)
    return rec
  }

  /** The payer sets the most a debit may take (centavos as "12.34"); undefined removes it. */
  setMaximum(idRec: string, valor: string | undefined) {
    const rec = this.rec(idRec)
    if (valor === undefined) delete rec.valorMaximoPagador
    else {
      const minimo = rec.valor.valorMinimoRecebedor
      if (minimo !== undefined && toCents(valor) < toCents(minimo))
        throw new ControlError(400, `the maximum is below valorMinimoRecebedor ${minimo}`)
      rec.valorMaximoPagador = toCents(valor)
    }
    return rec
  }

  /** The payer's account lacks funds for the next `attempts` attempts of this recurrence. */
  setInsufficientFunds(idRec: string, attempts: number) {
    this.rec(idRec).semSaldo = attempts
  }

  /** The payer cancels a scheduled debit (until the day before its date): USUARIO_PAGADOR, SLBD. */
  async payerCancel(txid: string, options: { callback?: CallbackMode } = {}) {
    const cobr = this.cobr(txid)
    const next = cobr.tentativas.find(pending)
    if (!isOpenCobr(cobr.status)) throw new ControlError(409, `the cobr is ${cobr.status}`)
    if (next && today(this.settings.now()) >= next.dataLiquidacao)
      throw new ControlError(409, "a scheduled debit can be cancelled until the day before its date")
    for (const t of cobr.tentativas) if (pending(t)) this.attemptStatus(t, "CANCELADA")
    cobr.encerramento = {
      cancelamento: {
        solicitante: "USUARIO_PAGADOR",
        codigo: "SLBD",
        descricao: "Agendamento cancelado pelo usuário pagador"
      }
    }
    this.cobrStatus(cobr, "CANCELADA")
    await this.notifyCobr(cobr, options.callback)
    return cobr
  }

  /**
   * The payer's bank carries out the pending attempt of a charge: paid, unless the payer lacks
   * funds (`setInsufficientFunds`), the amount is above the payer's maximum (AM02) or `codigo`
   * forces a rejection. A rejection with a final code, or under NAO_PERMITE, or with no retry left
   * (3 retries, 7 days after the due date), rejects the charge.
   */
  async attempt(
    txid: string,
    options: { codigo?: string; descricao?: string; callback?: CallbackMode } = {}
  ) {
    this.sweep()
    const cobr = this.cobr(txid)
    const t = cobr.tentativas.find(pending)
    if (!t || cobr.status !== "ATIVA")
      throw new ControlError(409, `the cobr ${txid} has no scheduled attempt`)
    const rec = this.rec(cobr.idRec)
    let codigo = options.codigo
    if (
      codigo === undefined &&
      rec.valorMaximoPagador !== undefined &&
      toCents(cobr.valor.original) > rec.valorMaximoPagador
    )
      codigo = "AM02"
    if (codigo === undefined && rec.semSaldo > 0) {
      rec.semSaldo -= 1
      codigo = "IRNT"
    }
    if (codigo === undefined) {
      this.attemptStatus(t, "PAGA")
      const horario = this.settings.now()
      cobr.pix = { endToEndId: t.endToEndId, valor: fromCents(toCents(cobr.valor.original)), horario }
      this.cobrStatus(cobr, "CONCLUIDA")
      this.settings.receivePix({ endToEndId: t.endToEndId, txid, valor: cobr.pix.valor, horario })
    } else {
      t.rejeicao = { codigo, descricao: options.descricao ?? describe(codigo) }
      this.attemptStatus(t, "REJEITADA")
      const retries = cobr.tentativas.filter((x) => x.tipo === "NTAG").length
      const lastDay = addDays(cobr.tentativas[0]?.dataLiquidacao ?? cobr.dataDeVencimento, 7)
      const noRetry =
        finalRejeicaoCodigos.includes(codigo) ||
        rec.politicaRetentativa === "NAO_PERMITE" ||
        retries >= 3 ||
        today(this.settings.now()) >= lastDay
      if (noRetry) {
        cobr.encerramento = { rejeicao: { codigo, descricao: t.rejeicao.descricao } }
        this.cobrStatus(cobr, "REJEITADA")
      }
    }
    await this.notifyCobr(cobr, options.callback)
    return cobr
  }

  /** Carries out every pending attempt dated today or before (the payer's bank's daily run). */
  async runDue(options: { callback?: CallbackMode } = {}) {
    const day = today(this.settings.now())
    const due = [...this.state.cobsr.values()].filter(
      (c) => c.status === "ATIVA" && c.tentativas.some((t) => pending(t) && t.dataLiquidacao <= day)
    )
    for (const cobr of due) await this.attempt(cobr.txid, options)
    return due
  }

  /** Ends a charge whose receiver never ordered a retry in time: REJEITADA stays, ATIVA past 7 days EXPIRADA. */
  async expireCobr(txid: string, options: { callback?: CallbackMode } = {}) {
    const cobr = this.cobr(txid)
    if (!isOpenCobr(cobr.status)) throw new ControlError(409, `the cobr is ${cobr.status}`)
    for (const t of cobr.tentativas) if (pending(t)) this.attemptStatus(t, "EXPIRADA")
    this.cobrStatus(cobr, "EXPIRADA")
    await this.notifyCobr(cobr, options.callback)
    return cobr
  }
}

const descriptions: Record<string, string> = {
  AM02: "Valor acima do máximo definido pelo usuário pagador",
  IRNT: "Saldo insuficiente na conta do usuário pagador",
  AC05: "Conta do usuário pagador encerrada",
  AC06: "Conta do usuário pagador bloqueada"
}
const describe = (codigo: string) => descriptions[codigo] ?? `Tentativa rejeitada (${codigo})`

/** The payer's side of Pix Automático, for tests: `psp.recurring`. */
export type Recurring = Pick<
  Automatico,
  | "state"
  | "rec"
  | "cobr"
  | "approve"
  | "reject"
  | "revoke"
  | "expire"
  | "setMaximum"
  | "setInsufficientFunds"
  | "payerCancel"
  | "attempt"
  | "runDue"
  | "expireCobr"
>
