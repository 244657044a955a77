/**
 * The OpenAPI document's examples tell the truth about money: every example with fees has the
 * engine's arithmetic (`netAmount = amount - feeAmount`, `feeAmount = gatewayFeeAmount +
 * adminMargin`), and the request examples, sent to a real server, get the answer examples'
 * amounts and fees back (a payout's balance falling by `amount + feeAmount`). The due-date
 * charge's `DueAmount` examples add up, and are what the engine asks for the due-date charge
 * request example on those days.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Charges, DueDate, Money, Requests } from "@pixgate/core"
import { type Harness, start } from "@pixgate/testkit/harness"
import { must } from "@pixgate/testkit/must"
import { Effect, Either } from "effect"

// biome-ignore lint/suspicious/noExplicitAny: the document is read dynamically
type Doc = any

type Json = Record<string, unknown>

const isObject = (u: unknown): u is Json => typeof u === "object" && u !== null && !Array.isArray(u)

/** Every object anywhere in `value` (examples sit in schemas, media types and webhooks). */
const objects = (value: unknown): Array<Json> => {
  const found: Array<Json> = []
  const stack: Array<unknown> = [value]
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    if (Array.isArray(next)) stack.push(...next)
    else if (isObject(next)) {
      found.push(next)
      stack.push(...Object.values(next))
    }
  }
  return found
}

/** Reais to centavos, for comparing example figures without float error. */
const cents = (reais: unknown): number => Math.round(Number(reais) * 100)

const isNumber = (u: unknown): u is number => typeof u === "number"

/** What is wrong with the money of one example object (nothing for a schema or a non-money object). */
const arithmeticProblems = (o: Json): Array<string> => {
  const problems: Array<string> = []
  const says = JSON.stringify(o)
  if (isNumber(o.feeAmount) && isNumber(o.gatewayFeeAmount) && isNumber(o.adminMargin)) {
    if (cents(o.feeAmount) !== cents(o.gatewayFeeAmount) + cents(o.adminMargin))
      problems.push(`feeAmount != gatewayFeeAmount + adminMargin in ${says}`)
  }
  if (isNumber(o.amount) && isNumber(o.feeAmount) && isNumber(o.netAmount)) {
    if (cents(o.netAmount) !== cents(o.amount) - cents(o.feeAmount))
      problems.push(`netAmount != amount - feeAmount in ${says}`)
  }
  const fees = o.fees
  if (isNumber(o.amount) && isObject(fees) && isNumber(fees.feeAmount) && isNumber(fees.netAmount)) {
    if (cents(fees.netAmount) !== cents(o.amount) - cents(fees.feeAmount))
      problems.push(`fees.netAmount != amount - fees.feeAmount in ${says}`)
  }
  return problems
}

/** Example objects holding fee figures (to know the check is not vacuous). */
const withFees = (doc: Doc) =>
  objects(doc).filter((o) => isNumber(o.feeAmount) || (isObject(o.fees) && isNumber(o.fees.feeAmount)))

let h: Harness
let doc: Doc

/** The `DueAmount` examples, on the charge answer's `amountDue`. */
// biome-ignore lint/suspicious/noExplicitAny: the document is read dynamically
const dueAmountExamples = (): Array<any> =>
  doc.paths["/api/v1/charges"].post.responses["201"].content["application/json"].schema.properties.amountDue
    .examples

beforeAll(async () => {
  h = await start({ rateLimit: false })
  doc = (await h.request("GET", "/api/openapi.json")).body
})
afterAll(() => h?.close())

