import * as https from "node:https"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { PspSimulator } from "../src/index.js"
import { call, cobBody, eventually, receiver, token, txid } from "./helpers.js"

// A clock the tests move: 2026-12-02 12:00 São Paulo (a Wednesday).
let clock = new Date("2026-12-02T15:00:00Z")
const advanceDays = (days: number) => {
  clock = new Date(clock.getTime() + days * 86_400_000)
}
let psp: PspSimulator.PspSimulator
let hook: Awaited<ReturnType<typeof receiver>>
let bearer: string
let counter = 0

const recBody = (over: Record<string, unknown> = {}) => ({
  vinculo: {
    contrato: "63100862",
    devedor: { cpf: "45164632481", nome: "Fulano de Tal" },
    objeto: "Academia mensal"
  },
  calendario: { dataInicial: "2026-12-10", periodicidade: "MENSAL" },
  valor: { valorRec: "35.00" },
  politicaRetentativa: "PERMITE_3R_7D",
  ...over
})

const cobrBody = (idRec: string, dataDeVencimento: string, original = "35.00") => ({
  idRec,
  infoAdicional: "Mensalidade",
  calendario: { dataDeVencimento },
  valor: { original },
  ajusteDiaUtil: true,
  recebedor: { agencia: "0001", conta: "123456", tipoConta: "CORRENTE" }
})

const api = (method: string, path: string, body?: unknown) =>
  call(psp, { method, path, token: bearer, ...(body === undefined ? {} : { body }) })

const createRec = async (over: Record<string, unknown> = {}) => {
  const answer = await api("POST", "/v2/rec", recBody(over))
  expect(answer.status, answer.text).toBe(201)
  return answer.body
}

/** An approved recurrence through journey 2 (QR of the recurrence alone). */
const approvedRec = async (over: Record<string, unknown> = {}) => {
  const loc = await api("POST", "/v2/locrec")
  const rec = await createRec({ loc: loc.body.id, ...over })
  await psp.recurring.approve(rec.idRec)
  return rec.idRec as string
}

const newTxid = () => txid(`rc${++counter}`)

const callbacksOf = (path: "rec" | "cobr") =>
  hook.received
    .filter((item) => item.path.endsWith(`/${path}`))
    .map((item) => item.body as Record<string, never>)

beforeAll(async () => {
  psp = await PspSimulator.start({ now: () => clock, tokenTtlSeconds: 365 * 86_400 })
  hook = await receiver()
  bearer = await token(psp)
  expect((await api("PUT", "/v2/webhookrec", { webhookUrl: hook.url })).status).toBe(200)
  expect((await api("PUT", "/v2/webhookcobr", { webhookUrl: hook.url })).status).toBe(200)
})

beforeEach(() => {
  clock = new Date("2026-12-02T15:00:00Z")
  hook.received.length = 0
  psp.clearFaults()
})

afterAll(async () => {
  await psp?.close()
  await hook?.close()
})

describe("webhooks of Pix Automático", () => {
  it("registers /webhookrec and /webhookcobr, reads and deletes them", async () => {
    const rec = await api("GET", "/v2/webhookrec")
    expect(rec.body.webhookUrl).toBe(hook.url)
    expect(typeof rec.body.criacao).toBe("string")
    expect((await api("PUT", "/v2/webhookcobr", { webhookUrl: "not a url" })).body.type).toBe(
      "https://pix.bcb.gov.br/api/v2/error/WebhookCobROperacaoInvalida"
    )
    expect((await api("DELETE", "/v2/webhookcobr")).status).toBe(204)
    expect((await api("GET", "/v2/webhookcobr")).status).toBe(404)
    expect((await api("PUT", "/v2/webhookcobr", { webhookUrl: hook.url })).status).toBe(200)
  })

  it("asks for the standard's scopes", async () => {
    const narrow = await token(psp, "rec.read")
    const denied = await call(psp, { method: "POST", path: "/v2/rec", token: narrow, body: recBody() })
    expect(denied.status).toBe(403)
  })
})

