/**
 * The OpenAPI document against the real server: it validates (swagger-parser), every status a
 * real request to every route receives is documented for that operation (for a method the path
 * lacks, for the path's operations) and every JSON body validates against the documented schema
 * (ajv); the `webhooks` section matches what the engine really sends (a real receiver, and each
 * event type's payload as core builds it); the web handler under a prefix-stripping host that
 * read the body first (as Hono's `app.mount` with a middleware calling `c.req.json()`).
 */
import { createServer, type IncomingMessage, type Server } from "node:http"
import SwaggerParser from "@apidevtools/swagger-parser"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import {
  Domain,
  DueDate,
  EndpointEvents,
  Events,
  MemoryStore,
  Money,
  type Recurrence,
  SubscriptionEvents,
  WebhookSignature
} from "@pixgate/core"
import { type Answer, type Harness, listen, send, start } from "@pixgate/testkit/harness"
import { must } from "@pixgate/testkit/must"
import { testWaitMs } from "@pixgate/testkit/wait"
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js"
import addFormatsModule from "ajv-formats"
import { Effect } from "effect"
import * as Schemas from "../src/ApiErrors.js"
import { Pixgate } from "../src/node.js"

// biome-ignore lint/suspicious/noExplicitAny: the document is read dynamically
type Doc = any

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void

/** Validators of the document's schemas, `#/components/...` references resolved in it. */
const validators = (doc: Doc) => {
  const ajv = new Ajv2020({ strict: false, allErrors: true })
  addFormats(ajv)
  const cache = new Map<unknown, ValidateFunction>()
  return (schema: object, value: unknown): Array<string> => {
    let check = cache.get(schema)
    if (check === undefined) {
      check = ajv.compile({ ...schema, components: doc.components })
      cache.set(schema, check)
    }
    return check(value) ? [] : (check.errors ?? []).map((e) => `${e.instancePath} ${e.message}`)
  }
}

/** The document's path template matching a concrete path. */
const templateOf = (doc: Doc, path: string): string | undefined =>
  Object.keys(doc.paths).find((template) =>
    new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+")}$`).test(path.split("?")[0])
  )

let h: Harness
let doc: Doc
let validate: ReturnType<typeof validators>

beforeAll(async () => {
  h = await start()
  doc = (await h.request("GET", "/api/openapi.json")).body
  validate = validators(doc)
})
afterAll(() => h?.close())

