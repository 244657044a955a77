/**
 * The OpenAPI 3.1 document, generated from the route table (the same objects the router serves),
 * and a self-contained HTML page that renders it: no scripts, no CDN.
 */
import type * as Route from "./Route.js"

/** A route as the document needs it. */
export type Documented = Route.RouteDoc & { readonly security: string | null }

/** What the document says about the API as a whole. */
export interface DocumentOptions {
  readonly title: string
  readonly version: string
  readonly description: string
  /** Where the routes are served from (mount prefix), e.g. `/` or `/payments`. */
  readonly serverUrl: string
  readonly components: Readonly<Record<string, Route.JsonSchema>>
  /** The API's licence (OpenAPI `info.license`). */
  readonly license?: { readonly name: string; readonly identifier?: string }
  /** OpenAPI 3.1 `webhooks`: the requests the API sends to the merchant, by event name. */
  readonly webhooks?: Readonly<Record<string, WebhookDoc>>
  /** Endpoints removed from the API: documented as deprecated operations answering 410 only. */
  readonly removed?: ReadonlyArray<RemovedEndpoint>
}

/** One event the API POSTs to the merchant's webhook URL. */
export interface WebhookDoc {
  readonly summary: string
  readonly description: string
  /** Schema of the JSON body sent. */
  readonly schema: Route.JsonSchema
  /** Headers sent with every delivery. */
  readonly headers: ReadonlyArray<Route.Parameter>
}

/** A removed method and path (router syntax), answered 410 (for every method). */
export interface RemovedEndpoint {
  readonly method: Route.Method
  readonly path: `/${string}`
  readonly summary: string
}

/** An OpenAPI 3.1 document. */
export type Document = { readonly openapi: "3.1.0" } & Record<string, unknown>

const securitySchemes = {
  apiKey: { type: "apiKey", in: "header", name: "x-api-key", description: "`sk_live_...` or `sk_test_...`" },
  adminToken: { type: "http", scheme: "bearer", description: "The admin token (PIXGATE_ADMIN_TOKEN)" }
}

const errorRef = { $ref: "#/components/schemas/Error" }

/** `/a/:id` -> `/a/{id}`. */
export const openApiPath = (path: string): string => path.replace(/:([A-Za-z0-9_]+)/g, "{$1}")

const pathParameters = (route: Pick<Documented, "path" | "parameters">): Array<Route.Parameter> =>
  [...route.path.matchAll(/:([A-Za-z0-9_]+)/g)]
    .map((m) => m[1]!)
    .filter((name) => !route.parameters?.some((p) => p.in === "path" && p.name === name))
    .map((name) => ({ name, in: "path", required: true, description: name, schema: { type: "string" } }))

/** The header every answer carries (the incoming one when sane, else a new id). */
const requestId = {
  "X-Request-Id": {
    description:
      "The request's id, as in the server's log: the client's `x-request-id` when sane, else a new one",
    schema: { type: "string" }
  }
}

const response = (status: number, doc: Route.ResponseDoc) => {
  const schema = doc.schema ?? (status >= 400 ? errorRef : undefined)
  return {
    description: doc.description,
    ...(schema === undefined ? {} : { content: { [doc.contentType ?? "application/json"]: { schema } } }),
    headers: { ...requestId, ...doc.headers }
  }
}

const retryAfter = { description: "Seconds to wait (at least 1)", schema: { type: "integer", minimum: 1 } }

/**
 * The answers every operation may give besides its own: the router's 404 and 405 (a method the
 * path does not have, with `Allow`), and 500; routes that run on the engine also answer 503.
 */
const common = (route: Documented): Route.Responses => {
  const responses: Record<number, Route.ResponseDoc> = {
    404: { description: "Not found (`not_found`)", schema: errorRef },
    405: {
      description: "Method not allowed on this path (`method_not_allowed`); `Allow` lists the methods it has",
      schema: errorRef,
      headers: { Allow: { description: "The methods of this path, e.g. `POST`", schema: { type: "string" } } }
    },
    500: { description: "Internal server error (`internal_error`)", schema: errorRef }
  }
  if (route.security !== null)
    responses[503] = {
      description: "Service temporarily unavailable (`service_unavailable`): the store did not answer",
      schema: errorRef,
      headers: { "Retry-After": retryAfter }
    }
  return responses
}

