/**
 * The charges' locations (API Pix, tag CobPayload): a GET on a cob's or cobv's `location`, with
 * no client certificate and no token, answers a JWS signed with the key its header's `jku`
 * serves; its payload is the charge as the payer's PSP sees it, for a cobv with the amount of the
 * intended payment date (`DPP`). The figures are worked out here by hand from the terms.
 */
import { constants, createPublicKey, type JsonWebKey, verify } from "node:crypto"
import * as https from "node:https"
import { must } from "@pixgate/testkit/must"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { PspSimulator } from "../src/index.js"
import { call, cobBody, token, txid } from "./helpers.js"

let psp: PspSimulator.PspSimulator
// Tuesday 2026-11-24, 09:00 in São Paulo.
const clock = new Date("2026-11-24T12:00:00.000Z")
let bearer: string

beforeAll(async () => {
  psp = await PspSimulator.start({ now: () => clock, pixKeys: ["merchant@example.com"] })
  bearer = await token(psp)
})

afterAll(async () => {
  await psp?.close()
})

/** A GET as a payer's PSP makes it: HTTPS trusting the test CA, no client certificate. */
const fetchLocation = (url: string) =>
  new Promise<{ status: number; type: string; text: string }>((resolve, reject) => {
    const req = https.get(url, { ca: psp.tls.caPem, agent: false }, (response) => {
      const chunks: Array<Buffer> = []
      response.on("data", (chunk: Buffer) => chunks.push(chunk))
      response.on("end", () =>
        resolve({
          status: response.statusCode ?? 0,
          type: String(response.headers["content-type"]),
          text: Buffer.concat(chunks).toString("utf8")
        })
      )
    })
    req.on("error", reject)
  })

/** The payload of a JWS, after checking its signature with the key its `jku` serves. */
const verified = async (jws: string) => {
  const [header, payload, signature] = jws.split(".")
  const head = JSON.parse(Buffer.from(header, "base64url").toString("utf8"))
  expect(head).toMatchObject({ alg: "PS256" })
  const keys = JSON.parse((await fetchLocation(head.jku)).text).keys as Array<JsonWebKey & { kid: string }>
  const jwk = must(
    keys.find((k) => k.kid === head.kid),
    "keys.find((k) => k.kid === head.kid)"
  )
  const ok = verify(
    "sha256",
    Buffer.from(`${header}.${payload}`),
    {
      key: createPublicKey({ key: jwk, format: "jwk" }),
      padding: constants.RSA_PKCS1_PSS_PADDING,
      saltLength: 32
    },
    Buffer.from(signature, "base64url")
  )
  expect(ok).toBe(true)
  return JSON.parse(Buffer.from(payload, "base64url").toString("utf8"))
}

let count = 0
const put = async (kind: "cob" | "cobv", body: unknown) => {
  count += 1
  const id = txid(`loc${count}`)
  const answer = await call(psp, { method: "PUT", path: `/v2/${kind}/${id}`, token: bearer, body })
  expect(answer.status, answer.text).toBe(201)
  return answer.body
}

/** 100.00 due Thursday 2026-12-10, payable 5 days after: 5.00 off until 12-05, fine 2%, interest 1% a month. */
const cobvBody = {
  calendario: { dataDeVencimento: "2026-12-10", validadeAposVencimento: 5 },
  devedor: { nome: "Maria Silva", cpf: "52998224725" },
  valor: {
    original: "100.00",
    multa: { modalidade: 2, valorPerc: "2.00" },
    juros: { modalidade: 3, valorPerc: "1.00" },
    desconto: { modalidade: 1, descontoDataFixa: [{ data: "2026-12-05", valorPerc: "5.00" }] }
  },
  chave: "merchant@example.com"
}

describe("a cob's location", () => {
  it("answers the cob as a signed JWS, to a client with no certificate", async () => {
    const cob = await put("cob", cobBody("12.34"))
    expect(`https://${cob.location}`.startsWith(psp.locationUrl)).toBe(true)
    expect(cob.location).not.toContain("/cobv/")
    const answer = await fetchLocation(`https://${cob.location}`)
    expect(answer.status).toBe(200)
    expect(answer.type).toBe("application/jose")
    expect(await verified(answer.text)).toEqual({
      calendario: { criacao: clock.toISOString(), apresentacao: clock.toISOString(), expiracao: 3600 },
      txid: cob.txid,
      revisao: 0,
      status: "ATIVA",
      devedor: { nome: "Fulano de Tal", cpf: "12345678909" },
      chave: "merchant@example.com",
      solicitacaoPagador: "Pedido 42",
      valor: { original: "12.34" }
    })
  })

  it("a paid cob is gone (410); an unknown location is 404", async () => {
    const cob = await put("cob", cobBody("1.00"))
    await psp.payCob(cob.txid)
    const paid = await fetchLocation(`https://${cob.location}`)
    expect(paid.status).toBe(410)
    expect(JSON.parse(paid.text).type).toContain("CobPayloadNaoEncontrado")
    expect((await fetchLocation(`${psp.locationUrl}/qr/v2/nothinghere`)).status).toBe(404)
  })
})

describe("a cobv's location", () => {
  const payload = async (query: string) => {
    const cobv = await put("cobv", cobvBody)
    expect(cobv.location).toContain("/qr/v2/cobv/")
    const answer = await fetchLocation(`https://${cobv.location}${query}`)
    return { cobv, answer }
  }

  it("today (no DPP): the discount applies; the payload has the calendar, payer and receiver", async () => {
    const { cobv, answer } = await payload("")
    expect(answer.status, answer.text).toBe(200)
    const body = await verified(answer.text)
    expect(body).toMatchObject({
      calendario: {
        criacao: clock.toISOString(),
        apresentacao: clock.toISOString(),
        dataDeVencimento: "2026-12-10",
        validadeAposVencimento: 5
      },
      txid: cobv.txid,
      revisao: 0,
      status: "ATIVA",
      devedor: { nome: "Maria Silva", cpf: "52998224725" },
      recebedor: { nome: "PIXGATE SIMULADO", cidade: "SAO PAULO", uf: "SP" },
      chave: "merchant@example.com"
    })
    expect(Object.keys(body.recebedor).sort()).toEqual(["cep", "cidade", "cnpj", "logradouro", "nome", "uf"])
    expect(body.valor).toEqual({ original: "100.00", desconto: "5.00", final: "95.00" })
  })

  it("DPP on the due date: the original amount; 3 days late: fine 2.00 and interest 0.10", async () => {
    const onDue = await payload("?DPP=2026-12-10&codMun=3550308")
    expect((await verified(onDue.answer.text)).valor).toEqual({ original: "100.00", final: "100.00" })
    const late = await payload("?DPP=2026-12-13")
    expect((await verified(late.answer.text)).valor).toEqual({
      original: "100.00",
      multa: "2.00",
      juros: "0.10",
      final: "102.10"
    })
  })

  it("refuses a DPP after the last payable day, before today or not a date, and a bad codMun (400)", async () => {
    for (const query of ["?DPP=2026-12-16", "?DPP=2026-11-23", "?DPP=2026-02-30", "?codMun=123"]) {
      const { answer } = await payload(query)
      expect(answer.status, query).toBe(400)
      const problem = JSON.parse(answer.text)
      expect(problem.type, query).toContain("CobPayloadOperacaoInvalida")
      expect(problem.violacoes[0].propriedade, query).toBe(query.slice(1).split("=")[0])
    }
  })
})