describe("the OpenAPI document", () => {
  it("validates with swagger-parser", async () => {
    await expect(SwaggerParser.validate(structuredClone(doc))).resolves.toBeDefined()
  })

  it("has a licence, the enum of error codes, and says unknown request fields are ignored", () => {
    expect(doc.info.license).toEqual({ name: "MIT", identifier: "MIT" })
    expect(doc.components.schemas.Error.properties.code.enum).toEqual([...Schemas.errorCodes])
    expect(doc.components.schemas.ChargeRequest.additionalProperties).toBe(true)
    expect(doc.components.schemas.PayoutRequest.additionalProperties).toBe(true)
  })

  it("documents every status the server answers, with bodies that validate", async () => {
    const m = await h.merchant()
    await h.engine((e) => e.admin.topUp(m.merchantId, { amount: Money.reais(50) }))
    const charge = { amount: 10, description: "x" }
    const big = { amount: 10, description: "x".repeat(70 * 1024) }
    const payout = { amount: 5, pixKey: "a@b.com" }
    type Req = readonly [method: string, path: string, call?: Parameters<typeof send>[3]]
    const requests: Array<Req> = [
      ["GET", "/api/health"],
      ["HEAD", "/api/health"],
      ["POST", "/api/health"],
      ["GET", "/api/openapi.json"],
      ["DELETE", "/api/openapi.json"],
      ["GET", "/api/docs"],
      ["PUT", "/api/docs"],
      ["POST", "/api/v1/charges", { key: m.testKey, body: charge }],
      ["POST", "/api/v1/charges", { key: m.testKey, body: charge, headers: { "idempotency-key": "k1" } }],
      ["POST", "/api/v1/charges", { key: m.testKey, body: charge, headers: { "idempotency-key": "k1" } }],
      [
        "POST",
        "/api/v1/charges",
        { key: m.testKey, body: { amount: 11 }, headers: { "idempotency-key": "k1" } }
      ],
      ["POST", "/api/v1/charges", { key: m.testKey, body: { amount: 0 } }],
      ["POST", "/api/v1/charges", { key: m.testKey, body: { amount: 10, clientDocument: "123" } }],
      ["POST", "/api/v1/charges", { key: m.testKey, body: "{not json" }],
      ["POST", "/api/v1/charges", { key: m.testKey, body: "{}", headers: { "content-type": "text/plain" } }],
      ["POST", "/api/v1/charges", { key: m.testKey, body: big }],
      ["POST", "/api/v1/charges", { key: m.liveKey, body: charge }],
      ["POST", "/api/v1/charges", { body: charge }],
      ["POST", "/api/v1/charges", { key: "sk_test_nope", body: charge }],
      ["GET", "/api/v1/charges", { key: m.testKey }],
      ["POST", "/api/v1/payouts", { key: m.testKey, body: payout }],
      ["POST", "/api/v1/payouts", { key: m.testKey, body: { amount: 5000, pixKey: "a@b.com" } }],
      ["POST", "/api/v1/payouts", { key: m.testKey, body: { amount: 5 } }],
      ["POST", "/api/v1/payouts", { key: m.liveKey, body: payout }],
      ["POST", "/api/v1/payouts", { body: payout }],
      ["PATCH", "/api/v1/payouts", { key: m.testKey }],
      ["GET", "/api/v1/transactions", { key: m.testKey }],
      ["GET", "/api/v1/transactions?type=refund", { key: m.testKey }],
      ["GET", "/api/v1/transactions?page=0", { key: m.testKey }],
      ["GET", "/api/v1/transactions"],
      ["HEAD", "/api/v1/transactions", { key: m.testKey }],
      ["POST", "/api/v1/transactions", { key: m.testKey, body: {} }],
      // Every removed path, with its former methods and others: 410 for all.
      ...Object.entries(doc.paths)
        .filter(([, ops]) => Object.values(ops as object).some((op) => op.deprecated))
        .flatMap(([template]) =>
          ["GET", "POST", "PUT", "DELETE"].map(
            (method) => [method, template.replace(/\{[^}]+\}/g, "abc"), { key: m.testKey }] as Req
          )
        )
    ]
    const seen = new Set<string>()
    for (const [method, path, call] of requests) {
      const answer: Answer = await h.request(method, path, call)
      const where = `${method} ${path} -> ${answer.status}`
      const template = templateOf(doc, path)
      expect(template, where).toBeDefined()
      const ops = doc.paths[must(template, "template")]
      const own = ops[method === "HEAD" ? "get" : method.toLowerCase()]
      // A method the path lacks (405, or 410 on a removed path) is documented on its operations.
      for (const op of own === undefined ? Object.values(ops) : [own]) {
        const documented = (op as Doc).responses[String(answer.status)]
        expect(documented, where).toBeDefined()
        const schema = documented.content?.["application/json"]?.schema
        if (method !== "HEAD" && schema !== undefined)
          expect(validate(schema, answer.body), where).toEqual([])
      }
      seen.add(String(answer.status))
    }
    expect([...seen].sort()).toEqual(["200", "201", "400", "401", "405", "410", "413", "422", "502"].sort())
    // Paths the document does not know: the 404 body is the documented Error.
    const missing = await h.request("GET", "/api/v1/nothing")
    expect(missing.status).toBe(404)
    expect(validate(doc.components.schemas.Error, missing.body)).toEqual([])
  })

  it("documents the 429 of the rate limit, with a body that validates", async () => {
    const limited = await start({ rateLimit: { requestsPerSecond: 0.001, burst: 1 } })
    try {
      const m = await limited.merchant()
      expect((await limited.request("GET", "/api/v1/transactions", { key: m.testKey })).status).toBe(200)
      const answer = await limited.request("GET", "/api/v1/transactions", { key: m.testKey })
      expect(answer.status).toBe(429)
      const documented = doc.paths["/api/v1/transactions"].get.responses["429"]
      expect(validate(documented.content["application/json"].schema, answer.body)).toEqual([])
      expect(answer.headers.get("retry-after")).toMatch(/^\d+$/)
    } finally {
      await limited.close()
    }
  })

  it("the admin API's document validates too, its Error enum holding the admin codes", async () => {
    const token = "admin-token-0123456789abcdef"
    const withAdmin = await Pixgate.make({
      store: MemoryStore.layer,
      log: { level: "none" },
      admin: { token }
    })
    const server = createServer((req, res) => must(withAdmin.admin, "withAdmin.admin").nodeHandler(req, res))
    try {
      const base = await listen(server)
      const adminDoc = (
        await send(base, "GET", "/openapi.json", { headers: { authorization: `Bearer ${token}` } })
      ).body
      await expect(SwaggerParser.validate(structuredClone(adminDoc))).resolves.toBeDefined()
      expect(adminDoc.components.schemas.Error.properties.code.enum).toEqual(
        expect.arrayContaining([...Schemas.errorCodes, ...Schemas.adminErrorCodes])
      )
      const answer = await send(base, "PUT", "/merchants/mer_x/webhooks/test", {
        headers: { authorization: `Bearer ${token}` },
        body: { url: 1 }
      })
      expect(answer.status).toBe(422)
      expect(validators(adminDoc)(adminDoc.components.schemas.Error, answer.body)).toEqual([])
    } finally {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
      await withAdmin.dispose()
    }
  })

  it("unknown request fields are ignored, not refused (docs/decisions.md)", async () => {
    const m = await h.merchant()
    const answer = await h.request("POST", "/api/v1/charges", {
      key: m.testKey,
      body: { amount: 10, clientDocument: "52998224725", extra: { nested: true } }
    })
    expect(answer.status).toBe(201)
    const page = (await h.request("GET", "/api/v1/transactions", { key: m.testKey })).body
    expect(page.data[0]).toMatchObject({ id: answer.body.transactionId, clientDocument: null })
  })
})