describe("/rec and /locrec", () => {
  it("creates a recurrence with the idRec layout and the standard's fields", async () => {
    const rec = await createRec()
    expect(rec.idRec).toMatch(/^RR99999999 ?20261202[a-zA-Z0-9]{11}$/)
    expect(rec.status).toBe("CRIADA")
    expect(rec.politicaRetentativa).toBe("PERMITE_3R_7D")
    expect(rec.recebedor.cnpj).toMatch(/^[0-9A-Z]{14}$/)
    expect(rec.atualizacao).toEqual([{ status: "CRIADA", data: clock.toISOString() }])
    expect(rec.ativacao.tipoJornada).toBe("AGUARDANDO_DEFINICAO")
    const norec = await createRec({ politicaRetentativa: "NAO_PERMITE" })
    expect(norec.idRec.startsWith("RN99999999")).toBe(true)
  })

  it("refuses what the OpenAPI lists as violations", async () => {
    const both = await api(
      "POST",
      "/v2/rec",
      recBody({ valor: { valorRec: "1.00", valorMinimoRecebedor: "1.00" } })
    )
    expect(both.status).toBe(400)
    expect(both.body.type).toBe("https://pix.bcb.gov.br/api/v2/error/RecOperacaoInvalida")
    expect(both.body.violacoes.map((v: { propriedade: string }) => v.propriedade)).toContain("rec.valor")
    const past = await api(
      "POST",
      "/v2/rec",
      recBody({ calendario: { dataInicial: "2026-11-01", periodicidade: "MENSAL" } })
    )
    expect(past.body.violacoes[0].propriedade).toBe("rec.calendario.dataInicial")
    const loc = await api("POST", "/v2/locrec")
    await createRec({ loc: loc.body.id })
    const reused = await api("POST", "/v2/rec", recBody({ loc: loc.body.id }))
    expect(reused.body.violacoes[0].propriedade).toBe("rec.loc")
    expect((await api("GET", "/v2/rec/RR9999999920261202xxxxxxxxxxx")).body.type).toBe(
      "https://pix.bcb.gov.br/api/v2/error/RecNaoEncontrada"
    )
  })

  it("journey 2: the recurrence's QR, its JWS payload, the payer's approval and the callback", async () => {
    const loc = await api("POST", "/v2/locrec")
    expect(loc.status).toBe(201)
    expect(loc.body.location).toContain("/qr/v2/rec/")
    const rec = await createRec({ loc: loc.body.id })
    expect(rec.loc.idRec).toBe(rec.idRec)
    const read = await api("GET", `/v2/rec/${rec.idRec}`)
    expect(read.body.dadosQR.jornada).toBe("JORNADA_2")
    expect(read.body.dadosQR.pixCopiaECola).toContain(`80`)
    expect(read.body.dadosQR.pixCopiaECola).toContain(loc.body.location)
    const payload = await new Promise<string>((resolve, reject) => {
      https
        .get(`https://${loc.body.location}`, { ca: psp.tls.caPem }, (response) => {
          let text = ""
          response.on("data", (chunk) => {
            text += chunk
          })
          response.on("end", () => resolve(text))
        })
        .on("error", reject)
    })
    const body = JSON.parse(Buffer.from(payload.split(".")[1] as string, "base64url").toString("utf8"))
    expect(body.idRec).toBe(rec.idRec)
    expect(body.recebedor.ispbParticipante).toBe("99999999")
    await psp.recurring.approve(rec.idRec)
    const approved = await api("GET", `/v2/rec/${rec.idRec}`)
    expect(approved.body.status).toBe("APROVADA")
    expect(approved.body.ativacao.tipoJornada).toBe("JORNADA_2")
    expect(approved.body.pagador.ispbParticipante).toMatch(/^[0-9A-Z]{8}$/)
    const notified = callbacksOf("rec").flatMap((b) => b.recs as Array<{ idRec: string; status: string }>)
    expect(notified).toContainEqual(expect.objectContaining({ idRec: rec.idRec, status: "APROVADA" }))
  })

  it("journey 3: a composite QR with the cob, paid and approved in one step", async () => {
    const cobTxid = newTxid()
    expect((await api("PUT", `/v2/cob/${cobTxid}`, cobBody("35.00"))).status).toBe(201)
    const loc = await api("POST", "/v2/locrec")
    const rec = await createRec({ loc: loc.body.id, ativacao: { dadosJornada: { txid: cobTxid } } })
    const read = await api("GET", `/v2/rec/${rec.idRec}?txid=${cobTxid}`)
    expect(read.body.dadosQR.jornada).toBe("JORNADA_3")
    const other = newTxid()
    await api("PUT", `/v2/cob/${other}`, cobBody("35.00"))
    const wrong = await api("GET", `/v2/rec/${rec.idRec}?txid=${other}`)
    expect(wrong.body.type).toBe("https://pix.bcb.gov.br/api/v2/error/RecConsultaInvalida")
    await psp.recurring.approve(rec.idRec)
    expect((await api("GET", `/v2/cob/${cobTxid}`)).body.status).toBe("CONCLUIDA")
    const approved = await api("GET", `/v2/rec/${rec.idRec}`)
    expect(approved.body.ativacao).toEqual({ tipoJornada: "JORNADA_3", dadosJornada: { txid: cobTxid } })
  })

  it("cancels by the receiver (PATCH status CANCELADA) with who and why", async () => {
    const idRec = await approvedRec()
    const patched = await api("PATCH", `/v2/rec/${idRec}`, { status: "CANCELADA" })
    expect(patched.status).toBe(200)
    const read = await api("GET", `/v2/rec/${idRec}`)
    expect(read.body.status).toBe("CANCELADA")
    expect(read.body.encerramento.cancelamento).toMatchObject({
      solicitante: "USUARIO_RECEBEDOR",
      codigo: "SLCR"
    })
    const again = await api("PATCH", `/v2/rec/${idRec}`, { status: "CANCELADA" })
    expect(again.status).toBe(400)
  })

  it("lists recurrences by window, cpf and status, paged", async () => {
    const idRec = await approvedRec()
    const list = await api(
      "GET",
      `/v2/rec?inicio=2026-12-01T00:00:00Z&fim=2026-12-03T00:00:00Z&cpf=45164632481&status=APROVADA&paginacao.itensPorPagina=1000`
    )
    expect(list.status).toBe(200)
    expect(list.body.recs.map((r: { idRec: string }) => r.idRec)).toContain(idRec)
    expect(list.body.parametros.paginacao.itensPorPagina).toBe(1000)
    const bad = await api("GET", "/v2/rec?inicio=2026-12-03T00:00:00Z&fim=2026-12-01T00:00:00Z")
    expect(bad.body.type).toBe("https://pix.bcb.gov.br/api/v2/error/RecConsultaInvalida")
  })
})

