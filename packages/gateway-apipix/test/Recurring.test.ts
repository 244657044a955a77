/**
 * Pix Automático live, against the PSP simulator playing the payer's bank over mTLS: the gateway's
 * `RecurringGateway` through each journey (a push request, the recurrence's QR, a composite QR
 * with a cob, with a cobv), a rejected cycle with retries, a revocation by the payer, a
 * cancellation by the merchant, and unknown outcomes resolved by a read (never a second create or
 * retry). The bank's callbacks reach a local receiver and go through the gateway's `callback`,
 * which confirms each with a read before reporting it.
 */
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import type { HttpClient } from "@effect/platform"
import type { BankGateway, RecurringGateway as R } from "@pixgate/core"
import { PspSimulator } from "@pixgate/testkit/simulator"
import { Effect, ManagedRuntime, Option, Redacted } from "effect"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { ApiPix, Client, Gateway, Profile, Settings } from "../src/index.js"

const pixKey = "recebimentos@pixgate.example"
const day = 86_400_000
let offset = 0
const now = () => new Date(Date.now() + offset)
/** `YYYY-MM-DD` in São Paulo, `days` from the simulator's today. */
const date = (days: number) =>
  new Date(now().getTime() - 3 * 3_600_000 + days * day).toISOString().slice(0, 10)

let psp: PspSimulator.PspSimulator
let runtime: ManagedRuntime.ManagedRuntime<HttpClient.HttpClient, never>
let gw: R.RecurringGateway
let gateway: ReturnType<typeof Gateway.make>
let client: Client.PspClient
let receiver: http.Server
const reported = {
  recs: [] as Array<R.RecurrenceSnapshot>,
  solics: [] as Array<R.SolicitationSnapshot>,
  cobsr: [] as Array<R.CycleChargeSnapshot>
}
const handled: Array<string> = []
let counter = 0

const reports: R.RecurringReports = {
  recurrenceRead: (s) => Effect.sync(() => reported.recs.push(s) > 0),
  solicitationRead: (s) => Effect.sync(() => reported.solics.push(s) > 0),
  cycleChargeRead: (s) => Effect.sync(() => reported.cobsr.push(s) > 0)
}
const ctx = { recurring: reports } as unknown as BankGateway.GatewayContext

const run = <A, E>(effect: Effect.Effect<A, E, HttpClient.HttpClient>) => runtime.runPromise(effect)
const fails = async <A>(effect: Effect.Effect<A, BankGateway.GatewayFailure>) => {
  const result = await run(Effect.either(effect))
  if (result._tag === "Right") throw new Error("expected a failure")
  return result.left
}
const txid = () => `pixgaterec${Date.now().toString(36)}${++counter}`.padEnd(30, "0").slice(0, 35)

const request = (over: Partial<R.RecurrenceRequest> = {}): R.RecurrenceRequest => ({
  vinculo: {
    contrato: `C${++counter}`,
    devedor: { cpf: "45164632481", nome: "Fulano de Tal" },
    objeto: "Academia"
  },
  calendario: { dataInicial: date(3), periodicidade: "MENSAL" },
  valor: { valorRec: 3500 as R.RecurrenceRequest["valor"]["valorRec"] & number },
  politicaRetentativa: "PERMITE_3R_7D",
  ...over
})
const cycle = (idRec: string, days = 5): R.CycleChargeRequest => ({
  idRec,
  dataDeVencimento: date(days),
  valor: 3500 as R.CycleChargeRequest["valor"],
  ajusteDiaUtil: false,
  infoAdicional: "Mensalidade"
})

