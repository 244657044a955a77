import * as BrCode from "./BrCode.js"
import type { CallbackMode, Callbacks } from "./Callbacks.js"
import * as Cobv from "./Cobv.js"
import {
  type Cob,
  type Devedor,
  type Devolucao,
  emptyState,
  endToEndId,
  fromCents,
  type ReceivedPix,
  randomAlphanumeric,
  type Send,
  type State,
  toCents,
  valorPattern
} from "./Model.js"

/**
 * How the simulated PSP decides a send it accepted: `manual` waits for a control call; `settle`
 * and `reject` answer `EM_PROCESSAMENTO` and decide right after, with the callback (Efí's way);
 * `instant` settles within the request (the answer already says `REALIZADO`), callback after.
 */
export type SendOutcome = "manual" | "settle" | "reject" | "instant"

/** Settings of the simulated bank. */
export interface BankSettings {
  /** The PSP's ISPB (8 digits), inside every end-to-end id. */
  readonly ispb: string
  /** Merchant name and city written into BR Codes. */
  readonly merchantName: string
  readonly merchantCity: string
  /** Host and port of the charges' locations (their own HTTPS server, no client certificate). */
  readonly locationHost: () => string
  /** The account's Pix keys; any key is accepted when absent. */
  readonly pixKeys?: ReadonlyArray<string>
  /** What happens to an accepted send without a control call. */
  readonly sendOutcome: SendOutcome
  /** How callbacks are delivered unless a control call says otherwise. */
  readonly callbackMode: () => CallbackMode
  /**
   * What happens to a new refund (devolução) without a control call: `settle` (default:
   * `DEVOLVIDO` right after the answer), `reject` (`NAO_REALIZADO`) or `manual` (it stays
   * `EM_PROCESSAMENTO` until `settleRefund` or `rejectRefund`).
   */
  readonly refundOutcome?: () => RefundOutcome
  readonly now: () => Date
}

/** What happens to a new refund without a control call. */
export type RefundOutcome = "settle" | "reject" | "manual"

/** A request a control call cannot carry out (unknown id, wrong state). */
export class ControlError extends Error {
  constructor(
    readonly status: 404 | 409 | 400,
    message: string
  ) {
    super(message)
  }
}

/** Options of `payCob`. */
export interface PayOptions {
  /** The amount paid ("12.34"); the cob's amount when absent. Any amount is accepted. */
  readonly valor?: string
  /** The end-to-end id; a fresh one when absent. */
  readonly endToEndId?: string
  readonly infoPagador?: string
  readonly pagador?: { readonly nome: string; readonly cpf: string }
  /** How the callback is delivered; the simulator's default mode when absent. */
  readonly callback?: CallbackMode
  /** Pay a cob that is not ATIVA (already paid or removed) anyway. */
  readonly force?: boolean
}

/** Options of `settleSend` and `rejectSend`. */
export interface DecideOptions {
  readonly callback?: CallbackMode
  /** Why a send was not made (rejections only). */
  readonly motivo?: string
}

const iso = (at: Date) => at.toISOString()

/** The API Pix representation of a cob. */
export const cobJson = (cob: Cob, state: State) => ({
  calendario: cob.vencimento
    ? {
        criacao: iso(cob.criacao),
        dataDeVencimento: cob.vencimento.dataDeVencimento,
        validadeAposVencimento: cob.vencimento.validadeAposVencimento
      }
    : { criacao: iso(cob.criacao), expiracao: cob.expiracao },
  txid: cob.txid,
  revisao: 0,
  loc: {
    id: cob.loc.id,
    location: cob.loc.location,
    tipoCob: cob.loc.tipoCob,
    criacao: iso(cob.loc.criacao)
  },
  location: cob.loc.location,
  status: cob.status,
  ...(cob.devedor ? { devedor: cob.devedor } : {}),
  valor: cob.vencimento
    ? {
        ...cob.valor,
        ...(cob.vencimento.multa ? { multa: cob.vencimento.multa } : {}),
        ...(cob.vencimento.juros ? { juros: cob.vencimento.juros } : {}),
        ...(cob.vencimento.desconto ? { desconto: cob.vencimento.desconto } : {}),
        ...(cob.vencimento.abatimento ? { abatimento: cob.vencimento.abatimento } : {})
      }
    : cob.valor,
  chave: cob.chave,
  solicitacaoPagador: cob.solicitacaoPagador,
  infoAdicionais: cob.infoAdicionais,
  pixCopiaECola: cob.pixCopiaECola,
  ...(cob.pix.length > 0
    ? {
        pix: cob.pix.flatMap((id) => {
          const pix = state.pix.get(id)
          return pix === undefined ? [] : [pixJson(pix)]
        })
      }
    : {})
})

