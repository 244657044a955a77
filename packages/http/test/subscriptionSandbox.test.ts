/**
 * The sandbox payer's actions on a test subscription through the admin API
 * (`POST /admin/sandbox/merchants/{merchantId}/subscriptions/{subscriptionId}/payer`): approve,
 * reject, a maximum (a cycle above it rejected AM02), no funds on a cycle (NIEC) and a retry paid,
 * revoke (SLDB, no cycle after it); refusals: an answered one (409), another merchant's (404), a
 * bad body (422), a live one (409 sandbox_only). The worker is off: the test ticks on a clock
 * moved ahead, as the API's subscription tests do.
 */
import { createServer } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { DueDate } from "@pixgate/core"
import { ticksAt } from "@pixgate/testkit/clock"
import { adminSender, type Harness, listen, start } from "@pixgate/testkit/harness"
import { must } from "@pixgate/testkit/must"

const token = "admin-token-subscriptions-0123456789"
let h: Harness
let adminBase = ""
const server = createServer()
const admin = adminSender(() => adminBase, token)
let key = ""
let merchantId = ""
let otherMerchant = ""

const day = DueDate.formatDay
const first = DueDate.nextBusinessDay(DueDate.dayOf(Date.now()) + 6)

const tickAt = (ms: number) => h.engine(ticksAt(ms))

/** Ticks every 6 hours from now to the day after the first due date. */
const throughFirstDue = async () => {
  for (
    let at = Date.now() + 6 * 3_600_000;
    at <= DueDate.endOfDay(first) + 12 * 3_600_000;
    at += 6 * 3_600_000
  )
    await tickAt(at)
}

const create = async (contrato: string, valorRec = "99.90") => {
  const answer = await h.request("POST", "/api/v1/subscriptions", {
    key,
    body: {
      jornada: "JORNADA_2",
      vinculo: { contrato, devedor: { cpf: "12345678909", nome: "Ana Souza" } },
      calendario: { dataInicial: day(first), periodicidade: "MENSAL" },
      valor: { valorRec },
      politicaRetentativa: "PERMITE_3R_7D"
    }
  })
  expect(answer.status, answer.text).toBe(201)
  return answer.body as { id: string; status: string }
}

const payer = (id: string, body: unknown, merchant = merchantId) =>
  admin("POST", `/sandbox/merchants/${merchant}/subscriptions/${id}/payer`, { body })

// biome-ignore lint/suspicious/noExplicitAny: JSON answers read field by field
const cyclesOf = async (id: string): Promise<Array<Record<string, any>>> =>
  (await h.request("GET", `/api/v1/subscriptions/${id}/cycles`, { key })).body.data

beforeAll(async () => {
  h = await start({ admin: { token, basePath: "/admin" }, engine: { worker: false } })
  server.on("request", must(h.pixgate.admin, "h.pixgate.admin").nodeHandler)
  adminBase = await listen(server)
  const m = await h.merchant("Academia Forte")
  key = m.testKey
  merchantId = m.merchantId
  otherMerchant = (await h.merchant("Outra")).merchantId
}, 60_000)
afterAll(async () => {
  server.close()
  await h.close()
})

describe("the sandbox payer through the admin API", () => {
  it("approves; an answered one is refused; another merchant's is 404; a bad body 422", async () => {
    const s = await create("GYM-ESPERA")
    const approved = await payer(s.id, { action: "approve" })
    expect(approved.status, approved.text).toBe(200)
    expect(approved.body).toMatchObject({ id: s.id, status: "APROVADA" })
    const again = await payer(s.id, { action: "reject" })
    expect(again.status).toBe(409)
    expect(again.body.code).toBe("subscription_not_pending")
    expect((await payer(s.id, { action: "approve" }, otherMerchant)).status).toBe(404)
    const bad = await payer(s.id, { action: "setMaximum", valorMaximo: "12" })
    expect(bad.status).toBe(422)
    expect((await payer(s.id, { action: "fly" })).status).toBe(422)
    const rejected = await payer((await create("GYM-ESPERA-2")).id, { action: "reject" })
    expect(rejected.body).toMatchObject({
      status: "REJEITADA",
      encerramento: { rejeicao: { codigo: "AP13" } }
    })
  }, 60_000)

  it("a maximum below the cycle rejects it (AM02); no funds on cycle 1 (NIEC) and a paid retry", async () => {
    const capped = await create("GYM-MAX-ESPERA")
    const max = await payer(capped.id, { action: "setMaximum", valorMaximo: "50.00" })
    expect(max.body).toMatchObject({ valorMaximoPagador: "50.00" })
    await payer(capped.id, { action: "approve" })

    const short = await create("GYM-NIEC-ESPERA")
    expect((await payer(short.id, { action: "insufficientFunds", cycles: [1] })).status).toBe(200)
    expect((await payer(short.id, { action: "payOnRetry", pay: true })).status).toBe(200)
    await payer(short.id, { action: "approve" })
    await throughFirstDue()

    const [cappedCycle] = await cyclesOf(capped.id)
    expect(
      cappedCycle?.tentativas.map((t: { status: string; rejeicao?: { codigo: string } }) => [
        t.status,
        t.rejeicao?.codigo
      ])
    ).toEqual([["REJEITADA", "AM02"]])
    const [cycle] = await cyclesOf(short.id)
    expect(cycle).toMatchObject({ ciclo: 1, status: "ATIVA" })
    expect(
      cycle?.tentativas.map((t: { status: string; rejeicao?: { codigo: string } }) => [
        t.status,
        t.rejeicao?.codigo
      ])
    ).toEqual([["REJEITADA", "NIEC"]])
    const next = DueDate.nextBusinessDay(first + 1)
    const ordered = await h.request("POST", `/api/v1/subscriptions/${short.id}/cycles/${cycle?.txid}/retry`, {
      key,
      body: { data: day(next) }
    })
    expect(ordered.status, ordered.text).toBe(200)
    for (
      let at = DueDate.endOfDay(first) + 18 * 3_600_000;
      at <= DueDate.endOfDay(next) + 12 * 3_600_000;
      at += 6 * 3_600_000
    )
      await tickAt(at)
    const [paid] = await cyclesOf(short.id)
    expect(paid?.status).toBe("CONCLUIDA")
    expect(paid?.tentativas.map((t: { tipo: string; status: string }) => [t.tipo, t.status])).toEqual([
      ["AGND", "REJEITADA"],
      ["NTAG", "PAGA"]
    ])
  }, 120_000)

  it("revokes: the subscription ends (SLDB); revoking again is refused", async () => {
    const s = await create("GYM-REVOGA")
    await payer(s.id, { action: "approve" })
    const revoked = await payer(s.id, { action: "revoke" })
    expect(revoked.status, revoked.text).toBe(200)
    expect(revoked.body).toMatchObject({
      status: "CANCELADA",
      encerramento: { cancelamento: { solicitante: "USUARIO_PAGADOR", codigo: "SLDB" } }
    })
    const again = await payer(s.id, { action: "revoke" })
    expect(again.status).toBe(409)
    expect(again.body.code).toBe("subscription_not_cancellable")
    await throughFirstDue()
    expect(await cyclesOf(s.id)).toEqual([])
  }, 60_000)

  it("is in the admin OpenAPI document, for operator tokens", async () => {
    const doc = await admin("GET", "/openapi.json")
    expect(doc.status).toBe(200)
    expect(Object.keys(doc.body.paths)).toContain(
      "/sandbox/merchants/{merchantId}/subscriptions/{subscriptionId}/payer"
    )
  })
})
