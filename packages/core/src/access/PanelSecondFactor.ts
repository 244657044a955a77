/**
 * The second factor as the panel's users meet it: the second step at sign-in, enrolment and its
 * confirmation, turning it off, and the check of a code before anything else that asks for one.
 * Codes are counted by the sign-in throttle (under the account `2fa:<e-mail>`), wrong ones are
 * audited, and a session that passed the factor is marked so in the store. The arithmetic and
 * the factor's records are `TwoFactor`'s.
 */
import { Effect, Either, Option } from "effect"
import type { MerchantId, PanelTotp } from "../domain/Domain.js"
import { PanelStore, type StoreError } from "../ports/Store.js"
import * as Audit from "./Audit.js"
import { actorOf, type Client } from "./Audit.js"
import * as SignInThrottle from "./SignInThrottle.js"
import * as TwoFactor from "./TwoFactor.js"

/** Who answers a code: a panel user of a merchant, in a session (by its hash). */
export interface CodeUser {
  readonly id: string
  readonly email: string
  readonly merchantId: MerchantId
}

/** What checking a code came to. */
export type Outcome = "ok" | "wrong" | "throttled"

const now = Effect.clockWith((c) => c.currentTimeMillis)

/** The throttle's account of a user's codes (counted apart from passwords). */
const codeAccount = (email: string) => `2fa:${email}`

/** A `TwoFactor` refusal as a value, store failures kept as failures. */
const refusal = <A, R>(
  effect: Effect.Effect<A, TwoFactor.TwoFactorRefused | StoreError, R>
): Effect.Effect<Either.Either<A, TwoFactor.TwoFactorRefused>, StoreError, R> =>
  effect.pipe(
    Effect.map((a) => Either.right(a)),
    Effect.catchTag("TwoFactorRefused", (e) => Effect.succeed(Either.left(e)))
  )

/**
 * Checks a code (or a recovery code) of the user's factor: throttled like a password, a wrong
 * one audited (`2fa.failure`).
 */
export const check = (
  user: CodeUser,
  code: string,
  client: Client,
  limits: SignInThrottle.Limits
): Effect.Effect<Outcome, StoreError, PanelStore> =>
  Effect.gen(function* () {
    const account = codeAccount(user.email)
    const address = SignInThrottle.addressKey(client.address)
    const decision = yield* SignInThrottle.check(account, address, limits)
    if (decision._tag === "Refused") return "throttled"
    if (decision.delayMs > 0) yield* Effect.sleep(decision.delayMs)
    const result = yield* refusal(TwoFactor.verify(user.id, code))
    if (Either.isRight(result)) {
      yield* SignInThrottle.succeeded(account, address)
      return "ok"
    }
    yield* SignInThrottle.failed(account, address, limits)
    yield* Audit.record(user.merchantId, actorOf(user, client), "2fa.failure")
    return "wrong"
  })

/** Marks the session as past the second factor now. */
const markSession = (sessionHash: string) =>
  Effect.flatMap(PanelStore, (s) =>
    Effect.flatMap(now, (at) => s.markPanelSessionSecondFactor(sessionHash, at))
  )

/** The second step at sign-in: a right code marks the session and completes the sign-in (audited). */
export const pass = (
  user: CodeUser,
  sessionHash: string,
  code: string,
  client: Client,
  limits: SignInThrottle.Limits
): Effect.Effect<Outcome, StoreError, PanelStore> =>
  Effect.gen(function* () {
    const outcome = yield* check(user, code, client, limits)
    if (outcome !== "ok") return outcome
    yield* markSession(sessionHash)
    yield* Audit.record(user.merchantId, actorOf(user, client), "signin.success", null, "second factor")
    return outcome
  })

/** The user's factor, pending or confirmed (none when never started). */
export const state = (userId: string): Effect.Effect<Option.Option<PanelTotp>, StoreError, PanelStore> =>
  Effect.flatMap(PanelStore, (s) => s.getPanelTotp(userId))

/** Starts (or restarts) an enrolment: the secret to show; None when a factor is already on. */
export const enrol = (
  user: CodeUser,
  issuer: string
): Effect.Effect<Option.Option<TwoFactor.Enrolment>, StoreError, PanelStore> =>
  Effect.map(refusal(TwoFactor.begin(user.id, issuer, user.email)), Either.getRight)

/** What confirming an enrolment came to. */
export type Confirmation =
  /** The factor is on: the recovery codes, shown only now. */
  | { readonly _tag: "On"; readonly recoveryCodes: ReadonlyArray<string> }
  /** A wrong code: the pending enrolment to show again. */
  | { readonly _tag: "Wrong"; readonly enrolment: TwoFactor.Enrolment }
  /** No enrolment is pending (none started, or already confirmed). */
  | { readonly _tag: "NotPending" }

/**
 * Confirms the pending enrolment with a code from the app: the factor is on, this session
 * counts as past it, and the enrolment is audited.
 */
export const confirm = (
  user: CodeUser,
  sessionHash: string,
  code: string,
  issuer: string,
  client: Client
): Effect.Effect<Confirmation, StoreError, PanelStore> =>
  Effect.gen(function* () {
    const result = yield* refusal(TwoFactor.confirm(user.id, code))
    if (Either.isLeft(result)) {
      const pending = yield* state(user.id)
      if (Option.isNone(pending) || pending.value.confirmedAt !== null) return { _tag: "NotPending" } as const
      const secret = pending.value.secret
      return {
        _tag: "Wrong",
        enrolment: { secret, uri: TwoFactor.otpauthUri(issuer, user.email, secret) }
      } as const
    }
    yield* markSession(sessionHash)
    yield* Audit.record(user.merchantId, actorOf(user, client), "2fa.enrol", user.id)
    return { _tag: "On", recoveryCodes: result.right } as const
  })

/** Turns the user's factor off after a fresh code (audited); the code's outcome otherwise. */
export const turnOff = (
  user: CodeUser,
  code: string,
  client: Client,
  limits: SignInThrottle.Limits
): Effect.Effect<Outcome, StoreError, PanelStore> =>
  Effect.gen(function* () {
    const outcome = yield* check(user, code, client, limits)
    if (outcome !== "ok") return outcome
    yield* TwoFactor.disable(user.id)
    yield* Audit.record(user.merchantId, actorOf(user, client), "2fa.disable", user.id)
    return outcome
  })