const operation = (route: Documented) => ({
  operationId: route.operationId,
  summary: route.summary,
  ...(route.description === undefined ? {} : { description: route.description }),
  tags: [route.tag],
  security: route.security === null ? [] : [{ [route.security]: [] }],
  parameters: [...pathParameters(route), ...(route.parameters ?? [])],
  ...(route.requestBody === undefined
    ? {}
    : { requestBody: { required: true, content: { "application/json": { schema: route.requestBody } } } }),
  responses: {
    ...Object.fromEntries(
      Object.entries({ ...common(route), ...route.responses }).map(([s, doc]) => [
        s,
        response(Number(s), doc)
      ])
    ),
    default: {
      description: "Any other error the HTTP server itself gives (400 malformed request, 408, 431)",
      content: { "application/json": { schema: errorRef } },
      headers: requestId
    }
  }
})

const operationIdOf = (method: string, path: string) =>
  `removed${method[0]}${method.slice(1).toLowerCase()}${path
    .split(/[^A-Za-z0-9]+/)
    .map((w) => (w === "" ? "" : `${w[0]!.toUpperCase()}${w.slice(1)}`))
    .join("")}`

const removedOperation = (endpoint: RemovedEndpoint) => ({
  operationId: operationIdOf(endpoint.method, endpoint.path),
  summary: endpoint.summary,
  description: "Removed in version 2.0.0: every method on this path answers 410 `endpoint_removed`.",
  tags: ["Removed"],
  deprecated: true,
  security: [],
  parameters: pathParameters({ path: endpoint.path }),
  responses: {
    410: {
      description: "This endpoint was removed in version 2.0.0 (`endpoint_removed`)",
      content: { "application/json": { schema: errorRef } },
      headers: requestId
    }
  }
})

const webhook = (name: string, doc: WebhookDoc) => ({
  post: {
    operationId: `webhook${name
      .split(".")
      .map((w) => `${w[0]!.toUpperCase()}${w.slice(1)}`)
      .join("")}`,
    summary: doc.summary,
    description: doc.description,
    tags: ["Webhooks"],
    // The receiver authenticates a delivery by its signature headers, not by a security scheme.
    security: [],
    parameters: doc.headers,
    requestBody: { required: true, content: { "application/json": { schema: doc.schema } } },
    responses: {
      200: {
        description: "Received: only a 200 counts as delivered; anything else is retried (1 s, 5 s, 30 s)"
      }
    }
  }
})

/** The document of `routes`. */
export const document = (routes: ReadonlyArray<Documented>, options: DocumentOptions): Document => {
  const paths: Record<string, Record<string, unknown>> = {}
  for (const route of routes) {
    const path = openApiPath(route.path)
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: operation(route) }
  }
  for (const endpoint of options.removed ?? []) {
    const path = openApiPath(endpoint.path)
    paths[path] = { ...paths[path], [endpoint.method.toLowerCase()]: removedOperation(endpoint) }
  }
  const used = new Set(routes.map((r) => r.security).filter((s) => s !== null))
  const webhooks = Object.entries(options.webhooks ?? {})
  return {
    openapi: "3.1.0",
    info: {
      title: options.title,
      version: options.version,
      description: options.description,
      ...(options.license === undefined ? {} : { license: options.license })
    },
    servers: [{ url: options.serverUrl }],
    paths,
    ...(webhooks.length === 0
      ? {}
      : { webhooks: Object.fromEntries(webhooks.map(([name, doc]) => [name, webhook(name, doc)])) }),
    components: {
      schemas: options.components,
      securitySchemes: Object.fromEntries(Object.entries(securitySchemes).filter(([name]) => used.has(name)))
    }
  }
}
