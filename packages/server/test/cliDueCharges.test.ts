/**
 * Due-date charges at the command line, on SQLite in a temporary directory: `charge create
 * --due-date` with the payer and the terms (fine, interest, discount as the API's JSON), and
 * `sandbox pay --paid-at` (and `--amount`) paying it as on chosen days. The expected figures are
 * worked out here by hand from the terms.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { DueDate } from "@pixgate/core"
import { cliOn } from "./support/cli.js"

const dir = mkdtempSync(join(tmpdir(), "pixgate-cli-due-"))
const cli = cliOn(`sqlite:${join(dir, "due.db")}`, dir)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** A business day ~10 days from today (São Paulo), so it is its own effective due date. */
const due = DueDate.nextBusinessDay(DueDate.dayOf(Date.now()) + 10)
const day = DueDate.formatDay

describe("due-date charges at the command line", () => {
  let merchant: string

  beforeAll(async () => {
    const created = await cli("merchant", "create", "--name", "Escola", "--json")
    expect(created.code).toBe(0)
    merchant = created.json.merchantId
  })

  /** 100.00 due on `due`: 5.00 off until 5 days before, fine 2%, interest 1% a month, payable 5 days after. */
  const create = (...extra: Array<string>) =>
    cli(
      "charge",
      "create",
      "--merchant",
      merchant,
      "--mode",
      "test",
      "--amount",
      "100",
      "--client-name",
      "Maria Silva",
      "--client-doc",
      "529.982.247-25",
      "--due-date",
      day(due),
      "--days-after-due",
      "5",
      "--fine",
      '{"type":"percent","value":2}',
      "--interest",
      '{"type":"percentPerMonth","value":1}',
      "--discount",
      JSON.stringify({ type: "fixedUntil", dates: [{ until: day(due - 5), value: 5 }] }),
      ...extra
    )

  it("charge create --due-date: the API's due-date charge, with today's amount", async () => {
    const charge = await create("--json")
    expect(charge).toMatchObject({ code: 0, stderr: "" })
    const lastDay = DueDate.nextBusinessDay(due + 5)
    expect(charge.json).toMatchObject({
      amount: 100,
      dueDate: day(due),
      payableUntil: day(lastDay),
      expiresAt: new Date(DueDate.endOfDay(lastDay)).toISOString(),
      amountDue: { original: 100, discount: 5, fine: 0, interest: 0, total: 95, payable: true }
    })
    expect(charge.json.qrCode).toContain("/v2/cobv/")
    const listed = await cli("transactions", "list", "--merchant", merchant, "--mode", "test", "--json")
    expect(listed.json.data.find((t: { id: string }) => t.id === charge.json.transactionId)).toMatchObject({
      clientName: "Maria Silva",
      clientDocument: "52998224725",
      dueDate: day(due),
      payableUntil: day(lastDay),
      amountDue: 95
    })
    const text = await create()
    expect(text.code).toBe(0)
    expect(text.stdout).toMatch(new RegExp(`\ndue date: +${day(due)}\n`))
    expect(text.stdout).toMatch(new RegExp(`\npayable until: +${day(lastDay)}\n`))
    expect(text.stdout).toMatch(/\ndue today: +95\.00\n/)
  })

  it("charge create refuses what the API refuses: terms without a due date, a due date without the payer", async () => {
    const noDue = await cli(
      "charge",
      "create",
      "--merchant",
      merchant,
      "--mode",
      "test",
      "--amount",
      "10",
      "--fine",
      '{"type":"percent","value":2}'
    )
    expect(noDue).toMatchObject({ code: 1, stdout: "" })
    expect(noDue.stderr).toContain("fine needs dueDate")
    const noPayer = await cli(
      "charge",
      "create",
      "--merchant",
      merchant,
      "--mode",
      "test",
      "--amount",
      "10",
      "--due-date",
      day(due)
    )
    expect(noPayer).toMatchObject({ code: 1, stdout: "" })
    expect(noPayer.stderr).toContain("clientName is required with dueDate")
    const notJson = await create("--abatement", "5")
    expect(notJson.code).toBe(2)
    expect(notJson.stderr).toContain("--abatement must be a JSON object")
  })

  it("sandbox pay --paid-at: early with the discount, late with fine and interest", async () => {
    const early = (await create("--json")).json
    const paidEarly = await cli("sandbox", "pay", early.transactionId, "--paid-at", day(due - 7), "--json")
    expect(paidEarly, paidEarly.stderr).toMatchObject({ code: 0, stderr: "" })
    expect(paidEarly.json).toMatchObject({ status: "completed", amount: 100, receivedAmount: 95 })

    // 3 days late: fine 2% of 100.00 = 2.00, interest 1% a month x 3/30 of 100.00 = 0.10.
    const late = (await create("--json")).json
    const paidLate = await cli("sandbox", "pay", late.transactionId, "--paid-at", day(due + 3), "--json")
    expect(paidLate.json).toMatchObject({ status: "completed", receivedAmount: 102.1 })
  })

  it("sandbox pay --amount: another amount is recorded, not credited", async () => {
    const charge = (await create("--json")).json
    const paid = await cli(
      "sandbox",
      "pay",
      charge.transactionId,
      "--paid-at",
      day(due),
      "--amount",
      "95.00",
      "--json"
    )
    expect(paid.json).toMatchObject({
      status: "failed",
      failureReason: "amount_mismatch",
      receivedAmount: 95
    })
  })

  it("sandbox pay refuses a bad --paid-at or --amount with the API's message", async () => {
    const charge = (await create("--json")).json
    const badDay = await cli("sandbox", "pay", charge.transactionId, "--paid-at", "yesterday")
    expect(badDay).toMatchObject({
      code: 1,
      stderr: "pixgate: paidAt must be a date YYYY-MM-DD or an ISO 8601 time (invalid_field)\n"
    })
    const badAmount = await cli("sandbox", "pay", charge.transactionId, "--amount", "-1")
    expect(badAmount).toMatchObject({
      code: 1,
      stderr: "pixgate: amount must be a positive number of reais (invalid_amount)\n"
    })
    // Nothing was paid.
    const listed = await cli("transactions", "list", "--merchant", merchant, "--mode", "test", "--json")
    expect(listed.json.data.find((t: { id: string }) => t.id === charge.transactionId)).toMatchObject({
      status: "pending"
    })
  })
})
