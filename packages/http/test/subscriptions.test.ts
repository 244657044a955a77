/**
 * Subscriptions (Pix Automático) over the public API, in the sandbox, on SQLite and Postgres:
 * created through each journey (with what the payer needs back), read, listed page by page,
 * their cycles, cancelled, a retry refused and one allowed; bad input 422, an unknown or another
 * merchant's subscription 404. The server runs on the real clock; the worker is off and the
 * test runs its tick on a clock moved ahead to reach a cycle's settlement day (the engine reads
 * the fiber's clock), so a rejected debit exists to retry.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { DueDate } from "@pixgate/core"
import { ticksAt } from "@pixgate/testkit/clock"
import { type Answer, type Harness, start } from "@pixgate/testkit/harness"
import { liveStores } from "@pixgate/testkit/live"
import type { Effect } from "effect"

const day = DueDate.formatDay
/** A business day `offset` days from today (São Paulo). */
const businessDay = (offset: number) => DueDate.nextBusinessDay(DueDate.dayOf(Date.now()) + offset)

const first = businessDay(6)

/** An error answer of the one contract: `{ error, code, details? }` with `code`. */
const expectError = (answer: Answer, status: number, code: string) => {
  expect(answer.status, answer.text).toBe(status)
  expect(answer.body).toMatchObject({ error: expect.any(String), code })
}

const gym = (jornada: string, extra: Record<string, unknown> = {}) => ({
  jornada,
  vinculo: {
    contrato: "GYM-0042",
    devedor: { cpf: "12345678909", nome: "Ana Souza" },
    objeto: "Plano mensal"
  },
  calendario: { dataInicial: day(first), periodicidade: "MENSAL" },
  valor: { valorRec: "99.90" },
  politicaRetentativa: "PERMITE_3R_7D",
  ...(jornada === "JORNADA_1"
    ? { pagador: { ispbParticipante: "60701190", conta: "123456", agencia: "0001" } }
    : {}),
  ...(jornada === "JORNADA_3" ? { cobranca: { valor: "49.90" } } : {}),
  ...(jornada === "JORNADA_4" ? { cobranca: { valor: "49.90", dueDate: day(businessDay(3)) } } : {}),
  ...extra
})

