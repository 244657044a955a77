/**
 * Due-date charges (the API Pix cobv) in the sandbox, over HTTP, on SQLite and Postgres: created
 * with `dueDate` and its terms, listed with them, and paid through the admin API's sandbox pay
 * control on chosen days: early with the discount, on the due date, late with fine and interest,
 * with a wrong amount, and after the last payable day (recorded and returned, never credited).
 * The expected figures are worked out here by hand from the terms.
 */
import { createServer } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { DueDate } from "@pixgate/core"
import { adminSender, type Harness, listen, start } from "@pixgate/testkit/harness"
import { liveStores } from "@pixgate/testkit/live"
import { must } from "@pixgate/testkit/must"
import { expectError } from "./support/spec.js"

const token = "admin-token-0123456789abcdef"

/** The São Paulo day `offset` days from today, moved to a business day (so it is its own effective due date). */
const businessDayFromToday = (offset: number) => DueDate.nextBusinessDay(DueDate.dayOf(Date.now()) + offset)
const text = DueDate.formatDay

const payer = { clientName: "Maria Silva", clientDoc: "529.982.247-25" }

for (const store of liveStores("cobv")) {
  describe(`due-date charges in the sandbox (${store.name})`, () => {
    let h: Harness
    let drop: () => Promise<void>
    let adminBase = ""
    const server = createServer()
    const admin = adminSender(() => adminBase, token)
    let key = ""
    let merchantId = ""

    beforeAll(async () => {
      const db = await store.open()
      drop = db.drop
      h = await start({ database: db.url, admin: { token, basePath: "/admin" }, engine: { worker: false } })
      server.on("request", must(h.pixgate.admin, "h.pixgate.admin").nodeHandler)
      adminBase = await listen(server)
      const m = await h.merchant("Cobranças")
      key = m.testKey
      merchantId = m.merchantId
    })
    afterAll(async () => {
      server.close()
      await h?.close()
      await drop?.()
    })

    const due = businessDayFromToday(10)
    /** 100.00 due in ~10 days: 5.00 off until 5 days before, fine 2%, interest 1% a month, 5 days after. */
    const terms = {
      amount: 100,
      ...payer,
      dueDate: text(due),
      daysAfterDue: 5,
      fine: { type: "percent", value: 2 },
      interest: { type: "percentPerMonth", value: 1 },
      discount: { type: "fixedUntil", dates: [{ until: text(due - 5), value: 5 }] }
    }
    const create = async () => {
      const answer = await h.request("POST", "/api/v1/charges", { key, body: terms })
      expect(answer.status, answer.text).toBe(201)
      return answer.body
    }
    const balance = async () =>
      Math.round((await h.engine((e) => e.admin.balance(merchantId, "test"))).available * 100)
    const pay = (id: string, query: string) => admin("POST", `/sandbox/transactions/${id}/pay?${query}`)

    it("creates a due-date charge: its terms are answered and listed, with today's amount", async () => {
      const charge = await create()
      const lastDay = DueDate.nextBusinessDay(due + 5)
      expect(charge).toMatchObject({
        amount: 100,
        dueDate: text(due),
        payableUntil: text(lastDay),
        expiresAt: new Date(DueDate.endOfDay(lastDay)).toISOString(),
        amountDue: { original: 100, discount: 5, fine: 0, interest: 0, total: 95, payable: true }
      })
      // The amount depends on the day: the BR Code carries none (tag 54) and points at a cobv.
      expect(charge.qrCode).not.toMatch(/5406/)
      expect(charge.qrCode).toContain("/v2/cobv/")
      const page = (await h.request("GET", "/api/v1/transactions?limit=100", { key })).body
      expect(page.data.find((t: { id: string }) => t.id === charge.transactionId)).toMatchObject({
        status: "pending",
        amount: 100,
        clientDocument: "52998224725",
        dueDate: text(due),
        payableUntil: text(lastDay),
        amountDue: 95
      })
    })

    it("paid early: the discount applies, the merchant is credited what was paid less the fee", async () => {
      const charge = await create()
      const before = await balance()
      const paid = await pay(charge.transactionId, `paidAt=${text(due - 7)}`)
      expect(paid.status, paid.text).toBe(200)
      expect(paid.body).toMatchObject({ status: "completed", amount: 100, receivedAmount: 95 })
      const fee = Math.round(charge.fees.feeAmount * 100)
      expect(Math.round(paid.body.netAmount * 100)).toBe(9500 - fee)
      expect(await balance()).toBe(before + 9500 - fee)
    })

    it("paid on the due date: the original amount", async () => {
      const charge = await create()
      const before = await balance()
      const paid = await pay(charge.transactionId, `paidAt=${text(due)}`)
      expect(paid.body).toMatchObject({ status: "completed", receivedAmount: 100 })
      expect(await balance()).toBe(before + 10000 - Math.round(charge.fees.feeAmount * 100))
    })

    it("paid 3 days late: fine 2.00 and interest 1% x 3/30 of 100.00 = 0.10", async () => {
      const charge = await create()
      const before = await balance()
      const paid = await pay(charge.transactionId, `paidAt=${text(due + 3)}`)
      expect(paid.body).toMatchObject({ status: "completed", receivedAmount: 102.1 })
      expect(await balance()).toBe(before + 10210 - Math.round(charge.fees.feeAmount * 100))
    })

    it("6.66 with an abatement of 1.00, fine 10%, 1% a day, paid 9 days late: 6.74, of what is left after the abatement", async () => {
      const answer = await h.request("POST", "/api/v1/charges", {
        key,
        body: {
          amount: 6.66,
          ...payer,
          dueDate: text(due),
          daysAfterDue: 30,
          abatement: { type: "fixed", value: 1 },
          fine: { type: "percent", value: 10 },
          interest: { type: "percentPerDay", value: 1 }
        }
      })
      expect(answer.status, answer.text).toBe(201)
      const paid = await pay(answer.body.transactionId, `paidAt=${text(due + 9)}`)
      // 5.66 left: fine 0.566 -> 0.57, interest 9% -> 0.5094 -> 0.51.
      expect(paid.body).toMatchObject({ status: "completed", receivedAmount: 6.74 })
    })

    it("a PIX of another amount is recorded, not credited, to be returned", async () => {
      const charge = await create()
      const before = await balance()
      const paid = await pay(charge.transactionId, `paidAt=${text(due)}&amount=95.00`)
      expect(paid.body).toMatchObject({
        status: "failed",
        failureReason: "amount_mismatch",
        receivedAmount: 95
      })
      expect(await balance()).toBe(before)
    })

    it("after the last payable day: refused and returned, never credited", async () => {
      const charge = await create()
      const before = await balance()
      const after = text(DueDate.nextBusinessDay(due + 5) + 1)
      // The sandbox's payer does not pay an expired charge.
      expectError(await pay(charge.transactionId, `paidAt=${after}`), 409, "Charge is not pending")
      // A payer who sends what the terms would ask for anyway is returned the money.
      const paid = await pay(charge.transactionId, `paidAt=${after}&amount=102.50`)
      expect(paid.body).toMatchObject({
        status: "failed",
        failureReason: "paid_after_expiry",
        receivedAmount: 102.5
      })
      expect(await balance()).toBe(before)
    })

    it("pay now (no paidAt) pays what is due today, like the sandbox's automatic payer", async () => {
      const charge = await create()
      const paid = await pay(charge.transactionId, "")
      expect(paid.body).toMatchObject({ status: "completed", receivedAmount: 95 })
    })

    it("a bad paidAt is a 422 with its field", async () => {
      const charge = await create()
      const answer = await pay(charge.transactionId, "paidAt=yesterday")
      expectError(answer, 422, "paidAt must be a date YYYY-MM-DD or an ISO 8601 time", "invalid_field")
      expect(answer.body.details[0].path).toBe("paidAt")
    })
  })
}

