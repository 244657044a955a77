/**
 * `pixgate infraction list` and `pixgate infraction answer` on a SQLite file: infractions the
 * bank reported (opened here through the engine on the same file) listed with their blocks and
 * deadlines, a defence before the deadline, refusals after it and a second time, an unknown id.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import type { Domain } from "@pixgate/core"
import { start } from "@pixgate/testkit/harness"
import { Effect } from "effect"
import { cliOn } from "./support/cli.js"

const dir = mkdtempSync(join(tmpdir(), "pixgate-cli-infraction-"))
const database = `sqlite:${join(dir, "infraction.db")}`
const cli = cliOn(database, dir)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe("pixgate infraction", () => {
  it("lists a merchant's infractions and answers one before its deadline, never after or twice", async () => {
    const merchant = (await cli("merchant", "create", "--name", "Loja", "--json")).json.merchantId as string
    const charge = async (amount: string) => {
      const id = (
        await cli("charge", "create", "--merchant", merchant, "--mode", "test", "--amount", amount, "--json")
      ).json.transactionId as Domain.TransactionId
      expect((await cli("sandbox", "pay", id)).code).toBe(0)
      return id
    }
    const a = await charge("40")
    const b = await charge("30")
    const empty = await cli("infraction", "list", "--merchant", merchant, "--mode", "test")
    expect(empty.stdout).toContain("(no infractions)")

    // The bank reports two infractions: one answerable for an hour, one whose deadline passed.
    const h = await start({ database, engine: { worker: false } })
    const now = Date.now()
    const [open, late] = await h.engine((e) =>
      Effect.all([
        e.infractions.open({
          transactionId: a,
          bankId: "CLI-A",
          type: "fraud",
          reason: "golpe",
          deadline: now + 3_600_000
        }),
        e.infractions.open({
          transactionId: b,
          bankId: "CLI-B",
          type: "operational_failure",
          reason: "erro",
          openedAt: now - 10_000,
          deadline: now - 1
        })
      ])
    )
    await h.close()
    if (!open.ok || !late.ok) throw new Error("the infractions did not open")

    const text = await cli("infraction", "list", "--merchant", merchant, "--mode", "test")
    expect(text.code).toBe(0)
    expect(text.stdout).toContain(open.value.id)
    expect(text.stdout).toContain(late.value.id)
    const listed = await cli(
      "infraction",
      "list",
      "--merchant",
      merchant,
      "--mode",
      "test",
      "--status",
      "open",
      "--json"
    )
    expect(listed.json.data).toHaveLength(2)
    expect(listed.json.data[1]).toMatchObject({
      infractionId: open.value.id,
      amountClaimed: 40,
      status: "open"
    })

    const answered = await cli(
      "infraction",
      "answer",
      "--infraction",
      open.value.id,
      "--analysis",
      "contested",
      "--justification",
      "Produto entregue",
      "--json"
    )
    expect({ code: answered.code, stderr: answered.stderr }).toEqual({ code: 0, stderr: "" })
    expect(answered.json).toMatchObject({ status: "defended", answer: { analysis: "contested" } })
    const twice = await cli(
      "infraction",
      "answer",
      "--infraction",
      open.value.id,
      "--analysis",
      "accepted",
      "--justification",
      "x"
    )
    expect(twice.code).toBe(1)
    expect(twice.stderr).toContain("infraction_not_answerable")
    const tooLate = await cli(
      "infraction",
      "answer",
      "--infraction",
      late.value.id,
      "--analysis",
      "contested",
      "--justification",
      "x"
    )
    expect(tooLate.code).toBe(1)
    expect(tooLate.stderr).toContain("infraction_deadline_passed")
    const wrong = await cli(
      "infraction",
      "answer",
      "--infraction",
      late.value.id,
      "--analysis",
      "maybe",
      "--justification",
      "x"
    )
    expect(wrong.code).not.toBe(0)
    expect(wrong.stderr).toContain("--analysis must be accepted or contested")
    const missing = await cli(
      "infraction",
      "answer",
      "--infraction",
      "inf_nope",
      "--analysis",
      "accepted",
      "--justification",
      "x"
    )
    expect(missing).toMatchObject({ code: 1, stderr: "pixgate: Infraction not found (not_found)\n" })
  })
})
