/**
 * The locations of cobs and cobvs: what the payer's PSP fetches after reading a dynamic BR Code.
 * API Pix (tag CobPayload): `GET /{pixUrlAccessToken}` serves an immediate charge,
 * `GET /cobv/{pixUrlAccessToken}?DPP=YYYY-MM-DD&codMun=NNNNNNN` a due-date charge with the amount
 * of the intended payment date (`DPP`, default today in São Paulo). The answer is a JWS
 * (`application/jose`) whose payload is the charge as the payer sees it, signed PS256 with the
 * server's key; the header's `jku` names the key set served at `/qr/v2/jwks`.
 *
 * These endpoints are open (any client, no certificate, no token), so they are served by their
 * own HTTPS server, apart from the mTLS API. `codMun` is checked for its form only: the
 * simulator knows national bank holidays, not municipal ones.
 */
import { constants, createHash, createPrivateKey, type KeyObject, sign, X509Certificate } from "node:crypto"
import type { IncomingMessage, ServerResponse } from "node:http"
import type { Bank } from "./Bank.js"
import * as Cobv from "./Cobv.js"
import type { Cob } from "./Model.js"
import { fromCents, toCents } from "./Model.js"

/** The simulated receiving merchant, as a payload's `recebedor` names it. */
const recebedor = (bank: Bank) => ({
  nome: bank.settings.merchantName,
  cnpj: "11222333000181",
  logradouro: "Avenida Paulista, 1000",
  cidade: bank.settings.merchantCity,
  uf: "SP",
  cep: "01310100"
})

const base64url = (data: Buffer | string) => Buffer.from(data).toString("base64url")

type Reply = { readonly status: number; readonly contentType: string; readonly body: string }

const problem = (status: number, type: string, title: string, detail: string, violacoes?: unknown) => ({
  status,
  contentType: "application/problem+json",
  body: JSON.stringify({
    type: `https://pix.bcb.gov.br/api/v2/error/${type}`,
    title,
    status,
    detail,
    violacoes
  })
})
const notFound = (status: 404 | 410, detail: string) =>
  problem(status, "CobPayloadNaoEncontrado", "Cobrança não encontrada.", detail)
const invalid = (razao: string, propriedade: string, valor: string) =>
  problem(400, "CobPayloadOperacaoInvalida", "Operação inválida.", "A requisição não respeita o schema.", [
    { razao, propriedade, valor }
  ])

/** The charge a location path names, when it names one. */
const cobAt = (bank: Bank, path: string): Cob | undefined => {
  const location = `${bank.settings.locationHost()}${path}`
  for (const cob of bank.state.cobs.values()) if (cob.loc.location === location) return cob
  return undefined
}

const common = (cob: Cob) => ({
  txid: cob.txid,
  revisao: 0,
  status: cob.status,
  ...(cob.devedor ? { devedor: cob.devedor } : {}),
  chave: cob.chave,
  solicitacaoPagador: cob.solicitacaoPagador,
  infoAdicionais: cob.infoAdicionais
})

/** Signs a payload as a JWS (PS256) whose header names the key and the key set's address. */
const makeJws = (bank: Bank, key: KeyObject, kid: string) => (payload: unknown) => {
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

/** A due-date charge's location: its amount on the intended payment date (`DPP`). */
const answerCobv = (
  bank: Bank,
  jws: (payload: unknown) => string,
  url: URL,
  cob: Cob,
  terms: NonNullable<Cob["vencimento"]>,
  now: Date
): Reply => {
  const criacao = cob.criacao.toISOString()
  const apresentacao = now.toISOString()
  const today = Cobv.saoPauloDay(now)
  const codMun = url.searchParams.get("codMun")
  if (codMun !== null && !/^\d{7}$/.test(codMun)) return invalid("codMun must be 7 digits.", "codMun", codMun)
  const dpp = url.searchParams.get("DPP")
  let pay = today
  if (dpp !== null) {
    const day = /^\d{4}-\d{2}-\d{2}$/.test(dpp) ? Cobv.dateOf(dpp) : Number.NaN
    if (!Number.isInteger(day) || new Date(day * 86_400_000).toISOString().slice(0, 10) !== dpp)
      return invalid("DPP must be a date YYYY-MM-DD.", "DPP", dpp)
    if (day < today) return invalid("DPP is before today.", "DPP", dpp)
    pay = day
  }
  if (pay > Cobv.lastDay(terms)) {
    return dpp === null
      ? notFound(410, "The charge is past its last payable day.")
      : invalid("DPP is after the charge's last payable day.", "DPP", dpp)
  }
  const original = toCents(cob.valor.original)
  const parts = Cobv.partsOn(original, terms, pay)
  const shown = (cents: number) => (cents === 0 ? undefined : fromCents(cents))
  const valor = Object.fromEntries(
    Object.entries({
      original: cob.valor.original,
      multa: shown(parts.multa),
      juros: shown(parts.juros),
      abatimento: shown(parts.abatimento),
      desconto: shown(parts.desconto),
      final: fromCents(parts.final)
    }).filter(([, v]) => v !== undefined)
  )
  return {
    status: 200,
    contentType: "application/jose",
    body: jws({
      calendario: {
        criacao,
        apresentacao,
        dataDeVencimento: terms.dataDeVencimento,
        validadeAposVencimento: terms.validadeAposVencimento
      },
      ...common(cob),
      recebedor: recebedor(bank),
      valor
    })
  }
}

/** The location server's request handler. */
export const makeLocationHandler = (settings: {
  readonly bank: Bank
  readonly keyPem: string
  readonly certPem: string
}) => {
  const { bank } = settings
  const key = createPrivateKey(settings.keyPem)
  const cert = new X509Certificate(settings.certPem)
  const kid = createHash("sha256").update(cert.raw).digest("base64url")
  const jwks = {
    keys: [
      {
        ...cert.publicKey.export({ format: "jwk" }),
        kid,
        use: "sig",
        alg: "PS256",
        x5c: [cert.raw.toString("base64")]
      }
    ]
  }
  const jws = makeJws(bank, key, kid)

  const answer = (url: URL): Reply => {
    if (url.pathname === "/qr/v2/jwks")
      return { status: 200, contentType: "application/json", body: JSON.stringify(jwks) }
    const cob = cobAt(bank, url.pathname)
    if (cob === undefined) return notFound(404, "No charge at this location.")
    // A charge that can no longer be paid is no longer shown (the standard leaves it to the PSP).
    if (cob.status !== "ATIVA") return notFound(410, `The charge is ${cob.status}.`)
    const now = bank.settings.now()
    const terms = cob.vencimento
    if (terms !== undefined) return answerCobv(bank, jws, url, cob, terms, now)
    if (now.getTime() >= cob.criacao.getTime() + cob.expiracao * 1000)
      return notFound(410, "The charge expired.")
    return {
      status: 200,
      contentType: "application/jose",
      body: jws({
        calendario: {
          criacao: cob.criacao.toISOString(),
          apresentacao: now.toISOString(),
          expiracao: cob.expiracao
        },
        ...common(cob),
        valor: cob.valor
      })
    }
  }

  return (request: IncomingMessage, response: ServerResponse) => {
    request.resume()
    const url = new URL(request.url ?? "/", "https://locations.local")
    const reply =
      request.method === "GET"
        ? answer(url)
        : problem(405, "OperacaoInvalida", "Method not allowed.", "Locations answer GET only.")
    response.writeHead(reply.status, { "content-type": reply.contentType })
    response.end(reply.body)
  }
}
