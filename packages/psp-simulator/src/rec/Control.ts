/**
 * The control API of Pix Automático (plain HTTP, JSON), the payer's side for a terminal:
 * `POST /recs/{idRec}/approve|reject|revoke|expire`, `PUT /recs/{idRec}/maximum`,
 * `PUT /recs/{idRec}/insufficient-funds`, `POST /cobsr/{txid}/attempt|payer-cancel|expire`,
 * `POST /recurring/run-due` and `GET /recurring/state`.
 */
import { ControlError } from "../Bank.js"
import type { CallbackMode } from "../Callbacks.js"
import type { Recurring } from "./Automatico.js"
import { cobrJson, locRecJson, recCompletaJson, solicRecJson } from "./Json.js"
import type { Jornada } from "./Model.js"

const text = (body: Record<string, unknown>, name: string) => {
  const value = body[name]
  if (value === undefined) return undefined
  if (typeof value !== "string") throw new ControlError(400, `${name} must be a string`)
  return value
}

type CallbackOption = { readonly callback?: CallbackMode }

/** The controls of one authorization (`/recs/{idRec}/...`), or undefined when none matches. */
const recControl = async (
  a: Recurring,
  method: string,
  id: string,
  action: string | undefined,
  body: Record<string, unknown>,
  cb: CallbackOption
): Promise<[number, unknown] | undefined> => {
  const rec = (idRec: string) => recCompletaJson(a.rec(idRec), a.state)
  if (method === "POST" && action === "approve") {
    const jornada = text(body, "jornada")
    const txid = text(body, "txid")
    const pagador = body.pagador as Record<string, string> | undefined
    await a.approve(id, {
      ...(jornada === undefined ? {} : { jornada: jornada as Jornada }),
      ...(txid === undefined ? {} : { txid }),
      ...(pagador === undefined ? {} : { pagador }),
      ...cb
    })
    return [200, rec(id)]
  }
  if (method === "POST" && action === "reject") {
    const codigo = text(body, "codigo")
    const descricao = text(body, "descricao")
    await a.reject(id, {
      ...(codigo === undefined ? {} : { codigo }),
      ...(descricao === undefined ? {} : { descricao }),
      ...cb
    })
    return [200, rec(id)]
  }
  if (method === "POST" && action === "revoke") {
    await a.revoke(id, cb)
    return [200, rec(id)]
  }
  if (method === "POST" && action === "expire") {
    await a.expire(id, cb)
    return [200, rec(id)]
  }
  if (method === "PUT" && action === "maximum") {
    a.setMaximum(id, text(body, "valor"))
    return [200, rec(id)]
  }
  if (method === "PUT" && action === "insufficient-funds") {
    const attempts = body.attempts
    if (!(typeof attempts === "number" && Number.isInteger(attempts) && attempts >= 0))
      throw new ControlError(400, "attempts must be a whole number >= 0")
    a.setInsufficientFunds(id, attempts)
    return [200, rec(id)]
  }
  return undefined
}

/** Answers a recurring control, or undefined when the path is not one. */
export const recurringControl = async (
  a: Recurring,
  method: string,
  segments: ReadonlyArray<string>,
  body: Record<string, unknown>,
  callback: CallbackMode | undefined
): Promise<[number, unknown] | undefined> => {
  const [first, id, action] = segments
  const cb = callback === undefined ? {} : { callback }
  const cobr = (txid: string) => cobrJson(a.cobr(txid), a.state)
  if (method === "GET" && first === "recurring" && id === "state")
    return [
      200,
      {
        locs: [...a.state.locs.values()].map(locRecJson),
        recs: [...a.state.recs.values()].map((r) => recCompletaJson(r, a.state)),
        solicitacoes: [...a.state.solicitacoes.values()].map((s) => solicRecJson(s, a.state, false)),
        cobsr: [...a.state.cobsr.values()].map((c) => cobrJson(c, a.state))
      }
    ]
  if (method === "POST" && first === "recurring" && id === "run-due")
    return [200, { cobsr: (await a.runDue(cb)).map((c) => cobrJson(c, a.state)) }]
  if (first === "recs" && id !== undefined && segments.length === 3) {
    const reply = await recControl(a, method, id, action, body, cb)
    if (reply) return reply
  }
  if (first === "cobsr" && id !== undefined && segments.length === 3 && method === "POST") {
    if (action === "attempt") {
      const codigo = text(body, "codigo")
      await a.attempt(id, { ...(codigo === undefined ? {} : { codigo }), ...cb })
      return [200, cobr(id)]
    }
    if (action === "payer-cancel") {
      await a.payerCancel(id, cb)
      return [200, cobr(id)]
    }
    if (action === "expire") {
      await a.expireCobr(id, cb)
      return [200, cobr(id)]
    }
  }
  return undefined
}
