/**
 * The promise client, for applications that do not use Effect:
 * `new Pixgate({ apiKey, baseUrl }).charges.create({ amount: 10.5 })`. It runs the Effect client
 * (`PixgateClient`, made from the server's HttpApi definition) over `fetch`: one contract, one
 * HTTP stack. Requests go out as given, so the server is the one judge of the input (its 422s
 * come back as `PixgateApiError`); answers are decoded with the view schemas.
 */
import { FetchHttpClient, HttpClient, type HttpClientError } from "@effect/platform"
import { Cause, Duration, Effect, Either, Exit, Option, Schema } from "effect"
import * as Contract from "./internal/provisional.js"
import { PixgateApiError, PixgateConnectionError } from "./PixgateApiError.js"
import * as PixgateClient from "./PixgateClient.js"

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

/** The body of `charges.create`, as the API documents it. */
export type CreateChargeInput = typeof Contract.CreateCharge.Encoded
/** The body of `payouts.create`, as the API documents it. */
export type CreatePayoutInput = typeof Contract.CreatePayout.Encoded
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
export type Charge = typeof Contract.Charge.Type
/** A created payout. */
export type Payout = typeof Contract.Payout.Type
/** A page of transactions. */
export type TransactionPage = typeof Contract.TransactionPage.Type
/** The health check's answer. */
export type Health = typeof Contract.Health.Type

/** The default time-out: 30 seconds. */
export const defaultTimeoutMs = 30_000

const decodeErrorBody = Schema.decodeUnknownEither(Contract.ErrorBody)

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
          code: body.right.code,
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
      PixgateClient.make({ baseUrl: options.baseUrl, apiKey: options.apiKey }).pipe(
        Effect.provideServiceEffect(
          HttpClient.HttpClient,
          Effect.map(HttpClient.HttpClient, HttpClient.filterStatusOk)
        ),
        Effect.provide(FetchHttpClient.layer)
      )
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
      list: (query = {}) => run(client.transactions.list({ urlParams: query }))
    }
    this.health = () => run(client.health.check())
  }
}

const isStatusError = (error: unknown): error is HttpClientError.ResponseError =>
  typeof error === "object" &&
  error !== null &&
  (error as { _tag?: unknown })._tag === "ResponseError" &&
  (error as { reason?: unknown }).reason === "StatusCode"

const toRejection = (error: unknown): unknown => {
  if (error instanceof PixgateApiError || error instanceof PixgateConnectionError) return error
  if (typeof error === "object" && error !== null && (error as { _tag?: unknown })._tag === "RequestError") {
    return new PixgateConnectionError(`Could not reach Pixgate: ${(error as Error).message}`, {
      cause: (error as { cause?: unknown }).cause
    })
  }
  return error
}
