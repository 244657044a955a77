/**
 * One route, described once: method, path, the documentation the OpenAPI document is generated
 * from, who may call it, and its handler. `make` composes the request pipeline in the contract's
 * order: authenticate (401), rate limit (429), then the body (400, 413), then the handler, which
 * for anything but GET runs to its end even if the client goes away.
 */
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Errors } from "@pixgate/core"
import { Effect } from "effect"
import * as Body from "./Body.js"
import * as Respond from "./Respond.js"

/** A JSON Schema (2020-12, as OpenAPI 3.1 uses it). */
export type JsonSchema = { readonly [keyword: string]: unknown }

/** HTTP methods routes use. */
export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE"

/** A query, header or path parameter. */
export interface Parameter {
  readonly name: string
  readonly in: "query" | "header" | "path"
  readonly required?: boolean
  readonly description: string
  readonly schema: JsonSchema
}

/** One documented response. */
export interface ResponseDoc {
  readonly description: string
  readonly schema?: JsonSchema
  /** Defaults to `application/json`. */
  readonly contentType?: string
  readonly headers?: Readonly<Record<string, { readonly description: string; readonly schema: JsonSchema }>>
}

/** Documented responses by status. */
export type Responses = Readonly<Record<number, ResponseDoc>>

/** What a route documents about itself. */
export interface RouteDoc {
  readonly method: Method
  /** Router syntax: `/api/v1/things/:id`. */
  readonly path: `/${string}`
  readonly operationId: string
  readonly summary: string
  readonly description?: string
  readonly tag: string
  readonly parameters?: ReadonlyArray<Parameter>
  /** Schema of the JSON object body; routes without one never read the body. */
  readonly requestBody?: JsonSchema
  readonly responses: Responses
}

/** Who may call a route, how it is checked, and the errors the check adds. */
export interface Security<A, R> {
  /** Name of the OpenAPI security scheme, or null for public routes. */
  readonly scheme: string | null
  readonly errors: Responses
  readonly check: (request: HttpServerRequest.HttpServerRequest) => Effect.Effect<A, Respond.Failure, R>
}

/** What a handler receives. */
export interface Input<A> {
  readonly request: HttpServerRequest.HttpServerRequest
  readonly params: Readonly<Record<string, string | undefined>>
  readonly query: URLSearchParams
  /** The checked caller (or `undefined` on public routes). */
  readonly principal: A
  /** The JSON object body (`{}` on routes without one). */
  readonly body: Record<string, unknown>
}

/** A handler's answer: a JSON reply, or a ready response (e.g. HTML). */
export type Output = Respond.Reply | HttpServerResponse.HttpServerResponse

/** A route ready for the router, with every response it documents. */
export interface Route<R> extends RouteDoc {
  readonly security: string | null
  readonly run: Effect.Effect<
    HttpServerResponse.HttpServerResponse,
    Respond.Failure,
    R | HttpServerRequest.HttpServerRequest | HttpRouter.RouteContext
  >
}

/** Anyone may call. */
export const open: Security<undefined, never> = {
  scheme: null,
  errors: {},
  check: () => Effect.succeed(undefined)
}

const bodyErrors: Responses = {
  400: { description: "Invalid JSON body: malformed, not a JSON object, or not `application/json`" },
  413: { description: "Request body too large" }
}

const queryOf = (url: string): URLSearchParams => {
  const at = url.indexOf("?")
  return new URLSearchParams(at === -1 ? "" : url.slice(at + 1))
}

// No id holds U+0000 and no store can look one up (Postgres refuses it): not found, or 422.
const checkNul = (params: Readonly<Record<string, string | undefined>>, query: URLSearchParams) => {
  if (Object.values(params).some((v) => v?.includes("\u0000"))) return Effect.fail(Respond.notFound())
  for (const [name, value] of query) {
    if (value.includes("\u0000")) {
      return Effect.fail(Errors.validation("invalid_query", name, `${name} must not contain NUL characters`))
    }
  }
  return Effect.void
}

/** Builds a route from its documentation, its security and its handler. */
export const make = <A, R1, R2>(
  doc: RouteDoc,
  security: Security<A, R1>,
  handle: (input: Input<A>) => Effect.Effect<Output, Respond.Failure, R2>
): Route<R1 | R2 | Body.Transport> => ({
  ...doc,
  responses: { ...doc.responses, ...(doc.requestBody ? bodyErrors : {}), ...security.errors },
  security: security.scheme,
  run: Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const params = yield* HttpRouter.params
    const query = queryOf(request.url)
    yield* checkNul(params, query)
    const principal = yield* security.check(request)
    const body = doc.requestBody ? yield* Body.readJsonObject(request) : {}
    const input = { request, params, query, principal, body }
    // A client hanging up must not cut a change (a charge, a payout's debit) in half.
    const output = yield* doc.method === "GET" ? handle(input) : Effect.uninterruptible(handle(input))
    return HttpServerResponse.isServerResponse(output) ? output : Respond.reply(output)
  })
})
