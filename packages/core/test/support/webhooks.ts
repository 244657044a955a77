/** Shared fixtures of the webhook tests: events, a receiver double, and the worker wiring. */
import {
  HttpClient,
  type HttpClientError,
  type HttpClientRequest,
  HttpClientResponse
} from "@effect/platform"
import { testWaitMs } from "@pixgate/testkit/wait"
import { Chunk, Clock, Duration, Effect, Layer, TestClock } from "effect"
import type { Event, EventId, MerchantId, Mode } from "../../src/domain/Domain.js"
import { JobRunner } from "../../src/jobs/Jobs.js"
import * as Worker from "../../src/jobs/Worker.js"
import * as HostResolver from "../../src/ports/HostResolver.js"
import { Store, type StoreShape } from "../../src/ports/Store.js"
import * as WebhookTransport from "../../src/ports/WebhookTransport.js"
import * as Config from "../../src/runtime/Config.js"
import * as WebhooksModule from "../../src/webhooks/Webhooks.js"
import { Webhooks } from "../../src/webhooks/Webhooks.js"

/** The merchant of every test event. */
export const merchantId = "mer_webhooks" as MerchantId

/** A `transaction.completed` event of the test merchant. */
export const event = (id: string, createdAt: number, mode: Mode = "test"): Event => ({
  id: id as EventId,
  merchantId,
  mode,
  type: "transaction.completed",
  data: {
    transactionId: `tx_${id}`,
    txid: "T".repeat(32),
    endToEndId: "E".repeat(32),
    amount: 10.5,
    paidAt: "x"
  },
  createdAt
})

/** The signing key `setEndpoint` gives a new endpoint unless told otherwise. */
export const testSigningKey = `whsec_${Buffer.from("test-signing-key-0123456789abcdef").toString("base64")}`

/**
 * Sets the test merchant's endpoint (a new one gets `signingKey`); answers it as stored. With
 * `secretHeader` false its deliveries leave the secret out.
 */
export const setEndpoint = (
  url: string,
  secret: string,
  mode: Mode = "test",
  signingKey = testSigningKey,
  secretHeader = true
) =>
  Effect.flatMap(Store, (store) =>
    store.setWebhookEndpoint({ merchantId, mode, url, secret, secretHeader, updatedAt: 0, signingKey })
  )

/** Records events the way an engine change does (the outbox): each gets a delivery and a job. */
export const record = (...events: ReadonlyArray<Event>) =>
  Effect.flatMap(Store, (store) =>
    store.insertTransactions({ transactions: [], entry: null, guard: null, effects: { events, jobs: [] } })
  )

/** `record` as an engine change does: the store tells this instance's worker about the new jobs. */
export const emit = record

/** The webhook log of the test merchant, newest delivery first. */
export const log = Effect.flatMap(Store, (store) =>
  store.listDeliveries({ merchantId, limit: 100, offset: 0 })
)

/** One request a receiver double saw, with the Clock time it arrived. */
export interface Call {
  readonly at: number
  readonly request: HttpClientRequest.HttpClientRequest
  readonly body: string
}

/** An HttpClient that records each call and answers what `respond` says (n counts from 1). */
export const receiver = (
  respond: (n: number) => Effect.Effect<Response, HttpClientError.HttpClientError>
): { readonly client: HttpClient.HttpClient; readonly calls: Array<Call> } => {
  const calls: Array<Call> = []
  const client = HttpClient.make((request) =>
    Effect.gen(function* () {
      const body = request.body._tag === "Uint8Array" ? new TextDecoder().decode(request.body.body) : ""
      calls.push({ at: yield* Clock.currentTimeMillis, request, body })
      return HttpClientResponse.fromWeb(request, yield* respond(calls.length))
    })
  )
  return { client, calls }
}

