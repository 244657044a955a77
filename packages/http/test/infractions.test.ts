/**
 * MED infractions over the admin API, on SQLite and Postgres: a merchant's list with deadlines
 * and blocked amounts, an answer before the deadline (contested: `defended`), a second answer
 * and an answer after the deadline refused with 409s, bad bodies with 422s, other merchants'
 * and unknown ids with 404s; nothing moves the balance but the bank's conclusion.
 */
import { createServer } from "node:http"
import type { Domain } from "@pixgate/core"
import { adminSender, type Harness, listen, send, start } from "@pixgate/testkit/harness"
import { liveStores } from "@pixgate/testkit/live"
import { must } from "@pixgate/testkit/must"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

const token = "infractions-admin-token-0123456789"

describe.each(liveStores("pixgate-infractions"))("MED infractions in the admin API on $name", (store) => {
  let h: Harness
  let drop: () => Promise<void> = async () => {}
  let admin: ReturnType<typeof adminSender>
  const server = createServer()
  beforeAll(async () => {
    const db = await store.open()
    drop = db.drop
    h = await start({ database: db.url, admin: { token, basePath: "/admin" }, engine: { worker: false } })
    server.on("request", must(h.pixgate.admin, "h.pixgate.admin").nodeHandler)
    const base = await listen(server)
    admin = adminSender(() => base, token)
  })
  afterAll(async () => {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
    await h?.close()
    await drop()
  })

  const paidCharge = async (key: string, amount: number) => {
    const c = await send(h.base, "POST", "/api/v1/charges", { key, body: { amount } })
    expect(c.status, c.text).toBe(201)
    const id = c.body.transactionId as string
    const paid = await admin("POST", `/sandbox/transactions/${id}/pay`)
    expect(paid.status, paid.text).toBe(200)
    return id as Domain.TransactionId
  }
  const balance = async (merchantId: string) =>
    (await admin("GET", `/merchants/${merchantId}/balance?mode=test`)).body as {
      available: number
      held: number
    }

  it("lists, answers before the deadline, refuses after it and twice", async () => {
    const m = await h.merchant("Loja MED")
    const other = await h.merchant("Outra Loja")
    const a = await paidCharge(m.testKey, 100)
    const b = await paidCharge(m.testKey, 50)
    // Enough besides the charges' nets for both blocks to be whole.
    const topUp = await admin("POST", `/merchants/${m.merchantId}/sandbox/topup`, { body: { amount: 200 } })
    expect(topUp.status, topUp.text).toBe(200)
    const before = await balance(m.merchantId)
    const now = Date.now()
    const open = (transactionId: Domain.TransactionId, bankId: string, deadline: number) =>
      h.engine((e) =>
        e.infractions.open({
          transactionId,
          bankId,
          type: "fraud",
          reason: "golpe",
          openedAt: now - 1000,
          deadline
        })
      )
    const first = await open(a, `BANK-A-${now}`, now + 3_600_000)
    const late = await open(b, `BANK-B-${now}`, now - 1)
    expect(first.ok && late.ok).toBe(true)
    if (!first.ok || !late.ok) return
    expect(await balance(m.merchantId)).toMatchObject({ available: before.available - 150, held: 150 })

    const listed = await admin("GET", `/merchants/${m.merchantId}/infractions?mode=test`)
    expect(listed.status, listed.text).toBe(200)
    expect(listed.body.data.map((i: { infractionId: string }) => i.infractionId)).toEqual([
      late.value.id,
      first.value.id
    ])
    expect(listed.body.data[1]).toMatchObject({
      transactionId: a,
      status: "open",
      amountClaimed: 100,
      blockedAmount: 100,
      returnedAmount: 0,
      deadline: new Date(now + 3_600_000).toISOString(),
      answer: null
    })
    const none = await admin("GET", `/merchants/${m.merchantId}/infractions?mode=live`)
    expect(none.body).toEqual({ data: [] })
    const bad = await admin("GET", `/merchants/${m.merchantId}/infractions?mode=nope`)
    expect(bad.status, bad.text).toBe(422)

    const answer = (merchantId: string, id: string, body: unknown) =>
      admin("POST", `/merchants/${merchantId}/infractions/${id}/answer`, { body })
    const contested = await answer(m.merchantId, first.value.id, {
      analysis: "contested",
      justification: "  Produto entregue, NF 1234  "
    })
    expect(contested.status, contested.text).toBe(200)
    expect(contested.body).toMatchObject({
      status: "defended",
      answer: { analysis: "contested", justification: "Produto entregue, NF 1234" },
      blockedAmount: 100
    })
    const twice = await answer(m.merchantId, first.value.id, { analysis: "accepted", justification: "x" })
    expect(twice.status, twice.text).toBe(409)
    expect(twice.body.code).toBe("infraction_not_answerable")
    const tooLate = await answer(m.merchantId, late.value.id, { analysis: "contested", justification: "x" })
    expect(tooLate.status, tooLate.text).toBe(409)
    expect(tooLate.body.code).toBe("infraction_deadline_passed")
    for (const body of [
      { analysis: "maybe", justification: "x" },
      { analysis: "contested" },
      { analysis: "contested", justification: "   " },
      { analysis: "contested", justification: "x".repeat(2001) }
    ]) {
      const refused = await answer(m.merchantId, late.value.id, body)
      expect(refused.status, refused.text).toBe(422)
    }
    const foreign = await answer(other.merchantId, first.value.id, {
      analysis: "accepted",
      justification: "x"
    })
    expect(foreign.status, foreign.text).toBe(404)
    const unknown = await answer(m.merchantId, "inf_nope", { analysis: "accepted", justification: "x" })
    expect(unknown.status, unknown.text).toBe(404)
    const notAnId = await answer(m.merchantId, "tx_123", { analysis: "accepted", justification: "x" })
    expect(notAnId.status, notAnId.text).toBe(404)
    // Answers move no money: only the bank's conclusion does.
    expect(await balance(m.merchantId)).toMatchObject({ available: before.available - 150, held: 150 })
    const check = await h.engine((e) => e.admin.checkLedger("test"))
    expect(check.unbalancedEntries).toEqual([])
    expect(check.balanceMismatches).toEqual([])
  })
})
