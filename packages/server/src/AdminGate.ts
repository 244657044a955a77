/**
 * How the standalone server guards `/admin` and `/metrics` with admin tokens: whether any token
 * exists (without one, `/admin` is not there), and who may read `/metrics` (a token of any scope).
 * Both ask the engine's store on every call, so a token created or revoked by the CLI counts at once.
 */
import { Engine } from "@pixgate/core"
import { Admin } from "@pixgate/http"
import type { Pixgate } from "@pixgate/http/node"
import { Effect, Option, Redacted } from "effect"
import type { Authorize } from "./Telemetry.js"

/** Whether the database holds a live admin token; `unknown` when it does not answer. */
export const anyToken = (pixgate: Pixgate.Pixgate, unknown: boolean): Promise<boolean> =>
  pixgate.runtime.runPromise(
    Effect.flatMap(Engine.Engine, (engine) => engine.adminTokens.anyLive).pipe(
      Effect.orElseSucceed(() => unknown)
    )
  )

/**
 * Who may read `/metrics`: `environmentToken` or a live stored token, checked on the engine
 * `running()` answers (unavailable until it is built).
 */
export const metrics = (
  environmentToken: string | undefined,
  running: () => Pixgate.Pixgate | undefined
): Authorize => {
  const callerOf = Admin.callerOf(environmentToken ? Redacted.make(environmentToken) : undefined)
  return (authorization) => {
    const pixgate = running()
    return pixgate === undefined
      ? Promise.resolve("unavailable")
      : pixgate.runtime.runPromise(
          callerOf(authorization).pipe(
            Effect.map((caller) => (Option.isSome(caller) ? ("ok" as const) : ("unauthorized" as const))),
            Effect.catchAll(() => Effect.succeed("unavailable" as const))
          )
        )
  }
}
