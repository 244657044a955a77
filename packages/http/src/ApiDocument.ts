/**
 * What `OpenApi.fromApi` cannot read from the definition, added as the API's OpenAPI `transform`
 * (so every server of `PixgateApi`, native or `HttpApiBuilder`, documents the same): the
 * licence with its SPDX identifier, the response headers (`Idempotent-Replayed`, `Allow`,
 * `Retry-After`, `WWW-Authenticate`), the answer of the HTTP server itself (`default`), the
 * 3.1 `webhooks` section from core's event schemas, that unknown request fields are ignored, and
 * without the `HttpApiDecodeError` 400 `HttpApiBuilder` adds to every endpoint: Pixgate answers a
 * body that does not decode with its own 400 or 422 bodies (listed per endpoint), and one entry
 * per tag where groups share one (the admin operations of modules of their own, e.g. refunds,
 * keep the `Admin` tag).
 */
import { OpenApiJsonSchema } from "@effect/platform"
import { Events } from "@pixgate/core"
import { Option, Schema, SchemaAST } from "effect"

/** A JSON object of the document, read and written dynamically. */
type Json = { [key: string]: unknown }

const isJson = (u: unknown): u is Json => typeof u === "object" && u !== null && !Array.isArray(u)

const child = (parent: Json, key: string): Json => {
  const value = parent[key]
  if (isJson(value)) return value
  const made: Json = {}
  parent[key] = made
  return made
}

const refPrefix = "#/components/schemas/"
const decodeErrorSchemas = ["HttpApiDecodeError", "Issue", "PropertyKey"]
const isDecodeError = (schema: unknown) => isJson(schema) && schema.$ref === `${refPrefix}HttpApiDecodeError`

/** Removes `HttpApiDecodeError` from a response; false when nothing is left of it. */
const withoutDecodeError = (response: Json): boolean => {
  const content = isJson(response.content) ? response.content["application/json"] : undefined
  if (!isJson(content)) return true
  if (isDecodeError(content.schema)) return false
  const anyOf = isJson(content.schema) ? content.schema.anyOf : undefined
  if (Array.isArray(anyOf)) {
    const rest = anyOf.filter((s) => !isDecodeError(s))
    content.schema = rest.length === 1 ? rest[0] : { anyOf: rest }
    if (rest.length < anyOf.length) response.description = invalidBody
  }
  return true
}

const invalidBody = "Invalid JSON body: malformed, not a JSON object, or not `application/json`"

const text = OpenApiJsonSchema.make(Schema.String)

const retryAfter = (schema: Schema.Schema<number>) => ({
  "Retry-After": { description: "Seconds to wait (at least 1)", schema: OpenApiJsonSchema.make(schema) }
})

/** Headers of responses by status, besides those of one kind of operation. */
const headersByStatus: Readonly<Record<string, Json>> = {
  "405": { Allow: { description: "The methods of this path, e.g. `POST`", schema: text } },
  "429": retryAfter(Schema.Number.pipe(Schema.int())),
  "503": retryAfter(Schema.Number.pipe(Schema.int(), Schema.greaterThanOrEqualTo(1)))
}

const replayed = {
  "Idempotent-Replayed": {
    description: "`true` when this is a replay of an earlier request",
    schema: text
  }
}

const wwwAuthenticate = {
  "WWW-Authenticate": { description: '`Bearer realm="pixgate-admin"`', schema: text }
}

/** The docs renderer's compression, chosen by the request's `Accept-Encoding`. */
const contentEncoding = {
  "Content-Encoding": {
    description: "`br` or `gzip` when the request's `Accept-Encoding` allows it; absent otherwise",
    schema: text
  }
}

/** The header every answer carries. */
const requestId = {
  "X-Request-Id": {
    description:
      "The request's id, as in the server's log: the client's `x-request-id` when sane, else a new one",
    schema: text
  }
}

const serverDefault = (errorRef: string): Json => ({
  description: "Any other error the HTTP server itself gives (400 malformed request, 408, 431)",
  content: { "application/json": { schema: { $ref: `${refPrefix}${errorRef}` } } },
  headers: requestId
})

/** The operations of a document. */
const operations = (spec: Json): Array<Json> =>
  Object.values(child(spec, "paths")).flatMap((path) =>
    isJson(path) ? Object.values(path).filter(isJson) : []
  )

