/**
 * `pixgate trigger`: each supported event is produced in the sandbox (seen in the webhook log of
 * the merchant's test endpoint); an unknown event is refused with the list of supported ones.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { testDataKey } from "@pixgate/testkit/dataKeys"
import * as Cli from "../src/Cli.js"
import { cliOn } from "./support/cli.js"

const dir = mkdtempSync(join(tmpdir(), "pixgate-cli-trigger-"))
const database = `sqlite:${join(dir, "trigger.db")}`
const cli = cliOn(database, dir)
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
      steps: [
        `created charge ${run.json.transactionId} (10.00)`,
        `paid ${run.json.transactionId}: the balance grew by 9.90 (10.00 less its fee)`
      ]
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
      // --top-up: a refund the balance does not cover tops it up without asking.
      const run = await cli("trigger", event, "--merchant", merchant, "--top-up")
      expect({ code: run.code, stderr: run.stderr }, event).toEqual({ code: 0, stderr: "" })
      expect(run.stdout, event).toMatch(new RegExp(`^event: +${event.replace(".", "\\.")}\\n`))
      expect(await newEvents(), event).toEqual([...expected].sort())
    }
    // The first payout needed money: the output says so.
    const balance = await cli("balance", "--merchant", merchant, "--mode", "test", "--json")
    expect(balance.json.available).toBeGreaterThan(90)
  })

  it("asks before topping up: nothing changes without consent; a yes tops up and says by how much", async () => {
    const poor = (await cli("merchant", "create", "--name", "Loja Sem Saldo", "--json")).json.merchantId
    const run = async (answer: string | undefined, ...flags: Array<string>) => {
      let stdout = ""
      let stderr = ""
      const questions: Array<string> = []
      const code = await Cli.run(["trigger", "withdrawal.created", "--merchant", poor, ...flags], {
        env: { PIXGATE_DATABASE: database, PIXGATE_DATA_KEY: testDataKey },
        cwd: dir,
        stdout: (t) => {
          stdout += t
        },
        stderr: (t) => {
          stderr += t
        },
        ...(answer === undefined
          ? {}
          : {
              stdin: { isTTY: true, read: async () => "" },
              ask: async (question: string) => {
                questions.push(question)
                return answer
              }
            })
      })
      return { code, stdout, stderr, questions }
    }
    const balance = async () =>
      (await cli("balance", "--merchant", poor, "--mode", "test", "--json")).json.available
    // Nobody to ask (not a terminal): refused, nothing made, the way on said.
    const unasked = await run(undefined)
    expect(unasked.code).toBe(2)
    expect(unasked.stderr).toBe(
      "pixgate: the test balance (0.00) does not cover a payout of 1.00 and its fee; nothing was changed. " +
        "Run again with --top-up to add 100.00 first, or add money with pixgate sandbox topup\n"
    )
    expect(await balance()).toBe(0)
    const no = await run("n")
    expect(no.questions).toEqual([
      "The test balance (0.00) does not cover a payout of 1.00 and its fee. Top it up with 100.00? [y/N] "
    ])
    expect(no.code).toBe(2)
    expect(await balance()).toBe(0)
    const yes = await run("y")
    expect(yes.code).toBe(0)
    expect(yes.stdout).toMatch(/\nstep 1: +topped up the test balance with 100\.00: 0\.00 -> 100\.00\n/)
    expect(yes.stdout).toMatch(
      /\nstep 2: +created payout tx_\w+ \(1\.00 to sandbox@example\.com\): the balance fell by 1\.33\n/
    )
    expect(await balance()).toBe(98.67)
    // Enough now: no question, no top-up.
    const again = await run("y")
    expect(again.questions).toEqual([])
    expect(again.stdout).not.toContain("topped up")
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