/** An approved recurrence (journey 2). */
const approved = async (over: Partial<R.RecurrenceRequest> = {}) => {
  const loc = await run(gw.createLocation())
  const rec = await run(gw.createRecurrence(request({ loc: loc.id, ...over })))
  await psp.recurring.approve(rec.idRec)
  return rec.idRec
}
const until = async (check: () => boolean, what: string) => {
  const started = Date.now()
  while (!check()) {
    if (Date.now() - started > 20_000) throw new Error(`never happened: ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
const puts = (path: string) => psp.requests.filter((r) => r.path === path && r.method !== "GET").length

beforeAll(async () => {
  psp = await PspSimulator.start({ pixKeys: [pixKey], now, tokenTtlSeconds: 365 * 86_400 })
  receiver = http.createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const path = (req.url ?? "").replace(/^\/hooks/, "")
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8"))
      void run(Effect.either(gateway.callback?.({ path, body }, ctx) ?? Effect.void)).then((r) => {
        handled.push(path)
        res.writeHead(r._tag === "Right" ? 200 : 503)
        res.end()
      })
    })
  })
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve))
  const settings: Settings.ApiPixSettings = {
    baseUrl: psp.url,
    clientId: psp.client.clientId,
    clientSecret: Redacted.make(psp.client.clientSecret),
    scopes: [...Settings.defaults.scopes, ...Settings.recurringScopes],
    certificate: Settings.pem(psp.tls.clientCertPem, psp.tls.clientKeyPem),
    ca: psp.tls.caPem,
    pixKey,
    timeoutMs: 2000,
    recebedor: { conta: "123456", tipoConta: "CORRENTE", agencia: "0001" },
    recurringWebhookUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`
  }
  runtime = ManagedRuntime.make(ApiPix.httpClientNode(settings))
  client = await run(Client.make(settings, Profile.standard))
  gateway = Gateway.make(settings, client, Profile.standard)
  gw = gateway.recurring as R.RecurringGateway
  // The start-up registration of /webhookrec and /webhookcobr.
  await run(
    Effect.scoped(
      gateway.start?.({ scheduleJob: () => Effect.void } as unknown as BankGateway.GatewayContext) ??
        Effect.void
    )
  )
  expect(psp.recurring.state.webhooks.get("rec")?.webhookUrl).toBe(settings.recurringWebhookUrl)
  expect(psp.recurring.state.webhooks.get("cobr")?.webhookUrl).toBe(settings.recurringWebhookUrl)
}, 60_000)

beforeEach(() => {
  offset = 0
  psp.clearFaults()
  reported.recs.length = 0
  reported.solics.length = 0
  reported.cobsr.length = 0
})

afterAll(async () => {
  await psp?.close()
  await runtime?.dispose()
  await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()))
})

