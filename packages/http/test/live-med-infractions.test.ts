/**
 * MED infractions read from the bank, against the PSP simulator in Efí's shape
 * (`GET /v2/gn/infracoes`, `POST /v2/gn/infracoes/{idInfracao}/defesa`), on SQLite and Postgres:
 * the schedule opens each infraction once with the bank's block and deadline; a rejection
 * releases the block; an upheld one is booked once from the bank's devolução whichever source
 * reports it (the infractions read, the `/pix` callback, reconciliation), partially when the bank
 * returns less; the merchant's answer goes to the bank before its deadline and is refused after
 * it; an answer whose call had an unknown outcome is found out by reading the infraction back.
 */
import { type Domain, Infractions, type MedInfractions as Infractions_ } from "@pixgate/core"
import { Profile } from "@pixgate/gateway-apipix"
import { send } from "@pixgate/testkit/harness"
import {
  expectLedgerClean,
  type Live,
  statusOf as liveStatusOf,
  liveStores,
  paidCharge,
  startLive,
  until
} from "@pixgate/testkit/live"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

describe.each(liveStores("pixgate-live-infractions"))("MED infractions from the bank on $name", (store) => {
  let live: Live
  let drop: () => Promise<void> = async () => {}
  beforeAll(async () => {
    const db = await store.open()
    drop = db.drop
    live = await startLive(db.url)
  })
  afterAll(async () => {
    await live?.close()
    await drop()
  })

  const balance = (merchantId: string) => live.h.engine((e) => e.admin.balance(merchantId, "live"))
  const returns = (id: string) => live.h.engine((e) => e.infractions.returns(id as Domain.TransactionId))
  const local = async (bankId: string) => {
    const found = await live.h.engine((e) => e.infractions.findByBankId("live", bankId))
    return found._tag === "Some" ? found.value : undefined
  }
  const statusOf = (key: string, id: string) => liveStatusOf(live, key, id)
  /** A merchant with one live charge of `amount` paid through the bank. */
  const paid = (amount: number) => paidCharge(live, amount)
  /** Waits for two more reads of the bank's infractions. */
  const readTwice = async () => {
    const reads = () =>
      live.psp.requests.filter((r) => r.method === "GET" && r.path === "/v2/gn/infracoes").length
    const start = reads()
    await until("the infractions were read twice more", () => reads() >= start + 2)
  }
  const medEvents = (id: string) =>
    live.webhooks.filter((w) => w.data.transactionId === id && w.type.startsWith("chargeback."))
  const localIds = new Map<string, Infractions_.InfractionId>()
  const answer = (m: { merchantId: string }, bankId: string, analysis: "accepted" | "contested") =>
    live.h.engine((e) =>
      e.infractions.answer(
        { merchantId: m.merchantId as Domain.MerchantId, mode: "live" },
        // biome-ignore lint/style/noNonNullAssertion: the test waited for it
        localIds.get(bankId)!,
        { analysis, justification: "O pagador recebeu o produto; comprovante de entrega anexo." }
      )
    )
  /** Opens an infraction at the bank and waits for the engine to read it. */
  const opened = async (e2e: string, options: Parameters<Live["psp"]["openInfraction"]>[1] = {}) => {
    const inf = live.psp.openInfraction(e2e, options)
    await until("the engine reads the infraction", async () => (await local(inf.idInfracao)) !== undefined)
    const kept = await local(inf.idInfracao)
    if (kept !== undefined) localIds.set(inf.idInfracao, kept.id)
    return { bank: inf, kept: kept as NonNullable<typeof kept> }
  }

  it("block then release: opened once with the bank's block and deadline, rejected releases it", async () => {
    const { m, id, e2e } = await paid(30)
    const before = await balance(m.merchantId)
    const { bank, kept } = await opened(e2e, { valor: "20.00" })
    expect(kept).toMatchObject({
      status: "open",
      type: "fraud",
      amountClaimed: 2000,
      blockedAmount: 2000,
      deadline: bank.prazo.getTime(),
      openedAt: bank.criacao.getTime()
    })
    const blocked = await balance(m.merchantId)
    expect(blocked.held).toBe(20)
    expect(blocked.available).toBeCloseTo(before.available - 20, 2)
    // Read again and again: nothing changes.
    await readTwice()
    expect(
      await live.h.engine((e) => e.infractions.list({ merchantId: m.merchantId as never, mode: "live" }))
    ).toHaveLength(1)
    expect((await balance(m.merchantId)).held).toBe(20)

    await live.psp.concludeInfraction(bank.idInfracao, { status: "REJEITADA" })
    await until(
      "the engine reads the rejection",
      async () => (await local(bank.idInfracao))?.status === "rejected"
    )
    await readTwice()
    const after = await balance(m.merchantId)
    expect(after.held).toBe(0)
    expect(after.available).toBeCloseTo(before.available, 2)
    expect(await statusOf(m.liveKey, id)).toBe("completed")
    await until("both MED webhooks arrive", () => medEvents(id).length >= 2)
    expect(medEvents(id).map((w) => [w.type, (w.data.chargeback as { status: string }).status])).toEqual([
      ["chargeback.created", "open"],
      ["chargeback.updated", "rejected"]
    ])
    await expectLedgerClean(live)
  })

  it("block then full return: upheld, the bank's devolução booked once, the charge refunded", async () => {
    const { m, id, e2e } = await paid(30)
    const before = await balance(m.merchantId)
    const { bank } = await opened(e2e, { tipo: "falha_operacional" })
    expect((await balance(m.merchantId)).held).toBeGreaterThan(0)
    const concluded = await live.psp.concludeInfraction(bank.idInfracao, {
      status: "ACEITA",
      callback: "now"
    })
    await until("the return is booked", async () => (await local(bank.idInfracao))?.status === "accepted")
    await readTwice()
    const booked = await returns(id)
    expect(booked).toHaveLength(1)
    expect(booked[0]).toMatchObject({ id: concluded.rtrId, amount: 3000, nature: "MED_OPERACIONAL" })
    expect(await local(bank.idInfracao)).toMatchObject({ blockedAmount: 0, returnedAmount: 3000 })
    expect(await statusOf(m.liveKey, id)).toBe("refunded")
    const after = await balance(m.merchantId)
    expect(after.held).toBe(0)
    expect(after.available).toBeCloseTo(before.available - 30, 2)
    await expectLedgerClean(live)
  })

  it("partial return on a short balance: the block takes what exists, the rest of it released", async () => {
    const { m, id, e2e } = await paid(40)
    const before = await balance(m.merchantId)
    // The whole PIX claimed: the balance (the PIX less its fee) is short of it.
    expect(before.available).toBeLessThan(40)
    const { bank, kept } = await opened(e2e)
    expect(kept.amountClaimed).toBe(4000)
    expect(kept.blockedAmount).toBe(Math.round(before.available * 100))
    expect((await balance(m.merchantId)).available).toBeCloseTo(0, 2)
    await live.psp.concludeInfraction(bank.idInfracao, { status: "ACEITA", valorDevolvido: "15.00" })
    await until("the return is booked", async () => (await returns(id)).length === 1)
    await readTwice()
    expect(await returns(id)).toMatchObject([{ amount: 1500, fromBlocked: 1500, fromAvailable: 0 }])
    expect(await local(bank.idInfracao)).toMatchObject({
      status: "accepted",
      blockedAmount: 0,
      returnedAmount: 1500
    })
    const after = await balance(m.merchantId)
    expect(after.held).toBe(0)
    expect(after.available).toBeCloseTo(before.available - 15, 2)
    expect(await statusOf(m.liveKey, id)).toBe("completed")
    await expectLedgerClean(live)
  })

  it("a MED devolução reported by the infractions read, reconciliation and the held callback: booked once", async () => {
    const { m, id, e2e } = await paid(25)
    const before = await balance(m.merchantId)
    const { bank } = await opened(e2e)
    await live.psp.concludeInfraction(bank.idInfracao, { status: "ACEITA", callback: "hold" })
    await until("a read books it", async () => (await returns(id)).length === 1)
    const reads = () =>
      live.psp.requests.filter((r) => r.method === "GET" && r.path.endsWith("/v2/pix")).length
    const start = reads()
    await until("reconciliation ran twice more", () => reads() >= start + 2)
    await live.psp.releaseCallbacks("held")
    await readTwice()
    expect(await returns(id)).toHaveLength(1)
    expect(await statusOf(m.liveKey, id)).toBe("refunded")
    expect((await balance(m.merchantId)).available).toBeCloseTo(before.available - 25, 2)
    await expectLedgerClean(live)
  })

  it("upheld before the engine knew the infraction: the devolução by callback first, then the infraction concluded", async () => {
    const { m, id, e2e } = await paid(20)
    const before = await balance(m.merchantId)
    const inf = live.psp.openInfraction(e2e, { valor: "20.00" })
    // Opened and upheld before any read; the devolução's callback is delivered at once.
    await live.psp.concludeInfraction(inf.idInfracao, { status: "ACEITA", callback: "now" })
    await until("the devolução is booked", async () => (await returns(id)).length === 1)
    await until(
      "the infraction is read and concluded",
      async () => (await local(inf.idInfracao))?.status === "accepted"
    )
    await readTwice()
    expect(await local(inf.idInfracao)).toMatchObject({ status: "accepted", blockedAmount: 0 })
    expect(await returns(id)).toHaveLength(1)
    const after = await balance(m.merchantId)
    expect(after.held).toBe(0)
    expect(after.available).toBeCloseTo(before.available - 20, 2)
    expect(await statusOf(m.liveKey, id)).toBe("refunded")
    await expectLedgerClean(live)
  })

  it("a defence sent before the deadline; refused after it, by the bank and by the engine", async () => {
    const { m, e2e } = await paid(50)
    const first = await opened(e2e, { valor: "10.00" })
    const sent = await answer(m, first.bank.idInfracao, "contested")
    expect(sent.ok).toBe(true)
    expect(await local(first.bank.idInfracao)).toMatchObject({ status: "defended" })
    expect(live.psp.infracoes.get(first.bank.idInfracao)).toMatchObject({
      status: "EM_DEFESA",
      defesa: { analise: "rejeitado" }
    })
    await readTwice()
    expect(await local(first.bank.idInfracao)).toMatchObject({ status: "defended" })

    // The bank's deadline passed (the engine still had it open): the bank refuses, nothing recorded.
    const second = await opened(e2e, { valor: "10.00" })
    live.psp.expireInfraction(second.bank.idInfracao)
    const late = await answer(m, second.bank.idInfracao, "accepted")
    expect(late).toMatchObject({ ok: false, reason: "deadline_passed" })
    if (!late.ok)
      expect(Infractions.answerError(late, second.kept)).toMatchObject({ code: "infraction_deadline_passed" })
    expect(await local(second.bank.idInfracao)).toMatchObject({ status: "open", answer: null })

    // The engine's own deadline passed: refused before the bank is asked.
    const third = await opened(e2e, { valor: "10.00", prazoMs: 1 })
    const calls = () => live.psp.requests.filter((r) => r.route === "infracoes.defesa").length
    const before = calls()
    expect(await answer(m, third.bank.idInfracao, "contested")).toMatchObject({
      ok: false,
      reason: "deadline_passed"
    })
    expect(calls()).toBe(before)
    await expectLedgerClean(live)
  })

  it("a defence call with an unknown outcome is found out by reading the infraction back", async () => {
    const { m, e2e } = await paid(50)
    // The bank takes the answer, and the connection is reset before its reply: the read finds it.
    const taken = await opened(e2e, { valor: "10.00" })
    live.psp.addFault({ route: "infracoes.defesa", kind: "reset", after: true, times: 1 })
    expect((await answer(m, taken.bank.idInfracao, "contested")).ok).toBe(true)
    expect(await local(taken.bank.idInfracao)).toMatchObject({ status: "defended" })
    expect(live.psp.infracoes.get(taken.bank.idInfracao)?.status).toBe("EM_DEFESA")

    // The answer never reached the bank (a 503 before it): not recorded, and safe to send again.
    const lost = await opened(e2e, { valor: "10.00" })
    live.psp.addFault({ route: "infracoes.defesa", kind: "status", status: 503, times: 1 })
    const unknown = await answer(m, lost.bank.idInfracao, "accepted")
    expect(unknown).toMatchObject({ ok: false, reason: "outcome_unknown" })
    expect(await local(lost.bank.idInfracao)).toMatchObject({ status: "open", answer: null })
    expect(live.psp.infracoes.get(lost.bank.idInfracao)?.status).toBe("ABERTA")
    expect((await answer(m, lost.bank.idInfracao, "accepted")).ok).toBe(true)
    expect(await local(lost.bank.idInfracao)).toMatchObject({ status: "accepted" })
    expect(live.psp.infracoes.get(lost.bank.idInfracao)).toMatchObject({
      status: "EM_DEFESA",
      defesa: { analise: "aceito" }
    })
    await expectLedgerClean(live)
  })
})

