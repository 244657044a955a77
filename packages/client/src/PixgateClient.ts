/**
 * The Effect client: `HttpApiClient` over the groups of Pixgate's own `HttpApi` definition
 * (`@pixgate/http/api`) that an API key can call, so requests, answers and errors are the
 * server's schemas, not a copy. Every request carries `x-api-key`; error answers decode into
 * core's tagged errors (`InsufficientBalance`, `ValidationError`, `Unauthorized`, ...).
 */
import {
  FetchHttpClient,
  type HttpApi,
  HttpApiClient,
  type HttpApiEndpoint,
  type HttpApiGroup,
  HttpClient,
  type HttpClientError,
  HttpClientRequest,
  type HttpClientResponse
} from "@effect/platform"
import { PixgateApi } from "@pixgate/http/api"
import { Config, type ConfigError, Context, Effect, Layer, Option, type ParseResult, Redacted } from "effect"
import type { Simplify } from "effect/Types"

/** Where the server is and which key to use. */
export interface PixgateClientOptions {
  /** Scheme and host (and a mount prefix, if any), e.g. `https://pay.example.com`. */
  readonly baseUrl: string | URL
  /** The merchant's API key: `sk_test_...` (sandbox) or `sk_live_...`. */
  readonly apiKey: string | Redacted.Redacted<string>
}

/** The contract the client is made from (all of it: `HttpApiClient.make(Api)` includes the admin API). */
export const Api: typeof PixgateApi = PixgateApi

type Groups = typeof PixgateApi extends HttpApi.HttpApi<string, infer G, infer _E, infer _R> ? G : never
type ApiError = typeof PixgateApi extends HttpApi.HttpApi<string, infer _G, infer E, infer _R> ? E : never

/**
 * A request as `HttpApiClient` takes it, with `headers` left out allowed when every header is
 * optional (the create operations' only header, `Idempotency-Key`, is): `HttpApiClient` itself
 * demands `headers: {}` there.
 */
export type Request<Req, Headers> = [Headers] extends [never]
  ? Req
  : {} extends Headers
    ? Simplify<Omit<Req, "headers"> & { readonly headers?: Headers }>
    : Req

/** One method: `HttpApiClient`'s, with optional headers optional. */
export type Method<Endpoint, E, GroupError> = [Endpoint] extends [
  HttpApiEndpoint.HttpApiEndpoint<
    infer _Name,
    infer _Method,
    infer Path,
    infer UrlParams,
    infer Payload,
    infer Headers,
    infer Success,
    infer Error,
    infer _R,
    infer _RE
  >
]
  ? <WithResponse extends boolean = false>(
      request: Request<
        HttpApiEndpoint.HttpApiEndpoint.ClientRequest<Path, UrlParams, Payload, Headers, WithResponse>,
        Headers
      >
    ) => Effect.Effect<
      WithResponse extends true ? [Success, HttpClientResponse.HttpClientResponse] : Success,
      Error | GroupError | E | HttpClientError.HttpClientError | ParseResult.ParseError
    >
  : never

/** The methods of one group, failing with its declared errors (core's tagged errors). */
export type Group<Name extends "health" | "charges" | "payouts" | "transactions" | "subscriptions"> = [
  HttpApiGroup.HttpApiGroup.WithName<Groups, Name>
] extends [HttpApiGroup.HttpApiGroup<infer _Name, infer Endpoints, infer GroupError, infer _R>]
  ? {
      readonly [Endpoint in Endpoints as HttpApiEndpoint.HttpApiEndpoint.Name<Endpoint>]: Method<
        Endpoint,
        ApiError,
        GroupError
      >
    }
  : never

/** The client: `health.check`, `charges.create`, `payouts.create`, `transactions.list`, `subscriptions.*`. */
export interface Client {
  readonly health: Group<"health">
  readonly charges: Group<"charges">
  readonly payouts: Group<"payouts">
  readonly transactions: Group<"transactions">
  /** Pix Automático: `create`, `list`, `get`, `cycles`, `cancel`, `retry` (docs/recurring.md). */
  readonly subscriptions: Group<"subscriptions">
}

/** The `HttpClient` in context with the API key on every request. */
const withApiKey = (apiKey: string | Redacted.Redacted<string>) => {
  const key = Redacted.isRedacted(apiKey) ? Redacted.value(apiKey) : apiKey
  return HttpClient.mapRequest(HttpClientRequest.setHeader("x-api-key", key))
}

/**
 * The group's methods, those of endpoints with a headers schema called with `headers: {}` when
 * the request leaves them out (every such header is optional: `Idempotency-Key`).
 */
const withOptionalHeaders = (name: string, methods: object): object => {
  const endpoints = Object.values(PixgateApi.groups[name]?.endpoints ?? {})
  const withHeaders = new Set(endpoints.flatMap((e) => (Option.isSome(e.headersSchema) ? [e.name] : [])))
  return Object.fromEntries(
    Object.entries(methods).map(([method, call]) => [
      method,
      withHeaders.has(method)
        ? (request: { readonly headers?: unknown }) => call({ ...request, headers: request.headers ?? {} })
        : call
    ])
  )
}

/** Builds the client over the `HttpClient` in context (e.g. `FetchHttpClient.layer`). */
export const make = (options: PixgateClientOptions): Effect.Effect<Client, never, HttpClient.HttpClient> =>
  Effect.flatMap(HttpClient.HttpClient, (client) => {
    const httpClient = withApiKey(options.apiKey)(client)
    const group = <const Name extends "health" | "charges" | "payouts" | "transactions" | "subscriptions">(
      name: Name
    ) =>
      Effect.map(
        HttpApiClient.group(PixgateApi, { group: name, httpClient, baseUrl: options.baseUrl }),
        (methods) => withOptionalHeaders(name, methods) as unknown as Group<Name>
      )
    return Effect.all({
      health: group("health"),
      charges: group("charges"),
      payouts: group("payouts"),
      transactions: group("transactions"),
      subscriptions: group("subscriptions")
    })
  })

/** The client as a service, for Effect applications. */
export class PixgateClient extends Context.Tag("@pixgate/client/PixgateClient")<PixgateClient, Client>() {}

/** Provides `PixgateClient` over the `HttpClient` in context. */
export const layer = (
  options: PixgateClientOptions
): Layer.Layer<PixgateClient, never, HttpClient.HttpClient> => Layer.effect(PixgateClient, make(options))

/** Provides `PixgateClient` over `fetch`. */
export const layerFetch = (options: PixgateClientOptions): Layer.Layer<PixgateClient> =>
  Layer.provide(layer(options), FetchHttpClient.layer)

/** Provides `PixgateClient` from `PIXGATE_BASE_URL` and `PIXGATE_API_KEY` (over the `HttpClient` in context). */
export const layerConfig: Layer.Layer<PixgateClient, ConfigError.ConfigError, HttpClient.HttpClient> =
  Layer.unwrapEffect(
    Effect.map(
      Config.all({ baseUrl: Config.string("PIXGATE_BASE_URL"), apiKey: Config.redacted("PIXGATE_API_KEY") }),
      layer
    )
  )
