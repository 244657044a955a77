/**
 * The server's telemetry, loaded only when configured: a server without metrics or OTLP does
 * not import OpenTelemetry, and its requests pay nothing for it.
 */
import type { IncomingMessage, ServerResponse } from "node:http"
import type { Layer } from "effect"
import type { TelemetryOptions } from "./Telemetry.js"

/** What the server does with its telemetry. */
export interface Loaded {
  /** The engine's options for it: the runtime's tracer and metric readers. */
  readonly engine: { readonly telemetry?: Layer.Layer<never>; readonly tracing?: boolean }
  /** Answers `/metrics` when it is served on the main port; false for any other request. */
  readonly handle: (req: IncomingMessage, res: ServerResponse) => boolean
  /** The metrics listener's URL, when it has its own port. */
  readonly metricsUrl: string | undefined
  readonly close: () => Promise<void>
}

const none: Loaded = {
  engine: {},
  handle: () => false,
  metricsUrl: undefined,
  close: () => Promise.resolve()
}

/** Starts what `options` asks for (its metrics listener included), or nothing. */
export const load = async (
  options: TelemetryOptions | undefined,
  adminToken: string | undefined
): Promise<Loaded> => {
  if (options === undefined) return none
  const started = await (await import("./Telemetry.js")).start(options, adminToken)
  return {
    engine: {
      ...(started.layer === undefined ? {} : { telemetry: started.layer }),
      ...(started.tracing ? { tracing: true } : {})
    },
    handle: started.handle,
    metricsUrl: started.metricsUrl,
    close: started.close
  }
}
