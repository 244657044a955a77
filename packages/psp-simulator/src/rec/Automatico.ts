/**
 * The payer's bank and the receiver's PSP for Pix Automático, in one: what happens to
 * recurrences, confirmation requests and recurring charges when the receiver calls the API and
 * when the payer acts (approves, rejects, revokes, sets a maximum, lacks funds). Every status change
 * is recorded in `atualizacao` and notified to `/webhookrec` (`{url}/rec`) or `/webhookcobr`
 * (`{url}/cobr`).
 */
import { ControlError } from "../Bank.js"
import type { CallbackMode } from "../Callbacks.js"
import { endToEndId, fromCents, randomAlphanumeric, toCents } from "../Model.js"
import { addDays, today } from "./Calendar.js"
import { cobrNotificationJson, recNotificationJson } from "./Json.js"
import {
  type CobR,
  type CobRStatus,
  emptyRecState,
  finalRejeicaoCodigos,
  type Jornada,
  type Rec,
  type RecStatus,
  type Solicitante,
  type SolicRec,
  type SolicRecStatus,
  type Tentativa,
  type TentativaStatus
} from "./Model.js"

/** What the recurring side needs from the rest of the simulator. */
export interface AutomaticoSettings {
  readonly ispb: string
  readonly now: () => Date
  readonly locationHost: () => string
  readonly callbackMode: () => CallbackMode
  /** Posts a callback to the recurring webhook of `kind`. */
  readonly notify: (kind: "rec" | "cobr", body: unknown, mode: CallbackMode) => Promise<void>
  /** Books a Pix received for a paid attempt (so `/pix` lists it). */
  readonly receivePix: (pix: { endToEndId: string; txid: string; valor: string; horario: Date }) => void
  /** Pays an immediate charge (journey 3's first payment). */
  readonly payCob: (txid: string) => Promise<unknown>
}

/** Options of the payer's approval. */
export interface ApproveOptions {
  /** The journey; JORNADA_1 with a pending request, else JORNADA_3 with `dadosJornada.txid`, else JORNADA_2. */
  readonly jornada?: Jornada
  /** The immediate or due-date charge of journeys 3 and 4. */
  readonly txid?: string
  readonly pagador?: {
    readonly cpf?: string
    readonly cnpj?: string
    readonly ispbParticipante?: string
    readonly codMun?: string
  }
  readonly callback?: CallbackMode
}

const isOpenSolic = (status: SolicRecStatus) =>
  status === "CRIADA" || status === "ENVIADA" || status === "RECEBIDA"
const isOpenCobr = (status: CobRStatus) => status === "CRIADA" || status === "ATIVA"
const pending = (t: Tentativa) => t.status === "SOLICITADA" || t.status === "AGENDADA"

export class Automatico {
  readonly state = emptyRecState()

  constructor(readonly settings: AutomaticoSettings) {}

  private stamp = () => this.settings.now().toISOString().slice(0, 10).replace(/-/g, "")

  /** A fresh idRec: R, R|N (retries allowed or not), the ISPB, yyyyMMdd, 11 alphanumerics. */
  newIdRec(retries: boolean) {
    return `R${retries ? "R" : "N"}${this.settings.ispb}${this.stamp()}${randomAlphanumeric(11)}`
  }

  /** A fresh idSolicRec: SC, the ISPB, yyyyMMdd, 11 alphanumerics. */
  newIdSolicRec() {
    return `SC${this.settings.ispb}${this.stamp()}${randomAlphanumeric(11)}`
  }

  /** A fresh location of a recurrence. */
  newLoc() {
    const id = this.state.nextLocId++
    const location = `${this.settings.locationHost()}/qr/v2/rec/${randomAlphanumeric(32).toLowerCase()}`
    const loc = { id, location, criacao: this.settings.now() }
    this.state.locs.set(id, loc)
    return loc
  }

  recStatus(rec: Rec, status: RecStatus, mode?: CallbackMode) {
    rec.status = status
    rec.atualizacao.push({ status, data: this.settings.now() })
    return this.settings.notify(
      "rec",
      { recs: [recNotificationJson(rec)] },
      mode ?? this.settings.callbackMode()
    )
  }

  solicStatus(solic: SolicRec, status: SolicRecStatus) {
    solic.status = status
    solic.atualizacao.push({ status, data: this.settings.now() })
  }

  notifyCobr(cobr: CobR, mode?: CallbackMode) {
    return this.settings.notify(
      "cobr",
      { cobsr: [cobrNotificationJson(cobr)] },
      mode ?? this.settings.callbackMode()
    )
  }

  cobrStatus(cobr: CobR, status: CobRStatus) {
    cobr.status = status
    cobr.atualizacao.push({ status, data: this.settings.now() })
  }

  attemptStatus(t: Tentativa, status: TentativaStatus) {
    t.status = status
    t.atualizacao.push({ status, data: this.settings.now() })
  }

  /** Adds an attempt (SOLICITADA, then AGENDADA by the payer's bank). */
  schedule(cobr: CobR, dataLiquidacao: string, tipo: Tentativa["tipo"]) {
    const t: Tentativa = {
      dataLiquidacao,
      tipo,
      status: "SOLICITADA",
      endToEndId: endToEndId("E", this.settings.ispb, this.settings.now()),
      atualizacao: [{ status: "SOLICITADA", data: this.settings.now() }]
    }
    cobr.tentativas.push(t)
    this.attemptStatus(t, "AGENDADA")
    if (cobr.status === "CRIADA") this.cobrStatus(cobr, "ATIVA")
    return t
  }

  /**
   * Lazy expiries, run before every request and control: a confirmation request past
   * `dataExpiracaoSolicitacao` is EXPIRADA, and so is its recurrence if still CRIADA; an attempt
   * past its date still AGENDADA stays for a control (the simulator settles only when told).
   */
  sweep() {
    const now = this.settings.now()
    for (const solic of this.state.solicitacoes.values()) {
      if (!isOpenSolic(solic.status) || solic.dataExpiracaoSolicitacao > now) continue
      this.solicStatus(solic, "EXPIRADA")
      const rec = this.state.recs.get(solic.idRec)
      if (rec?.status === "CRIADA") void this.recStatus(rec, "EXPIRADA")
    }
  }

  rec(idRec: string) {
    const rec = this.state.recs.get(idRec)
    if (!rec) throw new ControlError(404, `no rec ${idRec}`)
    return rec
  }

  cobr(txid: string) {
    const cobr = this.state.cobsr.get(txid)
    if (!cobr) throw new ControlError(404, `no cobr ${txid}`)
    return cobr
  }

  /** The payer's bank receives an ENVIADA request: RECEBIDA. */
  deliverSolic(solic: SolicRec) {
    if (solic.status === "CRIADA") this.solicStatus(solic, "ENVIADA")
    if (solic.status === "ENVIADA") this.solicStatus(solic, "RECEBIDA")
  }

  private openSolic(rec: Rec) {
    return rec.solicitacoes
      .map((id) => this.state.solicitacoes.get(id))
      .find((s): s is SolicRec => s !== undefined && isOpenSolic(s.status))
  }

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
