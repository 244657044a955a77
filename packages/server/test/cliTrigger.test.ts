/**
 * `pixgate trigger`: each supported event is produced in the sandbox (seen in the webhook log of
 * the merchant's test endpoint); an unknown event is refused with the list of supported ones.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { cliOn } from "./support/cli.js"

const dir = mkdtempSync(join(tmpdir(), "pixgate-cli-trigger-"))
const cli = cliOn(`sqlite:${join(dir, "trigger.db")}`, dir)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe("pixgate trigger", () => {
  let merchant: string
  const seen = new Set<string>()
  /** The events delivered since the last call (sorted: events of one millisecond have no order). */
  const newEvents = async (): Promise<Array<string>> => {
    const log: Array<{ deliveryId: string; event: string }> = (
      await cli("webhook", "log", "--merchant", merchant, "--mode", "test", "--limit", "100", "--json")
    ).json
    const fresh = log.filter((d) => !seen.has(d.deliveryId))
    for (const d of fresh) seen.add(d.deliveryId)
    return fresh.map((d) => d.event).sort()
  }

  beforeAll(async () => {
    merchant = (await cli("merchant", "create", "--name", "Loja", "--json")).json.merchantId
    const set = await cli(
      "webhook",
      "set",
      "--merchant",
      merchant,
      "--mode",
      "test",
      "--url",
      "http://127.0.0.1:9/hook",
      "--secret",
      "whsecret-123"
    )
    expect(set.code).toBe(0)
  })

  it("transaction.completed: a test charge, paid now (created, then completed)", async () => {
    const run = await cli("trigger", "transaction.completed", "--merchant", merchant, "--json")
    expect(run).toMatchObject({ code: 0, stderr: "" })
    expect(run.json).toEqual({
      event: "transaction.completed",
      merchantId: merchant,
      mode: "test",
      transactionId: expect.stringMatching(/^tx_/),
      steps: [`created charge ${run.json.transactionId} (10.00)`, `paid ${run.json.transactionId}`]
    })
    expect(await newEvents()).toEqual(["transaction.completed", "transaction.created"])
  })

  it("webhook.test: one test event to the test endpoint, no transaction, no money", async () => {
    const before = (await cli("balance", "--merchant", merchant, "--mode", "test", "--json")).json
    const run = await cli("trigger", "webhook.test", "--merchant", merchant, "--json")
    expect(run).toMatchObject({ code: 0, stderr: "" })
    expect(run.json).toEqual({
      event: "webhook.test",
      merchantId: merchant,
      mode: "test",
      eventId: expect.stringMatching(/^evt_/),
      steps: [expect.stringMatching(/^sent test event evt_\S+ \(delivery dlv_\S+\)$/)]
    })
    expect(await newEvents()).toEqual(["webhook.test"])
    expect((await cli("balance", "--merchant", merchant, "--mode", "test", "--json")).json).toEqual(before)
  })

  it("every other event, each seen in the log", async () => {
    const cases = [
      ["transaction.failed", ["transaction.created", "transaction.failed"]],
      // A payout is a transaction too: transaction.created comes with withdrawal.created.
      ["withdrawal.created", ["transaction.created", "withdrawal.created"]],
      ["withdrawal.completed", ["transaction.created", "withdrawal.created", "withdrawal.completed"]],
      ["chargeback.created", ["transaction.created", "transaction.completed", "chargeback.created"]],
      [
        "chargeback.updated",
        ["transaction.created", "transaction.completed", "chargeback.created", "chargeback.updated"]
      ],
      [
        "refund.completed",
        ["transaction.created", "transaction.completed", "refund.created", "refund.completed"]
      ],
      ["refund.failed", ["transaction.created", "transaction.completed", "refund.created", "refund.failed"]],
      // The CLI runs no worker: the refund stays pending (a server's worker completes it).
      ["refund.created", ["transaction.created", "transaction.completed", "refund.created"]]
    ] as const
    for (const [event, expected] of cases) {
      const run = await cli("trigger", event, "--merchant", merchant)
      expect({ code: run.code, stderr: run.stderr }, event).toEqual({ code: 0, stderr: "" })
      expect(run.stdout, event).toMatch(new RegExp(`^event: +${event.replace(".", "\\.")}\\n`))
      expect(await newEvents(), event).toEqual([...expected].sort())
    }
    // The first payout needed money: the output says so.
    const balance = await cli("balance", "--merchant", merchant, "--mode", "test", "--json")
    expect(balance.json.available).toBeGreaterThan(90)
  })

  it("refuses an unknown event (exit 2) and live mode does not exist for it", async () => {
    const unknown = await cli("trigger", "payment.created", "--merchant", merchant)
    expect(unknown).toMatchObject({
      code: 2,
      stdout: "",
      stderr:
        "pixgate: Unknown event: payment.created. Supported: transaction.created, transaction.completed, " +
        "transaction.failed, withdrawal.created, withdrawal.completed, chargeback.created, chargeback.updated, " +
        "refund.created, refund.completed, refund.failed, webhook.test\n"
    })
    const live = await cli("trigger", "transaction.created", "--merchant", merchant, "--mode", "live")
    expect(live.code).toBe(2)
    const nobody = await cli("trigger", "transaction.created", "--merchant", "mer_nope")
    expect(nobody).toMatchObject({ code: 1, stderr: "pixgate: Merchant not found (not_found)\n" })
  })
})
