/**
 * Time for the engine's scheduled work in tests: a clock stopped at one instant, and the
 * subscriptions' tick run at that instant until it finds nothing more to do.
 */
import type { Engine } from "@pixgate/core"
import { Clock, Effect } from "effect"

/** A clock stopped at `ms` (epoch ms); its sleeps still pass in real time. */
export const clockAt = (ms: number): Clock.Clock => {
  const base = Clock.make()
  return {
    [Clock.ClockTypeId]: Clock.ClockTypeId,
    unsafeCurrentTimeMillis: () => ms,
    currentTimeMillis: Effect.sync(() => ms),
    unsafeCurrentTimeNanos: () => BigInt(ms) * 1_000_000n,
    currentTimeNanos: Effect.sync(() => BigInt(ms) * 1_000_000n),
    sleep: (d) => base.sleep(d)
  }
}

/** The subscriptions' tick at `ms`, again until it finds nothing to do. */
export const ticksAt =
  (ms: number) =>
  (engine: Engine.EngineShape): Effect.Effect<void, unknown> =>
    Effect.gen(function* () {
      while ((yield* engine.subscriptions.tick) > 0) {}
    }).pipe(Effect.withClock(clockAt(ms)))