describe.each(liveStores("pixgate-live-infractions-std"))(
  "MED answers through the standard alone on $name",
  (store) => {
    let live: Live
    let drop: () => Promise<void> = async () => {}
    beforeAll(async () => {
      const db = await store.open()
      drop = db.drop
      live = await startLive(db.url, {}, {}, {}, Profile.standard)
    })
    afterAll(async () => {
      await live?.close()
      await drop()
    })

    it("a bank without infractions: no reads, and an answer is refused with 422 capability_unavailable", async () => {
      const m = await live.merchant()
      const created = await send(live.h.base, "POST", "/api/v1/charges", {
        key: m.liveKey,
        body: { amount: 20 }
      })
      expect(created.status, created.text).toBe(201)
      const c = created.body as { transactionId: string; txid: string }
      const pix = await live.psp.payCob(c.txid, { callback: "now" })
      await until("the charge completes", async () => {
        const list = await send(live.h.base, "GET", "/api/v1/transactions?limit=10", { key: m.liveKey })
        return (list.body.data as Array<{ id: string; status: string }>).some(
          (t) => t.id === c.transactionId && t.status === "completed"
        )
      })
      // Known another way (the operator's report of the bank's notice): kept, never sent anywhere.
      const opened = await live.h.engine((e) =>
        e.infractions.open({
          transactionId: c.transactionId as Domain.TransactionId,
          bankId: `INF-${pix.endToEndId}`,
          type: "fraud",
          reason: "golpe"
        })
      )
      if (!opened.ok) throw new Error(opened.reason)
      const refused = await live.h.engine((e) =>
        e.infractions.answer(
          { merchantId: m.merchantId as Domain.MerchantId, mode: "live" },
          opened.value.id,
          {
            analysis: "contested",
            justification: "Entregue."
          }
        )
      )
      expect(refused).toMatchObject({ ok: false, reason: "capability_unavailable" })
      if (!refused.ok) {
        const error = Infractions.answerError(refused, opened.value)
        expect(error).toMatchObject({ _tag: "ValidationError", code: "capability_unavailable" })
      }
      expect(live.psp.requests.filter((r) => r.path.startsWith("/v2/gn/infracoes"))).toEqual([])
      expect(await live.h.engine((e) => e.infractions.get(opened.value.id))).toMatchObject({
        value: { status: "open", answer: null }
      })
    })
  }
)
