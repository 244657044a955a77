/**
 * One Pixgate engine in its own OS process, on a Postgres database (or a SQLite file, for a
 * `sqlite:` url): the child of the multi-process tests (multiprocess.test.ts, crash.test.ts),
 * spawned by `processes.ts` as
 *
 *   node --import tsx --conditions=@pixgate/source engine-process.ts <command> '<json options>'
 *
 * It speaks JSON lines: every report is one object per line on stdout (process.stdout is
 * synchronous for pipes on Linux, so a line written before a SIGKILL still reaches the test).
 * It reads commands from stdin (`go`), and exits as soon as stdin closes, so no child outlives
 * the test that spawned it; SIGTERM stops it gracefully (the worker drains its jobs first).
 *
 * Commands:
 * - `payouts`: fires `count` payouts at once (no worker), prints one `summary`, exits.
 * - `worker`: runs the job worker (webhook attempts, sandbox settlement) until stopped.
 * - `payout-stream`: with the worker on, creates one payout per idempotency key (`prefix-N`),
 *   `concurrency` at a time, printing `start` before and `ack` after each; then keeps working.
 * - `retry`: with the worker on, runs the payouts of the given keys again (same keys, same
 *   bodies; a 409 "in flight" is asked again every 500 ms for `inFlightPatienceMs`), printing
 *   one `retry` line per key, then `retried`; then keeps working.
 */
import { createInterface } from "node:readline"
import { type Auth, Engine, type Errors, Requests, WebhookTransport } from "@pixgate/core"
import { Status } from "@pixgate/http"
import { testWait } from "@pixgate/testkit/wait"
import { Cause, Context, Duration, Effect, Either, Exit, Fiber, Layer } from "effect"
import { storeLayer } from "./store-layer.js"

/** Everything a command may be given (as the JSON of the second argument). */
export interface ChildOptions {
  /** The database: a Postgres URL, or `sqlite:<path>`. */
  readonly url: string
  /** The merchant's test API key (payout commands). */
  readonly key?: string
  /** Wait for a `go` line on stdin after connecting, before starting the engine. */
  readonly waitForGo?: boolean
  /** Engine `serviceName`: names the webhooks' User-Agent, so the receiver sees the sender. */
  readonly serviceName?: string
  /** Engine `workerPollInterval` in ms. */
  readonly pollMs?: number
  /** Engine `jobLease` in ms. */
  readonly leaseMs?: number
  /** Pool size (default 10). */
  readonly maxConnections?: number
  /** `payouts`: how many. */
  readonly count?: number
  /** `payout-stream`: keys are `${prefix}-${i}` for i in [0, count). */
  readonly prefix?: string
  /** `payout-stream`: payouts in flight at once. */
  readonly concurrency?: number
  /** `retry`: the keys to run again. */
  readonly keys?: ReadonlyArray<string>
  /** `retry`: how long to keep asking again (every 500 ms) while a key answers 409 in flight. */
  readonly inFlightPatienceMs?: number
  /** Payout amount in reais and PIX key. */
  readonly amount?: number
  readonly pixKey?: string
}

/** The operation name both children give `idempotency.run` (its fingerprint includes it). */
export const payoutOperation = "POST /api/v1/payouts"

/** The body of the payout made under an idempotency key: the key is its description. */
export const payoutBody = (key: string, amount: number, pixKey: string) => ({
  amount,
  pixKey,
  description: key
})

const emit = (line: Record<string, unknown>) => {
  process.stdout.write(`${JSON.stringify(line)}\n`)
}

const failureOf = (e: Errors.PixgateError) => ({ status: Status.statusOf(e), code: e.code })

// The engine as the HTTP API drives it: the body decoded, then the typed service.
const createPayout = (engine: Engine.EngineShape, caller: Auth.Caller, body: unknown) =>
  Effect.flatMap(Requests.decode(Requests.CreatePayout, engine.config)(body), (input) =>
    engine.payouts.create(caller, input)
  )

type Command = (
  engine: Engine.EngineShape,
  caller: Auth.Caller | null,
  o: ChildOptions
) => Effect.Effect<"exit" | "stay">

const need = <A>(value: A | undefined | null, what: string): A => {
  if (value === undefined || value === null) throw new Error(`engine-process: missing option ${what}`)
  return value
}

