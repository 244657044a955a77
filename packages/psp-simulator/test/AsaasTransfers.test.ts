/**
 * The simulated Asaas's transfers to Pix keys: out of the balance (a refusal beyond it), an
 * identical transfer within 15 minutes refused with 409 as Asaas documents, `externalReference`
 * kept and listed by creation day, settled with an end-to-end id or failed with its reason
 * (money back), and the `TRANSFER_*` events.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { AsaasSimulator } from "../src/index.js"
import { asaas, eventReceiver } from "./asaasHelpers.js"

let sim: AsaasSimulator.AsaasSimulator
let hooks: Awaited<ReturnType<typeof eventReceiver>>
const today = () => new Date(Date.now() - 3 * 3_600_000).toISOString().slice(0, 10)

const transfer = (value: number, externalReference?: string, key = "destino@banco.example") =>
  asaas(sim, "POST", "/transfers", {
    body: {
      value,
      pixAddressKey: key,
      pixAddressKeyType: "EMAIL",
      description: "Saque",
      ...(externalReference === undefined ? {} : { externalReference })
    }
  })

beforeAll(async () => {
  sim = await AsaasSimulator.start({ balance: 100_00 })
  hooks = await eventReceiver()
  await asaas(sim, "POST", "/webhooks", {
    body: {
      url: hooks.url,
      events: ["TRANSFER_CREATED", "TRANSFER_DONE", "TRANSFER_FAILED"],
      authToken: "x".repeat(32)
    }
  })
})
afterAll(async () => {
  await sim?.close()
  await hooks?.close()
})

describe("transfers to Pix keys", () => {
  it("are PENDING with the externalReference, listed by creation day, DONE with an end-to-end id", async () => {
    const made = await transfer(10, "tx_payout1")
    expect(made.status).toBe(200)
    expect(made.body).toMatchObject({
      object: "transfer",
      status: "PENDING",
      value: 10,
      externalReference: "tx_payout1",
      endToEndIdentifier: null,
      operationType: "PIX"
    })
    expect(sim.state.balance).toBe(90_00)
    const listed = await asaas(sim, "GET", `/transfers?dateCreated[ge]=${today()}&limit=100`)
    expect(listed.body.data.map((t: { id: string }) => t.id)).toContain(made.body.id)
    await sim.settleTransfer(made.body.id)
    const read = await asaas(sim, "GET", `/transfers/${made.body.id}`)
    expect(read.body.status).toBe("DONE")
    expect(read.body.endToEndIdentifier).toMatch(/^E19540550/)
    const events = hooks.received.filter((e) => (e.body.transfer as { id: string }).id === made.body.id)
    expect(events.map((e) => e.body.event)).toEqual(["TRANSFER_CREATED", "TRANSFER_DONE"])
  })

  it("a failed transfer returns its money and says why", async () => {
    const made = await transfer(7, "tx_payout2")
    await sim.failTransfer(made.body.id, "Chave Pix não encontrada")
    const read = await asaas(sim, "GET", `/transfers/${made.body.id}`)
    expect(read.body).toMatchObject({ status: "FAILED", failReason: "Chave Pix não encontrada" })
    expect(sim.state.balance).toBe(90_00)
  })

  it("refuses a transfer beyond the balance, a bad key, and an identical one within 15 minutes (409)", async () => {
    const broke = await transfer(1_000)
    expect([broke.status, broke.body.errors[0].code]).toEqual([400, "insufficient_balance"])
    const badKey = await asaas(sim, "POST", "/transfers", {
      body: { value: 1, pixAddressKey: "not-a-cpf", pixAddressKeyType: "CPF" }
    })
    expect(badKey.status).toBe(400)
    expect((await transfer(3, "tx_a", "outro@banco.example")).status).toBe(200)
    const twin = await transfer(3, "tx_b", "outro@banco.example")
    expect([twin.status, twin.body.errors[0].code]).toEqual([409, "duplicated_transfer"])
    expect((await transfer(4, "tx_c", "outro@banco.example")).status).toBe(200)
  })

  it("settles in the answer when told to (instant)", async () => {
    sim.setTransferOutcome("instant")
    try {
      const made = await transfer(2, "tx_instant")
      expect(made.body.status).toBe("DONE")
      expect(made.body.endToEndIdentifier).toMatch(/^E/)
    } finally {
      sim.setTransferOutcome("manual")
    }
  })
})