describe("/solicrec (journey 1)", () => {
  const solic = (idRec: string, expira = "2026-12-05T12:00:00Z") => ({
    idRec,
    calendario: { dataExpiracaoSolicitacao: expira },
    destinatario: { agencia: "2569", conta: "550689", cpf: "45164632481", ispbParticipante: "91193552" }
  })

  it("sends the request, the payer's bank receives it, the payer accepts", async () => {
    const rec = await createRec()
    const created = await api("POST", "/v2/solicrec", solic(rec.idRec))
    expect(created.status).toBe(201)
    expect(created.body.idSolicRec).toMatch(/^SC99999999 ?20261202[a-zA-Z0-9]{11}$/)
    expect(created.body.status).toBe("CRIADA")
    expect(created.body.recPayload.idRec).toBe(rec.idRec)
    const read = await api("GET", `/v2/solicrec/${created.body.idSolicRec}`)
    expect(read.body.atualizacao.map((h: { status: string }) => h.status)).toEqual([
      "CRIADA",
      "ENVIADA",
      "RECEBIDA"
    ])
    const twice = await api("POST", "/v2/solicrec", solic(rec.idRec))
    expect(twice.body.type).toBe("https://pix.bcb.gov.br/api/v2/error/SolicRecOperacaoInvalida")
    await psp.recurring.approve(rec.idRec)
    expect((await api("GET", `/v2/solicrec/${created.body.idSolicRec}`)).body.status).toBe("ACEITA")
    const approved = await api("GET", `/v2/rec/${rec.idRec}`)
    expect(approved.body.ativacao.tipoJornada).toBe("JORNADA_1")
    expect(approved.body.pagador).toMatchObject({ cpf: "45164632481", ispbParticipante: "91193552" })
  })

  it("the payer rejects: REJEITADA with the code", async () => {
    const rec = await createRec()
    const created = await api("POST", "/v2/solicrec", solic(rec.idRec))
    await psp.recurring.reject(rec.idRec, { codigo: "AP14" })
    expect((await api("GET", `/v2/solicrec/${created.body.idSolicRec}`)).body.status).toBe("REJEITADA")
    const read = await api("GET", `/v2/rec/${rec.idRec}`)
    expect(read.body.status).toBe("REJEITADA")
    expect(read.body.encerramento.rejeicao.codigo).toBe("AP14")
  })

  it("the receiver cancels a request; an expired one makes the recurrence EXPIRADA (lazily, on read)", async () => {
    const rec = await createRec()
    const created = await api("POST", "/v2/solicrec", solic(rec.idRec))
    const cancelled = await api("PATCH", `/v2/solicrec/${created.body.idSolicRec}`, { status: "CANCELADA" })
    expect(cancelled.status).toBe(201)
    expect(cancelled.body.status).toBe("CANCELADA")
    const refused = await api("PATCH", `/v2/solicrec/${created.body.idSolicRec}`, { status: "CANCELADA" })
    expect(refused.status).toBe(400)
    await api("POST", "/v2/solicrec", solic(rec.idRec))
    advanceDays(4)
    const read = await api("GET", `/v2/rec/${rec.idRec}`)
    expect(read.body.status).toBe("EXPIRADA")
  })
})

