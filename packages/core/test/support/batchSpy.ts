/**
 * The engine over a memory store whose transitions are watched and faulted, for the tests of
 * work applied in batches (`LedgerStore.advanceEach`): the sizes of the batches, the items a
 * single `advance` applied instead, and items that fail once or answer an unknown outcome once.
 */
import { Duration, Effect, Either, Layer } from "effect"
import * as MemoryStore from "../../src/adapters/MemoryStore.js"
import { layer as engineLayer } from "../../src/Engine.js"
import { type Advance, type AdvanceOutcome, Store, StoreError } from "../../src/ports/Store.js"
import * as WebhookTransport from "../../src/ports/WebhookTransport.js"

/** What the engine asked of the store's transitions, and the faults to inject. */
export interface Spy {
  /** Sizes of the `advanceEach` calls. */
  readonly batches: Array<number>
  /** Items applied by a single `advance` (those `single` picks). */
  readonly singles: Array<string>
  /** Items that fail once, before anything is written. */
  readonly failOnce: Set<string>
  /** Items applied, then answered with an unknown outcome once (a connection lost at COMMIT). */
  readonly unknownOnce: Set<string>
}

export const newSpy = (): Spy => ({ batches: [], singles: [], failOnce: new Set(), unknownOnce: new Set() })

/** The memory store, its transitions watched and faulted as `spy` says; `single` picks what `singles` records. */
const spiedStore = (spy: Spy, single: (input: Advance) => boolean) =>
  Layer.effect(
    Store,
    Effect.map(MemoryStore.make, (store) => ({
      ...store,
      advance: (input: Advance) => {
        if (single(input)) spy.singles.push(input.id)
        return store.advance(input)
      },
      advanceEach: (inputs: ReadonlyArray<Advance>) =>
        Effect.gen(function* () {
          spy.batches.push(inputs.length)
          const out: Array<AdvanceOutcome> = []
          for (const input of inputs) {
            if (spy.failOnce.delete(input.id)) {
              out.push(Either.left(new StoreError({ message: "injected failure" })))
            } else if (spy.unknownOnce.delete(input.id)) {
              yield* Effect.either(store.advance(input))
              out.push(Either.left(new StoreError({ message: "injected unknown", outcome: "unknown" })))
            } else out.push(...(yield* store.advanceEach([input])))
          }
          return out
        })
    }))
  )

/**
 * The engine over the spied store. The worker's tick is 3 s: a round holds the next for 3 s, so
 * every sandbox timer due 2-3 s after the request that set it (a payout's settlement, a
 * charge's payment) made at one tick is due at the next, and one claim leases them all, as a
 * busy server's claims do.
 */
export const engineOver = (spy: Spy, single: (input: Advance) => boolean) =>
  engineLayer({ config: { workerPollInterval: Duration.minutes(10), workerTick: Duration.seconds(3) } }).pipe(
    Layer.provideMerge(spiedStore(spy, single)),
    Layer.provide(WebhookTransport.fetch)
  )