const usesSecurity = (op: Json, scheme: string) =>
  Array.isArray(op.security) && op.security.some((s) => isJson(s) && scheme in s)

/** Request bodies: unknown fields are ignored (docs/decisions.md), which the schemas say. */
const openRequestBodies = (spec: Json) => {
  const schemas = child(child(spec, "components"), "schemas")
  for (const op of operations(spec)) {
    const content = isJson(op.requestBody) ? child(op.requestBody, "content") : undefined
    const json = content === undefined ? undefined : content["application/json"]
    if (!isJson(json) || !isJson(json.schema)) continue
    const ref = json.schema.$ref
    const schema = typeof ref === "string" ? schemas[ref.slice(refPrefix.length)] : json.schema
    if (isJson(schema) && schema.type === "object") {
      schema.additionalProperties = true
      schema.description ??=
        "Fields not listed here are ignored, not refused: check the spelling (e.g. `clientDoc`, not `clientDocument`)"
    }
  }
}

/** Header parameters by their usual spelling (HTTP header names are case-insensitive). */
const headerNames = (spec: Json) => {
  for (const op of operations(spec)) {
    if (!Array.isArray(op.parameters)) continue
    for (const p of op.parameters)
      if (isJson(p) && p.in === "header" && p.name === "idempotency-key") p.name = "Idempotency-Key"
  }
}

/** Operations that take an Idempotency-Key. */
const hasIdempotencyKey = (op: Json) =>
  Array.isArray(op.parameters) &&
  op.parameters.some(
    (p) => isJson(p) && p.in === "header" && String(p.name).toLowerCase() === "idempotency-key"
  )

/** The answers a repeat with the same Idempotency-Key replays (with `Idempotent-Replayed: true`). */
const replayable = new Set(["201", "422", "502"])

/** Fixes up the answers of every operation. */
const responses = (spec: Json, errorRef: string) => {
  for (const op of operations(spec)) {
    const answers = child(op, "responses")
    if (op.deprecated === true) {
      // A removed endpoint answers 410 to every method, and nothing else.
      for (const status of Object.keys(answers)) if (status !== "410") delete answers[status]
      for (const answer of Object.values(answers)) if (isJson(answer)) answer.headers = requestId
      continue
    }
    const idempotent = hasIdempotencyKey(op)
    for (const [status, answer] of Object.entries(answers)) {
      if (!isJson(answer)) continue
      if (!withoutDecodeError(answer)) {
        delete answers[status]
        continue
      }
      answer.headers = {
        ...requestId,
        ...headersByStatus[status],
        ...(op.operationId === "getDocsRenderer" && status === "200" ? contentEncoding : {}),
        ...(idempotent && replayable.has(status) ? replayed : {}),
        ...(status === "401" && usesSecurity(op, "adminToken") ? wwwAuthenticate : {})
      }
    }
    answers.default = serverDefault(errorRef)
  }
  const schemas = child(child(spec, "components"), "schemas")
  for (const name of decodeErrorSchemas) delete schemas[name]
}

const webhookHeaders = [
  {
    name: "webhook-id",
    in: "header",
    required: true,
    description: "Standard Webhooks: the event's id",
    schema: text
  },
  {
    name: "webhook-timestamp",
    in: "header",
    required: true,
    description: "Standard Webhooks: Unix seconds of this attempt",
    schema: OpenApiJsonSchema.make(Schema.String.pipe(Schema.pattern(/^[0-9]+$/)))
  },
  {
    name: "webhook-signature",
    in: "header",
    required: true,
    description:
      "Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `id.timestamp.body` with the endpoint's signing key " +
      "(`whsec_...`); two space-separated signatures while a rotated key overlaps. Verify this one.",
    schema: text
  },
  {
    name: "X-Pixgate-Signature",
    in: "header",
    required: true,
    description:
      "The webhook secret itself (the spec's scheme; named after the configured service name). It proves " +
      "nothing to whoever saw one delivery: verify `webhook-signature` instead.",
    schema: text
  }
]

const operationIdOf = (event: string) =>
  `webhook${event
    .split(".")
    .map((w) => `${w[0].toUpperCase()}${w.slice(1)}`)
    .join("")}`

