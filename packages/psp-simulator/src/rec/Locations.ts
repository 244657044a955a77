/**
 * The locations of recurrences (`GET /rec/{recUrlAccessToken}` of the OpenAPI, tag RecPayload):
 * what the payer's bank fetches after reading a recurrence's QR (journeys 2 to 4). The answer is
 * a JWS (`application/jose`, PS256, `jku` naming `/qr/v2/jwks`) whose payload is the RecPayload.
 * A recurrence that ended (EXPIRADA, REJEITADA, CANCELADA) answers 400 RecPayloadOperacaoInvalida;
 * a location without a recurrence 404 RecPayloadNaoEncontrado. Other paths go to the charges'
 * location handler.
 */
import { constants, createHash, createPrivateKey, sign, X509Certificate } from "node:crypto"
import type { IncomingMessage, ServerResponse } from "node:http"
import type { Bank } from "../Bank.js"
import type { TestPki } from "../Certificates.js"
import type { Automatico } from "./Automatico.js"
import { recPayloadJson } from "./Json.js"

const base64url = (data: Buffer | string) => Buffer.from(data).toString("base64url")

export const makeRecLocationHandler = (
  a: Automatico,
  bank: Bank,
  pki: Pick<TestPki, "serverKeyPem" | "serverCertPem">,
  charges: (request: IncomingMessage, response: ServerResponse) => void
) => {
  const key = createPrivateKey(pki.serverKeyPem)
  const cert = new X509Certificate(pki.serverCertPem)
  const kid = createHash("sha256").update(cert.raw).digest("base64url")
  const jws = (payload: unknown) => {
    const header = {
      alg: "PS256",
      typ: "JOSE",
      kid,
      jku: `https://${bank.settings.locationHost()}/qr/v2/jwks`
    }
    const input = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(payload))}`
    const signature = sign("sha256", Buffer.from(input), {
      key,
      padding: constants.RSA_PKCS1_PSS_PADDING,
      saltLength: 32
    })
    return `${input}.${base64url(signature)}`
  }
  const problem = (status: number, type: string, title: string, detail: string) =>
    JSON.stringify({ type: `https://pix.bcb.gov.br/api/v2/error/${type}`, title, status, detail })

  return (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? "/", "https://locations.local")
    if (request.method !== "GET" || !url.pathname.startsWith("/qr/v2/rec/")) return charges(request, response)
    request.resume()
    a.sweep()
    const location = `${bank.settings.locationHost()}${url.pathname}`
    const loc = [...a.state.locs.values()].find((l) => l.location === location)
    const rec = loc?.idRec === undefined ? undefined : a.state.recs.get(loc.idRec)
    const [status, contentType, body] = !rec
      ? [
          404,
          "application/problem+json",
          problem(
            404,
            "RecPayloadNaoEncontrado",
            "Recorrência não encontrada.",
            "No recurrence at this location."
          )
        ]
      : rec.status === "EXPIRADA" || rec.status === "REJEITADA" || rec.status === "CANCELADA"
        ? [
            400,
            "application/problem+json",
            problem(
              400,
              "RecPayloadOperacaoInvalida",
              "Recorrência inválida.",
              `A recorrência encontra-se ${rec.status}.`
            )
          ]
        : [200, "application/jose", jws(recPayloadJson(rec, a.settings.ispb))]
    response.writeHead(status, { "content-type": contentType })
    response.end(body)
  }
}
