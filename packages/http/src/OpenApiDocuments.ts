/**
 * The OpenAPI 3.1 documents, generated from the definition (`OpenApi.fromApi` of `PublicApi` and
 * `AdminApi`, with the definition's own transform, see ApiDocument): built once, on the first
 * request for one (not at start-up: a few megabytes of JSON Schema a server that is never asked
 * for its documents does without), then served with the `servers` URL of the mount point that
 * serves them.
 * Exported as `OpenApi` by `@pixgate/http` (not `@effect/platform`'s `OpenApi`, which builds them).
 */
import { OpenApi } from "@effect/platform"
import { AdminApi, PublicApi } from "./PixgateApi.js"

/** An OpenAPI 3.1 document. */
export type Document = { readonly openapi: "3.1.0" } & Readonly<Record<string, unknown>>

let publicDocument: OpenApi.OpenAPISpec | undefined
let adminDocument: OpenApi.OpenAPISpec | undefined

/** The public API's document, served from `serverUrl` (the mount prefix, e.g. `/` or `/payments`). */
export const document = (serverUrl: string): Document => {
  publicDocument ??= OpenApi.fromApi(PublicApi)
  return { ...publicDocument, servers: [{ url: serverUrl }] }
}

/** The admin API's document, served from `serverUrl`. */
export const admin = (serverUrl: string): Document => {
  adminDocument ??= OpenApi.fromApi(AdminApi)
  return { ...adminDocument, servers: [{ url: serverUrl }] }
}

/** `/a/:id` -> `/a/{id}`. */
export const openApiPath = (path: string): string => path.replace(/:([A-Za-z0-9_]+)/g, "{$1}")