for (const store of liveStores("subscriptions-api")) {
  describe(`subscriptions over the API (${store.name})`, () => {
    let h: Harness
    let drop: () => Promise<void>
    let key = ""
    let merchantId = ""
    let otherKey = ""

    beforeAll(async () => {
      const db = await store.open()
      drop = db.drop
      h = await start({ database: db.url, engine: { worker: false } })
      const m = await h.merchant("Academia Forte")
      key = m.testKey
      merchantId = m.merchantId
      otherKey = (await h.merchant("Outra Loja")).testKey
    }, 120_000)
    afterAll(async () => {
      await h?.close()
      await drop?.()
    })

    const create = async (body: unknown, headers: Record<string, string> = {}) => {
      const answer = await h.request("POST", "/api/v1/subscriptions", { key, body, headers })
      expect(answer.status, answer.text).toBe(201)
      // biome-ignore lint/suspicious/noExplicitAny: a JSON answer read field by field
      return answer.body as Record<string, any>
    }

    it("creates through each journey and answers what the payer needs", async () => {
      const j1 = await create(gym("JORNADA_1"))
      expect(j1).toMatchObject({
        status: "CRIADA",
        jornada: "JORNADA_1",
        valor: { valorRec: "99.90" },
        valorCiclo: "99.90",
        ativacao: { tipoJornada: "AGUARDANDO_DEFINICAO" }
      })
      expect(j1.id).toMatch(/^sub_/)
      expect(j1.idRec).toMatch(/^RR[0-9A-Za-z]{27}$/)
      expect(j1.solicitacao?.destinatario).toMatchObject({ ispbParticipante: "60701190", conta: "123456" })
      expect(j1.dadosQR).toBeUndefined()

      const j2 = await create(gym("JORNADA_2"))
      expect(j2.dadosQR).toMatchObject({ jornada: "JORNADA_2" })
      expect(j2.dadosQR.pixCopiaECola).toMatch(/^000201/)
      expect(j2.loc.location).toEqual(expect.any(String))
      expect(j2.cobranca).toBeUndefined()

      const j3 = await create(gym("JORNADA_3"))
      expect(j3.dadosQR.jornada).toBe("JORNADA_3")
      expect(j3.cobranca).toMatchObject({
        transactionId: expect.stringMatching(/^tx_/),
        txid: expect.any(String)
      })

      const j4 = await create(gym("JORNADA_4"))
      expect(j4.dadosQR.jornada).toBe("JORNADA_4")
      expect(j4.cobranca.transactionId).toMatch(/^tx_/)
    }, 60_000)

    it("replays a create with the same Idempotency-Key", async () => {
      const headers = { "idempotency-key": `sub-${store.name}-1` }
      const a = await create(
        gym("JORNADA_2", { vinculo: { contrato: "IDEM", devedor: { cpf: "12345678909", nome: "Ana" } } }),
        headers
      )
      const replay = await h.request("POST", "/api/v1/subscriptions", {
        key,
        headers,
        body: gym("JORNADA_2", {
          vinculo: { contrato: "IDEM", devedor: { cpf: "12345678909", nome: "Ana" } }
        })
      })
      expect(replay.status).toBe(201)
      expect(replay.headers.get("idempotent-replayed")).toBe("true")
      expect((replay.body as { id: string }).id).toBe(a.id)
    }, 60_000)

    it("a concurrent pair under one key creates one subscription; every answer the same", async () => {
      const headers = { "idempotency-key": `sub-${store.name}-pair` }
      const body = gym("JORNADA_2", {
        vinculo: { contrato: "PAIR", devedor: { cpf: "12345678909", nome: "Ana" } }
      })
      const send = () => h.request("POST", "/api/v1/subscriptions", { key, headers, body })
      const pair = await Promise.all([send(), send()])
      for (const a of pair) expect([201, 409], a.text).toContain(a.status)
      for (const a of pair) if (a.status === 409) expect(a.body.code).toBe("idempotency_in_flight")
      const created = pair.filter((a) => a.status === 201)
      expect(created.length).toBeGreaterThanOrEqual(1)
      for (const a of created) expect(a.body).toEqual(created[0]?.body)
      const repeat = await send()
      expect(repeat.status, repeat.text).toBe(201)
      expect(repeat.headers.get("idempotent-replayed")).toBe("true")
      expect(repeat.body).toEqual(created[0]?.body)
      const all = await h.request("GET", "/api/v1/subscriptions?limit=100", { key })
      const pairs = (all.body as { data: Array<{ vinculo: { contrato: string } }> }).data.filter(
        (s) => s.vinculo.contrato === "PAIR"
      )
      expect(pairs).toHaveLength(1)
      // The same key with another body: refused, nothing created.
      const other = await h.request("POST", "/api/v1/subscriptions", {
        key,
        headers,
        body: gym("JORNADA_2", {
          vinculo: { contrato: "PAIR-2", devedor: { cpf: "12345678909", nome: "Ana" } }
        })
      })
      expectError(other, 422, "idempotency_mismatch")
    }, 60_000)

    it("refuses bad input with 422 invalid_recurrence", async () => {
      const bad = async (body: unknown, code = "invalid_recurrence") => {
        const answer = await h.request("POST", "/api/v1/subscriptions", { key, body })
        expectError(answer, 422, code)
        return answer.body as { details: ReadonlyArray<{ path: string }> }
      }
      await bad({ ...gym("JORNADA_2"), valor: { valorRec: "99.9" } })
      await bad({ ...gym("JORNADA_2"), valor: { valorRec: 9990 } })
      await bad({ ...gym("JORNADA_2"), valor: { valorRec: "99.90", valorMinimoRecebedor: "50.00" } })
      await bad({ ...gym("JORNADA_2"), jornada: "JORNADA_9" })
      await bad({ ...gym("JORNADA_2"), calendario: { dataInicial: "amanhã", periodicidade: "MENSAL" } })
      await bad({ ...gym("JORNADA_2"), calendario: { dataInicial: day(first), periodicidade: "DIARIA" } })
      const { vinculo: _, ...noBond } = gym("JORNADA_2")
      await bad(noBond)
      // Journey 1 without the payer's account, journey 3 without its first payment.
      await bad(gym("JORNADA_1", { pagador: undefined }))
      await bad(gym("JORNADA_3", { cobranca: undefined }))
      const answer = await h.request("POST", "/api/v1/subscriptions", {
        key,
        body: gym("JORNADA_2"),
        headers: {}
      })
      expect(answer.status).toBe(201)
    }, 60_000)

    it("reads one; another merchant's or an unknown one is 404", async () => {
      const s = await create(gym("JORNADA_2"))
      const read = await h.request("GET", `/api/v1/subscriptions/${s.id}`, { key })
      expect(read.status).toBe(200)
      expect(read.body).toEqual(s)
      expectError(
        await h.request("GET", `/api/v1/subscriptions/${s.id}`, { key: otherKey }),
        404,
        "not_found"
      )
      expectError(await h.request("GET", "/api/v1/subscriptions/sub_unknown", { key }), 404, "not_found")
      expectError(
        await h.request("GET", `/api/v1/subscriptions/${s.id}/cycles`, { key: otherKey }),
        404,
        "not_found"
      )
      expectError(
        await h.request("POST", `/api/v1/subscriptions/${s.id}/cancel`, { key: otherKey }),
        404,
        "not_found"
      )
      expect((await h.request("GET", `/api/v1/subscriptions/${s.id}`)).status).toBe(401)
    }, 60_000)

    it("lists newest first, page by page, by status", async () => {
      const page1 = await h.request("GET", "/api/v1/subscriptions?limit=2", { key })
      expect(page1.status).toBe(200)
      const body1 = page1.body as {
        data: Array<{ id: string; createdAt: string }>
        limit: number
        nextBefore: string
      }
      expect(body1.data).toHaveLength(2)
      expect(body1.limit).toBe(2)
      expect(body1.nextBefore).toBe(body1.data[1]?.id)
      const page2 = await h.request("GET", `/api/v1/subscriptions?limit=2&before=${body1.nextBefore}`, {
        key
      })
      const body2 = page2.body as { data: Array<{ id: string }> }
      expect(body2.data.length).toBeGreaterThan(0)
      expect(body2.data.map((s) => s.id)).not.toContain(body1.data[0]?.id)
      expect(body2.data.map((s) => s.id)).not.toContain(body1.data[1]?.id)
      const all = await h.request("GET", "/api/v1/subscriptions?limit=100", { key })
      const ids = (all.body as { data: Array<{ id: string }>; nextBefore: string | null }).data.map(
        (s) => s.id
      )
      expect(ids.length).toBeGreaterThanOrEqual(7)
      expect((all.body as { nextBefore: string | null }).nextBefore).toBeNull()
      const created = await h.request("GET", "/api/v1/subscriptions?status=CRIADA", { key })
      expect(
        (created.body as { data: Array<{ status: string }> }).data.every((s) => s.status === "CRIADA")
      ).toBe(true)
      const other = await h.request("GET", "/api/v1/subscriptions", { key: otherKey })
      expect((other.body as { data: Array<unknown> }).data).toEqual([])
      expectError(await h.request("GET", "/api/v1/subscriptions?limit=0", { key }), 422, "invalid_query")
      expectError(await h.request("GET", "/api/v1/subscriptions?limit=x", { key }), 422, "invalid_query")
      expectError(await h.request("GET", "/api/v1/subscriptions?status=ATIVA", { key }), 422, "invalid_query")
    }, 60_000)

    it("cancels; a second cancel is 409 subscription_not_cancellable", async () => {
      const s = await create(gym("JORNADA_2"))
      const cancelled = await h.request("POST", `/api/v1/subscriptions/${s.id}/cancel`, { key })
      expect(cancelled.status, cancelled.text).toBe(200)
      expect(cancelled.body).toMatchObject({
        status: "CANCELADA",
        encerramento: { cancelamento: { solicitante: "USUARIO_RECEBEDOR" } }
      })
      expectError(
        await h.request("POST", `/api/v1/subscriptions/${s.id}/cancel`, { key }),
        409,
        "subscription_not_cancellable"
      )
    }, 60_000)

    it("lists cycles; a retry is refused outside the policy and ordered within it", async () => {
      const s = await create(gym("JORNADA_2"))
      const noCycles = await h.request("GET", `/api/v1/subscriptions/${s.id}/cycles`, { key })
      expect(noCycles.status).toBe(200)
      expect(noCycles.body).toEqual({ data: [] })

      // The payer's side: no funds on cycle 1, retries not paid; then approve.
      const subs = (
        f: (e: import("@pixgate/core").Engine.EngineShape["subscriptions"]) => Effect.Effect<unknown, unknown>
      ) => h.engine((e) => f(e.subscriptions))
      await subs((x) => x.payer(merchantId as never, s.id, { _tag: "insufficientFunds", cycles: [1] }))
      await subs((x) => x.payer(merchantId as never, s.id, { _tag: "payOnRetry", pay: false }))
      await subs((x) => x.payer(merchantId as never, s.id, { _tag: "approve" }))
      // The worker's ticks, every 6 hours from now to the day after the first due date.
      const tickAt = (ms: number) => h.engine(ticksAt(ms))
      await tickAt(Date.now() + 5_000)
      const approved = await h.request("GET", `/api/v1/subscriptions/${s.id}`, { key })
      expect((approved.body as { status: string }).status).toBe("APROVADA")
      for (
        let at = Date.now() + 6 * 3_600_000;
        at <= DueDate.endOfDay(first) + 12 * 3_600_000;
        at += 6 * 3_600_000
      )
        await tickAt(at)

      const listed = await h.request("GET", `/api/v1/subscriptions/${s.id}/cycles`, { key })
      expect(listed.status).toBe(200)
      // biome-ignore lint/suspicious/noExplicitAny: a JSON answer read field by field
      const [cycle] = (listed.body as { data: Array<Record<string, any>> }).data
      expect(cycle).toMatchObject({
        ciclo: 1,
        status: "ATIVA",
        subscriptionId: s.id,
        valor: { original: "99.90" },
        calendario: { dataDeVencimento: day(first) }
      })
      expect(cycle?.tentativas.map((t: { tipo: string; status: string }) => [t.tipo, t.status])).toEqual([
        ["AGND", "REJEITADA"]
      ])
      const retry = (data: unknown, txid = cycle?.txid as string) =>
        h.request("POST", `/api/v1/subscriptions/${s.id}/cycles/${txid}/retry`, { key, body: { data } })
      expectError(await retry("13/01/2027"), 422, "invalid_retry_date")
      expectError(await retry(day(first + 30)), 409, "retry_not_allowed")
      expectError(await retry(day(businessDay(1)), "unknown-txid"), 404, "not_found")
      const next = DueDate.nextBusinessDay(first + 1)
      const ordered = await retry(day(next))
      expect(ordered.status, ordered.text).toBe(200)
      expect(
        (ordered.body as { tentativas: Array<{ tipo: string; dataLiquidacao: string }> }).tentativas.map(
          (t) => [t.tipo, t.dataLiquidacao]
        )
      ).toEqual([
        ["AGND", day(first)],
        ["NTAG", day(next)]
      ])
      // Never while one is pending.
      expectError(await retry(day(DueDate.nextBusinessDay(next + 1))), 409, "retry_not_allowed")
      // Another merchant does not see the cycle.
      expectError(
        await h.request("POST", `/api/v1/subscriptions/${s.id}/cycles/${cycle?.txid}/retry`, {
          key: otherKey,
          body: { data: day(next) }
        }),
        404,
        "not_found"
      )
      // Under NAO_PERMITE a retry is never allowed.
      const strict = await create(gym("JORNADA_2", { politicaRetentativa: "NAO_PERMITE" }))
      expect(strict.idRec).toMatch(/^RN/)
    }, 180_000)
  })
}