describe("the journeys", () => {
  it("declares the recurring capability", () => {
    expect(gateway.capabilities?.recurring).toBe(true)
  })

  it("journey 1: a push request, accepted by the payer; the callback is confirmed by a read", async () => {
    const rec = await run(gw.createRecurrence(request()))
    expect(rec.idRec).toMatch(/^RR\d{8}\d{8}[a-zA-Z0-9]{11}$/)
    expect(rec.valor?.valorRec).toBe(3500)
    const solic = await run(
      gw.requestAuthorization({
        idRec: rec.idRec,
        dataExpiracaoSolicitacao: new Date(now().getTime() + 2 * day).toISOString(),
        destinatario: { ispbParticipante: "91193552", conta: "550689", agencia: "2569", cpf: "45164632481" }
      })
    )
    expect(solic.idSolicRec).toMatch(/^SC/)
    const read = await run(gw.readSolicitation(solic.idSolicRec))
    expect(Option.getOrThrow(read).status).toBe("RECEBIDA")
    await psp.recurring.approve(rec.idRec)
    await until(
      () => reported.recs.some((r) => r.idRec === rec.idRec && r.status === "APROVADA"),
      "the APROVADA report"
    )
    const seen = reported.recs.find((r) => r.idRec === rec.idRec)
    expect(seen?.ativacao?.tipoJornada).toBe("JORNADA_1")
    expect(reported.solics.find((s) => s.idSolicRec === solic.idSolicRec)?.status).toBe("ACEITA")
  })

  it("journey 2: the recurrence's QR", async () => {
    const loc = await run(gw.createLocation())
    const rec = await run(gw.createRecurrence(request({ loc: loc.id })))
    expect(rec.loc?.id).toBe(loc.id)
    const read = Option.getOrThrow(await run(gw.readRecurrence(rec.idRec)))
    expect(read.dadosQR?.jornada).toBe("JORNADA_2")
    expect(read.dadosQR?.pixCopiaECola).toContain(loc.location)
    await psp.recurring.approve(rec.idRec)
    expect(Option.getOrThrow(await run(gw.readRecurrence(rec.idRec))).status).toBe("APROVADA")
  })

  it("journeys 3 and 4: composite QRs with a cob (paid with the authorisation) and with a cobv", async () => {
    const cob = txid()
    await run(
      client.call({
        method: "PUT",
        path: `/v2/cob/${cob}`,
        body: { valor: { original: "35.00" }, chave: pixKey }
      })
    )
    const loc = await run(gw.createLocation())
    const rec = await run(gw.createRecurrence(request({ loc: loc.id, txid: cob })))
    const qr = Option.getOrThrow(await run(gw.readRecurrence(rec.idRec, { txid: cob })))
    expect(qr.dadosQR?.jornada).toBe("JORNADA_3")
    await psp.recurring.approve(rec.idRec)
    const j3 = Option.getOrThrow(await run(gw.readRecurrence(rec.idRec)))
    expect(j3.ativacao).toEqual({ tipoJornada: "JORNADA_3", dadosJornada: { txid: cob } })
    expect(psp.state.cobs.get(cob)?.status).toBe("CONCLUIDA")

    const cobv = txid()
    await run(
      client.call({
        method: "PUT",
        path: `/v2/cobv/${cobv}`,
        body: {
          calendario: { dataDeVencimento: date(5) },
          devedor: { cpf: "45164632481", nome: "Fulano de Tal" },
          valor: { original: "35.00" },
          chave: pixKey
        }
      })
    )
    const loc4 = await run(gw.createLocation())
    const rec4 = await run(gw.createRecurrence(request({ loc: loc4.id })))
    expect(Option.getOrThrow(await run(gw.readRecurrence(rec4.idRec, { txid: cobv }))).dadosQR?.jornada).toBe(
      "JORNADA_4"
    )
    await psp.recurring.approve(rec4.idRec, { jornada: "JORNADA_4" })
    expect(Option.getOrThrow(await run(gw.readRecurrence(rec4.idRec))).ativacao?.tipoJornada).toBe(
      "JORNADA_4"
    )
  })
})

