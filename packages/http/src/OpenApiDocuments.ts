/**
 * The OpenAPI 3.1 documents, generated from the definition (`OpenApi.fromApi` of `PublicApi` and
 * `AdminApi`, with the definition's own transform, see ApiDocument): built once, then served with
 * the `servers` URL of the mount point that serves them.
 * Exported as `OpenApi` by `@pixgate/http` (not `@effect/platform`'s `OpenApi`, which builds them).
 */
import { OpenApi } from "@effect/platform"
import { AdminApi, PublicApi } from "./PixgateApi.js"

/** An OpenAPI 3.1 document. */
export type Document = { readonly openapi: "3.1.0" } & Readonly<Record<string, unknown>>

const publicDocument = OpenApi.fromApi(PublicApi)
const adminDocument = OpenApi.fromApi(AdminApi)

/** The public API's document, served from `serverUrl` (the mount prefix, e.g. `/` or `/payments`). */
export const document = (serverUrl: string): Document => ({
  ...publicDocument,
  servers: [{ url: serverUrl }]
})

/** The admin API's document, served from `serverUrl`. */
export const admin = (serverUrl: string): Document => ({ ...adminDocument, servers: [{ url: serverUrl }] })

/** `/a/:id` -> `/a/{id}`. */
export const openApiPath = (path: string): string => path.replace(/:([A-Za-z0-9_]+)/g, "{$1}")
