/**
 * The optional admin router: `AdminApi` (the merchant panel's operations over HTTP: merchants,
 * keys, webhook endpoints, balances, fee plans, the webhook log and redelivery, sandbox top-ups
 * and actions) compiled with its handlers. Off unless an admin token is configured; every route
 * needs `Authorization: Bearer <token>`. Paths are relative to where it is mounted (e.g. `/admin`).
 * Exported as `Admin` by `@pixgate/http`.
 */
import type { Engine } from "@pixgate/core"
import { Effect, type Redacted } from "effect"
import { Handlers } from "./EndpointHandlers.js"
import * as Endpoints from "./Endpoints.js"
import * as EventStream from "./EventStream.js"
import * as OpenApiDocuments from "./OpenApiDocuments.js"
import { AdminApi, AdminToken } from "./PixgateApi.js"
import type * as Route from "./Route.js"
import * as Security from "./Security.js"

/** The admin route table, protected by `token`, served under `basePath`. */
export const routes = (
  token: Redacted.Redacted<string>,
  basePath = ""
): ReadonlyArray<Route.Route<Engine.Engine>> => {
  const document = OpenApiDocuments.admin(basePath || "/")
  return Endpoints.compile(AdminApi, {
    handlers: Handlers,
    security: [[AdminToken, Security.adminToken(token)]],
    // Behind the token like every admin route, yet needing no engine.
    transport: {
      adminDocumentation: { openapi: () => Effect.succeed({ status: 200, body: document }) },
      adminEvents: { stream: EventStream.adminStream }
    }
  })
}
