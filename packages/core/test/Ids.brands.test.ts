import { describe, expect, it } from "@effect/vitest"
import { Effect, Option, Schema } from "effect"
import * as Domain from "../src/domain/Domain.js"
import * as Ids from "../src/domain/Ids.js"

/** A typed constructor's id: of its prefix, decoded by its schema, accepted by its guard. */
const checkKind = <A extends string>(
  prefix: string,
  make: (nowMs: number) => A,
  schema: Schema.Schema<A, string>,
  is: (u: unknown) => u is A
) => {
  const id = make(Date.UTC(2026, 0, 1))
  expect(id).toMatch(new RegExp(`^${prefix}_[0-9A-Z]{26}$`))
  expect(Schema.decodeUnknownOption(schema)(id)).toEqual(Option.some(id))
  expect(is(id)).toBe(true)
}

describe("branded ids", () => {
  it("each typed constructor makes an id of its prefix that its schema decodes and its guard accepts", () => {
    checkKind("mer", Ids.merchantId, Domain.MerchantId, Domain.isMerchantId)
    checkKind("tx", Ids.transactionId, Domain.TransactionId, Domain.isTransactionId)
    checkKind("evt", Ids.eventId, Domain.EventId, Domain.isEventId)
    checkKind("cb", Ids.chargebackId, Domain.ChargebackId, Domain.isChargebackId)
    checkKind("dlv", Ids.deliveryId, Domain.DeliveryId, Domain.isDeliveryId)
    checkKind("key", Ids.apiKeyId, Domain.ApiKeyId, Domain.isApiKeyId)
    checkKind("job", Ids.jobId, Domain.JobId, Domain.isJobId)
    checkKind("je", Ids.entryId, Domain.EntryId, Domain.isEntryId)
  })

  it("an id of another kind, or of no id's shape, is refused by the schema and the guard", () => {
    const merchant = Ids.merchantId(1)
    const transaction = Ids.transactionId(1)
    for (const bad of [
      transaction,
      "",
      "mer_",
      "mer-1",
      "mer_a/b",
      "mer_%00",
      `mer_${"a".repeat(101)}`,
      7,
      null
    ]) {
      expect(Option.isNone(Schema.decodeUnknownOption(Domain.MerchantId)(bad))).toBe(true)
      expect(Domain.isMerchantId(bad)).toBe(false)
    }
    expect(Domain.isMerchantId(merchant)).toBe(true)
    // Fixed ids of words (a gateway's own job) are ids too.
    expect(Domain.isJobId("job_apipix_reconcile")).toBe(true)
    expect(Domain.isMerchantId("mer_webhooks")).toBe(true)
  })

  it.effect("findById reads by a well-formed id, and answers None without reading for any other", () =>
    Effect.gen(function* () {
      const reads: Array<string> = []
      const read = (id: Domain.TransactionId) =>
        Effect.sync(() => {
          reads.push(id)
          return Option.some(id.length)
        })
      const id = Ids.transactionId(1)
      expect(yield* Domain.findById(Domain.TransactionId, id, read)).toEqual(Option.some(id.length))
      expect(yield* Domain.findById(Domain.TransactionId, "mer_x", read)).toEqual(Option.none())
      expect(yield* Domain.findById(Domain.TransactionId, "../tx_1", read)).toEqual(Option.none())
      expect(yield* Domain.findById(Domain.TransactionId, undefined, read)).toEqual(Option.none())
      expect(reads).toEqual([id])
    })
  )
})