/** OpenAPI 3.1 `webhooks`: the requests the engine sends to the merchant, one per event type. */
const webhooks = (spec: Json) => {
  const defs = child(child(spec, "components"), "schemas")
  const section: Json = {}
  const events: ReadonlyArray<readonly [string, Schema.Schema.AnyNoContext]> = Object.entries(Events.webhooks)
  for (const [event, schema] of events) {
    const body = OpenApiJsonSchema.makeWithDefs(schema, { defs, defsPath: refPrefix })
    section[event] = {
      post: {
        operationId: operationIdOf(event),
        summary: Option.getOrElse(SchemaAST.getDescriptionAnnotation(schema.ast), () => event),
        description:
          "Sent to the merchant's webhook URL for the key's mode. Attempts: at once, then 1 s, 5 s and 30 s after a " +
          "failed one; each times out after 10 s. `data` has the transaction's id, type, status, amount and the " +
          "ids that exist (`txid`, `endToEndId`, `pixKey`).",
        tags: ["Webhooks"],
        // The receiver authenticates a delivery by its signature headers, not by a security scheme.
        security: [],
        parameters: webhookHeaders,
        requestBody: { required: true, content: { "application/json": { schema: body } } },
        responses: {
          "200": {
            description: "Received: only a 200 counts as delivered; anything else is retried (1 s, 5 s, 30 s)"
          }
        }
      }
    }
  }
  spec.webhooks = section
}

/** The component schemas a value refers to, transitively. */
const referenced = (spec: Json): ReadonlySet<string> => {
  const schemas = child(child(spec, "components"), "schemas")
  const found = new Set<string>()
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const item of value) visit(item)
      return
    }
    if (!isJson(value)) return
    const ref = value.$ref
    if (typeof ref === "string" && ref.startsWith(refPrefix)) {
      const name = ref.slice(refPrefix.length)
      if (!found.has(name)) {
        found.add(name)
        visit(schemas[name])
      }
    }
    for (const child of Object.values(value)) visit(child)
  }
  visit(spec.paths)
  visit(spec.webhooks)
  return found
}

/**
 * Drops the component schemas nothing refers to: query and path schemas with an identifier land
 * in components, yet their parameters are written inline.
 */
const dropUnused = (spec: Json) => {
  const schemas = child(child(spec, "components"), "schemas")
  const used = referenced(spec)
  for (const name of Object.keys(schemas)) if (!used.has(name)) delete schemas[name]
}

/**
 * A one-value `enum` (a literal) as `const`, as OpenAPI 3.1 (JSON Schema 2020-12) says it;
 * an error's `code` stays an enum, the list of codes that answer may carry.
 */
const constants = (value: unknown, key?: string): void => {
  if (Array.isArray(value)) {
    for (const item of value) constants(item)
    return
  }
  if (!isJson(value)) return
  if (key !== "code" && Array.isArray(value.enum) && value.enum.length === 1) {
    value.const = value.enum[0]
    delete value.enum
  }
  for (const [name, child] of Object.entries(value)) constants(child, name)
}

/**
 * The admin group's tag. The admin groups of a module of their own that stay documented among
 * the merchant panel's operations (refunds) carry it too.
 */
export const adminTag = { title: "Admin", description: "Merchant panel operations over HTTP" } as const

/** One `tags` entry per name, the first: each group adds its tag, and groups may share one. */
const uniqueTags = (spec: Json) => {
  if (!Array.isArray(spec.tags)) return
  const seen = new Set<unknown>()
  spec.tags = spec.tags.filter((tag) => {
    const name = isJson(tag) ? tag.name : tag
    if (seen.has(name)) return false
    seen.add(name)
    return true
  })
}

const license = { name: "MIT", identifier: "MIT" }

/** The public API document's transform. */
export const publicTransform = (spec: Json): Json => {
  child(spec, "info").license = license
  uniqueTags(spec)
  openRequestBodies(spec)
  headerNames(spec)
  responses(spec, "Error")
  webhooks(spec)
  dropUnused(spec)
  constants(spec)
  return spec
}

/** The admin API document's transform. */
export const adminTransform = (spec: Json): Json => {
  child(spec, "info").license = license
  uniqueTags(spec)
  openRequestBodies(spec)
  responses(spec, "Error")
  dropUnused(spec)
  constants(spec)
  return spec
}
