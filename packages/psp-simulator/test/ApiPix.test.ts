import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { PspSimulator } from "../src/index.js"
import { basic, call, cobBody, receiver, token, txid } from "./helpers.js"

let psp: PspSimulator.PspSimulator
let clock = new Date("2026-11-24T12:00:00.000Z")
let hook: Awaited<ReturnType<typeof receiver>>
let bearer: string

beforeAll(async () => {
  psp = await PspSimulator.start({
    now: () => clock,
    pixKeys: ["merchant@example.com"],
    tokenTtlSeconds: 60,
    clients: [
      { clientId: "pixgate", clientSecret: "pixgate-secret" },
      { clientId: "reader", clientSecret: "reader-secret", scopes: ["cob.read"] }
    ]
  })
  hook = await receiver()
  bearer = await token(psp)
  const registered = await call(psp, {
    method: "PUT",
    path: "/v2/webhook/merchant%40example.com",
    token: bearer,
    body: { webhookUrl: hook.url }
  })
  expect(registered.status).toBe(200)
})

afterAll(async () => {
  await psp?.close()
  await hook?.close()
})

describe("mTLS", () => {
  it("refuses a client without a certificate during the handshake", async () => {
    await expect(call(psp, { method: "GET", path: "/v2/cob/x", credentials: "none" })).rejects.toThrow()
    expect(psp.requests.some((request) => request.path === "/v2/cob/x")).toBe(false)
  })

  it("accepts the client certificate as PEM and as PKCS#12", async () => {
    const pem = await call(psp, { method: "GET", path: "/v2/cob/unknowntxid", token: bearer })
    const pkcs12 = await call(psp, {
      method: "GET",
      path: "/v2/cob/unknowntxid",
      token: bearer,
      credentials: "pkcs12"
    })
    expect([pem.status, pkcs12.status]).toEqual([404, 404])
  })
})

describe("OAuth2", () => {
  it("grants requested scopes, refuses a wrong secret, an unknown grant and a scope not allowed", async () => {
    const path = "/oauth/token"
    const scoped = await call(psp, {
      method: "POST",
      path,
      headers: {
        authorization: basic("pixgate", "pixgate-secret"),
        "content-type": "application/x-www-form-urlencoded"
      },
      body: "grant_type=client_credentials&scope=cob.read%20pix.read"
    })
    expect(scoped.status).toBe(200)
    expect(scoped.body).toMatchObject({ token_type: "Bearer", expires_in: 60, scope: "cob.read pix.read" })
    const wrong = await call(psp, {
      method: "POST",
      path,
      headers: { authorization: basic("pixgate", "nope") },
      body: { grant_type: "client_credentials" }
    })
    expect([wrong.status, wrong.body.error]).toEqual([401, "invalid_client"])
    const grant = await call(psp, {
      method: "POST",
      path,
      headers: { authorization: basic("pixgate", "pixgate-secret") },
      body: { grant_type: "password" }
    })
    expect([grant.status, grant.body.error]).toEqual([400, "unsupported_grant_type"])
    const scope = await call(psp, {
      method: "POST",
      path,
      headers: { authorization: basic("reader", "reader-secret") },
      body: { grant_type: "client_credentials", scope: "cob.write" }
    })
    expect([scope.status, scope.body.error]).toEqual([400, "invalid_scope"])
  })

  it("answers 401 without a token, with an unknown or expired one, and 403 without the scope", async () => {
    const none = await call(psp, { method: "GET", path: "/v2/cob/whatever" })
    expect(none.status).toBe(401)
    expect(none.headers["content-type"]).toBe("application/problem+json")
    expect(none.headers["www-authenticate"]).toContain("invalid_token")
    expect((await call(psp, { method: "GET", path: "/v2/cob/whatever", token: "forged" })).status).toBe(401)
    const narrow = await token(psp, "cob.read")
    const denied = await call(psp, {
      method: "PUT",
      path: `/v2/cob/${txid("scope")}`,
      token: narrow,
      body: cobBody()
    })
    expect([denied.status, denied.body.type]).toEqual([
      403,
      "https://pix.bcb.gov.br/api/v2/error/AcessoNegado"
    ])
    const shortLived = await token(psp)
    clock = new Date(clock.getTime() + 61_000)
    expect((await call(psp, { method: "GET", path: "/v2/cob/whatever", token: shortLived })).status).toBe(401)
    bearer = await token(psp)
    expect((await call(psp, { method: "GET", path: "/v2/cob/whatever", token: bearer })).status).toBe(404)
  })

  it("expireTokens makes every issued token answer 401", async () => {
    const before = await token(psp)
    psp.expireTokens()
    expect((await call(psp, { method: "GET", path: "/v2/cob/whatever", token: before })).status).toBe(401)
    bearer = await token(psp)
  })
})