describe("cycles", () => {
  it("a rejected cycle with retries, then paid; each callback confirmed by a read", async () => {
    const idRec = await approved()
    const id = txid()
    const created = await run(gw.createCycleCharge(id, cycle(idRec)))
    expect(created).toMatchObject({ idRec, txid: id, status: "CRIADA", valor: 3500 })
    psp.recurring.setInsufficientFunds(idRec, 2)
    offset = 5 * day
    await psp.recurring.runDue()
    const rejected = Option.getOrThrow(await run(gw.readCycleCharge(id)))
    expect(rejected.status).toBe("ATIVA")
    expect(rejected.tentativas?.[0]).toMatchObject({
      tipo: "AGND",
      status: "REJEITADA",
      rejeicao: { codigo: "IRNT" }
    })
    const retried = await run(gw.requestRetry(id, date(1)))
    expect(retried.tentativas?.[1]).toMatchObject({
      tipo: "NTAG",
      status: "AGENDADA",
      dataLiquidacao: date(1)
    })
    const refused = await fails(gw.requestRetry(id, date(2)))
    expect(refused.outcome).toBeUndefined()
    expect(refused.message).toContain("SOLICITADA ou AGENDADA")
    offset = 6 * day
    await psp.recurring.runDue()
    await run(gw.requestRetry(id, date(2)))
    offset = 8 * day
    await psp.recurring.runDue()
    const paid = Option.getOrThrow(await run(gw.readCycleCharge(id)))
    expect(paid.status).toBe("CONCLUIDA")
    expect(paid.pix?.[0]).toMatchObject({ txid: id, valor: 3500 })
    await until(
      () => reported.cobsr.some((c) => c.txid === id && c.status === "CONCLUIDA"),
      "the CONCLUIDA report"
    )
  })

  it("a cycle above the payer's maximum is rejected; NAO_PERMITE orders no retry", async () => {
    const idRec = await approved({
      politicaRetentativa: "NAO_PERMITE",
      valor: { valorMinimoRecebedor: 1000 as never }
    })
    psp.recurring.setMaximum(idRec, "20.00")
    const id = txid()
    await run(gw.createCycleCharge(id, cycle(idRec)))
    offset = 5 * day
    await psp.recurring.runDue()
    const read = Option.getOrThrow(await run(gw.readCycleCharge(id)))
    expect(read.status).toBe("REJEITADA")
    expect(read.encerramento?.rejeicao?.codigo).toBe("AM02")
    const refused = await fails(gw.requestRetry(id, date(1)))
    expect(refused.message).toContain("não permite retentativa")
  })

  it("the payer revokes: the recurrence and its cycle end, reported after a read", async () => {
    const idRec = await approved()
    const id = txid()
    await run(gw.createCycleCharge(id, cycle(idRec)))
    await psp.recurring.revoke(idRec)
    await until(
      () => reported.recs.some((r) => r.idRec === idRec && r.status === "CANCELADA"),
      "the revocation report"
    )
    const rec = reported.recs.find((r) => r.idRec === idRec && r.status === "CANCELADA")
    expect(rec?.encerramento?.cancelamento).toMatchObject({ solicitante: "USUARIO_PAGADOR", codigo: "SLDB" })
    await until(
      () => reported.cobsr.some((c) => c.txid === id && c.status === "CANCELADA"),
      "the cycle's report"
    )
  })

  it("the merchant cancels a cycle before its date, and the recurrence; a cycle on its date is refused", async () => {
    const idRec = await approved()
    const a = txid()
    await run(gw.createCycleCharge(a, cycle(idRec)))
    const cancelled = await run(gw.cancelCycleCharge(a))
    expect(cancelled.status).toBe("CANCELADA")
    expect(cancelled.encerramento?.cancelamento).toMatchObject({
      solicitante: "USUARIO_RECEBEDOR",
      codigo: "SLCR"
    })
    const b = txid()
    await run(gw.createCycleCharge(b, cycle(idRec, 35)).pipe(Effect.either))
    const idRec2 = await approved()
    const c = txid()
    await run(gw.createCycleCharge(c, cycle(idRec2)))
    offset = 5 * day
    const late = await fails(gw.cancelCycleCharge(c))
    expect(late.message).toContain("primeira tentativa de liquidação")
    const ended = await run(gw.cancelRecurrence(idRec2))
    expect(ended.status).toBe("CANCELADA")
    expect(Option.getOrThrow(await run(gw.readRecurrence(idRec2))).encerramento?.cancelamento?.codigo).toBe(
      "SLCR"
    )
    // Cancelling again answers what the bank holds: cancelled.
    expect((await run(gw.cancelRecurrence(idRec2))).status).toBe("CANCELADA")
  })
})

