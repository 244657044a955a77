/**
 * `pixgate serve`: the server from the environment until SIGTERM or SIGINT, then a graceful
 * close. Apart from the other commands (Cli.ts, on @effect/cli): `pixgate serve` with nothing
 * after it (how `pnpm start`, the container and a service manager start it) runs `run` here
 * directly from bin.ts, so the serving process never loads the command line's parser, its
 * help and its config-file readers (yaml, toml): a few megabytes of memory for as long as the
 * server runs (docs/decisions.md, "Memory at rest"). Its errors read as Cli.ts prints them.
 */
import type { GatewayPlugin } from "@pixgate/core"
import { Cause, type ConfigError, Data, Effect, Exit, Option, Redacted } from "effect"
import { UsageError } from "./commands/Command.js"
import * as Environment from "./Environment.js"
import * as Gateways from "./Gateways.js"
import type { Io } from "./Io.js"
import * as Server from "./Server.js"

/** An operation that failed: exit code 1. */
export class Failed extends Data.TaggedError("Failed")<{ readonly message: string }> {}

/** The first line of an error's message: never a stack. */
export const oneLine = (error: unknown): string =>
  (error instanceof Error ? error.message : String(error)).split("\n")[0].trim()

/**
 * The live gateway the environment chooses (`PIXGATE_LIVE_GATEWAY`, else the default one when
 * `PIXGATE_LIVE_BASE_URL` is set), loaded only then, its settings read from its variables and
 * checked as the gateway will use them: a wrong one stops the command here, naming its variable.
 */
export const liveGateway = (io: Io) =>
  Effect.gen(function* () {
    const given = yield* Environment.live
    if (Option.isNone(given)) return undefined
    const name = Option.getOrElse(given.value.gateway, () => Gateways.defaultGateway)
    const gateway = yield* Effect.mapError(
      Gateways.fromEnvironment(name, io.env, Environment.livePrefix, io.cwd),
      (error) => new UsageError({ message: error.message })
    )
    const gateways: Array<GatewayPlugin.Configured> = []
    for (const entry of given.value.more) {
      const configured = yield* Effect.mapError(
        Gateways.named(entry, io.env, io.cwd),
        (error) => new UsageError({ message: error.message })
      )
      if (configured.name !== gateway.name && !gateways.some((g) => g.name === configured.name))
        gateways.push(configured)
    }
    return { gateway, gateways, callbackSecret: Redacted.value(given.value.callbackSecret) }
  })

/** `serve` until the stop signal (SIGTERM or SIGINT), then a graceful close. */
export const runServe = (io: Io) =>
  Effect.gen(function* () {
    const env = yield* Environment.serve
    const telemetry = yield* Environment.telemetry
    const live = yield* liveGateway(io)
    const postgres = yield* Environment.postgresWaits
    const server = yield* Effect.tryPromise({
      try: () =>
        Server.start({
          port: env.port,
          host: env.host,
          database: env.database,
          postgres,
          cwd: io.cwd,
          ...(Option.isSome(env.adminToken) ? { adminToken: Redacted.value(env.adminToken.value) } : {}),
          maxBodySize: env.maxBodySize,
          rateLimit:
            env.requestsPerSecond === 0
              ? false
              : { requestsPerSecond: env.requestsPerSecond, burst: env.burst, shared: env.rateLimitShared },
          // Lines go out in batches (a write each would cost a system call per request); closing
          // the server flushes them.
          log: { level: env.logLevel, out: io.stdout },
          allowInsecureLiveWebhooks: env.allowInsecureLiveWebhooks,
          profile: env.webhookAddresses.profile,
          allowPrivateLiveWebhooks: env.webhookAddresses.allowPrivateLive,
          allowPrivateTestWebhooks: env.webhookAddresses.allowPrivateTestWebhooks,
          shutdownTimeoutMs: env.shutdownTimeoutMs,
          readinessTimeoutMs: env.readinessTimeoutMs,
          webhookEndpointMaxConcurrency: env.webhookEndpointMaxConcurrency,
          webhookDisableAfterHours: env.webhookDisableAfterHours,
          webhookResendRate: env.webhookResendRate,
          ...(env.webhookProxy === "" ? {} : { webhookProxy: env.webhookProxy }),
          ...(telemetry === undefined ? {} : { telemetry }),
          keepAliveTimeoutMs: env.keepAliveTimeoutMs,
          maxConnections: env.maxConnections,
          probeConnections: env.probeConnections,
          ...(env.trustProxy === undefined ? {} : { trustProxy: env.trustProxy }),
          ...env.timeouts,
          ...(Option.isSome(env.dataKeys) ? { dataKeys: env.dataKeys.value } : {}),
          retentionDays: env.retentionDays,
          ...(env.mail === undefined ? {} : { mail: env.mail }),
          ...(live === undefined ? {} : { live })
        }),
      catch: (error) => new Failed({ message: oneLine(error) })
    })
    yield* Effect.promise(() => io.stopSignal ?? signal())
    yield* Effect.promise(() => server.close())
  })

const signal = () =>
  new Promise((resolve) => {
    process.once("SIGTERM", resolve)
    process.once("SIGINT", resolve)
  })

/** A malformed environment variable: a usage error. */
export const configFailure = (error: ConfigError.ConfigError) =>
  Effect.fail(new UsageError({ message: Environment.describe(error) }))

/** `pixgate serve` on its own; resolves to the exit code (2: usage, 1: failed), as Cli.ts's `run`. */
export const run = async (io: Io): Promise<number> => {
  const exit = await Effect.runPromiseExit(
    runServe(io).pipe(
      Effect.catchTag("ConfigError", configFailure),
      Effect.withConfigProvider(Environment.provider(io.env))
    )
  )
  if (Exit.isSuccess(exit)) return 0
  const failure = Cause.failureOption(exit.cause)
  if (Option.isSome(failure)) {
    io.stderr(`pixgate: ${failure.value.message}\n`)
    return failure.value._tag === "UsageError" ? 2 : 1
  }
  io.stderr(`pixgate: ${oneLine(Cause.squash(exit.cause))}\n`)
  return 1
}
