/**
 * Several live gateways: a merchant's transaction goes through the gateway in effect at its
 * creation (the default without an assignment, none when its gateway is not configured), and
 * a gateway's context is fenced to its own merchants' transactions: a report about another
 * gateway's charge or payout changes nothing and reads do not see it.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import type { MerchantId, Transaction, TransactionId } from "../src/domain/Domain.js"
import { merchantGatewayOps } from "../src/internal/memoryMerchantGateways.js"
import type { BankGatewayShape, GatewayContext } from "../src/ports/BankGateway.js"
import * as GatewayRouting from "../src/services/GatewayRouting.js"

const gateway = (): BankGatewayShape => ({
  createCharge: () => Effect.succeed({ location: "x" }),
  timers: () => []
})
const sandbox = gateway()
const efi = gateway()
const asaas = gateway()
const onEfi = "mer_efi" as MerchantId
const onAsaas = "mer_asaas" as MerchantId
const tx = (id: string, merchantId: MerchantId, createdAt: number) =>
  ({
    id: id as TransactionId,
    merchantId,
    mode: "live",
    createdAt,
    txid: `txid${id}`
  }) as unknown as Transaction

describe("GatewayRouting", () => {
  it.effect("each merchant's transactions by the assignment in effect at their creation", () =>
    Effect.gen(function* () {
      const store = merchantGatewayOps()
      yield* store.assignGateway({ merchantId: onAsaas, gateway: "asaas", effectiveAt: 1000, assignedAt: 0 })
      yield* store.assignGateway({ merchantId: onAsaas, gateway: "gone", effectiveAt: 5000, assignedAt: 1 })
      const gateways = GatewayRouting.make(
        sandbox,
        [
          { name: "efi", gateway: efi },
          { name: "asaas", gateway: asaas }
        ],
        Option.some(store)
      )
      const at = (merchantId: MerchantId, t: number) =>
        Effect.map(
          gateways.forMerchant(merchantId, "live", t),
          Option.map((g) => g.name)
        )
      expect(yield* at(onEfi, 2000)).toEqual(Option.some("efi"))
      expect(yield* at(onAsaas, 999)).toEqual(Option.some("efi"))
      expect(yield* at(onAsaas, 1000)).toEqual(Option.some("asaas"))
      // Assigned to a gateway the engine does not have: none (502 for new money, jobs wait).
      expect(yield* at(onAsaas, 5000)).toEqual(Option.none())
      expect(Option.map(yield* gateways.forMerchant(onAsaas, "test", 3000), (g) => g.gateway)).toEqual(
        Option.some(sandbox)
      )
      expect(gateways.forMode("live")).toEqual(Option.some(efi))
    })
  )

  it.effect("a gateway's context sees and changes only its own merchants' transactions", () =>
    Effect.gen(function* () {
      const store = merchantGatewayOps()
      yield* store.assignGateway({ merchantId: onAsaas, gateway: "asaas", effectiveAt: 1000, assignedAt: 0 })
      const gateways = GatewayRouting.make(
        sandbox,
        [
          { name: "efi", gateway: efi },
          { name: "asaas", gateway: asaas }
        ],
        Option.some(store)
      )
      const efiCharge = tx("1", onEfi, 2000)
      const asaasCharge = tx("2", onAsaas, 2000)
      const all = [efiCharge, asaasCharge]
      const changed: Array<string> = []
      const ctx = {
        getTransaction: (id: TransactionId) =>
          Effect.succeed(Option.fromNullable(all.find((t) => t.id === id))),
        findByTxid: (txid: string) => Effect.succeed(Option.fromNullable(all.find((t) => t.txid === txid))),
        paymentReceived: (event: { txid: string }) =>
          Effect.sync(() => {
            changed.push(`paid ${event.txid}`)
            return "completed" as const
          }),
        payoutSettled: (id: TransactionId) =>
          Effect.sync(() => {
            changed.push(`settled ${id}`)
            return true
          }),
        payoutFailed: (id: TransactionId) =>
          Effect.sync(() => {
            changed.push(`failed ${id}`)
            return true
          })
      } as unknown as GatewayContext
      const asEfi = GatewayRouting.fenced(gateways, "efi", ctx)
      const asAsaas = GatewayRouting.fenced(gateways, "asaas", ctx)
      expect(yield* asEfi.findByTxid(asaasCharge.txid ?? "")).toEqual(Option.none())
      expect(yield* asEfi.getTransaction(asaasCharge.id)).toEqual(Option.none())
      expect(yield* asAsaas.getTransaction(asaasCharge.id)).toEqual(Option.some(asaasCharge))
      expect(yield* asEfi.paymentReceived({ txid: asaasCharge.txid ?? "" })).toBe("ignored")
      expect(yield* asEfi.payoutSettled(asaasCharge.id)).toBe(false)
      expect(yield* asAsaas.payoutFailed(efiCharge.id, "bank_rejected")).toBe(false)
      expect(changed).toEqual([])
      expect(yield* asAsaas.paymentReceived({ txid: asaasCharge.txid ?? "" })).toBe("completed")
      expect(yield* asEfi.payoutSettled(efiCharge.id)).toBe(true)
      expect(changed).toEqual([`paid ${asaasCharge.txid}`, `settled ${efiCharge.id}`])
      // Batched reports check no owner: a fenced context offers none, so its jobs run one by one.
      const batched = {
        ...ctx,
        payoutsSettledAsJobs: () => Effect.succeed([]),
        chargesPaidAsJobs: () => Effect.succeed([])
      } satisfies GatewayContext
      expect(GatewayRouting.fenced(gateways, "efi", batched).payoutsSettledAsJobs).toBeUndefined()
      expect(GatewayRouting.fenced(gateways, "efi", batched).chargesPaidAsJobs).toBeUndefined()
      // With one live gateway, its context is the engine's own.
      const one = GatewayRouting.make(sandbox, [{ name: "efi", gateway: efi }], Option.some(store))
      expect(GatewayRouting.fenced(one, "efi", ctx)).toBe(ctx)
    })
  )

  it("two gateways registering one job kind cannot run together", () => {
    const withJob = (): BankGatewayShape => ({ ...gateway(), jobs: { "same.kind": () => Effect.void } })
    const gateways = GatewayRouting.make(
      sandbox,
      [
        { name: "a", gateway: withJob() },
        { name: "b", gateway: withJob() }
      ],
      Option.none()
    )
    expect(() => GatewayRouting.liveJobs(gateways, {} as GatewayContext)).toThrow(
      "The gateways a and b both register the job kind same.kind"
    )
  })

  it("callbacks under /gateways/<name> go to that gateway, others to the default", () => {
    const gateways = GatewayRouting.make(
      sandbox,
      [
        { name: "efi", gateway: efi },
        { name: "asaas", gateway: asaas }
      ],
      Option.none()
    )
    const route = (path: string) =>
      Option.map(GatewayRouting.routeCallback(gateways, { path, body: {} }), (r) => [
        r.gateway.name,
        r.callback.path
      ])
    expect(route("/pix")).toEqual(Option.some(["efi", "/pix"]))
    expect(route("")).toEqual(Option.some(["efi", ""]))
    expect(route("/gateways/asaas")).toEqual(Option.some(["asaas", ""]))
    expect(route("/gateways/asaas/pix")).toEqual(Option.some(["asaas", "/pix"]))
  })
})
