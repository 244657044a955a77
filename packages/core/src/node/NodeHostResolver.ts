/** A `HostResolver` over the operating system's resolver (`node:dns` `lookup`, every address). */
import { lookup } from "node:dns/promises"
import { Duration, Effect, Layer } from "effect"
import { HostResolutionError, HostResolver } from "../ports/HostResolver.js"

/** Resolves like the HTTP client will connect (getaddrinfo, all families), within `timeout`. */
export const make = (timeout: Duration.DurationInput = Duration.seconds(5)) =>
  HostResolver.of({
    lookup: (hostname) =>
      Effect.tryPromise({
        try: () => lookup(hostname, { all: true, verbatim: true }),
        catch: (cause) =>
          new HostResolutionError({
            hostname,
            message: cause instanceof Error ? cause.message : String(cause)
          })
      }).pipe(
        Effect.timeoutFail({
          duration: timeout,
          onTimeout: () => new HostResolutionError({ hostname, message: "DNS lookup timed out" })
        }),
        Effect.map((addresses) => addresses.map((a) => a.address))
      )
  })

/** The DNS-backed `HostResolver`. */
export const layer: Layer.Layer<HostResolver> = Layer.sync(HostResolver, () => make())
