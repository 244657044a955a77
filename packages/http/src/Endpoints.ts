/**
 * An `HttpApi` compiled into routes for the native router: every endpoint's method and path,
 * its security (the middleware's check), its decoders (path, query, JSON body and headers,
 * through core's `Requests.decode`, so every refusal has the API's exact 400/422 body), its
 * handler (bound by group and endpoint name), its success status and encoder, all read from the
 * definition once, when the routes are built. Endpoints marked deprecated are the removed ones
 * (`removedPaths`): the router answers their paths with 410 for every method. Per request, a route runs the
 * prepared decoders and encoder and nothing else of the definition.
 */
import { HttpApi, type HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { type Auth, Engine, type Errors, Money, Requests } from "@pixgate/core"
import { Context, Effect, Either, Option, ParseResult, Schema, SchemaAST } from "effect"
import type * as Handlers from "./EndpointHandlers.js"
import * as PixgateApi from "./PixgateApi.js"
import * as Respond from "./Respond.js"
import * as Route from "./Route.js"

/** A handler as the compiled route calls it: its input is what the definition's schemas decoded. */
type AnyHandler<R> = (
  input: Handlers.Input<unknown, unknown, unknown, unknown>
) => Effect.Effect<unknown, Errors.PixgateError, R>

/** A handler answered at once, outside the runtime (the health check, the documents). */
export type PlainHandler = (input: Route.Input<undefined>) => Route.Output

/**
 * A transport's own answer behind the endpoint's security: one whose status the definition's
 * success schema does not give (readiness: 200 or 503 with the same body), or needing no engine.
 */
export type TransportHandler = (
  input: Route.Input<unknown>
) => Effect.Effect<Route.Output, never, Engine.Engine>

/** How an API is served natively. */
export interface Binding<R> {
  /** The handlers, by group and endpoint name. */
  readonly handlers: Handlers.AllHandlers
  /** Endpoints answered without the runtime, by group and endpoint name (these win). */
  readonly plain?: Readonly<Record<string, Readonly<Record<string, PlainHandler>>>>
  /** Endpoints of the transport itself behind the endpoint's security (the admin document). */
  readonly transport?: Readonly<Record<string, Readonly<Record<string, TransportHandler>>>>
  /** The check of each security middleware of the API: the merchant (API key), or nobody in particular. */
  readonly security: ReadonlyArray<readonly [Middleware, Route.Security<Auth.Caller | undefined, R>]>
}

/** A middleware tag of the definition, known by its key. */
export interface Middleware {
  readonly key: string
}

/** The handlers by group, then endpoint name, as the compiler looks them up. */
const lookup = (handlers: Handlers.AllHandlers): ReadonlyMap<string, ReadonlyMap<string, unknown>> =>
  new Map(Object.entries(handlers).map(([group, byName]) => [group, new Map(Object.entries(byName))]))

const isFunction = (u: unknown): u is (...args: never) => unknown => typeof u === "function"

type Decoder = (input: unknown) => Effect.Effect<unknown, Errors.ValidationError | Errors.InvalidJson>

/** A decoder of a schema with the API's refusals (`Requests.decode`), or none. */
const decoderOf = (schema: Option.Option<{ readonly ast: SchemaAST.AST }>): Decoder | undefined =>
  Option.match(schema, {
    onNone: () => undefined,
    onSome: (s) => Requests.decode(Schema.make<unknown, unknown, never>(s.ast))
  })

/** The first value of each query parameter present. */
const paramsOf = (query: URLSearchParams): Record<string, string> => {
  const params: Record<string, string> = {}
  for (const [name, value] of query) if (!Object.hasOwn(params, name)) params[name] = value
  return params
}

/** A headers schema's decoder over the request's headers (their names lower-case, as Node has them). */
const headersOf = (schema: Option.Option<{ readonly ast: SchemaAST.AST }>) =>
  Option.map(schema, (s) => {
    const names = SchemaAST.getPropertySignatures(s.ast).map((p) => String(p.name))
    const decode = ParseResult.decodeUnknownEither(Schema.make<unknown, unknown, never>(s.ast))
    return (request: Route.Input<unknown>["request"]) => {
      const values: Record<string, string> = {}
      for (const name of names) {
        const value = request.header(name)
        if (value !== undefined) values[name] = value
      }
      return decode(values)
    }
  })

/**
 * True when encoding with the schema gives back the value itself: no transformation anywhere
 * (refinements only check). Every success schema of `PixgateApi` is such a JSON view, and the
 * handlers' types are its Type side, so its encoder is the identity and costs nothing per
 * request; any other schema is encoded.
 */
export const encodesToItself = (ast: SchemaAST.AST): boolean => {
  switch (ast._tag) {
    case "Transformation":
    case "Declaration":
    case "Suspend":
      return false
    case "Refinement":
      return encodesToItself(ast.from)
    case "TypeLiteral":
      return (
        ast.propertySignatures.every((p) => encodesToItself(p.type)) &&
        ast.indexSignatures.every((i) => encodesToItself(i.type))
      )
    case "Union":
      return ast.types.every(encodesToItself)
    case "TupleType":
      return (
        ast.elements.every((e) => encodesToItself(e.type)) && ast.rest.every((r) => encodesToItself(r.type))
      )
    default:
      return true
  }
}

/** Fails with the formatted issue: a value the definition cannot encode or decode is a bug. */
const orDie = <A>(either: Either.Either<A, ParseResult.ParseIssue>): Effect.Effect<A> =>
  Either.match(either, {
    onLeft: (issue) => Effect.dieMessage(ParseResult.TreeFormatter.formatIssueSync(issue)),
    onRight: Effect.succeed
  })

/** A value answered for the first time. */
const once = <A>(value: A) => ({ value, replayed: false })

const replayedHeaders = { [Respond.replayedHeader]: "true" }

const isRemoved = (annotations: Context.Context<never>) =>
  Option.getOrElse(Context.getOption(annotations, OpenApi.Deprecated), () => false)

/** The paths of the removed (deprecated) endpoints of `api`: the router answers them 410. */
export const removedPaths = <Id extends string, Groups extends HttpApiGroup.HttpApiGroup.Any, E, R>(
  api: HttpApi.HttpApi<Id, Groups, E, R>
): ReadonlyArray<`/${string}`> => {
  const paths: Array<`/${string}`> = []
  HttpApi.reflect(api, {
    onGroup: () => undefined,
    onEndpoint: ({ endpoint, mergedAnnotations }) => {
      if (isRemoved(mergedAnnotations)) paths.push(endpoint.path as `/${string}`)
    }
  })
  return [...new Set(paths)]
}

/** What serving one compiled endpoint needs: its decoders, its handler, how it answers. */
interface Compiled {
  readonly decodePath: Decoder | undefined
  readonly decodeQuery: Decoder | undefined
  readonly decodeBody: Decoder | undefined
  readonly decodeHeaders: ReturnType<typeof headersOf>
  /** Whether the handler needs the caller (its group's middleware provides one). */
  readonly withCaller: boolean
  readonly handle: AnyHandler<Engine.Engine | PixgateApi.CurrentCaller>
  readonly handleOpen: AnyHandler<Engine.Engine>
  readonly successStatus: number
  readonly encode: (value: unknown) => Either.Either<unknown, ParseResult.ParseIssue>
  readonly operation: Context.Tag.Service<typeof PixgateApi.IdempotentOperation> | undefined
}

/** Serves one request of a compiled endpoint: decoded, handled (once per idempotency key), encoded. */
const serveEndpoint = (c: Compiled, input: Route.Input<Auth.Caller | undefined>) => {
  const {
    decodePath,
    decodeQuery,
    decodeBody,
    decodeHeaders,
    withCaller,
    handle,
    handleOpen,
    successStatus,
    encode,
    operation
  } = c
  return Effect.gen(function* () {
    const pathParams = decodePath === undefined ? {} : yield* decodePath(input.params)
    const urlParams = decodeQuery === undefined ? {} : yield* decodeQuery(paramsOf(input.query))
    const headers = decodeHeaders._tag === "None" ? {} : yield* orDie(decodeHeaders.value(input.request))
    const engine = yield* Engine.Engine
    // `MaxAmount` is a reference whose default is the default maximum: an engine
    // configured with that maximum (the usual case) needs no context built per request.
    const maxAmount = engine.config.maxAmount
    const payload =
      decodeBody === undefined
        ? Effect.succeed({})
        : maxAmount === Money.defaultMaximum
          ? decodeBody(input.body)
          : Effect.provideService(decodeBody(input.body), Requests.MaxAmount, maxAmount)
    const request = (decoded: unknown) => ({ path: pathParams, urlParams, payload: decoded, headers })
    const caller = input.principal
    // The engine is the one of the context the route runs in: the handler finds it there.
    if (!withCaller || caller === undefined) {
      const value = yield* Effect.flatMap(payload, (decoded) => handleOpen(request(decoded)))
      return { status: successStatus, body: yield* orDie(encode(value)) }
    }
    const handled = Effect.flatMap(payload, (decoded) => handle(request(decoded))).pipe(
      Effect.provideService(PixgateApi.CurrentCaller, caller)
    )
    const { value, replayed } =
      operation === undefined
        ? yield* Effect.map(handled, once)
        : yield* engine.idempotency.run(
            caller,
            input.request.header("idempotency-key"),
            operation,
            input.body,
            handled
          )
    const body = yield* orDie(encode(value))
    return {
      status: successStatus,
      body,
      ...(replayed ? { headers: replayedHeaders } : {})
    }
  })
}

/** Compiles `api` with its handlers and security into routes. */
export const compile = <Id extends string, Groups extends HttpApiGroup.HttpApiGroup.Any, E, R0, R>(
  api: HttpApi.HttpApi<Id, Groups, E, R0>,
  binding: Binding<R>
): ReadonlyArray<Route.Route<R | Engine.Engine>> => {
  const routes: Array<Route.Route<R | Engine.Engine>> = []
  const handlers = lookup(binding.handlers)
  HttpApi.reflect(api, {
    onGroup: () => undefined,
    onEndpoint: ({ group, endpoint, mergedAnnotations, middleware }) => {
      const path = endpoint.path as `/${string}`
      if (isRemoved(mergedAnnotations)) return
      const method = endpoint.method as Route.Method
      const plain = binding.plain?.[group.identifier]?.[endpoint.name]
      if (plain !== undefined) {
        routes.push(Route.plain(method, path, plain))
        return
      }
      const keys = new Set([...middleware].map((tag) => tag.key))
      const security = binding.security.find(([tag]) => keys.has(tag.key))?.[1] ?? Route.open
      const own = binding.transport?.[group.identifier]?.[endpoint.name]
      if (own !== undefined) {
        routes.push(Route.make(method, path, { body: false }, security, own))
        return
      }
      const handler = handlers.get(group.identifier)?.get(endpoint.name)
      if (!isFunction(handler)) throw new TypeError(`No handler for ${group.identifier}.${endpoint.name}`)
      // The definition's schemas decode the handler's input, so its own parameter types hold;
      // it needs the caller only when its group's middleware provides one (`Handlers.Handler`).
      const withCaller = [...middleware].some((tag) => tag.provides?.key === PixgateApi.CurrentCaller.key)
      const handle = handler as AnyHandler<Engine.Engine | PixgateApi.CurrentCaller>
      const handleOpen = handler as AnyHandler<Engine.Engine>
      const successStatus = HttpApiSchema.getStatusSuccess(endpoint.successSchema)
      const successAst = endpoint.successSchema.ast
      const encode: (value: unknown) => Either.Either<unknown, ParseResult.ParseIssue> = encodesToItself(
        successAst
      )
        ? Either.right
        : ParseResult.encodeUnknownEither(Schema.make<unknown, unknown, never>(successAst))
      const decodePath = decoderOf(endpoint.pathSchema)
      const decodeQuery = decoderOf(endpoint.urlParamsSchema)
      const decodeBody = decoderOf(endpoint.payloadSchema)
      const decodeHeaders = headersOf(endpoint.headersSchema)
      const operation = Option.getOrUndefined(
        Context.getOption(endpoint.annotations, PixgateApi.IdempotentOperation)
      )
      routes.push(
        Route.make(method, path, { body: decodeBody !== undefined }, security, (input) =>
          serveEndpoint(
            {
              decodePath,
              decodeQuery,
              decodeBody,
              decodeHeaders,
              withCaller,
              handle,
              handleOpen,
              successStatus,
              encode,
              operation
            },
            input
          )
        )
      )
    }
  })
  return routes
}
