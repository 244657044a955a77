/**
 * Group commit with batches at once (packages/store-sql/src/internal/coalesce.ts): batches that
 * run at the same time never share a key, and one key's items run in the order they were queued.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import * as Coalesce from "../src/internal/coalesce.js"

interface Item {
  readonly seq: number
  readonly keys: ReadonlyArray<string>
}

describe("Coalesce with keysOf", () => {
  it.live("overlapping batches hold disjoint keys; each key's items run in queue order", () =>
    Effect.gen(function* () {
      const running = new Set<string>()
      const ran = new Map<string, Array<number>>()
      let overlapping = 0
      let peak = 0
      const shared: Array<string> = []
      const coalescer = yield* Coalesce.make<Item, number, never>({
        maxBatch: 8,
        concurrency: 3,
        kind: "test",
        keysOf: (item) => item.keys,
        run: (items) =>
          Effect.gen(function* () {
            const keys = new Set(items.flatMap((i) => i.keys))
            for (const k of keys) if (running.has(k)) shared.push(k)
            for (const k of keys) running.add(k)
            overlapping++
            peak = Math.max(peak, overlapping)
            for (const i of items) for (const k of i.keys) ran.set(k, [...(ran.get(k) ?? []), i.seq])
            yield* Effect.sleep("3 millis")
            overlapping--
            for (const k of keys) running.delete(k)
            return items.map((i) => Exit.succeed(i.seq))
          })
      })
      // Ten keys; every fifth item holds two of them (a payment between two merchants).
      const items: ReadonlyArray<Item> = Array.from({ length: 400 }, (_, seq) => ({
        seq,
        keys: seq % 5 === 0 ? [`k${seq % 10}`, `k${(seq + 3) % 10}`] : [`k${seq % 10}`]
      }))
      const answers = yield* Effect.forEach(items, (i) => coalescer.submit(i), { concurrency: "unbounded" })
      expect(answers).toEqual(items.map((i) => i.seq))
      expect(shared).toEqual([])
      expect(peak).toBeGreaterThanOrEqual(2)
      for (const [key, seqs] of ran) {
        expect(seqs, key).toEqual(items.filter((i) => i.keys.includes(key)).map((i) => i.seq))
      }
    })
  )

  it.live("items without keys join any batch; a lone item runs", () =>
    Effect.gen(function* () {
      const coalescer = yield* Coalesce.make<number, number, never>({
        maxBatch: 4,
        concurrency: 2,
        kind: "test",
        keysOf: () => [],
        run: (items) => Effect.succeed(items.map((i) => Exit.succeed(i * 2)))
      })
      expect(yield* coalescer.submit(21)).toBe(42)
      const all = yield* Effect.forEach([1, 2, 3, 4, 5, 6, 7], (i) => coalescer.submit(i), {
        concurrency: "unbounded"
      })
      expect(all).toEqual([2, 4, 6, 8, 10, 12, 14])
    })
  )
})

describe("Coalesce.submitAll", () => {
  it.live("each item its own outcome, in order, across batches; one failure fails alone", () =>
    Effect.gen(function* () {
      const batches: Array<ReadonlyArray<number>> = []
      const coalescer = yield* Coalesce.make<number, number, string>({
        maxBatch: 4,
        concurrency: 1,
        kind: "test",
        run: (items) =>
          Effect.sync(() => {
            batches.push(items)
            return items.map((i) => (i === 7 ? Exit.fail("seven") : Exit.succeed(i * 2)))
          })
      })
      expect(yield* coalescer.submitAll([])).toEqual([])
      const items = Array.from({ length: 10 }, (_, i) => i)
      const exits = yield* coalescer.submitAll(items)
      expect(exits).toEqual(items.map((i) => (i === 7 ? Exit.fail("seven") : Exit.succeed(i * 2))))
      // One submission, in as many batches as the batch size asks, in order.
      expect(batches).toEqual([
        [0, 1, 2, 3],
        [4, 5, 6, 7],
        [8, 9]
      ])
    })
  )

  it.live("items submitted together share batches with single submissions", () =>
    Effect.gen(function* () {
      const batches: Array<ReadonlyArray<number>> = []
      const coalescer = yield* Coalesce.make<number, number, never>({
        maxBatch: 256,
        concurrency: 1,
        kind: "test",
        run: (items) =>
          Effect.sync(() => {
            batches.push(items)
            return items.map((i) => Exit.succeed(i))
          })
      })
      const [all, one] = yield* Effect.all([coalescer.submitAll([1, 2, 3]), coalescer.submit(4)], {
        concurrency: "unbounded"
      })
      expect(all).toEqual([Exit.succeed(1), Exit.succeed(2), Exit.succeed(3)])
      expect(one).toBe(4)
      expect(batches).toEqual([[1, 2, 3, 4]])
    })
  )
})
