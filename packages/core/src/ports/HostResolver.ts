/**
 * Resolving webhook hosts to addresses, so live-mode URLs that reach the engine's own network
 * can be refused. Core stays free of Node APIs: its default resolves nothing (only IP literals
 * and `localhost` are judged); `@pixgate/core/node` offers a DNS-backed resolver.
 */
import { Context, Data, Effect, Layer } from "effect"

/** A host name that could not be resolved. */
export class HostResolutionError extends Data.TaggedError("HostResolutionError")<{
  readonly hostname: string
  readonly message: string
}> {}

/** Resolves a host name (never an IP literal) to every address it may connect to. */
export class HostResolver extends Context.Tag("@pixgate/core/HostResolver")<
  HostResolver,
  { readonly lookup: (hostname: string) => Effect.Effect<ReadonlyArray<string>, HostResolutionError> }
>() {}

/** Resolves no names: only IP literals and `localhost` are judged (runtimes without DNS access). */
export const literalsOnly: Layer.Layer<HostResolver> = Layer.succeed(HostResolver, {
  lookup: () => Effect.succeed([])
})