// The TestClock cannot see real asynchronous work (Web Crypto signing, reading a web body):
// a fiber awaiting it looks idle, so a plain `TestClock.adjust` may move time on mid-attempt.
// Jobs count as busy while they run, except while they wait inside the HttpClient (on the
// TestClock, for a receiver that never answers); `advance` moves time only when none is busy.
let busy = 0
const shift = (delta: number) =>
  Effect.sync(() => {
    busy += delta
  })

/** Counts `effect` as busy real work while it runs. */
export const busyWhile = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(
    shift(1),
    () => effect,
    () => shift(-1)
  )

const waitForClient = (client: HttpClient.HttpClient): HttpClient.HttpClient =>
  HttpClient.transform(client, (effect) =>
    Effect.acquireUseRelease(
      shift(-1),
      () => effect,
      () => shift(1)
    )
  )

const settle = Effect.gen(function* () {
  const deadline = Date.now() + testWaitMs
  do {
    yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 1)))
    if (Date.now() > deadline)
      return yield* Effect.dieMessage(`jobs still busy after ${testWaitMs} ms of real time`)
  } while (busy > 0)
})

/** Moves the TestClock forward by `duration`, one due sleep at a time, once no job is busy. */
export const advance = (duration: Duration.DurationInput) =>
  Effect.gen(function* () {
    const target = (yield* Clock.currentTimeMillis) + Duration.toMillis(duration)
    for (;;) {
      yield* settle
      const now = yield* Clock.currentTimeMillis
      const next = Math.min(...Chunk.toReadonlyArray(yield* TestClock.sleeps()).filter((at) => at > now))
      yield* TestClock.setTime(Math.min(next, target))
      if (next > target) return yield* settle
    }
  })

/** A runner that only knows webhook attempts. */
export const runner: Layer.Layer<JobRunner, never, Webhooks> = Layer.effect(
  JobRunner,
  Effect.map(Webhooks, (webhooks) => ({
    run: (job) =>
      job.kind === "webhook.attempt"
        ? busyWhile(webhooks.attempt(job))
        : Effect.dieMessage(`unexpected ${job.kind}`)
  }))
)

/** A transport over a test HttpClient, its waits not counted as busy work. */
export const viaClient = (client: HttpClient.HttpClient): Layer.Layer<WebhookTransport.WebhookTransport> =>
  WebhookTransport.fromHttpClient.pipe(
    Layer.provide(Layer.succeed(HttpClient.HttpClient, waitForClient(client)))
  )

/** Store, config, a webhook transport and resolver, with Webhooks and the test runner. */
export const servicesOver = (
  store: StoreShape,
  transport: Layer.Layer<WebhookTransport.WebhookTransport>,
  config: Partial<Config.EngineConfigShape> = {},
  resolver: Layer.Layer<HostResolver.HostResolver> = HostResolver.literalsOnly
) =>
  runner.pipe(
    Layer.provideMerge(WebhooksModule.layer),
    Layer.provideMerge(Layer.mergeAll(Layer.succeed(Store, store), Config.layer(config), transport, resolver))
  )

/** `servicesOver` a test HttpClient. */
export const services = (
  store: StoreShape,
  client: HttpClient.HttpClient,
  config: Partial<Config.EngineConfigShape> = {}
) => servicesOver(store, viaClient(client), config)

/** `servicesOver` plus a running worker (stopped when the layer's scope closes). */
export const engineOver = (
  store: StoreShape,
  transport: Layer.Layer<WebhookTransport.WebhookTransport>,
  config: Partial<Config.EngineConfigShape> = {},
  options: Worker.WorkerOptions = {},
  resolver: Layer.Layer<HostResolver.HostResolver> = HostResolver.literalsOnly
) => Worker.layerWith(options).pipe(Layer.provideMerge(servicesOver(store, transport, config, resolver)))

/** `engineOver` a test HttpClient. */
export const engine = (
  store: StoreShape,
  client: HttpClient.HttpClient,
  config: Partial<Config.EngineConfigShape> = {},
  options: Worker.WorkerOptions = {}
) => engineOver(store, viaClient(client), config, options)
