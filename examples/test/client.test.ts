import { describe, expect, it } from "@effect/vitest"
import { run } from "../client.js"

describe("examples/client.ts", () => {
  it("takes a charge with the promise client and receives its verified transaction.completed", async () => {
    const { charge, paid, events } = await run()
    expect(paid).toMatchObject({
      event: "transaction.completed",
      data: { transactionId: charge.transactionId, txid: charge.txid, amount: 25.9, status: "completed" }
    })
    // transaction.created came first, verified the same way.
    expect(events.map((e) => e.event)).toContain("transaction.created")
  })
})