/** The API Pix representation of a refund. */
export const devolucaoJson = (devolucao: Devolucao) => ({
  id: devolucao.id,
  rtrId: devolucao.rtrId,
  valor: devolucao.valor,
  natureza: devolucao.natureza,
  descricao: devolucao.descricao,
  motivo: devolucao.motivo,
  horario: {
    solicitacao: iso(devolucao.solicitacao),
    ...(devolucao.liquidacao ? { liquidacao: iso(devolucao.liquidacao) } : {})
  },
  status: devolucao.status
})

/** The API Pix representation of a received Pix. */
export const pixJson = (pix: ReceivedPix) => ({
  endToEndId: pix.endToEndId,
  txid: pix.txid,
  valor: pix.valor,
  chave: pix.chave,
  horario: iso(pix.horario),
  infoPagador: pix.infoPagador,
  pagador: pix.pagador,
  ...(pix.devolucoes.length > 0 ? { devolucoes: pix.devolucoes.map(devolucaoJson) } : {})
})

/** The Efí-style answer to a send request. */
export const sendAcceptedJson = (send: Send) => ({
  idEnvio: send.idEnvio,
  e2eId: send.e2eId,
  valor: send.valor,
  horario: { solicitacao: iso(send.solicitacao) },
  status: send.status
})

/** The Efí-style status of a send. */
export const sendJson = (send: Send) => ({
  endToEndId: send.e2eId,
  idEnvio: send.idEnvio,
  valor: send.valor,
  chave: send.pagadorChave,
  status: send.status,
  infoPagador: send.infoPagador,
  horario: {
    solicitacao: iso(send.solicitacao),
    ...(send.liquidacao ? { liquidacao: iso(send.liquidacao) } : {})
  },
  favorecido: { chave: send.favorecidoChave },
  ...(send.erro ? { gnExtras: { erro: send.erro } } : {})
})

/** The Efí-style send callback item. */
const sendCallbackJson = (send: Send) => ({
  endToEndId: send.e2eId,
  valor: send.valor,
  horario: iso(send.liquidacao ?? send.solicitacao),
  chave: send.pagadorChave,
  status: send.status,
  tipo: "SOLICITACAO",
  gnExtras: { idEnvio: send.idEnvio, ...(send.erro ? { erro: send.erro } : {}) }
})

/** The input of a cob, already validated. */
export interface CobInput {
  readonly expiracao: number
  readonly devedor?: Devedor
  readonly valor: { readonly original: string; readonly modalidadeAlteracao?: number }
  readonly chave: string
  readonly solicitacaoPagador?: string
  readonly infoAdicionais?: ReadonlyArray<{ readonly nome: string; readonly valor: string }>
  /** A cobv's calendar and terms. */
  readonly vencimento?: Cobv.CobvTerms
}

/** The simulated PSP's books: cobs, received Pix, refunds, sends and webhooks, in memory. */
export class Bank {
  readonly state: State = emptyState()

  constructor(
    readonly settings: BankSettings,
    readonly callbacks: Callbacks
  ) {}

