/**
 * `charge create`, `payout create` and `transactions list` on SQLite in a temporary directory:
 * their JSON (the API's documents), their tables, and their validation errors (the API's
 * messages, exit code 1, nothing changed).
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { cliOn } from "./support/cli.js"

const dir = mkdtempSync(join(tmpdir(), "pixgate-cli-money-"))
const cli = cliOn(`sqlite:${join(dir, "money.db")}`, dir)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const iso = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
const txId = expect.stringMatching(/^tx_[0-9A-Z]{26}$/)

describe("money commands", () => {
  let merchant: string

  beforeAll(async () => {
    const created = await cli("merchant", "create", "--name", "Padaria", "--json")
    expect(created.code).toBe(0)
    merchant = created.json.merchantId
  })

  it("merchant list: every merchant, newest first, as JSON or a table", async () => {
    const other = (await cli("merchant", "create", "--name", "Outra Loja", "--city", "RECIFE", "--json")).json
    const list = await cli("merchant", "list", "--json")
    expect(list).toMatchObject({ code: 0, stderr: "" })
    const plan = {
      charge: { gatewayRate: 2500, marginRate: 7400, gatewayFixed: 0, marginFixed: 0 },
      payout: { gatewayRate: 0, marginRate: 0, gatewayFixed: 10, marginFixed: 23 }
    }
    expect(list.json).toEqual([
      { merchantId: other.merchantId, name: "Outra Loja", city: "RECIFE", feePlan: plan, createdAt: iso },
      { merchantId: merchant, name: "Padaria", city: "SAO PAULO", feePlan: plan, createdAt: iso }
    ])
    const table = await cli("merchant", "list")
    expect(table.stdout.split("\n").map((l) => l.split(/\s{2,}/).slice(0, 3))).toEqual([
      ["ID", "NAME", "CITY"],
      [other.merchantId, "Outra Loja", "RECIFE"],
      [merchant, "Padaria", "SAO PAULO"],
      [""]
    ])
  })

  it("charge create: the API's charge in JSON, readable fields otherwise; fees from the plan", async () => {
    const charge = await cli(
      "charge",
      "create",
      "--merchant",
      merchant,
      "--mode",
      "test",
      "--amount",
      "25.90",
      "--json"
    )
    expect(charge).toMatchObject({ code: 0, stderr: "" })
    expect(charge.stdout.trim().split("\n")).toHaveLength(1)
    expect(charge.json).toEqual({
      transactionId: txId,
      txid: expect.stringMatching(/^[a-zA-Z0-9]{26,35}$/),
      status: "pending",
      qrCode: expect.stringContaining("540525.90"),
      qrCodeBase64: expect.stringMatching(/^[A-Za-z0-9+/]+=*$/),
      expiresAt: iso,
      amount: 25.9,
      fees: { feeAmount: 0.26, gatewayFeeAmount: 0.06, adminMargin: 0.2, netAmount: 25.64 }
    })
    const text = await cli(
      "charge",
      "create",
      "--merchant",
      merchant,
      "--mode",
      "test",
      "--amount",
      "10",
      "--description",
      "Pedido 7"
    )
    expect(text.code).toBe(0)
    expect(text.stdout).toMatch(/^transaction: +tx_\w+\n/)
    expect(text.stdout).toMatch(/\namount: +10\.00\n/)
    // Named for what it is: the merchant is credited the amount less the fee once the charge is paid.
    expect(text.stdout).toMatch(/\nfee: +0\.10\ncredited when paid: 9\.90\n/)
    expect(text.stdout).not.toMatch(/\nnet:/)
  })

  it("charge create refuses what the API refuses, with its message", async () => {
    for (const [amount, message] of [
      ["25.901", "pixgate: amount must have at most 2 decimal places (invalid_amount)\n"],
      ["0", "pixgate: amount must be a positive number (invalid_amount)\n"],
      ["abc", "pixgate: amount must be a positive number (invalid_amount)\n"]
    ] as const) {
      const run = await cli("charge", "create", "--merchant", merchant, "--mode", "test", "--amount", amount)
      expect({ code: run.code, stdout: run.stdout, stderr: run.stderr }, amount).toEqual({
        code: 1,
        stdout: "",
        stderr: message
      })
    }
    const unknown = await cli("charge", "create", "--merchant", "mer_nope", "--mode", "test", "--amount", "1")
    expect(unknown).toMatchObject({ code: 1, stderr: "pixgate: Merchant not found (not_found)\n" })
    const mode = await cli("charge", "create", "--merchant", merchant, "--mode", "prod", "--amount", "1")
    expect(mode.code).toBe(2)
    expect(mode.stderr).toContain("--mode must be test or live")
  })

  it("payout create: insufficient balance first; after a top-up the API's payout with its fees", async () => {
    const poor = await cli(
      "payout",
      "create",
      "--merchant",
      merchant,
      "--mode",
      "test",
      "--amount",
      "5",
      "--pix-key",
      "maria@example.com"
    )
    expect(poor).toMatchObject({ code: 1, stderr: "pixgate: Insufficient balance (insufficient_balance)\n" })
    expect((await cli("sandbox", "topup", "--merchant", merchant, "--amount", "100")).code).toBe(0)
    const payout = await cli(
      "payout",
      "create",
      "--merchant",
      merchant,
      "--mode",
      "test",
      "--amount",
      "5",
      "--pix-key",
      "maria@example.com",
      "--json"
    )
    expect(payout).toMatchObject({ code: 0, stderr: "" })
    expect(payout.json).toEqual({
      transactionId: txId,
      endToEndId: expect.stringMatching(/^E[0-9]{8}[0-9]{12}[a-zA-Z0-9]{11}$/),
      status: "pending",
      amount: 5,
      fees: { feeAmount: 0.33, gatewayFeeAmount: 0.1, adminMargin: 0.23, netAmount: 4.67 }
    })
    const balance = await cli("balance", "--merchant", merchant, "--mode", "test", "--json")
    expect(balance.json).toMatchObject({ available: 94.67 })
    const bad = await cli(
      "payout",
      "create",
      "--merchant",
      merchant,
      "--mode",
      "test",
      "--amount",
      "5",
      "--pix-key",
      "not a key"
    )
    expect(bad).toMatchObject({
      code: 1,
      stderr: "pixgate: pixKey is not a valid PIX key (invalid_pix_key)\n"
    })
    expect((await cli("balance", "--merchant", merchant, "--mode", "test", "--json")).json).toMatchObject({
      available: 94.67
    })
  })

  it("transactions list: the API's page in JSON, a table otherwise, with its filters", async () => {
    const all = await cli("transactions", "list", "--merchant", merchant, "--mode", "test", "--json")
    expect(all).toMatchObject({ code: 0, stderr: "" })
    expect({ ...all.json, data: all.json.data.length }).toEqual({
      data: 3,
      total: 3,
      page: 1,
      limit: 20,
      pages: 1
    })
    const deposits = await cli(
      "transactions",
      "list",
      "--merchant",
      merchant,
      "--mode",
      "test",
      "--type",
      "deposit",
      "--limit",
      "1",
      "--page",
      "2",
      "--json"
    )
    expect(deposits.json).toEqual({
      data: [
        {
          id: txId,
          type: "deposit",
          status: "pending",
          amount: 25.9,
          clientName: null,
          clientDocument: null,
          pixKey: null,
          txid: expect.any(String),
          endToEndId: null,
          feeAmount: 0.26,
          gatewayFeeAmount: 0.06,
          netAmount: 25.64,
          createdAt: iso,
          updatedAt: iso
        }
      ],
      total: 2,
      page: 2,
      limit: 1,
      pages: 2
    })
    const table = await cli(
      "transactions",
      "list",
      "--merchant",
      merchant,
      "--mode",
      "test",
      "--type",
      "withdrawal"
    )
    expect(table.code).toBe(0)
    const lines = table.stdout.trim().split("\n")
    // The balance column says what a payout takes: its amount and its fee (5.33), not amount - fee.
    expect(lines[0]).toMatch(/^ID\s+TYPE\s+STATUS\s+AMOUNT\s+FEE\s+BALANCE \+\/-\s+CREATED$/)
    expect(lines[1]).toMatch(/^tx_\w+\s+withdrawal\s+pending\s+5\.00\s+0\.33\s+-5\.33\s+\d{4}-/)
    expect(lines.at(-1)).toBe("page 1 of 1, 1 transaction")
    const charges = await cli(
      "transactions",
      "list",
      "--merchant",
      merchant,
      "--mode",
      "test",
      "--type",
      "deposit"
    )
    expect(charges.stdout).toMatch(/\ntx_\w+\s+deposit\s+pending\s+25\.90\s+0\.26\s+\+25\.64\s+\d{4}-/)
    const live = await cli("transactions", "list", "--merchant", merchant, "--mode", "live")
    expect(live.stdout).toBe("(no transactions)\npage 1 of 1, 0 transactions\n")
  })

  it("transactions list reports every bad filter with the API's messages", async () => {
    const run = await cli(
      "transactions",
      "list",
      "--merchant",
      merchant,
      "--mode",
      "test",
      "--status",
      "paid",
      "--start-date",
      "2026-02-30",
      "--limit",
      "0",
      "--type",
      "refund"
    )
    expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 1, stdout: "" })
    for (const message of [
      "limit must be a positive integer",
      "type must be one of: deposit, withdrawal, payment",
      "status must be one of: pending, completed, failed, refunded",
      "startDate must be a valid date in YYYY-MM-DD format"
    ])
      expect(run.stderr).toContain(message)
    expect(run.stderr).toMatch(/\(invalid_query\)\n$/)
    const order = await cli(
      "transactions",
      "list",
      "--merchant",
      merchant,
      "--mode",
      "test",
      "--start-date",
      "2026-03-02",
      "--end-date",
      "2026-03-01"
    )
    expect(order).toMatchObject({
      code: 1,
      stderr: "pixgate: startDate must not be after endDate (invalid_query)\n"
    })
  })

  it("payout create, read by a person: what the recipient gets, the fee, what the balance pays", async () => {
    // Never a "net" of amount - fee for a payout: nobody receives it.
    const readable = await cli(
      "payout",
      "create",
      "--merchant",
      merchant,
      "--mode",
      "test",
      "--amount",
      "10",
      "--pix-key",
      "maria@example.com"
    )
    expect(readable.code).toBe(0)
    expect(readable.stdout).toMatch(/\nrecipient gets: +10\.00\nfee: +0\.33\nbalance debited: +10\.33\n/)
    expect(readable.stdout).not.toMatch(/\nnet:|9\.67/)
  })
})
