/**
 * `pixgate refund create` and `pixgate refund list` on a SQLite file: a partial refund of a paid
 * test charge, a retry under the printed key that answers the first refund, the balance debited
 * once, a refund past what is left refused, and the list's receipt lines.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { cliOn } from "./support/cli.js"

const dir = mkdtempSync(join(tmpdir(), "pixgate-cli-refund-"))
const cli = cliOn(`sqlite:${join(dir, "refund.db")}`, dir)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe("pixgate refund", () => {
  it("refunds part of a paid charge once per key, refuses more than is left, and lists the refunds", async () => {
    const merchant = (await cli("merchant", "create", "--name", "Loja", "--json")).json.merchantId as string
    const charge = (
      await cli("charge", "create", "--merchant", merchant, "--mode", "test", "--amount", "50", "--json")
    ).json.transactionId as string
    expect((await cli("sandbox", "pay", charge)).code).toBe(0)
    const before = (await cli("balance", "--merchant", merchant, "--mode", "test", "--json")).json.available

    const first = await cli("refund", "create", "--charge", charge, "--amount", "20", "--json")
    expect({ code: first.code, stderr: first.stderr }).toEqual({ code: 0, stderr: "" })
    expect(first.json).toMatchObject({ transactionId: charge, amount: 20, status: "pending" })
    const key = first.json.idempotencyKey as string
    expect(key).toMatch(/^cli-/)
    // The same key: the first refund, not a second one.
    const again = await cli(
      "refund",
      "create",
      "--charge",
      charge,
      "--amount",
      "20",
      "--idempotency-key",
      key,
      "--json"
    )
    expect(again.json.refundId).toBe(first.json.refundId)
    const after = (await cli("balance", "--merchant", merchant, "--mode", "test", "--json")).json.available
    expect(after).toBeCloseTo(before - 20, 2)

    const over = await cli(
      "refund",
      "create",
      "--charge",
      charge,
      "--amount",
      "30.01",
      "--idempotency-key",
      "k2"
    )
    expect(over.code).toBe(1)
    expect(over.stderr).toContain("refund_exceeds_received")

    const text = await cli("refund", "list", "--charge", charge)
    expect(text.code).toBe(0)
    expect(text.stdout).toContain(first.json.refundId)
    expect(text.stdout).toContain("refunded 20.00 of 50.00, 30.00 left to refund")
    const list = await cli("refund", "list", "--charge", charge, "--merchant", merchant, "--json")
    expect(list.json).toMatchObject({ refunded: 20, refundable: 30, amount: 50 })

    const missing = await cli("refund", "list", "--charge", "tx_nope")
    expect(missing).toMatchObject({ code: 1, stderr: "pixgate: Charge not found (not_found)\n" })
  })
})
