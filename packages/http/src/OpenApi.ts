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

const pathParameters = (route: Documented): Array<Route.Parameter> =>
  [...route.path.matchAll(/:([A-Za-z0-9_]+)/g)]
    .map((m) => m[1]!)
    .filter((name) => !route.parameters?.some((p) => p.in === "path" && p.name === name))
    .map((name) => ({ name, in: "path", required: true, description: name, schema: { type: "string" } }))

const response = (status: number, doc: Route.ResponseDoc) => {
  const schema = doc.schema ?? (status >= 400 ? errorRef : undefined)
  return {
    description: doc.description,
    ...(schema === undefined ? {} : { content: { [doc.contentType ?? "application/json"]: { schema } } }),
    ...(doc.headers === undefined ? {} : { headers: doc.headers })
  }
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
    ...Object.fromEntries(Object.entries(route.responses).map(([s, doc]) => [s, response(Number(s), doc)])),
    default: {
      description: "Any other error (404, 405, 500, 503 with `Retry-After`)",
      content: { "application/json": { schema: errorRef } }
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
  const used = new Set(routes.map((r) => r.security).filter((s) => s !== null))
  return {
    openapi: "3.1.0",
    info: { title: options.title, version: options.version, description: options.description },
    servers: [{ url: options.serverUrl }],
    paths,
    components: {
      schemas: options.components,
      securitySchemes: Object.fromEntries(Object.entries(securitySchemes).filter(([name]) => used.has(name)))
    }
  }
}
