/**
 * The public API's routes: `PublicApi` compiled with its handlers (the spec's endpoints, the
 * removed ones answering 410), the OpenAPI document, its docs page and the page's renderer,
 * which depend on the mount point that serves them.
 * Exported as `Api` by `@pixgate/http`.
 */
import type { Engine } from "@pixgate/core"
import { Effect } from "effect"
import * as DocsPage from "./DocsPage.js"
import { Handlers, health, readiness } from "./EndpointHandlers.js"
import * as Endpoints from "./Endpoints.js"
import * as EventStream from "./EventStream.js"
import type { Incoming } from "./Incoming.js"
import * as OpenApiDocuments from "./OpenApiDocuments.js"
import { ApiKey, PublicApi } from "./PixgateApi.js"
import type { RateLimiter } from "./RateLimit.js"
import * as Respond from "./Respond.js"
import type * as Route from "./Route.js"
import * as Security from "./Security.js"

export { version } from "./PixgateApi.js"

/** Where the host serves this table: Express's mount path plus the base path. */
const serverUrl = (basePath: string, request: Incoming) => `${request.mountPath}${basePath}` || "/"

/** The paths of the endpoints removed in 2.0.0, with and without `/api`: 410 for every method. */
export const removed: ReadonlyArray<`/${string}`> = Endpoints.removedPaths(PublicApi)

/** `Retry-After` of an unready answer, in seconds: as every 503 of the API carries one. */
const readinessRetryAfter = 1

/** The public routes for a mount point. */
export const routes = (basePath: string): ReadonlyArray<Route.Route<Engine.Engine | RateLimiter>> => {
  const document = (request: Incoming) => OpenApiDocuments.document(serverUrl(basePath, request))
  const root = (request: Incoming) => serverUrl(basePath, request).replace(/\/$/, "")
  const specUrl = (request: Incoming) => `${root(request)}/api/openapi.json`
  return Endpoints.compile(PublicApi, {
    handlers: Handlers,
    // Answered without the runtime: the cheapest possible probe of the process, and the documents.
    plain: {
      health: {
        check: () => ({ status: 200, body: health() }),
        live: () => ({ status: 200, body: health() })
      },
      documentation: {
        openapi: (input) => ({ status: 200, body: document(input.request) }),
        docs: (input) =>
          DocsPage.page(
            document(input.request),
            specUrl(input.request),
            DocsPage.rendererUrl(root(input.request))
          )
      }
    },
    transport: {
      // 200 or 503 with the same body: the status is the answer's, not the schema's.
      health: {
        ready: () =>
          Effect.map(readiness, (body) =>
            body.status === "ready"
              ? Respond.json(200, body)
              : Respond.json(503, body, { "retry-after": String(readinessRetryAfter) })
          )
      },
      events: { stream: EventStream.publicStream },
      documentation: {
        renderer: (input) =>
          Effect.promise(() =>
            DocsPage.renderer({
              v: input.query.get("v") ?? undefined,
              ifNoneMatch: input.request.header("if-none-match"),
              acceptEncoding: input.request.header("accept-encoding")
            })
          )
      }
    },
    security: [[ApiKey, Security.apiKey]]
  })
}