describe("webhooks", () => {
  const schemaOf = (event: string) => doc.webhooks[event].post.requestBody.content["application/json"].schema

  it("lists every event type the engine sends", () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual([...Domain.eventTypes].sort())
  })

  it("each event's payload, as the engine builds it, validates against its schema", () => {
    const now = Date.UTC(2026, 0, 2, 3, 4, 5)
    const base = Domain.newTransaction({
      id: "tx_1" as Domain.Transaction["id"],
      merchantId: "mer_1" as Domain.Transaction["merchantId"],
      mode: "test",
      type: "deposit",
      status: "pending",
      amount: 1234 as Money.Cents,
      createdAt: now,
      txid: "a".repeat(30)
    })
    const payout = { ...base, type: "withdrawal" as const, txid: null, pixKey: "a@b.com", endToEndId: "E1" }
    const subscription: Recurrence.Subscription = {
      id: "sub_1",
      merchantId: base.merchantId,
      mode: "test",
      idRec: "RR1234567820260102abcdefghijk",
      jornada: "JORNADA_1",
      vinculo: { contrato: "C-1", devedor: { cpf: "12345678909", nome: "Ana" }, objeto: null },
      calendario: { dataInicial: "2026-04-01", dataFinal: null, periodicidade: "MENSAL" },
      valor: { valorRec: 9990, valorMinimoRecebedor: null },
      politicaRetentativa: "PERMITE_3R_7D",
      status: "APROVADA",
      atualizacao: [{ status: "CRIADA", data: new Date(now).toISOString() }],
      encerramento: null,
      tipoJornada: "JORNADA_1",
      chargeId: null,
      txid: null,
      solicitacao: null,
      location: null,
      pixCopiaECola: null,
      valorMaximoPagador: null,
      valorCiclo: 9990,
      payer: null,
      nextCycle: 1,
      nextAt: null,
      createdAt: now,
      updatedAt: now,
      version: 2
    }
    const cycle: Recurrence.Cycle = {
      txid: "b".repeat(30),
      subscriptionId: subscription.id,
      merchantId: base.merchantId,
      mode: "test",
      idRec: "RR1234567820260102abcdefghijk",
      sequence: 0,
      dataDeVencimento: "2026-04-01",
      dataLiquidacao: "2026-04-01",
      ajusteDiaUtil: true,
      valor: 9990,
      politicaRetentativa: "PERMITE_3R_7D",
      status: "CONCLUIDA",
      atualizacao: [{ status: "CRIADA", data: new Date(now).toISOString() }],
      encerramento: null,
      tentativas: [],
      transactionId: base.id,
      nextAt: null,
      createdAt: now,
      updatedAt: now,
      version: 3
    }
    const chargeback: Domain.Chargeback = {
      id: "cb_1" as Domain.Chargeback["id"],
      transactionId: base.id,
      merchantId: base.merchantId,
      mode: "test",
      amount: 1000 as Money.Cents,
      reason: "payer_dispute",
      status: "open",
      createdAt: now,
      updatedAt: now
    }
    const completed = { ...base, status: "completed" as const, paidAt: now, endToEndId: "E2" }
    const refund: Domain.Refund = {
      id: "rfd_1" as Domain.RefundId,
      transactionId: base.id,
      merchantId: base.merchantId,
      mode: "test",
      amount: 500 as Money.Cents,
      status: "pending",
      description: "Order 1234 cancelled",
      failureReason: null,
      returnId: null,
      createdAt: now,
      updatedAt: now
    }
    const events = [
      Events.transactionCreated(base, now),
      Events.transactionCompleted(completed, now),
      Events.transactionFailed({ ...base, status: "failed" }, "expired", now),
      Events.withdrawalCreated(payout, now),
      Events.withdrawalCompleted({ ...payout, status: "completed" }, now),
      Events.chargebackCreated(completed, chargeback, now),
      Events.chargebackUpdated(completed, { ...chargeback, status: "accepted" }, now),
      Events.refundEvent("refund.created", completed, refund, 500, now),
      Events.refundEvent(
        "refund.completed",
        { ...completed, status: "refunded" },
        { ...refund, status: "completed", returnId: "D1" },
        1234,
        now
      ),
      Events.refundEvent(
        "refund.failed",
        completed,
        { ...refund, status: "failed", failureReason: "bank_rejected" },
        0,
        now
      ),
      Events.webhookTest(base.merchantId, "test", now),
      SubscriptionEvents.subscriptionUpdated(subscription, now),
      SubscriptionEvents.cycleUpdated(cycle, now),
      EndpointEvents.endpointDisabled({
        merchantId: base.merchantId,
        mode: "live",
        url: "https://hooks.example.com/pixgate?token=secret",
        disabledAt: now,
        failingSince: now - 3 * 24 * 3600 * 1000,
        consecutiveFailures: 41,
        reason: "Failing since then, 41 failed attempts in a row; last: HTTP 503"
      }),
      EndpointEvents.endpointEnabled({
        merchantId: base.merchantId,
        mode: "live",
        url: "https://hooks.example.com/pixgate?token=secret",
        disabledAt: now - 1000,
        resent: 3,
        now
      })
    ]
    expect(events.map((e) => e.type).sort()).toEqual([...Domain.eventTypes].sort())
    for (const event of events) {
      const body = JSON.parse(new TextDecoder().decode(WebhookSignature.body(event)))
      expect(validate(schemaOf(event.type), body), event.type).toEqual([])
      // The schemas are exact about the data's fields: a stray one would be reported.
      expect(validate(schemaOf(event.type), { ...body, event: "other" }), event.type).not.toEqual([])
    }
  })

  it("a due-date charge's events carry its dueDate and payableUntil, and validate", () => {
    const now = Date.UTC(2026, 0, 2, 3, 4, 5)
    const terms: DueDate.DueTerms = {
      dueDate: "2026-03-10",
      daysAfterDue: 30,
      fine: null,
      interest: null,
      discount: null,
      abatement: null
    }
    const charge = Domain.newTransaction({
      id: "tx_1" as Domain.Transaction["id"],
      merchantId: "mer_1" as Domain.Transaction["merchantId"],
      mode: "test",
      type: "deposit",
      status: "pending",
      amount: 10000 as Money.Cents,
      createdAt: now,
      txid: "a".repeat(30),
      dueTerms: terms
    })
    const events = [
      Events.transactionCreated(charge, now),
      Events.transactionCompleted({ ...charge, status: "completed", paidAt: now, endToEndId: "E2" }, now),
      Events.transactionFailed({ ...charge, status: "failed" }, "expired", now)
    ]
    for (const event of events) {
      const body = JSON.parse(new TextDecoder().decode(WebhookSignature.body(event)))
      // 2026-03-10 is a Tuesday; 30 days later, Thursday 2026-04-09, is a business day.
      expect(body.data).toMatchObject({ dueDate: "2026-03-10", payableUntil: "2026-04-09" })
      expect(validate(schemaOf(event.type), body), event.type).toEqual([])
    }
    // Other transactions' events have neither field.
    const plain = JSON.parse(
      new TextDecoder().decode(
        WebhookSignature.body(Events.transactionCreated({ ...charge, dueTerms: null }, now))
      )
    )
    expect(plain.data).not.toHaveProperty("dueDate")
    expect(plain.data).not.toHaveProperty("payableUntil")
  })

  it("a due-date charge paid in the sandbox: the deliveries carry its dates and validate", async () => {
    const received: Array<Doc> = []
    const receiver = createServer((req, res) => {
      let text = ""
      req.on("data", (c) => {
        text += c
      })
      req.on("end", () => {
        received.push(JSON.parse(text))
        res.writeHead(200).end()
      })
    })
    const url = await listen(receiver)
    try {
      const m = await h.merchant()
      await h.engine((e) =>
        e.admin.setWebhook({
          merchantId: m.merchantId,
          mode: "test",
          url: `${url}/h`,
          secret: "s3cret-value"
        })
      )
      const due = DueDate.nextBusinessDay(DueDate.dayOf(Date.now()) + 10)
      const body = {
        amount: 3,
        dueDate: DueDate.formatDay(due),
        daysAfterDue: 5,
        clientName: "Maria Silva",
        clientDoc: "529.982.247-25"
      }
      const answer = await h.request("POST", "/api/v1/charges", { key: m.testKey, body })
      expect(answer.status, answer.text).toBe(201)
      const deadline = Date.now() + 30_000
      while (!received.some((r) => r.event === "transaction.completed") && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 200))
      const names = received.map((r) => r.event)
      expect(names).toContain("transaction.created")
      expect(names).toContain("transaction.completed")
      for (const delivered of received) {
        expect(delivered.data, delivered.event).toMatchObject({
          transactionId: answer.body.transactionId,
          dueDate: answer.body.dueDate,
          payableUntil: answer.body.payableUntil
        })
        expect(validate(schemaOf(delivered.event), delivered), delivered.event).toEqual([])
      }
    } finally {
      receiver.closeAllConnections()
      await new Promise((resolve) => receiver.close(resolve))
    }
  }, 60_000)

  it("the deliveries a real receiver gets validate, with the documented headers", async () => {
    const received: Array<{ headers: IncomingMessage["headers"]; body: Doc }> = []
    const receiver = createServer((req, res) => {
      let text = ""
      req.on("data", (c) => {
        text += c
      })
      req.on("end", () => {
        received.push({ headers: req.headers, body: JSON.parse(text) })
        res.writeHead(200).end()
      })
    })
    const url = await listen(receiver)
    try {
      const m = await h.merchant()
      await h.engine((e) =>
        Effect.flatMap(e.admin.topUp(m.merchantId, { amount: Money.reais(50) }), () =>
          e.admin.setWebhook({
            merchantId: m.merchantId,
            mode: "test",
            url: `${url}/h`,
            secret: "s3cret-value"
          })
        )
      )
      expect(
        (await h.request("POST", "/api/v1/charges", { key: m.testKey, body: { amount: 3 } })).status
      ).toBe(201)
      const payout = { amount: 1, pixKey: "a@b.com" }
      expect((await h.request("POST", "/api/v1/payouts", { key: m.testKey, body: payout })).status).toBe(201)
      const wanted = ["transaction.completed", "withdrawal.completed"]
      const deadline = Date.now() + testWaitMs
      while (!wanted.every((w) => received.some((r) => r.body.event === w)) && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 200))
      const names = new Set(received.map((r) => r.body.event))
      for (const w of ["transaction.created", "withdrawal.created", ...wanted]) expect(names).toContain(w)
      for (const { headers, body } of received) {
        expect(validate(schemaOf(body.event), body), body.event).toEqual([])
        for (const p of doc.webhooks[body.event].post.parameters)
          expect(headers[p.name.toLowerCase()], p.name).toBeDefined()
      }
    } finally {
      receiver.closeAllConnections()
      await new Promise((resolve) => receiver.close(resolve))
    }
  })
})

