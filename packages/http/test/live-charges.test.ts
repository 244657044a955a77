/**
 * Live charge creation a bank integration can trust, against the PSP simulator on SQLite and on
 * Postgres, with a short deadline (3 s) and a short retry window (8 s): a PSP that never
 * answers `PUT /cob` gets a 502 within the deadline, the client's retry with the same
 * Idempotency-Key asks for the same txid and makes exactly one cob (adopting one the bank made
 * before going silent), a cob nobody came back for is withdrawn at the bank, and a throttling
 * PSP (429 with Retry-After) is waited for on reads, refused on creation and left to a send's
 * durable job. Logs carry the PSP's problem as fields, and a reconciliation finding is logged
 * once.
 */
import { randomUUID } from "node:crypto"
import { Gateway } from "@pixgate/gateway-apipix"
import { send } from "@pixgate/testkit/harness"
import { expectLedgerClean, type Live, liveStores, startLive, until } from "@pixgate/testkit/live"
import { testWaitMs } from "@pixgate/testkit/wait"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

const stores = liveStores("pixgate-live-charges")

/** The call deadline of these tests and the window an unknown charge waits for its retry. */
const deadlineMs = 3000
const windowMs = 8000

describe.each(stores)("live charge creation on $name", (store) => {
  let live: Live
  let drop: () => Promise<void> = async () => {}
  beforeAll(async () => {
    const db = await store.open()
    drop = db.drop
    live = await startLive(
      db.url,
      { timeoutMs: deadlineMs, unknownChargeWindowMs: windowMs },
      { controlPort: 0 }
    )
  })
  afterAll(async () => {
    await live?.close()
    await drop()
  })

  const create = async (key: string, amount: number, idempotencyKey?: string) => {
    const start = Date.now()
    const answer = await send(live.h.base, "POST", "/api/v1/charges", {
      key,
      body: { amount },
      ...(idempotencyKey === undefined ? {} : { headers: { "idempotency-key": idempotencyKey } })
    })
    return { ...answer, ms: Date.now() - start }
  }
  /** The cob as the simulator's control API shows it (undefined when the bank has none). */
  const cobAtBank = async (txid: string) => {
    const res = await fetch(`${live.psp.controlUrl}/cobs/${txid}`)
    return res.status === 404 ? undefined : ((await res.json()) as { txid: string; status: string })
  }
  const cobPuts = (txid: string) =>
    live.psp.requests.filter((r) => r.route === "cob.put" && r.path.endsWith(`/${txid}`))
  const cobPatches = (txid: string) =>
    live.psp.requests.filter((r) => r.route === "cob.patch" && r.path.endsWith(`/${txid}`))
  /** The identity the unknown attempt kept, from its log line. */
  const unknownAttempts = () =>
    live.h.logs
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((l) => l.msg === "Creating a charge at the bank had an unknown outcome; it is found out")
      .map((l) => ({ transactionId: String(l.transactionId), txid: String(l.txid) }))
  const cobCount = () => live.psp.state.cobs.size
  const statusOf = async (key: string, id: string) =>
    (
      (await send(live.h.base, "GET", "/api/v1/transactions?limit=100", { key })).body.data as Array<{
        id: string
        status: string
        txid: string | null
      }>
    ).find((t) => t.id === id)

  it("a PUT /cob that never answers is a 502 within the deadline; the same-key retry makes one cob, same transaction and txid", async () => {
    const m = await live.merchant()
    const key = randomUUID()
    const cobsBefore = cobCount()
    const attemptsBefore = unknownAttempts().length
    live.psp.addFault({ route: "cob.put", kind: "timeout", times: 1 })
    const refused = await create(m.liveKey, 12.5, key)
    expect(refused.status).toBe(502)
    expect(refused.body).toEqual({ error: "Failed to create charge", code: "gateway_error" })
    // Generous: the deadline is 3 s; the report was of a request that never ended.
    expect(refused.ms).toBeLessThan(30_000)
    const attempt = unknownAttempts()[attemptsBefore]
    expect(attempt).toBeDefined()
    expect(cobCount()).toBe(cobsBefore)

    const retried = await create(m.liveKey, 12.5, key)
    expect(retried.status, retried.text).toBe(201)
    expect(retried.body).toMatchObject({ transactionId: attempt.transactionId, txid: attempt.txid })
    expect((await cobAtBank(attempt.txid))?.status).toBe("ATIVA")
    expect(cobCount()).toBe(cobsBefore + 1)
    expect(cobPuts(attempt.txid).map((r) => r.outcome)).toEqual(["timeout", 201])

    // A third try replays the answer: no call to the bank at all.
    const replayed = await create(m.liveKey, 12.5, key)
    expect([replayed.status, replayed.body]).toEqual([201, retried.body])
    expect(cobPuts(attempt.txid)).toHaveLength(2)

    // The charge works end to end.
    await live.psp.payCob(attempt.txid, { callback: "now" })
    await until(
      "completed",
      async () => (await statusOf(m.liveKey, attempt.transactionId))?.status === "completed"
    )
    await expectLedgerClean(live)
  })

  it("a cob made before the PSP went silent is adopted by the retry; one nobody came back for is withdrawn at the bank", async () => {
    const m = await live.merchant()
    const cobsBefore = cobCount()
    const attemptsBefore = unknownAttempts().length
    // Both attempts reach the bank, which makes their cobs and then never answers.
    live.psp.addFault({ route: "cob.put", kind: "timeout", after: true, times: 2 })
    const adoptedKey = randomUUID()
    const abandonedKey = randomUUID()
    expect((await create(m.liveKey, 20, adoptedKey)).status).toBe(502)
    expect((await create(m.liveKey, 21, abandonedKey)).status).toBe(502)
    const [adopted, abandoned] = unknownAttempts().slice(attemptsBefore)
    expect(adopted).toBeDefined()
    expect(abandoned).toBeDefined()
    expect((await cobAtBank(adopted.txid))?.status).toBe("ATIVA")
    expect((await cobAtBank(abandoned.txid))?.status).toBe("ATIVA")

    const retried = await create(m.liveKey, 20, adoptedKey)
    expect(retried.status, retried.text).toBe(201)
    expect(retried.body).toMatchObject({ transactionId: adopted.transactionId, txid: adopted.txid })
    expect(retried.body.qrCode).toBe(live.psp.state.cobs.get(adopted.txid)?.pixCopiaECola)
    expect(cobCount()).toBe(cobsBefore + 2)

    // Past the window, the abandoned cob is withdrawn; the adopted one is left as it is.
    await until(
      "the abandoned cob is withdrawn at the bank",
      async () => (await cobAtBank(abandoned.txid))?.status === "REMOVIDA_PELO_USUARIO_RECEBEDOR",
      windowMs + testWaitMs
    )
    expect(cobPatches(abandoned.txid)).toHaveLength(1)
    await new Promise((resolve) => setTimeout(resolve, 1500))
    expect((await cobAtBank(adopted.txid))?.status).toBe("ATIVA")
    expect(cobPatches(adopted.txid)).toHaveLength(0)
    expect((await statusOf(m.liveKey, adopted.transactionId))?.status).toBe("pending")
    expect(await statusOf(m.liveKey, abandoned.transactionId)).toBeUndefined()
    // Its withdrawal is logged once.
    const withdrawn = live.h.logs.filter(
      (line) => line.includes("was withdrawn at the bank") && line.includes(abandoned.txid)
    )
    expect(withdrawn).toHaveLength(1)

    // A retry after the withdrawal is refused once (the cob is gone) and frees the key; the next
    // one is a new charge: still never two live cobs for one request.
    const late = await create(m.liveKey, 21, abandonedKey)
    expect(late.status).toBe(502)
    const fresh = await create(m.liveKey, 21, abandonedKey)
    expect(fresh.status, fresh.text).toBe(201)
    expect(fresh.body.txid).not.toBe(abandoned.txid)
    expect((await cobAtBank(fresh.body.txid))?.status).toBe("ATIVA")
    await expectLedgerClean(live)
  })

  it("past the window, an unknown charge the bank never made, or one somebody paid, is logged once and left alone", async () => {
    const m = await live.merchant()
    const attemptsBefore = unknownAttempts().length
    live.psp.addFault({ route: "cob.put", kind: "timeout", times: 1 })
    expect((await create(m.liveKey, 30, randomUUID())).status).toBe(502)
    live.psp.addFault({ route: "cob.put", kind: "timeout", after: true, times: 1 })
    expect((await create(m.liveKey, 31, randomUUID())).status).toBe(502)
    const [never, paid] = unknownAttempts().slice(attemptsBefore)
    expect(await cobAtBank(never.txid)).toBeUndefined()
    await live.psp.payCob(paid.txid, { callback: "never" })
    const logged = (text: string, txid: string) =>
      live.h.logs.filter((line) => line.includes(text) && line.includes(txid))
    await until(
      "both found out",
      () =>
        logged("was never created at the bank", never.txid).length > 0 &&
        logged("was paid at the bank", paid.txid).length > 0,
      windowMs + testWaitMs
    )
    await new Promise((resolve) => setTimeout(resolve, 2000))
    expect(logged("was never created at the bank", never.txid)).toHaveLength(1)
    expect(logged("was paid at the bank", paid.txid)).toHaveLength(1)
    expect(cobPatches(paid.txid)).toHaveLength(0)
    expect((await cobAtBank(paid.txid))?.status).toBe("CONCLUIDA")
    await expectLedgerClean(live)
  })

  it("a PSP answering 429 on cob creation is a 502 with its problem in the logs; the key is free for a retry", async () => {
    const m = await live.merchant()
    const key = randomUUID()
    const cobsBefore = cobCount()
    live.psp.addFault({ route: "cob.put", kind: "status", status: 429, retryAfter: 1, times: 1 })
    const refused = await create(m.liveKey, 9, key)
    expect(refused.status).toBe(502)
    expect(refused.body).toEqual({ error: "Failed to create charge", code: "gateway_error" })
    expect(cobCount()).toBe(cobsBefore)
    const logged = live.h.logs
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((l) => l.msg === "The PSP refused the creation of a charge" && l.pspStatus === 429)
    expect(logged).toMatchObject({
      pspType: "https://pix.bcb.gov.br/api/v2/error/LimiteDeRequisicoes",
      pspTitle: "Too many requests.",
      pspDetail: "The simulated PSP throttled the caller."
    })
    expect(live.h.logs.filter((line) => line.includes("[object Object]"))).toEqual([])
    const retried = await create(m.liveKey, 9, key)
    expect(retried.status, retried.text).toBe(201)
    expect(cobCount()).toBe(cobsBefore + 1)
  })

  it("a second PIX for a paid charge is logged once, not on every reconciliation run that reads it again", async () => {
    const m = await live.merchant()
    const c = await create(m.liveKey, 5)
    expect(c.status, c.text).toBe(201)
    await live.psp.payCob(c.body.txid, { callback: "now" })
    await until(
      "completed",
      async () => (await statusOf(m.liveKey, c.body.transactionId))?.status === "completed"
    )
    const runs = () => live.h.logs.filter((line) => line.includes('"msg":"Reconciliation')).length
    const second = await live.psp.payCob(c.body.txid, { force: true, callback: "never" })
    const reported = () =>
      live.h.logs.filter((line) => line.includes("A second PIX") && line.includes(second.endToEndId))
    await until("reconciliation reports the second PIX", () => reported().length > 0)
    const after = runs()
    await until("three more reconciliation runs", () => runs() >= after + 3)
    expect(reported()).toHaveLength(1)
    await expectLedgerClean(live)
  })

  it("a read answered 429 with Retry-After is asked again and succeeds within the deadline", async () => {
    const m = await live.merchant()
    const c = await create(m.liveKey, 7)
    expect(c.status, c.text).toBe(201)
    // The callback's confirmation (GET /pix/{e2eid}) is throttled once.
    live.psp.addFault({ route: "pix.get", kind: "status", status: 429, retryAfter: 1, times: 1 })
    const pix = await live.psp.payCob(c.body.txid, { callback: "now" })
    await until(
      "completed",
      async () => (await statusOf(m.liveKey, c.body.transactionId))?.status === "completed"
    )
    const asked = live.psp.requests.filter((r) => r.route === "pix.get" && r.path.endsWith(pix.endToEndId))
    expect(asked.map((r) => r.outcome).slice(0, 2)).toEqual([429, 200])
    // The callback itself was answered 200 on its first delivery: the 429 was waited out.
    const delivered = live.psp.deliveries.find((d) => JSON.stringify(d.body).includes(pix.endToEndId))
    expect(delivered).toMatchObject({ attempt: 1, status: 200 })
    await expectLedgerClean(live)
  })
  it("a send answered 429 is left to its durable job: the payout stays pending and is sent once", async () => {
    const m = await live.merchant()
    const funding = await create(m.liveKey, 40)
    expect(funding.status, funding.text).toBe(201)
    await live.psp.payCob(funding.body.txid, { callback: "now" })
    await until(
      "funded",
      async () => (await statusOf(m.liveKey, funding.body.transactionId))?.status === "completed"
    )
    live.psp.addFault({ route: "send.put", kind: "status", status: 429, retryAfter: 1, times: 1 })
    const answer = await send(live.h.base, "POST", "/api/v1/payouts", {
      key: m.liveKey,
      body: { amount: 10, pixKey: "destino@banco.example" }
    })
    expect([answer.status, answer.body.status]).toEqual([201, "pending"])
    const idEnvio = Gateway.idEnvio(answer.body.transactionId)
    await until("the send reaches the bank", () => live.psp.state.sends.has(idEnvio))
    const puts = live.psp.requests.filter((r) => r.route === "send.put" && r.path.endsWith(idEnvio))
    expect(puts.map((r) => r.outcome)).toEqual([429, 201])
    expect((await statusOf(m.liveKey, answer.body.transactionId))?.status).toBe("pending")
    await live.psp.settleSend(idEnvio, { callback: "now" })
    await until(
      "settled",
      async () => (await statusOf(m.liveKey, answer.body.transactionId))?.status === "completed"
    )
    await expectLedgerClean(live)
  })
})
