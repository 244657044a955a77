/**
 * The route the live bank posts its callbacks to: `POST /bank/callbacks/<secret>` and
 * `POST /bank/callbacks/<secret>/pix` (API Pix appends `/pix` to the registered URL), and the same
 * under `/gateways/<name>` for a live gateway besides the default one (a gateway per merchant). The API
 * Pix standard signs nothing (the PSP authenticates with mTLS where the host terminates TLS):
 * the unguessable secret path segment is the route's own check, compared in constant time, and
 * a wrong secret is an ordinary 404. The engine's live gateway confirms every callback with the
 * bank before acting, so even a leaked secret cannot credit a payment that did not happen.
 * Not part of `PixgateApi` nor of its document: it is the bank's, not a merchant's.
 */
import { Engine, Errors, Sha256 } from "@pixgate/core"
import { Effect, Redacted } from "effect"
import * as Respond from "./Respond.js"
import * as Route from "./Route.js"

/** Where the callback route lives. */
export const basePath = "/bank/callbacks"

/** The callback routes for one secret. */
export const routes = (secret: Redacted.Redacted<string>): ReadonlyArray<Route.Route<Engine.Engine>> =>
  // A gateway besides the default one takes its callbacks under `/gateways/<name>`; `/rec` and
  // `/cobr` are an API Pix bank's Pix Automático callbacks.
  (
    [
      "",
      "/pix",
      "/rec",
      "/cobr",
      "/gateways/:gateway",
      "/gateways/:gateway/pix",
      "/gateways/:gateway/rec",
      "/gateways/:gateway/cobr"
    ] as const
  ).map((pattern) =>
    Route.make("POST", `${basePath}/:secret${pattern}`, { body: true }, Route.open, (input) =>
      Effect.gen(function* () {
        if (!Sha256.sameSecret(input.params.secret ?? "", Redacted.value(secret)))
          return yield* Effect.fail(Respond.notFound())
        const engine = yield* Engine.Engine
        yield* engine
          .bankCallback({
            path: pattern.replace(":gateway", input.params.gateway ?? ""),
            body: input.body,
            header: (name) => input.request.header(name)
          })
          .pipe(
            Effect.tapError((e) =>
              Effect.logWarning("A bank callback could not be applied; the bank retries", e)
            ),
            // Not applied: the bank delivers it again (and reconciliation finds it anyway).
            Effect.mapError(() => Errors.unavailable())
          )
        return { status: 200, body: {} }
      })
    )
  )
