/**
 * Idempotency keys (docs/decisions.md): a retried POST with the same key and body returns the first
 * result instead of acting twice; the same key with another body is refused; a repeat while the
 * first is still running gets 409. Kept per merchant and mode for `idempotencyTtl`.
 */
import { Cause, Context, Duration, Effect, Either, Exit, Layer, Option, Schema } from "effect"
import {
  Conflict,
  fromBody,
  type GatewayUnavailable,
  IdempotencyMismatch,
  Internal,
  type InvalidJson,
  invalidJson,
  isServerSide,
  PixgateError,
  replayed,
  StorageUnavailable,
  unavailable,
  type ValidationError,
  validation
} from "../contract/Errors.js"
import { findById, TransactionId } from "../domain/Domain.js"
import * as Sha256 from "../domain/Sha256.js"
import {
  type IdempotencyScope,
  IdempotencyStore,
  type IdempotentResult,
  ReadStore,
  type StoreError
} from "../ports/Store.js"
import { EngineConfig } from "../runtime/Config.js"
import type { Caller } from "./Auth.js"

/** A result and whether it was replayed from an earlier request. */
export interface Replayable<A> {
  readonly value: A
  readonly replayed: boolean
}

/**
 * The started key of the request being run, provided by `run`: an operation that changes money
 * stores its answer with the change (`NewTransactions.idempotency`), in the same unit.
 */
export class StartedKey extends Context.Tag("@pixgate/core/Idempotency/StartedKey")<
  StartedKey,
  IdempotencyScope
>() {}

/**
 * What a request run under a key keeps for its retry when its outcome may be unknown (e.g. the
 * charge it asks the bank for): `held` is what the attempt it took over kept; `keep` stores this
 * attempt's on the key before the risky call (`holdIdempotent`, the lock unchanged), so even a
 * process that dies during the call leaves it for the retry that takes the key over once the
 * lock lapses; `resume` says the attempt ended with an unknown outcome: the key is unlocked at
 * once instead of released, so the client's retry resumes the same operation.
 */
export class Resumable extends Context.Tag("@pixgate/core/Idempotency/Resumable")<
  Resumable,
  {
    readonly held: string | undefined
    readonly keep: (value: string) => Effect.Effect<void, StoreError>
    readonly resume: Effect.Effect<void>
  }
>() {}

/** The result to store with a change when the request runs under a key (answered, with its JSON). */
export const resultFor = (value: unknown): Effect.Effect<IdempotentResult | undefined> =>
  Effect.map(Effect.serviceOption(StartedKey), (scope) =>
    scope._tag === "Some"
      ? { scope: scope.value, outcome: "answered", body: JSON.stringify(value) }
      : undefined
  )

/** While the first request with the key is still running. */
export const inFlight = (): Conflict => new Conflict()

/**
 * A 503 whose key stays locked: `Retry-After` covers the lock, so the retry comes when the key
 * can be taken over (or its stored answer replayed), not into a 409.
 */
const lockedFor = <E extends PixgateError>(error: E, lockMs: number): E | StorageUnavailable =>
  error._tag === "StorageUnavailable"
    ? new StorageUnavailable({
        outcome: error.outcome,
        cause: error.cause,
        retryAfter: Math.max(1, Math.ceil(lockMs / 1000))
      })
    : error

const encodeRefusal = Schema.encodeSync(PixgateError)
const decodeRefusal = Schema.decodeUnknownEither(PixgateError)

/**
 * A refusal replayed from a key's stored answer: what the operation refused the first time, read
 * back by its tag. A record written by an earlier version (or before errors were tagged) may hold
 * any refusal, so this is every error but the server-side ones, which are never stored, plus
 * `Internal` for a record no error class reads.
 */
export type StoredRefusal =
  | Exclude<PixgateError, GatewayUnavailable | StorageUnavailable | Internal>
  | Internal

/**
 * What `run` adds to the errors of the effect it runs: the key's first request still running
 * (`Conflict`), the key used with another body (`IdempotencyMismatch`), an invalid key
 * (`ValidationError`), a body it cannot fingerprint (`InvalidJson`), the key store unavailable
 * (`StorageUnavailable`), and a replayed refusal (`StoredRefusal`).
 */
export type IdempotencyError =
  | Conflict
  | IdempotencyMismatch
  | ValidationError
  | InvalidJson
  | StorageUnavailable
  | StoredRefusal