describe("the document's examples", () => {
  it("every example with fees has the engine's arithmetic", () => {
    const examples = withFees(doc)
    // Fees, Charge, Payout, Transaction and the webhook payloads at least.
    expect(examples.length).toBeGreaterThanOrEqual(5)
    expect(examples.flatMap(arithmeticProblems)).toEqual([])
  })

  it("the check finds wrong arithmetic (the old payout example)", () => {
    expect(
      arithmeticProblems({
        amount: 5,
        fees: { feeAmount: 0.33, gatewayFeeAmount: 0.1, adminMargin: 0.23, netAmount: 5.33 }
      })
    ).toHaveLength(1)
    expect(
      arithmeticProblems({ feeAmount: 0.33, gatewayFeeAmount: 0.1, adminMargin: 0.2, netAmount: 4.67 })
    ).toHaveLength(1)
  })

  it("the charge request example gets the charge example's amount and fees", async () => {
    const m = await h.merchant()
    const body = doc.components.schemas.ChargeRequest.examples[0]
    const answer = await h.request("POST", "/api/v1/charges", { key: m.testKey, body })
    expect(answer.status).toBe(201)
    const example =
      doc.paths["/api/v1/charges"].post.responses["201"].content["application/json"].schema.examples[0]
    expect({ amount: answer.body.amount, fees: answer.body.fees }).toEqual({
      amount: example.amount,
      fees: example.fees
    })
    expect(doc.components.schemas.Fees.examples).toContainEqual(answer.body.fees)
    const page = (await h.request("GET", "/api/v1/transactions", { key: m.testKey })).body
    const listed = doc.components.schemas.Transaction.examples[0]
    expect(page.data[0]).toMatchObject({
      amount: listed.amount,
      feeAmount: listed.feeAmount,
      gatewayFeeAmount: listed.gatewayFeeAmount,
      netAmount: listed.netAmount,
      clientDocument: listed.clientDocument
    })
  })

  it("the payout request example gets the payout example's fees; the balance falls by amount + feeAmount", async () => {
    const m = await h.merchant()
    await h.engine((e) => e.admin.topUp(m.merchantId, { amount: Money.reais(1000) }))
    const body = doc.components.schemas.PayoutRequest.examples[0]
    const answer = await h.request("POST", "/api/v1/payouts", { key: m.testKey, body })
    expect(answer.status).toBe(201)
    const example =
      doc.paths["/api/v1/payouts"].post.responses["201"].content["application/json"].schema.examples[0]
    expect({ amount: answer.body.amount, fees: answer.body.fees }).toEqual({
      amount: example.amount,
      fees: example.fees
    })
    expect(doc.components.schemas.Fees.examples).toContainEqual(answer.body.fees)
    const balance = await h.engine((e) => e.admin.balance(m.merchantId, "test"))
    expect(cents(balance.available)).toBe(100_000 - cents(example.amount) - cents(example.fees.feeAmount))
  })

  it("every DueAmount example adds up: total = original - abatement - discount + fine + interest", () => {
    const examples = dueAmountExamples()
    expect(examples.length).toBeGreaterThanOrEqual(3)
    for (const e of examples) {
      expect(cents(e.total), JSON.stringify(e)).toBe(
        cents(e.original) - cents(e.abatement) - cents(e.discount) + cents(e.fine) + cents(e.interest)
      )
    }
  })

  it("the DueAmount examples are what the engine asks for the due-date request example on those days", () => {
    const body = doc.components.schemas.ChargeRequest.examples.find((e: Json) => e.dueDate !== undefined)
    const input = Either.getOrThrow(Requests.decodeEither(Requests.CreateCharge)(body))
    // Created well before its due date (the example's dates are fixed).
    const created = must(DueDate.parseDay(body.dueDate), "DueDate.parseDay(body.dueDate)") - 60
    const terms = must(
      Effect.runSync(Charges.dueTermsOf(input, created, Money.defaultMaximum)),
      "Effect.runSync(Charges.dueTermsOf(input, created, Money.defaultMaximum))"
    )
    for (const e of dueAmountExamples()) {
      const due = DueDate.amountDue(
        input.amount,
        terms,
        must(DueDate.parseDay(e.date), "DueDate.parseDay(e.date)")
      )
      expect({
        date: e.date,
        original: cents(e.original),
        abatement: cents(e.abatement),
        discount: cents(e.discount),
        fine: cents(e.fine),
        interest: cents(e.interest),
        total: cents(e.total),
        payable: e.payable
      }).toEqual({
        date: e.date,
        original: due.original,
        abatement: due.abatement,
        discount: due.discount,
        fine: due.fine,
        interest: due.interest,
        total: due.total,
        payable: due.payable
      })
    }
  })
})
