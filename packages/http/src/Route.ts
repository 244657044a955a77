/**
 * One route for the router: method, path, who may call it, and its handler (Endpoints compiles
 * `PixgateApi` into these; the bank's callbacks are written as one). `make` composes the request
 * pipeline in the contract's order: authenticate (401), rate limit (429), then the body (400, 413), then the handler, which
 * for anything but GET runs to its end even if the client goes away. `plain` is a public route
 * answered by a plain function, outside the Effect runtime (the health check, the documents).
 */
import { Errors } from "@pixgate/core"
import { Effect } from "effect"
import * as Body from "./Body.js"
import type { Incoming } from "./Incoming.js"
import * as Respond from "./Respond.js"
import type { ApiError } from "./TransportErrors.js"

/** HTTP methods routes use. */
export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE"

/** How a route checks its caller; the check's answer is the handler's `principal`. */
export interface Security<A, R> {
  readonly check: (request: Incoming) => Effect.Effect<A, Respond.Failure, R>
}

/** Path parameters by name. */
export type Params = Readonly<Record<string, string | undefined>>

/** What a handler receives. */
export interface Input<A> {
  readonly request: Incoming
  readonly params: Params
  readonly query: URLSearchParams
  /** The checked caller (or `undefined` on public routes). */
  readonly principal: A
  /** The JSON object body (`{}` on routes without one). */
  readonly body: Record<string, unknown>
}

/** A handler's answer: a JSON reply, or a ready answer (e.g. HTML). */
export type Output = Respond.Reply | Respond.Answer

/** A route ready for the router. */
export interface Route<R> {
  readonly method: Method
  /** Router syntax: `/api/v1/things/:id`. */
  readonly path: `/${string}`
  /**
   * Answers a request: at once (plain routes), or as an Effect the dispatcher runs on the
   * runtime. Anything thrown or died is a defect.
   */
  readonly serve: (
    request: Incoming,
    params: Params
  ) => Respond.Answer | Effect.Effect<Respond.Answer, Respond.Failure, R>
}

/** Anyone may call. */
export const open: Security<undefined, never> = { check: () => Effect.succeed(undefined) }

const queryOf = (url: string): URLSearchParams => {
  const at = url.indexOf("?")
  return new URLSearchParams(at === -1 ? "" : url.slice(at + 1))
}

// No id holds U+0000 and no store can look one up (Postgres refuses it): not found, or 422.
const nulIn = (params: Params, query: URLSearchParams): ApiError | undefined => {
  for (const name in params) if (params[name]?.includes("\u0000")) return Respond.notFound()
  for (const [name, value] of query) {
    if (value.includes("\u0000"))
      return Errors.validation("invalid_query", name, `${name} must not contain NUL characters`)
  }
  return undefined
}

/** The query of a request, or the refusal of a NUL character in it or in the path's parameters. */
const queryOrRefusal = (request: Incoming, params: Params): URLSearchParams | Respond.Answer => {
  const query = queryOf(request.url)
  const refused = nulIn(params, query)
  return refused === undefined ? query : Respond.failure(refused)
}

const answerOf = (output: Output): Respond.Answer =>
  output instanceof Respond.Answer ? output : Respond.reply(output)

const hasNone = (params: Params): boolean => {
  for (const _ in params) return false
  return true
}

/**
 * The query of a plain route's request without one, shared: plain handlers (the health check,
 * the documents) only read their query, and the health check is the request probes send most.
 */
const noQuery = new URLSearchParams()

/** A public route without a body whose handler answers at once, never entering the runtime. */
export const plain = (
  method: Method,
  path: `/${string}`,
  handle: (input: Input<undefined>) => Output
): Route<never> => ({
  method,
  path,
  serve: (request, params) => {
    const query =
      request.url.indexOf("?") === -1 && hasNone(params) ? noQuery : queryOrRefusal(request, params)
    if (query instanceof Respond.Answer) return query
    return answerOf(handle({ request, params, query, principal: undefined, body: {} }))
  }
})

/** What a route reads besides its path and query. */
export interface Reads {
  /** A JSON object body; routes without one never read the body. */
  readonly body: boolean
}

/** Builds a route from its method and path, what it reads, its security and its handler. */
export const make = <A, R1, R2>(
  method: Method,
  path: `/${string}`,
  reads: Reads,
  security: Security<A, R1>,
  handle: (input: Input<A>) => Effect.Effect<Output, Respond.Failure, R2>
): Route<R1 | R2> => ({
  method,
  path,
  serve: (request, params) => {
    const query = queryOrRefusal(request, params)
    if (query instanceof Respond.Answer) return query
    return Effect.gen(function* () {
      const principal = yield* security.check(request)
      const body = reads.body ? yield* Body.readJsonObject(request) : {}
      const input = { request, params, query, principal, body }
      // A client hanging up must not cut a change (a charge, a payout's debit) in half.
      const output = yield* method === "GET" ? handle(input) : Effect.uninterruptible(handle(input))
      return answerOf(output)
    })
  }
})