describe("unknown outcomes, resolved by a read", () => {
  it("a cycle charge created though the answer was lost: found by GET, never a second PUT", async () => {
    const idRec = await approved()
    const id = txid()
    psp.addFault({ route: "cobr.put", kind: "timeout", after: true, times: 1 })
    const started = Date.now()
    const created = await run(gw.createCycleCharge(id, cycle(idRec)))
    expect(Date.now() - started).toBeLessThan(15_000)
    expect(created.txid).toBe(id)
    expect(puts(`/v2/cobr/${id}`)).toBe(1)
    // Asked again (the engine's repeat of an idempotent PUT): the bank says the txid is in use, the read answers.
    expect((await run(gw.createCycleCharge(id, cycle(idRec)))).txid).toBe(id)
  })

  it("a cycle charge the bank never made stays unknown; the engine may PUT the same txid again", async () => {
    const idRec = await approved()
    const id = txid()
    psp.addFault({ route: "cobr.put", kind: "status", status: 503, times: 1 })
    const failed = await fails(gw.createCycleCharge(id, cycle(idRec)))
    expect(failed.outcome).toBe("unknown")
    expect((await run(gw.createCycleCharge(id, cycle(idRec)))).status).toBe("CRIADA")
  })

  it("a recurrence created though the connection was reset: found by its location, or by the debtor's list", async () => {
    psp.addFault({ route: "rec.post", kind: "reset", after: true, times: 1 })
    const loc = await run(gw.createLocation())
    const viaLoc = await run(gw.createRecurrence(request({ loc: loc.id })))
    expect(viaLoc.loc?.id).toBe(loc.id)
    psp.addFault({ route: "rec.post", kind: "reset", after: true, times: 1 })
    const before = psp.requests.filter((r) => r.route === "rec.post").length
    const viaList = await run(
      gw.createRecurrence(
        request({ vinculo: { contrato: "UNICO-1", devedor: { cnpj: "11222333000181", nome: "Empresa" } } })
      )
    )
    expect(viaList.vinculo?.contrato).toBe("UNICO-1")
    expect(psp.requests.filter((r) => r.route === "rec.post").length).toBe(before + 1)
  })

  it("a retry ordered though the answer was lost: found in tentativas, never ordered twice", async () => {
    const idRec = await approved()
    const id = txid()
    await run(gw.createCycleCharge(id, cycle(idRec)))
    psp.recurring.setInsufficientFunds(idRec, 1)
    offset = 5 * day
    await psp.recurring.runDue()
    psp.addFault({ route: "cobr.retentativa", kind: "status", status: 500, after: true, times: 1 })
    const retried = await run(gw.requestRetry(id, date(1)))
    expect(retried.tentativas?.filter((t) => t.tipo === "NTAG")).toHaveLength(1)
    expect(psp.requests.filter((r) => r.route === "cobr.retentativa" && r.path.includes(id))).toHaveLength(1)
  })

  it("a push request and a cancellation whose answers were lost", async () => {
    const rec = await run(gw.createRecurrence(request()))
    psp.addFault({ route: "solicrec.post", kind: "timeout", after: true, times: 1 })
    const solic = await run(
      gw.requestAuthorization({
        idRec: rec.idRec,
        dataExpiracaoSolicitacao: new Date(now().getTime() + day).toISOString(),
        destinatario: { ispbParticipante: "91193552", conta: "1", cpf: "45164632481" }
      })
    )
    expect(solic.idRec).toBe(rec.idRec)
    psp.addFault({ route: "solicrec.patch", kind: "reset", after: true, times: 1 })
    expect((await run(gw.cancelSolicitation(solic.idSolicRec))).status).toBe("CANCELADA")
    psp.addFault({ route: "rec.patch", kind: "status", status: 502, after: true, times: 1 })
    expect((await run(gw.cancelRecurrence(rec.idRec))).status).toBe("CANCELADA")
  })

  it("a bank that hangs: every call ends within the deadline, unknown", async () => {
    psp.addFault({ route: "rec.post", kind: "timeout", times: 1 })
    psp.addFault({ route: "rec.list", kind: "timeout", times: 1 })
    const started = Date.now()
    const failed = await fails(gw.createRecurrence(request()))
    expect(failed.outcome).toBe("unknown")
    expect(Date.now() - started).toBeLessThan(15_000)
  })
})