/**
 * A Hono-like host on a real socket: strips the mount prefix from the URL (as `app.mount`), has
 * a middleware read `request.json()` first, then calls the web handler with what it read.
 */
const honoLike = (
  pixgate: Pixgate.Pixgate,
  prefix: string,
  context: (request: Request) => Promise<object | undefined>
): Server =>
  createServer(async (req, res) => {
    const chunks: Array<Buffer> = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const url = `http://${req.headers.host}${(req.url ?? "/").slice(prefix.length) || "/"}`
    const headers = new Headers()
    for (const [name, value] of Object.entries(req.headers))
      if (typeof value === "string") headers.set(name, value)
    const hasBody = req.method !== "GET" && req.method !== "HEAD"
    const request = new Request(url, {
      method: req.method ?? "GET",
      headers,
      ...(hasBody ? { body: Buffer.concat(chunks) } : {})
    })
    const response = await pixgate.webHandler(request, await context(request))
    const out: Record<string, string> = {}
    response.headers.forEach((value, name) => {
      out[name] = value
    })
    res.writeHead(response.status, out)
    res.end(Buffer.from(await response.arrayBuffer()))
  })

describe("web handler under a prefix-stripping host that read the body", () => {
  let pixgate: Pixgate.Pixgate
  let servers: Array<Server> = []
  beforeAll(async () => {
    pixgate = await Pixgate.make({ store: MemoryStore.layer, log: { level: "none" } })
  })
  afterAll(async () => {
    for (const s of servers) {
      s.closeAllConnections()
      await new Promise((resolve) => s.close(resolve))
    }
    servers = []
    await pixgate?.dispose()
  })
  const host = async (context: (request: Request) => Promise<object | undefined>) => {
    const server = honoLike(pixgate, "/payments", context)
    servers.push(server)
    return `${await listen(server)}/payments`
  }
  it("reuses the body the host read and says the prefix in servers", async () => {
    const { Engine } = await import("@pixgate/core")
    const m = await pixgate.runtime.runPromise(
      Effect.flatMap(Engine.Engine, (e) => e.admin.createMerchant({ name: "Hono" }))
    )
    const base = await host(async (request) => {
      const body = request.method === "POST" ? await request.json() : undefined
      return { body, mountPath: "/payments" }
    })
    const created = await send(base, "POST", "/api/v1/charges", { key: m.testKey, body: { amount: 9.99 } })
    expect(created.status).toBe(201)
    expect(created.body.amount).toBe(9.99)
    const spec = await send(base, "GET", "/api/openapi.json")
    expect(spec.body.servers).toEqual([{ url: "/payments" }])
    const page = await fetch(`${base}/api/docs`).then((r) => r.text())
    expect(page).toContain("/payments/api/openapi.json")
    expect(page).toContain("<h2>Webhooks</h2>")
    expect(page).toContain("transaction.completed")
    // The content type is still checked; a body above the limit is still 413.
    const text = await send(base, "POST", "/api/v1/charges", {
      key: m.testKey,
      body: "{}",
      headers: { "content-type": "text/plain" }
    })
    expect([text.status, text.body.error]).toEqual([400, "Invalid JSON body"])
    const big = await send(base, "POST", "/api/v1/charges", {
      key: m.testKey,
      body: { amount: 1, description: "x".repeat(70 * 1024) }
    })
    expect(big.status).toBe(413)
  })

  it("takes a promised body (a rejection is 400) and, without one, answers a spent stream with 400", async () => {
    const { Engine } = await import("@pixgate/core")
    const m = await pixgate.runtime.runPromise(
      Effect.flatMap(Engine.Engine, (e) => e.admin.createMerchant({ name: "Hono 2" }))
    )
    const promised = await host(async (request) => ({ body: request.clone().json() }))
    expect(
      (await send(promised, "POST", "/api/v1/charges", { key: m.testKey, body: { amount: 2 } })).status
    ).toBe(201)
    const bad = await send(promised, "POST", "/api/v1/charges", { key: m.testKey, body: "{oops" })
    expect([bad.status, bad.body.error]).toEqual([400, "Invalid JSON body"])
    // A GET reads no body: the rejected promise is never left unhandled.
    expect((await send(promised, "GET", "/api/v1/transactions", { key: m.testKey })).status).toBe(200)
    const spent = await host(async (request) => {
      await request.text()
      return undefined
    })
    const lost = await send(spent, "POST", "/api/v1/charges", { key: m.testKey, body: { amount: 2 } })
    expect([lost.status, lost.body.error]).toEqual([400, "Invalid JSON body"])
    // Without a context, servers says "/" (the host did not tell its prefix).
    expect((await send(spent, "GET", "/api/openapi.json")).body.servers).toEqual([{ url: "/" }])
  })

  it("the mountPath option tells the prefix for every request", async () => {
    const mounted = await Pixgate.make({
      store: MemoryStore.layer,
      log: { level: "none" },
      mountPath: "payments/"
    })
    try {
      const server = honoLike(mounted, "/payments", async () => undefined)
      servers.push(server)
      const base = `${await listen(server)}/payments`
      expect((await send(base, "GET", "/api/openapi.json")).body.servers).toEqual([{ url: "/payments" }])
    } finally {
      await mounted.dispose()
    }
  })
})