  /** Whether `chave` belongs to the account. */
  ownsKey(chave: string) {
    return this.settings.pixKeys === undefined || this.settings.pixKeys.includes(chave)
  }

  /** Creates a cob, or finds the one an identical earlier request created. */
  putCob(
    txid: string,
    input: CobInput,
    fingerprint: string
  ): { readonly cob: Cob; readonly created: boolean } | "conflict" {
    const existing = this.state.cobs.get(txid)
    if (existing) return existing.fingerprint === fingerprint ? { cob: existing, created: false } : "conflict"
    const now = this.settings.now()
    const locId = this.state.nextLocId++
    // The standard serves a cobv at `/cobv/{pixUrlAccessToken}` (the payer's PSP adds DPP and codMun).
    const location = `${this.settings.locationHost()}/qr/v2/${input.vencimento ? "cobv/" : ""}${randomAlphanumeric(32).toLowerCase()}`
    const cob: Cob = {
      txid,
      criacao: now,
      expiracao: input.expiracao,
      status: "ATIVA",
      ...(input.devedor ? { devedor: input.devedor } : {}),
      valor: input.valor,
      chave: input.chave,
      ...(input.solicitacaoPagador === undefined ? {} : { solicitacaoPagador: input.solicitacaoPagador }),
      ...(input.infoAdicionais === undefined ? {} : { infoAdicionais: input.infoAdicionais }),
      loc: { id: locId, location, tipoCob: input.vencimento ? "cobv" : "cob", criacao: now },
      ...(input.vencimento ? { vencimento: input.vencimento } : {}),
      pixCopiaECola: BrCode.dynamic({
        location,
        merchantName: this.settings.merchantName,
        merchantCity: this.settings.merchantCity
      }),
      fingerprint,
      pix: []
    }
    this.state.cobs.set(txid, cob)
    return { cob, created: true }
  }

  /** Pays a cob (any amount, even after it expired) and posts the `{ pix: [...] }` callback. */
  async payCob(txid: string, options: PayOptions = {}): Promise<ReceivedPix> {
    const cob = this.state.cobs.get(txid)
    if (!cob) throw new ControlError(404, `no cob with txid ${txid}`)
    if (cob.status !== "ATIVA" && !options.force) {
      throw new ControlError(409, `cob ${txid} is ${cob.status}; pass force to pay it anyway`)
    }
    // A cobv's payer's bank pays what the terms give today; a cob's, its amount.
    const valor =
      options.valor ??
      (cob.vencimento
        ? fromCents(
            Cobv.amountOn(toCents(cob.valor.original), cob.vencimento, Cobv.saoPauloDay(this.settings.now()))
          )
        : cob.valor.original)
    if (!valorPattern.test(valor)) throw new ControlError(400, `valor must look like 12.34, got ${valor}`)
    const id = options.endToEndId ?? endToEndId("E", this.settings.ispb, this.settings.now())
    if (this.state.pix.has(id)) throw new ControlError(409, `a Pix with endToEndId ${id} exists`)
    const pix: ReceivedPix = {
      endToEndId: id,
      txid,
      valor,
      chave: cob.chave,
      horario: this.settings.now(),
      ...(options.infoPagador === undefined ? {} : { infoPagador: options.infoPagador }),
      pagador: options.pagador ?? { nome: "Pagador Simulado", cpf: "***.456.789-**" },
      devolucoes: []
    }
    this.state.pix.set(id, pix)
    cob.pix.push(id)
    cob.status = "CONCLUIDA"
    await this.callbacks.dispatch(
      cob.chave,
      { pix: [pixJson(pix)] },
      options.callback ?? this.settings.callbackMode()
    )
    return pix
  }

