/**
 * The server's telemetry, loaded only when configured: a server without metrics or OTLP does
 * not import OpenTelemetry, and its requests pay nothing for it. Also the periodic ledger check,
 * which feeds the ledger gauges.
 */
import type { IncomingMessage, ServerResponse } from "node:http"
import { Engine } from "@pixgate/core"
import { Effect, Fiber, type Layer, type ManagedRuntime } from "effect"
import type { Authorize, TelemetryOptions } from "./Telemetry.js"

/** What the server does with its telemetry. */
export interface Loaded {
  /** The engine's options for it: the runtime's tracer and metric readers. */
  readonly engine: { readonly telemetry?: Layer.Layer<never>; readonly tracing?: boolean }
  /** Answers `/metrics` when it is served on the main port; false for any other request. */
  readonly handle: (req: IncomingMessage, res: ServerResponse) => boolean
  /** The metrics listener's URL, when it has its own port. */
  readonly metricsUrl: string | undefined
  /** Starts the periodic ledger check on the engine's runtime, if asked for; returns its stop. */
  readonly watch: (runtime: ManagedRuntime.ManagedRuntime<Engine.Engine, unknown>) => () => Promise<void>
  readonly close: () => Promise<void>
}

const modes = ["test", "live"] as const

/** Both modes' ledger checks every `intervalMs`, the first one interval after the start. */
const checkLedger = (intervalMs: number) =>
  Effect.flatMap(Engine.Engine, (engine) =>
    Effect.sleep(intervalMs).pipe(
      Effect.zipRight(
        Effect.forEach(modes, (mode) =>
          engine.admin.checkLedger(mode).pipe(
            Effect.flatMap((check) =>
              check.unbalancedEntries.length + check.balanceMismatches.length === 0
                ? Effect.void
                : Effect.logError("The ledger check found problems").pipe(
                    Effect.annotateLogs({
                      mode,
                      unbalancedEntries: check.unbalancedEntries.length,
                      balanceMismatches: check.balanceMismatches.length
                    })
                  )
            ),
            Effect.catchAll((error) =>
              Effect.logWarning("The ledger check could not run", error.message).pipe(
                Effect.annotateLogs({ mode })
              )
            ),
            // A unit of work of its own: one root span with the check's reads under it.
            Effect.withSpan("pixgate.ledger.check", { root: true, attributes: { "pixgate.mode": mode } })
          )
        )
      ),
      Effect.forever
    )
  )

const watcher =
  (intervalMs: number | undefined) => (runtime: ManagedRuntime.ManagedRuntime<Engine.Engine, unknown>) => {
    if (intervalMs === undefined || intervalMs <= 0) return () => Promise.resolve()
    const fiber = runtime.runFork(checkLedger(intervalMs))
    return () => Effect.runPromise(Fiber.interrupt(fiber)).then(() => undefined)
  }

const none: Loaded = {
  engine: {},
  handle: () => false,
  metricsUrl: undefined,
  watch: watcher(undefined),
  close: () => Promise.resolve()
}

/** Starts what `options` asks for (its metrics listener included), or nothing. */
export const load = async (
  options: TelemetryOptions | undefined,
  authorize: Authorize | undefined
): Promise<Loaded> => {
  if (options === undefined) return none
  if (options.metrics === undefined && options.otlp === undefined)
    return { ...none, watch: watcher(options.ledgerCheckIntervalMs) }
  const started = await (await import("./Telemetry.js")).start(options, authorize)
  return {
    engine: {
      ...(started.layer === undefined ? {} : { telemetry: started.layer }),
      ...(started.tracing ? { tracing: true } : {})
    },
    handle: started.handle,
    metricsUrl: started.metricsUrl,
    watch: watcher(options.ledgerCheckIntervalMs),
    close: started.close
  }
}
