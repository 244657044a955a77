/**
 * A PIX report may carry the charge its reporter has just read (`ChargePaid.charge`, the
 * sandbox's payer): it is used instead of a second read by txid, but only for that txid, and the
 * change is still guarded by the charge as it is when it commits.
 */
import { describe, expect, it } from "@effect/vitest"
import { merchant } from "@pixgate/testkit/engineFixture"
import { Duration, Effect, Layer, Option } from "effect"
import * as MemoryStore from "../src/adapters/MemoryStore.js"
import type { TransactionId } from "../src/domain/Domain.js"
import { Engine, layer as engineLayer } from "../src/Engine.js"
import { ReadStore } from "../src/ports/Store.js"
import * as WebhookTransport from "../src/ports/WebhookTransport.js"
import { RequestEngine } from "./support/requests.js"

const engine = engineLayer({ config: { workerPollInterval: Duration.minutes(10) }, worker: false }).pipe(
  Layer.provideMerge(MemoryStore.layer),
  Layer.provide(WebhookTransport.fetch)
)

/** A new pending charge of the merchant, as the store holds it. */
const pendingCharge = Effect.gen(function* () {
  const requests = yield* RequestEngine
  const m = yield* merchant()
  const created = yield* requests.charges.create(m.test, { amount: 10 })
  const tx = yield* (yield* ReadStore).getTransaction(created.transactionId as TransactionId)
  if (Option.isNone(tx) || tx.value.txid === null) return yield* Effect.die("no charge")
  return { m, charge: tx.value, txid: tx.value.txid }
})

describe("A PIX report with the charge already read", () => {
  it.scoped("completes the charge once: a second report with the same, now stale, copy changes nothing", () =>
    Effect.gen(function* () {
      const { m, charge, txid } = yield* pendingCharge
      const events = (yield* Engine).bankEvents
      expect(yield* events.pixReceived({ txid, charge })).toBe("completed")
      // The copy still says pending and unpaid; the stored charge is paid: nothing moves.
      expect(yield* events.pixReceived({ txid, charge })).toBe("ignored")
      const stored = yield* (yield* ReadStore).getTransaction(charge.id)
      expect(Option.map(stored, (t) => t.status)).toEqual(Option.some("completed"))
      // Credited once: the net amount, in reais.
      const balance = yield* (yield* Engine).admin.balance(m.test.merchant.id, "test")
      expect(balance.available).toBe(charge.netAmount / 100)
    }).pipe(Effect.provide(engine))
  )

  it.scoped("a copy of another charge (another txid) is not used: the report's txid is read", () =>
    Effect.gen(function* () {
      const first = yield* pendingCharge
      const second = yield* pendingCharge
      const events = (yield* Engine).bankEvents
      expect(yield* events.pixReceived({ txid: first.txid, charge: second.charge })).toBe("completed")
      const reads = yield* ReadStore
      expect(Option.map(yield* reads.getTransaction(first.charge.id), (t) => t.status)).toEqual(
        Option.some("completed")
      )
      expect(Option.map(yield* reads.getTransaction(second.charge.id), (t) => t.status)).toEqual(
        Option.some("pending")
      )
    }).pipe(Effect.provide(engine))
  )
})