  /**
   * A devolução the bank performs on its own for a MED (natureza `MED_FRAUDE` or
   * `MED_OPERACIONAL`), not requested through the API: settled at once (`DEVOLVIDO`), shown in
   * `GET /pix` and posted in the `{ pix: [...] }` callback (unless `callback` says otherwise).
   */
  async medReturn(
    e2e: string,
    input: {
      readonly valor: string
      readonly natureza: "MED_FRAUDE" | "MED_OPERACIONAL"
      readonly callback?: CallbackMode
    }
  ): Promise<Devolucao> {
    const pix = this.state.pix.get(e2e)
    if (!pix) throw new ControlError(404, `no Pix with endToEndId ${e2e}`)
    if (!valorPattern.test(input.valor))
      throw new ControlError(400, `valor must look like 12.34, got ${input.valor}`)
    const returned = pix.devolucoes
      .filter((d) => d.status !== "NAO_REALIZADO")
      .reduce((sum, d) => sum + toCents(d.valor), 0)
    if (returned + toCents(input.valor) > toCents(pix.valor))
      throw new ControlError(409, `the Pix ${e2e} has less than ${input.valor} left to return`)
    const now = this.settings.now()
    const devolucao: Devolucao = {
      id: `MED${now.getTime()}${pix.devolucoes.length}`,
      rtrId: endToEndId("D", this.settings.ispb, now),
      valor: input.valor,
      natureza: input.natureza,
      solicitacao: now,
      liquidacao: now,
      status: "DEVOLVIDO",
      fingerprint: `med:${input.natureza}:${input.valor}`
    }
    pix.devolucoes.push(devolucao)
    await this.callbacks.dispatch(
      pix.chave,
      { pix: [pixJson(pix)] },
      input.callback ?? this.settings.callbackMode()
    )
    return devolucao
  }

  /** Removes a cob as the PSP would when it expires or is cancelled (`REMOVIDA_PELO_PSP`). */
  removeCob(txid: string) {
    const cob = this.state.cobs.get(txid)
    if (!cob) throw new ControlError(404, `no cob with txid ${txid}`)
    cob.status = "REMOVIDA_PELO_PSP"
    return cob
  }

  /** Requests a refund of a received Pix; it settles right after (DEVOLVIDO) with a callback. */
  refund(
    pix: ReceivedPix,
    input: { id: string; valor: string; natureza: string; descricao?: string },
    fingerprint: string
  ): { readonly devolucao: Devolucao; readonly created: boolean } | "conflict" | "exceeds" {
    const existing = pix.devolucoes.find((devolucao) => devolucao.id === input.id)
    if (existing)
      return existing.fingerprint === fingerprint ? { devolucao: existing, created: false } : "conflict"
    const refunded = pix.devolucoes
      .filter((devolucao) => devolucao.status !== "NAO_REALIZADO")
      .reduce((sum, devolucao) => sum + toCents(devolucao.valor), 0)
    if (refunded + toCents(input.valor) > toCents(pix.valor)) return "exceeds"
    const devolucao: Devolucao = {
      id: input.id,
      rtrId: endToEndId("D", this.settings.ispb, this.settings.now()),
      valor: input.valor,
      natureza: input.natureza,
      ...(input.descricao === undefined ? {} : { descricao: input.descricao }),
      solicitacao: this.settings.now(),
      status: "EM_PROCESSAMENTO",
      fingerprint
    }
    pix.devolucoes.push(devolucao)
    const outcome = this.settings.refundOutcome?.() ?? "settle"
    if (outcome !== "manual")
      setImmediate(() => {
        if (devolucao.status !== "EM_PROCESSAMENTO") return
        this.decideRefund(pix, devolucao, outcome === "settle" ? "DEVOLVIDO" : "NAO_REALIZADO")
      })
    return { devolucao, created: true }
  }

  private decideRefund(
    pix: ReceivedPix,
    devolucao: Devolucao,
    status: "DEVOLVIDO" | "NAO_REALIZADO",
    motivo = "Devolução recusada pelo PSP simulado"
  ) {
    devolucao.status = status
    if (status === "DEVOLVIDO") devolucao.liquidacao = this.settings.now()
    else devolucao.motivo = motivo
    void this.callbacks.dispatch(pix.chave, { pix: [pixJson(pix)] }, this.settings.callbackMode())
    return devolucao
  }

