/**
 * What a live send costs at the PSP, counted on the PSP simulator's own request log: the
 * creation's inline attempt is a first attempt and sends without asking (one `PUT`, no status
 * `GET` before it); a send the bank settles in its answer (`REALIZADO`) needs no confirming
 * `GET`, even when its callback arrives after; any attempt after one that may have reached the
 * bank asks first and never sends again; a worker's run (the inline attempt turned off) asks
 * first, since it cannot tell a job never run from one cut after its send. SQLite and Postgres.
 */
import { Gateway } from "@pixgate/gateway-apipix"
import type { PspSimulator } from "@pixgate/psp-simulator"
import { send } from "@pixgate/testkit/harness"
import { expectLedgerClean, type Live, liveStores, startLive, until } from "@pixgate/testkit/live"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

const stores = liveStores("pixgate-live-sends")
// The inline budget: twice the default, room for a loaded machine to answer in time.
const budgetMs = 6000

/** The PSP's requests about one payout's send, in order: `GET`, `PUT`. */
const callsFor = (psp: PspSimulator.PspSimulator, payoutId: string) =>
  psp.requests
    .filter(
      (r) => (r.route === "send.put" || r.route === "send.get") && r.path.endsWith(Gateway.idEnvio(payoutId))
    )
    .map((r) => (r.route === "send.put" ? "PUT" : "GET"))

/** Callbacks the PSP posted about one payout's send, with the status the engine answered. */
const callbacksFor = (psp: PspSimulator.PspSimulator, payoutId: string) =>
  psp.deliveries.filter((d) =>
    ((d.body as { pix?: Array<{ gnExtras?: { idEnvio?: string } }> }).pix ?? []).some(
      (p) => p.gnExtras?.idEnvio === Gateway.idEnvio(payoutId)
    )
  )

const helpers = (get: () => Live) => {
  const find = async (key: string, id: string) =>
    (
      (await send(get().h.base, "GET", "/api/v1/transactions?limit=100", { key })).body.data as Array<{
        id: string
        status: string
        endToEndId: string | null
      }>
    ).find((t) => t.id === id)
  const funded = async (amount: number) => {
    const live = get()
    const m = await live.merchant()
    const c = await send(live.h.base, "POST", "/api/v1/charges", { key: m.liveKey, body: { amount } })
    expect(c.status, c.text).toBe(201)
    await live.psp.payCob(c.body.txid, { callback: "now" })
    await until(
      "the funding charge completes",
      async () => (await find(m.liveKey, c.body.transactionId))?.status === "completed"
    )
    return m
  }
  const payout = async (key: string, amount: number) => {
    const answer = await send(get().h.base, "POST", "/api/v1/payouts", {
      key,
      body: { amount, pixKey: "destino@banco.example" }
    })
    expect(answer.status, answer.text).toBe(201)
    return answer.body as { transactionId: string; endToEndId: string | null }
  }
  return { find, funded, payout }
}