describe("cob", () => {
  it("creates a cob with a location and a BR Code, and a replay returns the same cob", async () => {
    const id = txid("create")
    const created = await call(psp, {
      method: "PUT",
      path: `/v2/cob/${id}`,
      token: bearer,
      body: cobBody("25.50")
    })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({
      txid: id,
      status: "ATIVA",
      calendario: { expiracao: 3600 },
      valor: { original: "25.50" },
      chave: "merchant@example.com",
      devedor: { nome: "Fulano de Tal", cpf: "12345678909" },
      solicitacaoPagador: "Pedido 42"
    })
    expect(created.body.location).toBe(created.body.loc.location)
    expect(created.body.pixCopiaECola).toMatch(/^000201/)
    expect(created.body.pixCopiaECola).toContain(created.body.location)
    const replay = await call(psp, {
      method: "PUT",
      path: `/v2/cob/${id}`,
      token: bearer,
      body: cobBody("25.50")
    })
    expect(replay.status).toBe(200)
    expect(replay.body.loc).toEqual(created.body.loc)
    expect(psp.state.cobs.size).toBeGreaterThanOrEqual(1)
    const other = await call(psp, {
      method: "PUT",
      path: `/v2/cob/${id}`,
      token: bearer,
      body: cobBody("99.00")
    })
    expect(other.status).toBe(400)
    expect(other.body.violacoes).toEqual([{ propriedade: "cob.txid", razao: expect.any(String) }])
    const read = await call(psp, { method: "GET", path: `/v2/cob/${id}`, token: bearer })
    expect(read.body.valor.original).toBe("25.50")
  })

  it("validates the request as the standard does, with RFC 7807 problems", async () => {
    const bad = await call(psp, {
      method: "PUT",
      path: "/v2/cob/short",
      token: bearer,
      body: {
        calendario: { expiracao: -1 },
        devedor: { nome: "X", cpf: "123", cnpj: "12345678000199" },
        valor: { original: "10" },
        chave: "someone-else@example.com",
        solicitacaoPagador: "x".repeat(141)
      }
    })
    expect(bad.status).toBe(400)
    expect(bad.headers["content-type"]).toBe("application/problem+json")
    expect(bad.body).toMatchObject({
      type: "https://pix.bcb.gov.br/api/v2/error/CobOperacaoInvalida",
      status: 400,
      title: expect.any(String),
      detail: expect.any(String)
    })
    expect(bad.body.violacoes.map((violacao: { propriedade: string }) => violacao.propriedade)).toEqual([
      "cob.txid",
      "cob.calendario.expiracao",
      "cob.devedor",
      "cob.valor.original",
      "cob.chave",
      "cob.solicitacaoPagador"
    ])
    const notJson = await call(psp, {
      method: "PUT",
      path: `/v2/cob/${txid("notjson")}`,
      token: bearer,
      body: "{"
    })
    expect(notJson.body.violacoes).toEqual([{ propriedade: "cob", razao: expect.any(String) }])
    const zero = await call(psp, {
      method: "PUT",
      path: `/v2/cob/${txid("zero")}`,
      token: bearer,
      body: cobBody("0.00")
    })
    expect(zero.status).toBe(400)
    expect(psp.state.cobs.has(txid("zero"))).toBe(false)
    const missing = await call(psp, { method: "GET", path: `/v2/cob/${txid("missing")}`, token: bearer })
    expect([missing.status, missing.body.type]).toEqual([
      404,
      "https://pix.bcb.gov.br/api/v2/error/CobNaoEncontrado"
    ])
  })
})