/** True for an error that is a refusal of the request (not a server-side failure). */
const isRefusal = (
  error: PixgateError
): error is Exclude<PixgateError, GatewayUnavailable | StorageUnavailable | Internal> => !isServerSide(error)

/**
 * A refusal stored before errors were tagged, `{ status, code, message, details }`: the error its
 * code belongs to (`Errors.fromBody`; each code belongs to one class). A code no class declares
 * (no version stored one) replays as an internal error rather than as a guess.
 */
const legacyRefusal = (stored: {
  readonly code?: string
  readonly message?: string
  readonly details?: ReadonlyArray<{ readonly path: string; readonly message: string }>
}): StoredRefusal =>
  Option.getOrElse(
    fromBody({
      error: stored.message ?? "",
      code: stored.code ?? "invalid_json",
      ...(stored.details === undefined ? {} : { details: stored.details })
    }).pipe(Option.filter(isRefusal)),
    (): StoredRefusal => new Internal({ cause: stored })
  )

/** The refusal a stored record holds (marked replayed). */
const storedRefusal = (body: string): StoredRefusal => {
  const json: unknown = JSON.parse(body)
  const decoded = Either.getOrUndefined(decodeRefusal(json))
  // Only refusals are stored (`run`): anything else is read as a legacy record, or `Internal`.
  return replayed(
    decoded !== undefined && isRefusal(decoded)
      ? decoded
      : legacyRefusal(typeof json === "object" && json !== null ? json : {})
  )
}

/** Longest accepted key. */
export const maxKeyLength = 255

/** Deepest body nesting a fingerprint follows (the HTTP layer refuses deeper bodies first). */
const maxDepth = 64