describe.each(stores)("live sends, counted at the PSP simulator, on $name", (store) => {
  describe("a PSP that answers EM_PROCESSAMENTO (sends decided later)", () => {
    let live: Live
    let drop: () => Promise<void> = async () => {}
    beforeAll(async () => {
      const db = await store.open()
      drop = db.drop
      live = await startLive(db.url, { sendBudgetMs: budgetMs, pollDelayMs: 1000, timeoutMs: 10_000 })
    })
    afterAll(async () => {
      await live?.close()
      await drop()
    })
    const { find, funded, payout } = helpers(() => live)

    it("the first attempt sends without asking; its callback is confirmed; one send", async () => {
      const m = await funded(30)
      const p = await payout(m.liveKey, 10)
      // The 201 waited for the inline attempt: the bank's id, and the PUT was the first call.
      expect(p.endToEndId).toBe(live.psp.state.sends.get(Gateway.idEnvio(p.transactionId))?.e2eId)
      expect(callsFor(live.psp, p.transactionId)[0]).toBe("PUT")
      await live.psp.settleSend(Gateway.idEnvio(p.transactionId), { callback: "now" })
      await until("completed", async () => (await find(m.liveKey, p.transactionId))?.status === "completed")
      const calls = callsFor(live.psp, p.transactionId)
      expect(calls[0]).toBe("PUT")
      expect(calls.filter((c) => c === "PUT")).toHaveLength(1)
      // The callback's claim is confirmed with the bank before the payout settles.
      expect(calls).toContain("GET")
      expect(callbacksFor(live.psp, p.transactionId).map((d) => d.status)).toEqual([200])
      await expectLedgerClean(live)
    })

    it("a send whose answer was lost: every later attempt asks first and none sends again", async () => {
      const m = await funded(30)
      // The bank takes the send, its answer is lost (a 500 after doing the work).
      live.psp.addFault({ route: "send.put", kind: "status", status: 500, after: true, times: 1 })
      const p = await payout(m.liveKey, 10)
      expect(p.endToEndId).toBeNull()
      await until("asked about twice", () => callsFor(live.psp, p.transactionId).length >= 3)
      expect(callsFor(live.psp, p.transactionId).slice(0, 3)).toEqual(["PUT", "GET", "GET"])
      await live.psp.settleSend(Gateway.idEnvio(p.transactionId), { callback: "never" })
      await until("completed", async () => (await find(m.liveKey, p.transactionId))?.status === "completed")
      const calls = callsFor(live.psp, p.transactionId)
      expect(calls.filter((c) => c === "PUT")).toHaveLength(1)
      expect(calls.slice(1).every((c) => c === "GET")).toBe(true)
      expect((await find(m.liveKey, p.transactionId))?.endToEndId).toBe(
        live.psp.state.sends.get(Gateway.idEnvio(p.transactionId))?.e2eId
      )
      await expectLedgerClean(live)
    })
  })

  describe("a PSP that settles within the send (REALIZADO in its answer)", () => {
    let live: Live
    let drop: () => Promise<void> = async () => {}
    beforeAll(async () => {
      const db = await store.open()
      drop = db.drop
      // No poll within the test: every call counted is the send's own or a callback's.
      live = await startLive(
        db.url,
        { sendBudgetMs: budgetMs, pollDelayMs: 120_000, timeoutMs: 10_000 },
        { sendOutcome: "instant", callbackMode: "hold" }
      )
    })
    afterAll(async () => {
      await live?.close()
      await drop()
    })
    const { find, funded, payout } = helpers(() => live)

    it("one PUT and no GET: settled from the send's answer, its later callback changes nothing", async () => {
      const m = await funded(30)
      const p = await payout(m.liveKey, 10)
      const bank = live.psp.state.sends.get(Gateway.idEnvio(p.transactionId))
      expect(bank?.status).toBe("REALIZADO")
      expect(p.endToEndId).toBe(bank?.e2eId)
      await until("completed", async () => (await find(m.liveKey, p.transactionId))?.status === "completed")
      expect(callsFor(live.psp, p.transactionId)).toEqual(["PUT"])
      // The PSP's callback, held until now, arrives after the settlement: answered, nothing asked.
      await live.psp.releaseCallbacks()
      expect(callbacksFor(live.psp, p.transactionId).map((d) => d.status)).toEqual([200])
      expect(callsFor(live.psp, p.transactionId)).toEqual(["PUT"])
      await until(
        "withdrawal.completed delivered",
        () =>
          live.webhooks.filter(
            (w) => w.type === "withdrawal.completed" && w.data.transactionId === p.transactionId
          ).length > 0
      )
      expect(
        live.webhooks.filter(
          (w) => w.type === "withdrawal.completed" && w.data.transactionId === p.transactionId
        )
      ).toHaveLength(1)
      await expectLedgerClean(live)
    })
  })
})

describe("live sends without the inline attempt (budget 0), on SQLite", () => {
  let live: Live
  let drop: () => Promise<void> = async () => {}
  beforeAll(async () => {
    const db = await stores[0].open()
    drop = db.drop
    live = await startLive(db.url, { sendBudgetMs: 0, pollDelayMs: 120_000, timeoutMs: 10_000 })
  })
  afterAll(async () => {
    await live?.close()
    await drop()
  })
  const { find, funded, payout } = helpers(() => live)

  it("the worker's run asks first (it cannot know no earlier run sent), then sends once", async () => {
    const m = await funded(30)
    const p = await payout(m.liveKey, 10)
    expect(p.endToEndId).toBeNull()
    await until("sent", () => callsFor(live.psp, p.transactionId).includes("PUT"))
    expect(callsFor(live.psp, p.transactionId)).toEqual(["GET", "PUT"])
    await live.psp.settleSend(Gateway.idEnvio(p.transactionId), { callback: "now" })
    await until("completed", async () => (await find(m.liveKey, p.transactionId))?.status === "completed")
    expect(callsFor(live.psp, p.transactionId).filter((c) => c === "PUT")).toHaveLength(1)
    await expectLedgerClean(live)
  })
})
