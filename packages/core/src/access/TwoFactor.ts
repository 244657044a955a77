/**
 * TOTP second factor of panel users (RFC 6238: SHA-1, 6 digits, 30-second steps, as every
 * authenticator app reads an `otpauth://` URI), with `otplib` doing the arithmetic. A code is
 * accepted within one step of the server's clock either way, and once only: the store keeps the
 * last accepted step and refuses a code of that step or an earlier one. Ten recovery codes are
 * shown once at enrolment and stored as SHA-256, each usable once.
 *
 * The secret is stored as is in the panel's tables (a database reader could compute codes, as
 * they could read password hashes): it is never logged, never shown again after enrolment.
 */
import { Data, Effect, Option } from "effect"
import { generateSecret, generateURI, verifySync } from "otplib"
import * as Ids from "../domain/Ids.js"
import * as Sha256 from "../domain/Sha256.js"
import { PanelStore, type StoreError } from "../ports/Store.js"

/** Seconds per step (RFC 6238's default, what authenticator apps use). */
export const period = 30

/** How many recovery codes an enrolment gives. */
export const recoveryCodeCount = 10

/** Why a second-factor operation was refused. */
export class TwoFactorRefused extends Data.TaggedError("TwoFactorRefused")<{
  readonly reason: "invalid_code" | "not_enrolled" | "already_enrolled" | "no_pending_enrolment"
}> {}

/** A pending enrolment: the secret to show (as a QR of `uri` and as text) once. */
export interface Enrolment {
  readonly secret: string
  readonly uri: string
}

/** The step of a time in ms. */
export const stepOf = (nowMs: number): number => Math.floor(nowMs / 1000 / period)

/** The `otpauth://totp/...` URI an authenticator app scans. */
export const otpauthUri = (issuer: string, account: string, secret: string): string =>
  generateURI({ issuer, label: account, secret })

/** A recovery code: 10 characters of Crockford base32 as `xxxxx-xxxxx` (50 bits). */
const newRecoveryCode = (): string => {
  const alphabet = "0123456789abcdefghjkmnpqrstvwxyz"
  const bytes = Ids.secretBytes(10)
  let out = ""
  for (const b of bytes) out += alphabet[b & 31]
  bytes.fill(0)
  return `${out.slice(0, 5)}-${out.slice(5)}`
}

/** The stored form of a recovery code (case and dashes ignored). */
export const hashRecoveryCode = (code: string): string =>
  Sha256.hex(`pixgate-recovery:${code.trim().toLowerCase().replace(/[\s-]/g, "")}`)

const now = Effect.clockWith((c) => c.currentTimeMillis)

/** The step a code is valid for at `nowMs` (within one step either way), if any. */
export const matchStep = (
  secret: string,
  code: string,
  nowMs: number,
  afterStep = 0
): Option.Option<number> => {
  const token = code.replace(/\s/g, "")
  if (!/^\d{6}$/.test(token)) return Option.none()
  const result = verifySync({
    secret,
    token,
    epoch: Math.floor(nowMs / 1000),
    epochTolerance: period,
    ...(afterStep > 0 ? { afterTimeStep: afterStep } : {})
  })
  return result.valid && "timeStep" in result ? Option.some(result.timeStep) : Option.none()
}

/** Starts (or restarts) an enrolment: a new secret, refused when a factor is already confirmed. */
export const begin = (
  userId: string,
  issuer: string,
  account: string
): Effect.Effect<Enrolment, TwoFactorRefused | StoreError, PanelStore> =>
  Effect.gen(function* () {
    const store = yield* PanelStore
    const secret = generateSecret()
    const ok = yield* store.beginPanelTotp(userId, secret, yield* now)
    if (!ok) return yield* new TwoFactorRefused({ reason: "already_enrolled" })
    return { secret, uri: otpauthUri(issuer, account, secret) }
  })

/**
 * Confirms the pending enrolment with a code from the app: the factor is on, and the recovery
 * codes (returned only now) replace any earlier ones.
 */
export const confirm = (
  userId: string,
  code: string
): Effect.Effect<ReadonlyArray<string>, TwoFactorRefused | StoreError, PanelStore> =>
  Effect.gen(function* () {
    const store = yield* PanelStore
    const totp = yield* store.getPanelTotp(userId)
    if (Option.isNone(totp) || totp.value.confirmedAt !== null)
      return yield* new TwoFactorRefused({ reason: "no_pending_enrolment" })
    const at = yield* now
    const step = matchStep(totp.value.secret, code, at)
    if (Option.isNone(step)) return yield* new TwoFactorRefused({ reason: "invalid_code" })
    const codes = Array.from({ length: recoveryCodeCount }, newRecoveryCode)
    const ok = yield* store.confirmPanelTotp(userId, step.value, codes.map(hashRecoveryCode), at)
    if (!ok) return yield* new TwoFactorRefused({ reason: "no_pending_enrolment" })
    return codes
  })

/** Whether the user has a confirmed second factor. */
export const enrolled = (userId: string): Effect.Effect<boolean, StoreError, PanelStore> =>
  Effect.map(
    Effect.flatMap(PanelStore, (s) => s.getPanelTotp(userId)),
    (t) => Option.isSome(t) && t.value.confirmedAt !== null
  )

/**
 * Checks a second-factor answer: a 6-digit code (accepted once) or a recovery code (used up).
 * Which one was used, or `invalid_code`; `not_enrolled` when the user has no confirmed factor.
 */
export const verify = (
  userId: string,
  answer: string
): Effect.Effect<"totp" | "recovery", TwoFactorRefused | StoreError, PanelStore> =>
  Effect.gen(function* () {
    const store = yield* PanelStore
    const totp = yield* store.getPanelTotp(userId)
    if (Option.isNone(totp) || totp.value.confirmedAt === null)
      return yield* new TwoFactorRefused({ reason: "not_enrolled" })
    const at = yield* now
    const trimmed = answer.trim()
    if (/^\d{6}$/.test(trimmed.replace(/\s/g, ""))) {
      const step = matchStep(totp.value.secret, trimmed, at, totp.value.lastStep)
      if (Option.isSome(step) && (yield* store.usePanelTotpStep(userId, step.value))) return "totp" as const
      return yield* new TwoFactorRefused({ reason: "invalid_code" })
    }
    if (
      trimmed.length > 0 &&
      trimmed.length <= 32 &&
      (yield* store.usePanelRecoveryCode(userId, hashRecoveryCode(trimmed), at))
    )
      return "recovery" as const
    return yield* new TwoFactorRefused({ reason: "invalid_code" })
  })

/** Turns the factor off (the user's own choice after a fresh code, or the operator's reset). */
export const disable = (userId: string): Effect.Effect<boolean, StoreError, PanelStore> =>
  Effect.flatMap(PanelStore, (s) => s.removePanelTotp(userId))
