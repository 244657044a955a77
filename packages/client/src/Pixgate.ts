/**
 * The promise client, for applications that do not use Effect:
 * `new Pixgate({ apiKey, baseUrl }).charges.create({ amount: 10.5 })`. It runs `HttpApiClient`
 * over the public endpoints of the server's HttpApi definition, as `PixgateClient` does, over
 * `fetch`: one contract, one HTTP stack. Requests go out as given, so the server is the one
 * judge of the input (its 422s come back as `PixgateApiError`); answers are decoded with the
 * definition's view schemas.
 */
import {
  FetchHttpClient,
  HttpApi,
  HttpApiClient,
  HttpApiGroup,
  HttpClient,
  HttpClientError,
  HttpClientRequest
} from "@effect/platform"
import { Errors, Requests, type Views } from "@pixgate/core"
import {
  ApiErrors,
  ChargesGroup,
  HealthGroup,
  ListTransactionsUrlParams,
  PayoutsGroup,
  TransactionsGroup
} from "@pixgate/http/api"
import { Cause, Duration, Effect, Either, Exit, Option, Schema } from "effect"
import { PixgateApiError, PixgateConnectionError } from "./PixgateApiError.js"

/** How to reach Pixgate. */
export interface PixgateOptions {
  /** The merchant's API key: `sk_test_...` (sandbox) or `sk_live_...`. Keep it server-side. */
  readonly apiKey: string
  /** Scheme and host (and a mount prefix, if any), e.g. `https://pay.example.com`. */
  readonly baseUrl: string
  /** A `fetch` to use instead of the global one (a proxy agent, a test double). */
  readonly fetch?: typeof globalThis.fetch
  /** Time to wait for a whole answer, in milliseconds (default 30,000). */
  readonly timeoutMs?: number
}

/** Per-request options of the creating calls. */
export interface RequestOptions {
  /**
   * Makes a retry safe: the server answers a repeat of the same body with the first answer
   * (kept 24 h). At most 255 characters.
   */
  readonly idempotencyKey?: string
}

/** The body of `charges.create`: the JSON the API documents (`amount` in reais). */
export type CreateChargeInput = typeof Requests.CreateCharge.Encoded
/** The body of `payouts.create`: the JSON the API documents (`amount` in reais). */
export type CreatePayoutInput = typeof Requests.CreatePayout.Encoded
/** The filters and page of `transactions.list`. */
export interface ListTransactionsQuery {
  readonly page?: number
  readonly limit?: number
  readonly type?: "deposit" | "withdrawal" | "payment"
  readonly status?: "pending" | "completed" | "failed" | "refunded"
  /** `YYYY-MM-DD`, inclusive, UTC. */
  readonly startDate?: string
  /** `YYYY-MM-DD`, inclusive, UTC. */
  readonly endDate?: string
}

/** A created charge. */
export type Charge = Views.ChargeJson
/** A created payout. */
export type Payout = Views.PayoutJson
/** A page of transactions. */
export type TransactionPage = Views.TransactionPageJson
/** The health check's answer. */
export type Health = Views.HealthJson

/** The default time-out: 30 seconds. */
export const defaultTimeoutMs = 30_000

/**
 * The public endpoints of the HTTP definition with their request schemas' JSON side
 * (`Schema.encodedSchema`: structure only): the caller's JSON goes out as written and the
 * server, with its configured limits, judges it. Answers decode with the definition's schemas.
 */
const WireApi = HttpApi.make("pixgate")
  .add(HealthGroup)
  .add(
    HttpApiGroup.make("charges").add(
      ChargesGroup.endpoints.create.setPayload(Schema.encodedSchema(Requests.CreateCharge))
    )
  )
  .add(
    HttpApiGroup.make("payouts").add(
      PayoutsGroup.endpoints.create.setPayload(Schema.encodedSchema(Requests.CreatePayout))
    )
  )
  .add(
    HttpApiGroup.make("transactions").add(
      TransactionsGroup.endpoints.list.setUrlParams(Schema.encodedSchema(ListTransactionsUrlParams))
    )
  )

/**
 * An error body, read leniently: any `code` (a newer server may add codes), so that every
 * answer outside 2xx becomes a `PixgateApiError` with what the server said; a code the contract
 * does not document becomes `unexpected_response`, with the server's message.
 */
const ErrorBody = Schema.Struct({
  error: Schema.String,
  code: Schema.String,
  details: Schema.optional(Schema.Array(Errors.ErrorDetail))
})
const decodeErrorBody = Schema.decodeUnknownEither(ErrorBody)