const commands: Record<string, { readonly worker: boolean; readonly run: Command }> = {
  payouts: {
    worker: false,
    run: (engine, caller, o) =>
      Effect.gen(function* () {
        const body = { amount: need(o.amount, "amount"), pixKey: need(o.pixKey, "pixKey") }
        const started = Date.now()
        const outcomes = yield* Effect.forEach(
          Array.from({ length: need(o.count, "count") }),
          () => Effect.either(createPayout(engine, need(caller, "key"), body)),
          { concurrency: "unbounded" }
        )
        const created: Array<string> = []
        const refused: Record<string, number> = {}
        for (const outcome of outcomes) {
          if (Either.isRight(outcome)) created.push(outcome.right.transactionId)
          else refused[outcome.left.code] = (refused[outcome.left.code] ?? 0) + 1
        }
        emit({
          type: "summary",
          pid: process.pid,
          created: created.length,
          refused: refused.insufficient_balance ?? 0,
          refusals: refused,
          ids: created,
          ms: Date.now() - started
        })
        return "exit" as const
      })
  },
  worker: {
    worker: true,
    run: () => Effect.succeed("stay" as const)
  },
  "payout-stream": {
    worker: true,
    run: (engine, caller, o) =>
      Effect.gen(function* () {
        const [amount, pixKey, prefix] = [
          need(o.amount, "amount"),
          need(o.pixKey, "pixKey"),
          need(o.prefix, "prefix")
        ]
        const keys = Array.from({ length: need(o.count, "count") }, (_, i) => `${prefix}-${i}`)
        yield* Effect.forEach(
          keys,
          (key) =>
            Effect.gen(function* () {
              const body = payoutBody(key, amount, pixKey)
              emit({ type: "start", key })
              const outcome = yield* Effect.either(
                engine.idempotency.run(
                  need(caller, "key"),
                  key,
                  payoutOperation,
                  body,
                  createPayout(engine, need(caller, "key"), body)
                )
              )
              if (Either.isRight(outcome)) {
                emit({
                  type: "ack",
                  key,
                  id: outcome.right.value.transactionId,
                  replayed: outcome.right.replayed
                })
              } else emit({ type: "refused", key, ...failureOf(outcome.left) })
            }),
          { concurrency: need(o.concurrency, "concurrency"), discard: true }
        )
        emit({ type: "done" })
        return "stay" as const
      })
  },
  retry: {
    worker: true,
    run: (engine, caller, o) =>
      Effect.gen(function* () {
        const [amount, pixKey] = [need(o.amount, "amount"), need(o.pixKey, "pixKey")]
        yield* Effect.forEach(
          need(o.keys, "keys"),
          (key) =>
            Effect.gen(function* () {
              const body = payoutBody(key, amount, pixKey)
              const attempt = Effect.either(
                engine.idempotency.run(
                  need(caller, "key"),
                  key,
                  payoutOperation,
                  body,
                  createPayout(engine, need(caller, "key"), body)
                )
              )
              // A client told 409 "still being processed" asks again a little later.
              const deadline = Date.now() + (o.inFlightPatienceMs ?? 0)
              let tries = 1
              let outcome = yield* attempt
              while (
                Either.isLeft(outcome) &&
                outcome.left.code === "idempotency_in_flight" &&
                Date.now() < deadline
              ) {
                yield* Effect.sleep(Duration.millis(500))
                tries++
                outcome = yield* attempt
              }
              emit(
                Either.isRight(outcome)
                  ? {
                      type: "retry",
                      key,
                      outcome: outcome.right.replayed ? "replayed" : "created",
                      id: outcome.right.value.transactionId,
                      tries
                    }
                  : { type: "retry", key, outcome: "refused", ...failureOf(outcome.left), tries }
              )
            }),
          { concurrency: 16, discard: true }
        )
        emit({ type: "retried" })
        return "stay" as const
      })
  }
}

const [name = "", raw = "{}"] = process.argv.slice(2)
const command = commands[name]
if (command === undefined) {
  console.error(`engine-process: unknown command ${JSON.stringify(name)}`)
  process.exit(64)
}
const options = JSON.parse(raw) as ChildOptions

let go: () => void = () => {}
const goSignal = new Promise<void>((resolve) => {
  go = resolve
})

const program = Effect.scoped(
  Effect.gen(function* () {
    // Connect (and migrate) first; the engine, and with it the worker, starts only on `go`, so
    // several children start working at the same moment however long each took to boot.
    const store = yield* Layer.build(storeLayer(options.url, options.maxConnections ?? 10))
    emit({ type: "ready", pid: process.pid })
    if (options.waitForGo) yield* Effect.promise(() => goSignal)
    const config = {
      ...(options.serviceName === undefined ? {} : { serviceName: options.serviceName }),
      ...(options.pollMs === undefined ? {} : { workerPollInterval: Duration.millis(options.pollMs) }),
      ...(options.leaseMs === undefined ? {} : { jobLease: Duration.millis(options.leaseMs) })
    }
    const context = yield* Layer.build(
      Engine.layer({ config, worker: command.worker }).pipe(
        Layer.provide(Layer.succeedContext(store)),
        Layer.provide(WebhookTransport.fetch)
      )
    )
    const engine = Context.get(context, Engine.Engine)
    const caller = options.key === undefined ? null : yield* engine.auth.authenticate(options.key)
    emit({ type: "started", pid: process.pid })
    if ((yield* command.run(engine, caller, options)) === "stay") return yield* Effect.never
  })
)

const fiber = Effect.runFork(program)
fiber.addObserver((exit) => {
  if (Exit.isFailure(exit) && !Cause.isInterruptedOnly(exit.cause)) {
    console.error(Cause.pretty(exit.cause))
    process.exit(1)
  }
  process.exit(0)
})

let stopping = false
const stop = () => {
  if (stopping) return
  stopping = true
  Effect.runFork(Fiber.interrupt(fiber))
  setTimeout(() => process.exit(2), testWait(0.25)).unref()
}
process.on("SIGTERM", stop)
process.on("SIGINT", stop)

const input = createInterface({ input: process.stdin })
input.on("line", (line) => {
  if (line.trim() === "go") go()
})
input.on("close", stop)