describe("pix received", () => {
  it("a paid cob is CONCLUIDA, its Pix is listed (paged), readable, and posted to the webhook", async () => {
    const ids = [txid("paid1"), txid("paid2"), txid("paid3")]
    for (const id of ids)
      await call(psp, { method: "PUT", path: `/v2/cob/${id}`, token: bearer, body: cobBody() })
    const first = await psp.payCob(ids[0], { valor: "9.99" })
    await psp.payCob(ids[1])
    await psp.payCob(ids[2])
    const cob = await call(psp, { method: "GET", path: `/v2/cob/${ids[0]}`, token: bearer })
    expect(cob.body.status).toBe("CONCLUIDA")
    expect(cob.body.pix).toEqual([expect.objectContaining({ endToEndId: first.endToEndId, valor: "9.99" })])
    expect(first.endToEndId).toMatch(/^E99999999\d{12}[a-zA-Z0-9]{11}$/)
    const callback = hook.received.find((item) => JSON.stringify(item.body).includes(first.endToEndId))
    expect(callback?.path).toBe("/hooks/secret-segment/pix")
    expect(callback?.body).toEqual({
      pix: [
        {
          endToEndId: first.endToEndId,
          txid: ids[0],
          valor: "9.99",
          chave: "merchant@example.com",
          horario: clock.toISOString(),
          pagador: expect.any(Object)
        }
      ]
    })
    const window = `inicio=${new Date(clock.getTime() - 1000).toISOString()}&fim=${new Date(clock.getTime() + 1000).toISOString()}`
    const page0 = await call(psp, {
      method: "GET",
      path: `/v2/pix?${window}&paginacao.itensPorPagina=2`,
      token: bearer
    })
    expect(page0.status).toBe(200)
    expect(page0.body.parametros.paginacao).toEqual({
      paginaAtual: 0,
      itensPorPagina: 2,
      quantidadeDePaginas: 2,
      quantidadeTotalDeItens: 3
    })
    expect(page0.body.pix).toHaveLength(2)
    const page1 = await call(psp, {
      method: "GET",
      path: `/v2/pix?${window}&paginacao.itensPorPagina=2&paginacao.paginaAtual=1`,
      token: bearer
    })
    expect(page1.body.pix).toHaveLength(1)
    const byTxid = await call(psp, { method: "GET", path: `/v2/pix?${window}&txid=${ids[1]}`, token: bearer })
    expect(byTxid.body.pix.map((pix: { txid: string }) => pix.txid)).toEqual([ids[1]])
    const one = await call(psp, { method: "GET", path: `/v2/pix/${first.endToEndId}`, token: bearer })
    expect(one.body).toMatchObject({ endToEndId: first.endToEndId, valor: "9.99" })
    await expect(psp.payCob(ids[0])).rejects.toThrow(/CONCLUIDA/)
  })

  it("refuses a list query without a window or with fim before inicio", async () => {
    const none = await call(psp, { method: "GET", path: "/v2/pix", token: bearer })
    expect([none.status, none.body.type]).toEqual([
      400,
      "https://pix.bcb.gov.br/api/v2/error/PixConsultaInvalida"
    ])
    const backwards = await call(psp, {
      method: "GET",
      path: "/v2/pix?inicio=2026-01-02T00:00:00Z&fim=2026-01-01T00:00:00Z",
      token: bearer
    })
    expect(backwards.body.violacoes).toEqual([{ propriedade: "fim", razao: expect.any(String) }])
    const missing = await call(psp, { method: "GET", path: `/v2/pix/E${"1".repeat(31)}`, token: bearer })
    expect(missing.body.type).toBe("https://pix.bcb.gov.br/api/v2/error/PixNaoEncontrado")
  })

  it("refunds up to the Pix's amount, idempotent per id", async () => {
    const id = txid("refund")
    await call(psp, { method: "PUT", path: `/v2/cob/${id}`, token: bearer, body: cobBody("10.00") })
    const pix = await psp.payCob(id)
    const path = `/v2/pix/${pix.endToEndId}/devolucao/dev1`
    const refund = await call(psp, { method: "PUT", path, token: bearer, body: { valor: "7.00" } })
    expect(refund.status).toBe(201)
    expect(refund.body).toMatchObject({
      id: "dev1",
      valor: "7.00",
      status: "EM_PROCESSAMENTO",
      natureza: "ORIGINAL"
    })
    expect(refund.body.rtrId).toMatch(/^D99999999/)
    const replay = await call(psp, { method: "PUT", path, token: bearer, body: { valor: "7.00" } })
    expect([replay.status, replay.body.rtrId]).toEqual([200, refund.body.rtrId])
    const tooMuch = await call(psp, {
      method: "PUT",
      path: `/v2/pix/${pix.endToEndId}/devolucao/dev2`,
      token: bearer,
      body: { valor: "3.01" }
    })
    expect([tooMuch.status, tooMuch.body.type]).toEqual([
      400,
      "https://pix.bcb.gov.br/api/v2/error/PixDevolucaoInvalida"
    ])
    const read = await call(psp, { method: "GET", path, token: bearer })
    expect(read.body.status).toBe("DEVOLVIDO")
    const withRefunds = await call(psp, { method: "GET", path: `/v2/pix/${pix.endToEndId}`, token: bearer })
    expect(withRefunds.body.devolucoes).toHaveLength(1)
  })
})

describe("webhook", () => {
  it("reads, refuses a foreign key or a bad URL, and deletes", async () => {
    const read = await call(psp, { method: "GET", path: "/v2/webhook/merchant%40example.com", token: bearer })
    expect(read.body).toMatchObject({ chave: "merchant@example.com", webhookUrl: hook.url })
    const foreign = await call(psp, {
      method: "PUT",
      path: "/v2/webhook/other%40example.com",
      token: bearer,
      body: { webhookUrl: "not a url" }
    })
    expect(foreign.status).toBe(400)
    expect(foreign.body.violacoes.map((violacao: { propriedade: string }) => violacao.propriedade)).toEqual([
      "chave",
      "webhook.webhookUrl"
    ])
    const scratch = await PspSimulator.start({ pki: psp.tls })
    try {
      const scratchToken = await token(scratch)
      const path = "/v2/webhook/k1"
      await call(scratch, { method: "PUT", path, token: scratchToken, body: { webhookUrl: hook.url } })
      expect((await call(scratch, { method: "DELETE", path, token: scratchToken })).status).toBe(204)
      const gone = await call(scratch, { method: "GET", path, token: scratchToken })
      expect([gone.status, gone.body.type]).toEqual([
        404,
        "https://pix.bcb.gov.br/api/v2/error/WebhookNaoEncontrado"
      ])
    } finally {
      await scratch.close()
    }
  })
})
