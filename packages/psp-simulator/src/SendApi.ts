import { sendAcceptedJson, sendJson } from "./Bank.js"
import { toCents, valorPattern } from "./Model.js"
import { efiError, json } from "./Reply.js"
import { asObject, boundedString, type Route } from "./Route.js"

const idEnvioPattern = /^[a-zA-Z0-9]{1,35}$/

/** The Efí-style send routes: request a send by `idEnvio`, read its status. */
export const sendRoutes: ReadonlyArray<Route> = [
  {
    name: "send.put",
    method: "PUT",
    path: "/v3/gn/pix/:idEnvio",
    scope: "pix.send",
    handle: ({ params, body, bank }) => {
      const idEnvio = params.idEnvio
      if (!idEnvioPattern.test(idEnvio)) {
        return efiError(400, "json_invalido", "idEnvio must be 1 to 35 letters or digits.")
      }
      const request = asObject(body)
      const valor = typeof request?.valor === "string" ? request.valor : undefined
      if (valor === undefined || !valorPattern.test(valor) || toCents(valor) === 0) {
        return efiError(400, "json_invalido", "valor must be a string like 12.34, above 0.00.")
      }
      const pagador = asObject(request?.pagador)
      const pagadorChave = boundedString(pagador?.chave, 77)
      if (pagadorChave === undefined) return efiError(400, "json_invalido", "pagador.chave is required.")
      const infoPagador = pagador?.infoPagador
      if (infoPagador !== undefined && boundedString(infoPagador, 140, 0) === undefined) {
        return efiError(400, "json_invalido", "pagador.infoPagador: at most 140 characters.")
      }
      const favorecidoChave = boundedString(asObject(request?.favorecido)?.chave, 77)
      if (favorecidoChave === undefined)
        return efiError(400, "json_invalido", "favorecido.chave is required.")
      if (!bank.ownsKey(pagadorChave)) {
        return efiError(400, "chave_pagador_invalida", "pagador.chave is not a key of this account.")
      }
      const input = {
        idEnvio,
        valor,
        pagadorChave,
        ...(infoPagador === undefined ? {} : { infoPagador: infoPagador as string }),
        favorecidoChave
      }
      const outcome = bank.putSend(input, JSON.stringify(input))
      if (outcome === "conflict") {
        return efiError(409, "id_envio_duplicado", `idEnvio ${idEnvio} is already used by a different send.`)
      }
      return json(outcome.created ? 201 : 200, sendAcceptedJson(outcome.send))
    }
  },
  {
    name: "send.get",
    method: "GET",
    path: "/v2/gn/pix/enviados/id-envio/:idEnvio",
    scope: "gn.pix.send.read",
    handle: ({ params, bank }) => {
      const send = bank.state.sends.get(params.idEnvio)
      return send
        ? json(200, sendJson(send))
        : efiError(404, "pix_nao_encontrado", `No send with idEnvio ${params.idEnvio}.`)
    }
  }
]
