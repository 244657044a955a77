/**
 * The books and bookkeeping of Pix Automático in the simulator (ids, statuses and their history,
 * callbacks, scheduling, lazy expiries); `Automatico.ts` adds what the payer does.
 *
 * The payer's bank and the receiver's PSP for Pix Automático, in one: what happens to
 * recurrences, confirmation requests and recurring charges when the receiver calls the API and
 * when the payer acts (approves, rejects, revokes, sets a maximum, lacks funds). Every status change
 * is recorded in `atualizacao` and notified to `/webhookrec` (`{url}/rec`) or `/webhookcobr`
 * (`{url}/cobr`).
 */
import { ControlError } from "../Bank.js"
import type { CallbackMode } from "../Callbacks.js"
import { endToEndId, randomAlphanumeric } from "../Model.js"
import { cobrNotificationJson, recNotificationJson } from "./Json.js"
import {
  type CobR,
  type CobRStatus,
  emptyRecState,
  type Jornada,
  type Rec,
  type RecStatus,
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

export const isOpenSolic = (status: SolicRecStatus) =>
  status === "CRIADA" || status === "ENVIADA" || status === "RECEBIDA"
export const isOpenCobr = (status: CobRStatus) => status === "CRIADA" || status === "ATIVA"
export const pending = (t: Tentativa) => t.status === "SOLICITADA" || t.status === "AGENDADA"

export class AutomaticoBase {
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

  protected openSolic(rec: Rec) {
    return rec.solicitacoes
      .map((id) => this.state.solicitacoes.get(id))
      .find((s): s is SolicRec => s !== undefined && isOpenSolic(s.status))
  }
}