describe("/cobr: cycles, attempts and retries", () => {
  it("creates a cycle charge 2 to 10 days ahead, scheduled by the payer's bank, then paid", async () => {
    const idRec = await approvedRec()
    const id = newTxid()
    const early = await api("PUT", `/v2/cobr/${id}`, cobrBody(idRec, "2026-12-20"))
    expect(early.body.violacoes[0].propriedade).toBe("cobr.calendario.dataDeVencimento")
    const created = await api("PUT", `/v2/cobr/${id}`, cobrBody(idRec, "2026-12-10"))
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({
      idRec,
      txid: id,
      status: "CRIADA",
      politicaRetentativa: "PERMITE_3R_7D"
    })
    expect(created.body.calendario).toEqual({ criacao: "2026-12-02", dataDeVencimento: "2026-12-10" })
    const again = await api("PUT", `/v2/cobr/${id}`, cobrBody(idRec, "2026-12-10"))
    expect(again.body.type).toBe("https://pix.bcb.gov.br/api/v2/error/CobROperacaoInvalida")
    const sameCycle = await api("PUT", `/v2/cobr/${newTxid()}`, cobrBody(idRec, "2026-12-11"))
    expect(sameCycle.body.violacoes[0].propriedade).toBe("cobr.idRec")
    const active = await api("GET", `/v2/cobr/${id}`)
    expect(active.body.status).toBe("ATIVA")
    expect(active.body.tentativas).toHaveLength(1)
    expect(active.body.tentativas[0]).toMatchObject({
      tipo: "AGND",
      status: "AGENDADA",
      dataLiquidacao: "2026-12-10"
    })
    advanceDays(8)
    await psp.recurring.runDue()
    const paid = await api("GET", `/v2/cobr/${id}`)
    expect(paid.body.status).toBe("CONCLUIDA")
    expect(paid.body.pix[0]).toMatchObject({
      txid: id,
      valor: "35.00",
      endToEndId: paid.body.tentativas[0].endToEndId
    })
    expect(psp.state.pix.get(paid.body.pix[0].endToEndId)?.txid).toBe(id)
    const notified = callbacksOf("cobr").flatMap((b) => b.cobsr as Array<{ txid: string; status: string }>)
    expect(notified.filter((c) => c.txid === id).map((c) => c.status)).toEqual(["ATIVA", "CONCLUIDA"])
  })

  it("moves a due date on a holiday to the next business day", async () => {
    clock = new Date("2026-12-17T15:00:00Z")
    const idRec = await approvedRec({ calendario: { dataInicial: "2026-12-25", periodicidade: "ANUAL" } })
    const id = newTxid()
    await api("PUT", `/v2/cobr/${id}`, cobrBody(idRec, "2026-12-25"))
    expect((await api("GET", `/v2/cobr/${id}`)).body.tentativas[0].dataLiquidacao).toBe("2026-12-28")
  })

  it("insufficient funds, then retries ordered by the receiver within the policy", async () => {
    const idRec = await approvedRec()
    const id = newTxid()
    await api("PUT", `/v2/cobr/${id}`, cobrBody(idRec, "2026-12-10"))
    psp.recurring.setInsufficientFunds(idRec, 2)
    advanceDays(8)
    await psp.recurring.runDue()
    const rejected = await api("GET", `/v2/cobr/${id}`)
    expect(rejected.body.status).toBe("ATIVA")
    expect(rejected.body.tentativas[0]).toMatchObject({ status: "REJEITADA", rejeicao: { codigo: "IRNT" } })
    const past = await api("POST", `/v2/cobr/${id}/retentativa/2026-12-10`)
    expect(past.body.type).toBe("https://pix.bcb.gov.br/api/v2/error/CobROperacaoInvalida")
    const late = await api("POST", `/v2/cobr/${id}/retentativa/2026-12-18`)
    expect(late.status).toBe(400)
    const retry = await api("POST", `/v2/cobr/${id}/retentativa/2026-12-11`)
    expect(retry.status).toBe(201)
    expect(retry.body.tentativas[1]).toMatchObject({
      tipo: "NTAG",
      status: "AGENDADA",
      dataLiquidacao: "2026-12-11"
    })
    const whilePending = await api("POST", `/v2/cobr/${id}/retentativa/2026-12-12`)
    expect(whilePending.body.detail).toContain("SOLICITADA ou AGENDADA")
    advanceDays(1)
    await psp.recurring.runDue()
    await api("POST", `/v2/cobr/${id}/retentativa/2026-12-14`)
    advanceDays(3)
    await psp.recurring.runDue()
    const paid = await api("GET", `/v2/cobr/${id}`)
    expect(paid.body.status).toBe("CONCLUIDA")
    expect(paid.body.tentativas.map((t: { status: string }) => t.status)).toEqual([
      "REJEITADA",
      "REJEITADA",
      "PAGA"
    ])
  })

  it("NAO_PERMITE: a rejected attempt rejects the charge; no retry", async () => {
    const idRec = await approvedRec({ politicaRetentativa: "NAO_PERMITE" })
    const id = newTxid()
    await api("PUT", `/v2/cobr/${id}`, cobrBody(idRec, "2026-12-10"))
    psp.recurring.setInsufficientFunds(idRec, 1)
    advanceDays(8)
    await psp.recurring.runDue()
    const read = await api("GET", `/v2/cobr/${id}`)
    expect(read.body.status).toBe("REJEITADA")
    expect(read.body.encerramento.rejeicao.codigo).toBe("IRNT")
    const retry = await api("POST", `/v2/cobr/${id}/retentativa/2026-12-12`)
    expect(retry.body.detail).toBe(
      "A política configurada na recorrência não permite retentativa de cobrança."
    )
  })

  it("the payer's maximum rejects a cycle above it (AM02)", async () => {
    const idRec = await approvedRec({ valor: { valorMinimoRecebedor: "10.00" } })
    psp.recurring.setMaximum(idRec, "50.00")
    const id = newTxid()
    await api("PUT", `/v2/cobr/${id}`, cobrBody(idRec, "2026-12-10", "80.00"))
    advanceDays(8)
    await psp.recurring.attempt(id)
    expect((await api("GET", `/v2/cobr/${id}`)).body.tentativas[0].rejeicao.codigo).toBe("AM02")
  })

  it("the receiver cancels before the settlement date, not on it", async () => {
    const idRec = await approvedRec()
    const a = newTxid()
    await api("PUT", `/v2/cobr/${a}`, cobrBody(idRec, "2026-12-10"))
    const cancelled = await api("PATCH", `/v2/cobr/${a}`, { status: "CANCELADA" })
    expect(cancelled.status).toBe(200)
    expect(cancelled.body.encerramento.cancelamento).toMatchObject({
      solicitante: "USUARIO_RECEBEDOR",
      codigo: "SLCR"
    })
    expect(cancelled.body.tentativas[0].status).toBe("CANCELADA")
    advanceDays(35)
    const b = newTxid()
    await api("PUT", `/v2/cobr/${b}`, cobrBody(idRec, "2027-01-11"))
    advanceDays(5)
    const refused = await api("PATCH", `/v2/cobr/${b}`, { status: "CANCELADA" })
    expect(refused.status).toBe(400)
    expect(refused.body.detail).toContain("primeira tentativa de liquidação")
  })

  it("the payer revokes: the recurrence and its open charges end, with callbacks", async () => {
    const idRec = await approvedRec()
    const id = newTxid()
    await api("PUT", `/v2/cobr/${id}`, cobrBody(idRec, "2026-12-10"))
    await psp.recurring.revoke(idRec)
    const rec = await api("GET", `/v2/rec/${idRec}`)
    expect(rec.body.encerramento.cancelamento).toMatchObject({
      solicitante: "USUARIO_PAGADOR",
      codigo: "SLDB"
    })
    expect((await api("GET", `/v2/cobr/${id}`)).body.status).toBe("CANCELADA")
    await eventually(
      () => callbacksOf("rec").some((b) => (b.recs as Array<{ status: string }>)[0]?.status === "CANCELADA"),
      "the rec callback"
    )
    const refused = await api("PUT", `/v2/cobr/${newTxid()}`, cobrBody(idRec, "2027-01-11"))
    expect(refused.status).toBe(400)
  })

  it("an unknown outcome: the charge was created though the answer was lost; a read finds it", async () => {
    const idRec = await approvedRec()
    const id = newTxid()
    psp.addFault({ route: "cobr.put", kind: "reset", after: true, times: 1 })
    await expect(api("PUT", `/v2/cobr/${id}`, cobrBody(idRec, "2026-12-10"))).rejects.toThrow()
    const read = await api("GET", `/v2/cobr/${id}`)
    expect(read.body.status).toBe("ATIVA")
    expect(psp.requests.filter((r) => r.route === "cobr.put" && r.path.endsWith(id))).toHaveLength(1)
  })

  it("lists charges of a recurrence", async () => {
    const idRec = await approvedRec()
    const id = newTxid()
    await api("PUT", `/v2/cobr/${id}`, cobrBody(idRec, "2026-12-10"))
    const list = await api(
      "GET",
      `/v2/cobr?inicio=2026-12-01T00:00:00Z&fim=2026-12-03T00:00:00Z&idRec=${idRec}`
    )
    expect(list.body.cobsr.map((c: { txid: string }) => c.txid)).toEqual([id])
  })
})

