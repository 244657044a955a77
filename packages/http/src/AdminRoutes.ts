/**
 * The optional admin router: `AdminApi` (the merchant panel's operations over HTTP: merchants,
 * keys, webhook endpoints, balances, fee plans, the webhook log and redelivery, sandbox top-ups
 * and actions, the admin audit log) compiled with its handlers. Every route first authenticates
 * the caller (`Security.admin`: 401, or 404 while no admin token exists), then checks that the
 * token's scope allows the operation (`AdminScopes`: 403 otherwise), and every write (anything
 * but GET) is recorded in the admin audit log with the token's name and what was answered,
 * refusals included. Paths are relative to where it is mounted (e.g. `/admin`). Exported as
 * `Admin` by `@pixgate/http`.
 */
import { HttpApi } from "@effect/platform"
import { AdminAccess, Engine, Errors, Redaction } from "@pixgate/core"
import { Cause, Effect, Exit, type Redacted } from "effect"
import * as AdminScopes from "./AdminScopes.js"
import { Handlers } from "./EndpointHandlers.js"
import * as Endpoints from "./Endpoints.js"
import * as EventStream from "./EventStream.js"
import * as OpenApiDocuments from "./OpenApiDocuments.js"
import { AdminApi, AdminToken } from "./PixgateApi.js"
import * as Respond from "./Respond.js"
import type * as Route from "./Route.js"
import * as Router from "./Router.js"
import * as Security from "./Security.js"
import { statusOf } from "./Status.js"

/** An admin operation: its name and the least scope it needs. */
interface Operation {
  readonly name: string
  readonly need: AdminAccess.AdminNeed
}

/** Every admin operation by `METHOD path`, read from the definition and the scope table. */
const operations = (): ReadonlyMap<string, Operation> => {
  const byRoute = new Map<string, Operation>()
  const table: Readonly<Record<string, Readonly<Record<string, AdminAccess.AdminNeed>>>> = AdminScopes.needs
  HttpApi.reflect(AdminApi, {
    onGroup: () => undefined,
    onEndpoint: ({ group, endpoint }) => {
      const need = table[group.identifier]?.[endpoint.name]
      if (need === undefined) throw new TypeError(`No admin scope for ${group.identifier}.${endpoint.name}`)
      byRoute.set(`${endpoint.method} ${endpoint.path}`, { name: endpoint.name, need })
    }
  })
  return byRoute
}

/** The status a route's exit answers with. */
const statusOfExit = (exit: Exit.Exit<Respond.Answer, Respond.Failure>): number => {
  if (Exit.isSuccess(exit)) return exit.value.status
  const failure = Cause.failureOption(exit.cause)
  if (failure._tag === "Some")
    return statusOf(failure.value._tag === "Refusal" ? failure.value.error : failure.value)
  return Cause.isInterruptedOnly(exit.cause) ? 499 : 500
}

/** The last path parameter: the object an admin write acts on (a merchant, key, event, transaction). */
const objectOf = (params: Route.Params): string | null => {
  let last: string | null = null
  for (const name in params) last = params[name] ?? last
  return last
}

/** Records a write; a log line when it cannot be (the operation stands either way). */
const audit = (
  caller: { readonly name: string; readonly tokenId: string | null },
  operation: string,
  request: { readonly method: string; readonly url: string },
  params: Route.Params,
  status: number
) =>
  Effect.flatMap(Engine.Engine, (engine) =>
    engine.adminTokens.record({
      actor: caller.name,
      tokenId: caller.tokenId,
      operation,
      method: request.method,
      path: Redaction.mask(Router.pathOf(request.url)),
      status,
      objectId: objectOf(params)
    })
  ).pipe(
    Effect.catchAll((error) =>
      Effect.logWarning("Admin audit entry not written").pipe(
        Effect.annotateLogs({ operation, actor: caller.name, error: error.message })
      )
    )
  )

/** A compiled route behind the caller's check, the scope's and, for a write, the audit log. */
const guarded = (
  route: Route.Route<Engine.Engine>,
  operation: Operation,
  security: Route.Security<
    { readonly name: string; readonly scope: AdminAccess.AdminScope; readonly tokenId: string | null },
    Engine.Engine
  >
): Route.Route<Engine.Engine> => {
  const writes = route.method !== "GET"
  return {
    method: route.method,
    path: route.path,
    serve: (request, params) => {
      const run = Effect.gen(function* () {
        const caller = yield* security.check(request)
        const served = AdminAccess.allows(caller.scope, operation.need)
          ? route.serve(request, params)
          : Effect.fail(
              Errors.forbidden(
                `This admin token's scope (${caller.scope}) does not allow this operation; it needs ${operation.need}`
              )
            )
        const exit = yield* Effect.exit(served instanceof Respond.Answer ? Effect.succeed(served) : served)
        if (writes) yield* audit(caller, operation.name, request, params, statusOfExit(exit))
        return yield* exit
      })
      // A write and its audit entry run to their end even if the client goes away.
      return writes ? Effect.uninterruptible(run) : run
    }
  }
}

/**
 * The admin route table, served under `basePath`: callers authenticate with the environment's
 * `token` (when given, full scope) or a stored admin token.
 */
export const routes = (
  token: Redacted.Redacted<string> | undefined,
  basePath = ""
): ReadonlyArray<Route.Route<Engine.Engine>> => {
  // Built on the first request for it (OpenApiDocuments builds the document itself once).
  let document: OpenApiDocuments.Document | undefined
  const byRoute = operations()
  const security = Security.admin(token)
  const compiled = Endpoints.compile(AdminApi, {
    handlers: Handlers,
    // Checked by `guarded`, before the route reads anything.
    security: [[AdminToken, { check: () => Effect.succeed(undefined) }]],
    // Behind the token like every admin route, yet needing no engine.
    transport: {
      adminDocumentation: {
        openapi: () =>
          Effect.sync(() => {
            document ??= OpenApiDocuments.admin(basePath || "/")
            return { status: 200, body: document }
          })
      },
      adminEvents: { stream: EventStream.adminStream }
    }
  })
  return compiled.map((route) => {
    const operation = byRoute.get(`${route.method} ${route.path}`)
    if (operation === undefined) throw new TypeError(`No admin operation for ${route.method} ${route.path}`)
    return guarded(route, operation, security)
  })
}

/**
 * The admin caller an `Authorization: Bearer <token>` header names (the environment's `token`,
 * or a live stored token, read from the store each time), for what a host guards with admin
 * tokens besides this router, such as `/metrics`.
 */
export const callerOf: typeof Security.adminCaller = Security.adminCaller
