import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { PspSimulator } from "../src/index.js"
import { call, cobBody, receiver, registerWebhook, token, txid } from "./helpers.js"

let psp: PspSimulator.PspSimulator
let hook: Awaited<ReturnType<typeof receiver>>
let bearer: string

beforeAll(async () => {
  psp = await PspSimulator.start({ pixKeys: ["merchant@example.com"], controlPort: 0 })
  hook = await receiver()
  bearer = await token(psp)
  await registerWebhook(psp, bearer, hook.url)
})

afterAll(async () => {
  await psp?.close()
  await hook?.close()
})

const paid = async (suffix: string, valor = "30.00") => {
  const id = txid(suffix)
  const put = await call(psp, { method: "PUT", path: `/v2/cob/${id}`, token: bearer, body: cobBody(valor) })
  expect(put.status).toBe(201)
  return psp.payCob(id, { callback: "never" })
}

const list = (query = "") => {
  const inicio = new Date(Date.now() - 60_000).toISOString()
  const fim = new Date(Date.now() + 60_000).toISOString()
  return call(psp, {
    method: "GET",
    path: `/v2/gn/infracoes?inicio=${inicio}&fim=${fim}${query}`,
    token: bearer
  })
}

const defend = (id: string, body: unknown) =>
  call(psp, { method: "POST", path: `/v2/gn/infracoes/${id}/defesa`, token: bearer, body })

const control = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${psp.controlUrl}${path}`, {
    method,
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  return { status: res.status, body: (await res.json()) as Record<string, unknown> }
}

describe("Efí-style MED infractions", () => {
  it("lists an opened infraction in Efí's shape, paginated, with its block and deadline", async () => {
    const pix = await paid("inf1")
    const opened = await control("POST", `/pix/${pix.endToEndId}/infracoes`, { valor: "20.00" })
    expect(opened.status).toBe(200)
    const res = await list("&paginacao.itensPorPagina=1")
    expect(res.status).toBe(200)
    expect(res.body.parametros.paginacao).toMatchObject({ paginaAtual: 0, itensPorPagina: 1 })
    const item = (res.body.infracoes as Array<Record<string, unknown>>)[0]
    expect(item).toMatchObject({
      endToEndId: expect.any(String),
      chave: "merchant@example.com",
      status: "ABERTA",
      tipo: "fraude",
      valor: expect.stringMatching(/^\d+\.\d{2}$/),
      criacao: expect.any(String),
      prazo: expect.any(String),
      bloqueioCautelar: { valor: expect.any(String) }
    })
    expect((await call(psp, { method: "GET", path: "/v2/gn/infracoes", token: bearer })).status).toBe(400)
  })

  it("takes a defence once (an identical repeat answers the same), refuses another and one after the deadline", async () => {
    const pix = await paid("inf2")
    const inf = psp.openInfraction(pix.endToEndId)
    const body = { analise: "rejeitado", justificativa: "Produto entregue." }
    expect((await defend(inf.idInfracao, { analise: "talvez", justificativa: "x" })).status).toBe(400)
    const first = await defend(inf.idInfracao, body)
    expect(first.status).toBe(200)
    expect(first.body).toMatchObject({ status: "EM_DEFESA", defesa: body })
    expect((await defend(inf.idInfracao, body)).status).toBe(200)
    const other = await defend(inf.idInfracao, { analise: "aceito", justificativa: "Ok." })
    expect(other.status).toBe(409)
    expect(other.headers["content-type"]).toContain("application/problem+json")

    const late = psp.openInfraction(pix.endToEndId, { valor: "1.00" })
    psp.expireInfraction(late.idInfracao)
    const refused = await defend(late.idInfracao, body)
    expect(refused.status).toBe(422)
    expect(refused.body.type).toMatch(/PrazoDefesaExpirado$/)
    expect((await defend("INFnope", body)).status).toBe(404)
  })

  it("upheld: the bank's MED devolução in GET /pix; rejected and cancelled only change the status", async () => {
    const pix = await paid("inf3")
    const fraud = psp.openInfraction(pix.endToEndId, { valor: "10.00" })
    const upheld = await control("POST", `/infracoes/${fraud.idInfracao}/concluir`, {
      status: "ACEITA",
      valorDevolvido: "4.00",
      callback: "never"
    })
    expect(upheld.body).toMatchObject({ status: "ACEITA", rtrId: expect.any(String) })
    const read = await call(psp, { method: "GET", path: `/v2/pix/${pix.endToEndId}`, token: bearer })
    expect(read.body.devolucoes).toMatchObject([
      { rtrId: upheld.body.rtrId, valor: "4.00", natureza: "MED_FRAUDE", status: "DEVOLVIDO" }
    ])
    expect(
      (await control("POST", `/infracoes/${fraud.idInfracao}/concluir`, { status: "REJEITADA" })).status
    ).toBe(409)
    const op = psp.openInfraction(pix.endToEndId, {
      valor: "5.00",
      tipo: "falha_operacional",
      bloqueio: false
    })
    expect(op.bloqueioCautelar).toBeUndefined()
    expect((await psp.concludeInfraction(op.idInfracao, { status: "CANCELADA" })).status).toBe("CANCELADA")
    const body = { analise: "aceito", justificativa: "Ok." }
    expect((await defend(op.idInfracao, body)).status).toBe(409)
  })
})