describe("the control API of Pix Automático", () => {
  it("approves, sets insufficient funds and runs the due attempts over plain HTTP", async () => {
    const controlled = await PspSimulator.start({
      controlPort: 0,
      now: () => clock,
      tokenTtlSeconds: 365 * 86_400
    })
    try {
      const bearer2 = await token(controlled)
      const loc = await call(controlled, { method: "POST", path: "/v2/locrec", token: bearer2 })
      const rec = await call(controlled, {
        method: "POST",
        path: "/v2/rec",
        token: bearer2,
        body: recBody({ loc: loc.body.id })
      })
      const control = async (method: string, path: string, body: unknown = {}) => {
        const response = await fetch(`${controlled.controlUrl}${path}`, {
          method,
          ...(method === "GET" ? {} : { body: JSON.stringify(body) })
        })
        return { status: response.status, body: (await response.json()) as Record<string, never> }
      }
      expect((await control("POST", `/recs/${rec.body.idRec}/approve`)).body.status).toBe("APROVADA")
      expect(
        (await control("PUT", `/recs/${rec.body.idRec}/insufficient-funds`, { attempts: 1 })).status
      ).toBe(200)
      const id = newTxid()
      await call(controlled, {
        method: "PUT",
        path: `/v2/cobr/${id}`,
        token: bearer2,
        body: cobrBody(rec.body.idRec, "2026-12-10")
      })
      advanceDays(8)
      const ran = await control("POST", "/recurring/run-due")
      expect(
        (ran.body.cobsr as Array<{ tentativas: Array<{ status: string }> }>)[0]?.tentativas[0]?.status
      ).toBe("REJEITADA")
      expect((await control("POST", `/recs/${rec.body.idRec}/approve`)).status).toBe(409)
      expect((await control("GET", "/recurring/state")).body.cobsr).toHaveLength(1)
    } finally {
      await controlled.close()
    }
  })
})