/** Canonical JSON (sorted keys) so the same body always has the same fingerprint. */
const canonical = (value: unknown, depth = 0): string => {
  if (depth > maxDepth) throw new RangeError("body nested too deeply")
  if (Array.isArray(value)) return `[${value.map((v) => canonical(v, depth + 1)).join(",")}]`
  if (typeof value === "object" && value !== null) {
    const entries = Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k], depth + 1)}`)
    return `{${entries.join(",")}}`
  }
  return JSON.stringify(value) ?? "null"
}

/** Idempotency operations. */
export interface IdempotencyShape {
  /**
   * Runs `effect` at most once per key; without a key it just runs it. It runs in the caller's
   * fiber and context, so it may need what the caller's context has (the HTTP route's engine).
   */
  readonly run: <A, E extends PixgateError, R = never>(
    caller: Caller,
    key: string | undefined,
    operation: string,
    body: unknown,
    effect: Effect.Effect<A, E, R>
  ) => Effect.Effect<Replayable<A>, E | IdempotencyError, R>
}

/**
 * A stored answer is written with its change, before a live payout's bank may have given its
 * end-to-end id (`endToEndId: null`): its replay carries the id known now, the bank's, so a
 * retry never says less than the first answer did. Anything else is replayed as stored.
 */
const withKnownIdsOf = (
  reads: Context.Tag.Service<typeof ReadStore>,
  value: unknown
): Effect.Effect<unknown> => {
  if (typeof value !== "object" || value === null || !("endToEndId" in value)) return Effect.succeed(value)
  if (value.endToEndId !== null || !("transactionId" in value)) return Effect.succeed(value)
  return findById(TransactionId, value.transactionId, reads.getTransaction).pipe(
    Effect.map((tx) =>
      Option.isSome(tx) && tx.value.endToEndId !== null
        ? { ...value, endToEndId: tx.value.endToEndId }
        : value
    ),
    Effect.orElseSucceed(() => value)
  )
}

/**
 * What a failed attempt leaves on its key (`kept`, `resume`: what the attempt kept and asked
 * for), then its failure again.
 */
const failedAttempt = <E extends PixgateError>(
  store: Context.Tag.Service<typeof IdempotencyStore>,
  scope: IdempotencyScope,
  cause: Cause.Cause<E>,
  kept: string | undefined,
  resume: boolean,
  lock: number
) =>
  Effect.gen(function* () {
    const failure = cause._tag === "Fail" ? cause.error : undefined
    if (kept !== undefined && resume) {
      // An unknown outcome the retry resumes: the key keeps it, unlocked for that retry now.
      const at = yield* Effect.clockWith((c) => c.currentTimeMillis)
      yield* store.holdIdempotent(scope, kept, at)
    } else if (failure !== undefined && !isServerSide(failure)) {
      // The refusal's body is the encoded tagged error; the transport renders its status on replay.
      yield* store.finishIdempotent(scope, "refused", JSON.stringify(encodeRefusal(failure)))
    } else if (
      failure !== undefined &&
      !(failure._tag === "StorageUnavailable" && failure.outcome === "unknown")
    ) {
      // A definite failure (the gateway refused, the transaction rolled back): nothing was
      // kept, so the key is free for a fresh attempt at once.
      yield* store.releaseIdempotent(scope)
    } else {
      // The outcome is unknown (the connection died at COMMIT, or a defect): the change and
      // its stored answer may have been kept. The key stays started until its lock lapses;
      // the retry then replays the stored answer, or runs the request if nothing was kept.
      return yield* Effect.failCause(Cause.map(cause, (e) => lockedFor(e, lock)))
    }
    return yield* Effect.failCause(cause)
  })

/** Builds the service over the idempotency store. */
export const make = Effect.gen(function* () {
  const store = yield* IdempotencyStore
  const reads = yield* ReadStore

  const withKnownIds = (value: unknown): Effect.Effect<unknown> => withKnownIdsOf(reads, value)
  const config = yield* EngineConfig
  const ttl = Duration.toMillis(config.idempotencyTtl)
  const lock = Duration.toMillis(config.idempotencyLock)

  const run = <A, E extends PixgateError, R = never>(
    caller: Caller,
    key: string | undefined,
    operation: string,
    body: unknown,
    effect: Effect.Effect<A, E, R>
  ): Effect.Effect<Replayable<A>, E | IdempotencyError, R> => {
    if (key === undefined) return Effect.map(effect, (value) => ({ value, replayed: false }))
    if (key.length === 0 || key.length > maxKeyLength) {
      return Effect.fail(
        validation(
          "invalid_idempotency_key",
          "Idempotency-Key",
          `Idempotency-Key must be 1 to ${maxKeyLength} characters`
        )
      )
    }
    const scope = { merchantId: caller.merchant.id, mode: caller.mode, key }
    return Effect.gen(function* () {
      const text = yield* Effect.try({ try: () => canonical(body), catch: () => invalidJson() })
      const fingerprint = Sha256.hex(`${operation}\n${text}`)
      const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
      const begun = yield* store.beginIdempotent(scope, fingerprint, now, now + ttl, now + lock)
      switch (begun._tag) {
        case "InFlight":
          return yield* Effect.fail(inFlight())
        case "Mismatch":
          return yield* Effect.fail(new IdempotencyMismatch())
        case "Replay": {
          if (begun.outcome === "refused") return yield* Effect.fail(storedRefusal(begun.body))
          return { value: (yield* withKnownIds(JSON.parse(begun.body))) as A, replayed: true }
        }
        case "Started":
          break
      }
      // The operation stores its answer with its change (see StartedKey).
      // What the key holds for a retry: the taken-over attempt's, until this one keeps its own.
      let kept = begun.held
      let resume = false
      const resumable = {
        held: begun.held,
        keep: (value: string) =>
          Effect.flatMap(store.holdIdempotent(scope, value, now + lock), () =>
            Effect.sync(() => {
              kept = value
            })
          ),
        resume: Effect.sync(() => {
          resume = true
        })
      }
      const exit = yield* Effect.exit(
        effect.pipe(Effect.provideService(StartedKey, scope), Effect.provideService(Resumable, resumable))
      )
      if (Exit.isSuccess(exit)) return { value: exit.value, replayed: false }
      return yield* failedAttempt(store, scope, exit.cause, kept, resume, lock)
    }).pipe(
      Effect.catchTag("StoreError", (e) => Effect.fail(lockedFor(unavailable(e), lock))),
      // A client that hangs up must not cut a money movement (or its key record) in half.
      Effect.uninterruptible
    )
  }
  return { run } satisfies IdempotencyShape
})

/** The idempotency keys service, for the services and transports that use it. */
export class Idempotency extends Context.Tag("@pixgate/core/Idempotency")<Idempotency, IdempotencyShape>() {}

/** The service over its dependencies, as its layer declares them (without spans: `Engine.layer` adds them). */
export const layer = Layer.effect(Idempotency, make)