  /** Decides a refund still `EM_PROCESSAMENTO` (`DEVOLVIDO` or `NAO_REALIZADO`), with its callback. */
  decideRefundById(endToEndId: string, id: string, status: "DEVOLVIDO" | "NAO_REALIZADO", motivo?: string) {
    const pix = this.state.pix.get(endToEndId)
    const devolucao = pix?.devolucoes.find((d) => d.id === id)
    if (pix === undefined || devolucao === undefined)
      throw new ControlError(404, `no refund ${id} of ${endToEndId}`)
    if (devolucao.status !== "EM_PROCESSAMENTO")
      throw new ControlError(409, `refund ${id} is ${devolucao.status}`)
    return this.decideRefund(pix, devolucao, status, motivo)
  }

  /** Accepts a send, or finds the one an identical earlier request created. */
  putSend(
    input: {
      idEnvio: string
      valor: string
      pagadorChave: string
      infoPagador?: string
      favorecidoChave: string
    },
    fingerprint: string
  ): { readonly send: Send; readonly created: boolean } | "conflict" {
    const existing = this.state.sends.get(input.idEnvio)
    if (existing)
      return existing.fingerprint === fingerprint ? { send: existing, created: false } : "conflict"
    const now = this.settings.now()
    const instant = this.settings.sendOutcome === "instant"
    const send: Send = {
      ...input,
      e2eId: endToEndId("E", this.settings.ispb, now),
      solicitacao: now,
      status: instant ? "REALIZADO" : "EM_PROCESSAMENTO",
      ...(instant ? { liquidacao: now } : {}),
      fingerprint
    }
    this.state.sends.set(input.idEnvio, send)
    if (instant) {
      // Settled in the answer; the callback follows it, as the PSP posts it after the request.
      setImmediate(() => {
        void this.callbacks
          .dispatch(send.pagadorChave, { pix: [sendCallbackJson(send)] }, this.settings.callbackMode())
          .catch(() => undefined)
      })
    } else if (this.settings.sendOutcome !== "manual") {
      const outcome = this.settings.sendOutcome
      setImmediate(() => {
        if (send.status !== "EM_PROCESSAMENTO") return
        void (outcome === "settle" ? this.settleSend(send.idEnvio) : this.rejectSend(send.idEnvio)).catch(
          () => undefined
        )
      })
    }
    return { send, created: true }
  }

  /** Marks a send REALIZADO and posts the send callback to the payer key's webhook. */
  settleSend(idEnvio: string, options: DecideOptions = {}) {
    return this.decide(idEnvio, "REALIZADO", options)
  }

  /** Marks a send NAO_REALIZADO (with a reason) and posts the send callback. */
  rejectSend(idEnvio: string, options: DecideOptions = {}) {
    return this.decide(idEnvio, "NAO_REALIZADO", options)
  }

  private async decide(idEnvio: string, status: "REALIZADO" | "NAO_REALIZADO", options: DecideOptions) {
    const send = this.state.sends.get(idEnvio)
    if (!send) throw new ControlError(404, `no send with idEnvio ${idEnvio}`)
    if (send.status !== "EM_PROCESSAMENTO")
      throw new ControlError(409, `send ${idEnvio} is already ${send.status}`)
    send.status = status
    send.liquidacao = this.settings.now()
    if (status === "NAO_REALIZADO") {
      send.erro = {
        codigo: "AC03",
        origem: "PSP do favorecido",
        motivo: options.motivo ?? "Conta inexistente"
      }
    }
    await this.callbacks.dispatch(
      send.pagadorChave,
      { pix: [sendCallbackJson(send)] },
      options.callback ?? this.settings.callbackMode()
    )
    return send
  }
}