/** The `PixgateApiError` of an answer outside 2xx, from its body and headers. */
const apiError = (response: HttpClientError.ResponseError["response"]) =>
  Effect.map(Effect.either(response.json), (json) => {
    const body = Either.isRight(json) ? decodeErrorBody(json.right) : Either.left(null)
    const retryAfter = Number(response.headers["retry-after"])
    const common = {
      status: response.status,
      requestId: response.headers["x-request-id"],
      retryAfter:
        Number.isFinite(retryAfter) && response.headers["retry-after"] !== undefined ? retryAfter : undefined
    }
    return Either.isRight(body)
      ? new PixgateApiError({
          ...common,
          code: ApiErrors.isCode(body.right.code) ? body.right.code : "unexpected_response",
          message: body.right.error,
          details: body.right.details
        })
      : new PixgateApiError({
          ...common,
          code: "unexpected_response",
          message: `Unexpected ${response.status} answer`
        })
  })

const check = (ok: boolean, message: string) => {
  if (!ok) throw new TypeError(`Pixgate: ${message}`)
}

/** A Pixgate account, through its API key. */
export class Pixgate {
  /** `charges.create(input, { idempotencyKey })`: a PIX charge with its QR code. */
  readonly charges: {
    readonly create: (input: CreateChargeInput, options?: RequestOptions) => Promise<Charge>
  }
  /** `payouts.create(input, { idempotencyKey })`: a PIX payout from the available balance. */
  readonly payouts: {
    readonly create: (input: CreatePayoutInput, options?: RequestOptions) => Promise<Payout>
  }
  /** `transactions.list(query)`: a page of transactions, newest first. */
  readonly transactions: {
    readonly list: (query?: ListTransactionsQuery) => Promise<TransactionPage>
  }
  /** `GET /api/health`. */
  readonly health: () => Promise<Health>

  constructor(options: PixgateOptions) {
    check(typeof options?.apiKey === "string" && options.apiKey !== "", "apiKey is required")
    check(
      typeof options.baseUrl === "string" && URL.canParse(options.baseUrl),
      "baseUrl must be an absolute URL"
    )
    const timeoutMs = options.timeoutMs ?? defaultTimeoutMs
    check(Number.isFinite(timeoutMs) && timeoutMs > 0, "timeoutMs must be a positive number")
    const timeout = Duration.millis(timeoutMs)
    const fetch = options.fetch ?? globalThis.fetch.bind(globalThis)

    // Answers outside 2xx stop at `filterStatusOk`, before the client decodes them, so every one
    // becomes the same `PixgateApiError` (declared in the API or not: a proxy's 502 too).
    const client = Effect.runSync(
      Effect.flatMap(HttpClient.HttpClient, (httpClient) =>
        HttpApiClient.makeWith(WireApi, {
          baseUrl: options.baseUrl,
          httpClient: httpClient.pipe(
            HttpClient.mapRequest(HttpClientRequest.setHeader("x-api-key", options.apiKey)),
            HttpClient.filterStatusOk
          )
        })
      ).pipe(Effect.provide(FetchHttpClient.layer))
    )

    const run = <A, E>(effect: Effect.Effect<A, E>): Promise<A> =>
      Effect.runPromiseExit(
        effect.pipe(
          Effect.timeoutFail({
            duration: timeout,
            onTimeout: () => new PixgateConnectionError(`No answer from Pixgate within ${timeoutMs} ms`)
          }),
          Effect.catchAll(
            (error): Effect.Effect<never, unknown> =>
              isStatusError(error) ? Effect.flip(apiError(error.response)) : Effect.fail(error)
          ),
          Effect.provideService(FetchHttpClient.Fetch, fetch)
        )
      ).then((exit) => {
        if (Exit.isSuccess(exit)) return exit.value
        const failure = Cause.failureOption(exit.cause)
        throw Option.isSome(failure) ? toRejection(failure.value) : Cause.squash(exit.cause)
      })

    const idempotency = (request?: RequestOptions) =>
      request?.idempotencyKey === undefined ? {} : { "idempotency-key": request.idempotencyKey }

    this.charges = {
      create: (input, request) =>
        run(client.charges.create({ payload: input, headers: idempotency(request) }))
    }
    this.payouts = {
      create: (input, request) =>
        run(client.payouts.create({ payload: input, headers: idempotency(request) }))
    }
    this.transactions = {
      list: (query = {}) => run(client.transactions.list({ urlParams: queryParams(query) }))
    }
    this.health = () => run(client.health.check())
  }
}

/** The query as the URL carries it: numbers as decimal text. */
const queryParams = (query: ListTransactionsQuery): typeof ListTransactionsUrlParams.Encoded => {
  const { page, limit, ...filters } = query
  return {
    ...filters,
    ...(page === undefined ? {} : { page: String(page) }),
    ...(limit === undefined ? {} : { limit: String(limit) })
  }
}

const isStatusError = (error: unknown): error is HttpClientError.ResponseError =>
  HttpClientError.isHttpClientError(error) && error._tag === "ResponseError" && error.reason === "StatusCode"

const toRejection = (error: unknown): unknown => {
  if (HttpClientError.isHttpClientError(error) && error._tag === "RequestError") {
    return new PixgateConnectionError(`Could not reach Pixgate: ${error.message}`, { cause: error.cause })
  }
  return error
}