describe("due-date charge requests that are refused", () => {
  let h: Harness
  let key = ""
  beforeAll(async () => {
    h = await start({ engine: { worker: false } })
    key = (await h.merchant()).testKey
  })
  afterAll(() => h?.close())

  const due = text(businessDayFromToday(10))
  const valid = { amount: 100, ...payer, dueDate: due }
  const refused = async (body: object, code: string, path: string) => {
    const answer = await h.request("POST", "/api/v1/charges", { key, body })
    expect(answer.status, answer.text).toBe(422)
    expect(answer.body.code).toBe(code)
    expect(answer.body.details.map((d: { path: string }) => d.path)).toContain(path)
  }

  it("a request without dueDate means what it always meant", async () => {
    const answer = await h.request("POST", "/api/v1/charges", { key, body: { amount: 100, expiresIn: 600 } })
    expect(answer.status).toBe(201)
    expect(answer.body.dueDate).toBeUndefined()
    expect(answer.body.amountDue).toBeUndefined()
  })

  it.each([
    [{ ...valid, expiresIn: 600 }, "expires_in_with_due_date", "expiresIn"],
    [{ ...valid, dueDate: text(DueDate.dayOf(Date.now()) - 1) }, "due_date_in_past", "dueDate"],
    [{ ...valid, dueDate: "2027-02-30" }, "invalid_due_date", "dueDate"],
    [{ ...valid, clientName: undefined }, "client_name_required", "clientName"],
    [{ ...valid, clientDoc: undefined }, "client_doc_required", "clientDoc"],
    [{ amount: 100, fine: { type: "fixed", value: 1 } }, "due_date_required", "fine"],
    [{ ...valid, daysAfterDue: -1 }, "invalid_days_after_due", "daysAfterDue"],
    [{ ...valid, fine: { type: "percent", value: 101 } }, "invalid_fine", "fine.value"],
    [{ ...valid, fine: { type: "daily", value: 1 } }, "invalid_fine", "fine.type"],
    [{ ...valid, fine: { type: "fixed", value: 1.001 } }, "invalid_fine", "fine.value"],
    [{ ...valid, interest: { type: "percentPerWeek", value: 1 } }, "invalid_interest", "interest.type"],
    [{ ...valid, abatement: { type: "fixed", value: 100 } }, "abatement_too_large", "abatement.value"],
    [{ ...valid, discount: { type: "fixedUntil", value: 1 } }, "invalid_discount", "discount.value"],
    [{ ...valid, discount: { type: "fixedUntil", dates: [] } }, "invalid_discount", "discount.dates"],
    [
      {
        ...valid,
        discount: { type: "percentUntil", dates: [{ until: text(businessDayFromToday(20)), value: 1 }] }
      },
      "invalid_discount",
      "discount.dates"
    ],
    [{ ...valid, discount: { type: "amountPerDayEarly" } }, "invalid_discount", "discount.value"],
    [
      {
        ...valid,
        discount: { type: "amountPerDayEarly", value: 10 },
        abatement: { type: "fixed", value: 50 }
      },
      "discount_too_large",
      "discount"
    ]
  ])("refused: %j -> %s", async (body, code, path) => {
    await refused(body, code, path)
  })
})
