/**
 * Readiness: whether this instance should get traffic. Two checks, each named in the answer:
 * the database answers a ping within `readinessTimeout`, and the instance is not draining (its
 * host set `draining` at the start of a graceful stop, so load balancers take it out of rotation
 * while it finishes what it has). Liveness needs none of this: the process answering is enough.
 */
import { Context, Duration, Effect, Layer, Ref } from "effect"
import { ReadStore } from "../ports/Store.js"
import { EngineConfig } from "../runtime/Config.js"
import * as Metrics from "../runtime/Metrics.js"

/** A check's result: `ok`, or why it failed. */
export type DatabaseCheck = "ok" | "unreachable" | "timeout"

/** Whether the instance takes new work. */
export type InstanceCheck = "ok" | "draining"

/** The readiness answer. */
export interface Readiness {
  readonly ready: boolean
  readonly checks: { readonly database: DatabaseCheck; readonly instance: InstanceCheck }
  /** The names of the checks that failed (empty when ready). */
  readonly failed: ReadonlyArray<"database" | "instance">
  /** The database error's message when it was unreachable: for the log, not for the HTTP answer. */
  readonly reason?: string
}

/** The engine's health: the draining flag its host sets, and the readiness check. */
export interface HealthShape {
  /** Set to `true` by the host when it starts draining (never set back: a drain ends the process). */
  readonly draining: Ref.Ref<boolean>
  /** Runs both checks; never fails, never waits longer than `readinessTimeout`. */
  readonly readiness: Effect.Effect<Readiness>
}

/** Builds the health service over the store's ping and the configured bound. */
export const make: Effect.Effect<HealthShape, never, ReadStore | EngineConfig> = Effect.gen(function* () {
  const store = yield* ReadStore
  const config = yield* EngineConfig
  const draining = yield* Ref.make(false)
  // Whether the last probe found the database answering: a change is logged once, not per probe.
  const lastUp = yield* Ref.make(true)
  const database: Effect.Effect<{ readonly check: DatabaseCheck; readonly reason?: string }> =
    store.ping.pipe(
      Effect.as({ check: "ok" as const }),
      Effect.catchAll((error) => Effect.succeed({ check: "unreachable" as const, reason: error.message })),
      // A ping cut by the bound finishes in the background: a hung driver must not hold the probe.
      Effect.disconnect,
      Effect.timeoutTo({
        duration: Duration.max(config.readinessTimeout, Duration.millis(1)),
        onSuccess: (result): { readonly check: DatabaseCheck; readonly reason?: string } => result,
        onTimeout: () => ({ check: "timeout" as const })
      }),
      Effect.tap((db) =>
        Effect.flatMap(Ref.getAndSet(lastUp, db.check === "ok"), (was) =>
          was === (db.check === "ok")
            ? Effect.void
            : db.check === "ok"
              ? Effect.logInfo("Readiness: the database answers again")
              : Effect.logWarning("Readiness: the database does not answer").pipe(
                  Effect.annotateLogs({ check: db.check, reason: db.reason ?? "no answer in time" })
                )
        )
      )
    )
  const readiness = Effect.gen(function* () {
    const [db, isDraining] = yield* Effect.all([database, Ref.get(draining)], { concurrency: 2 })
    const instance: InstanceCheck = isDraining ? "draining" : "ok"
    yield* Metrics.readinessChecked(db.check === "ok", instance === "ok")
    const failed = [
      ...(db.check === "ok" ? [] : (["database"] as const)),
      ...(instance === "ok" ? [] : (["instance"] as const))
    ]
    return {
      ready: failed.length === 0,
      checks: { database: db.check, instance },
      failed,
      ...(db.reason === undefined ? {} : { reason: db.reason })
    } satisfies Readiness
  })
  // Once at start, so `pixgate_readiness_ok` has its series (and a true value) before the first probe.
  yield* readiness
  return { draining, readiness }
})

/** The readiness service, for the services and transports that use it. */
export class Health extends Context.Tag("@pixgate/core/Health")<Health, HealthShape>() {}

/** The service over its dependencies, as its layer declares them (without spans: `Engine.layer` adds them). */
export const layer = Layer.effect(Health, make)
