/**
 * Node's HTTP agents for a PSP connection, with a connect time-out: a new connection must be
 * established (TCP, and the TLS handshake for `https:`) within `connectTimeoutMs` or it is
 * destroyed, so a PSP that accepts connections and never completes them fails fast instead of
 * using the whole call's deadline.
 */
import * as Http from "node:http"
import * as Https from "node:https"
import type { Duplex } from "node:stream"
import { NodeHttpClient } from "@effect/platform-node"
import { Effect, Layer } from "effect"

/** Destroys `socket` unless it emits `ready` (connected) within `ms`. */
const bound = (socket: Duplex | null | undefined, ready: string, ms: number) => {
  if (socket === null || socket === undefined) return socket
  const timer = setTimeout(
    () => socket.destroy(new Error(`No connection to the PSP within ${ms} ms (connect time-out)`)),
    ms
  )
  const clear = () => clearTimeout(timer)
  socket.once(ready, clear)
  socket.once("close", clear)
  return socket
}

class BoundedHttpsAgent extends Https.Agent {
  constructor(
    options: Https.AgentOptions,
    private readonly connectTimeoutMs: number
  ) {
    super(options)
  }
  override createConnection(
    options: Http.ClientRequestArgs,
    callback?: (err: Error | null, stream: Duplex) => void
  ) {
    return bound(super.createConnection(options, callback), "secureConnect", this.connectTimeoutMs)
  }
}

class BoundedHttpAgent extends Http.Agent {
  constructor(
    options: Http.AgentOptions,
    private readonly connectTimeoutMs: number
  ) {
    super(options)
  }
  override createConnection(
    options: Http.ClientRequestArgs,
    callback?: (err: Error | null, stream: Duplex) => void
  ) {
    return bound(super.createConnection(options, callback), "connect", this.connectTimeoutMs)
  }
}

/** The agents of `options` (TLS material included) whose connections must open within the time-out. */
export const layer = (
  options: Https.AgentOptions,
  connectTimeoutMs: number
): Layer.Layer<NodeHttpClient.HttpAgent> =>
  Layer.scoped(
    NodeHttpClient.HttpAgent,
    Effect.map(
      Effect.all([
        Effect.acquireRelease(
          Effect.sync(() => new BoundedHttpAgent(options, connectTimeoutMs)),
          (agent) => Effect.sync(() => agent.destroy())
        ),
        Effect.acquireRelease(
          Effect.sync(() => new BoundedHttpsAgent(options, connectTimeoutMs)),
          (agent) => Effect.sync(() => agent.destroy())
        )
      ]),
      ([http, https]) => ({ [NodeHttpClient.HttpAgentTypeId]: NodeHttpClient.HttpAgentTypeId, http, https })
    )
  )
