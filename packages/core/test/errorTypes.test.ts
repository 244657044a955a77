/**
 * Each engine operation's error type lists only what it can fail with: these checks fail to
 * compile (`pnpm exec tsc -b`) when an operation's error widens again, e.g. back to the whole
 * `PixgateError` union. At run time they check nothing.
 */
import type { Effect } from "effect"
import { describe, expectTypeOf, it } from "vitest"
import type * as PanelAccess from "../src/access/PanelAccess.js"
import type * as Errors from "../src/contract/Errors.js"
import type { AdminShape } from "../src/services/Admin.js"
import type { IdempotencyError, IdempotencyShape } from "../src/services/Idempotency.js"

/** The error type of what an operation returns. */
type ErrorOf<F extends (...args: never) => Effect.Effect<unknown, unknown, unknown>> = Effect.Effect.Error<
  ReturnType<F>
>

/** Only read in types (instantiation expressions): never evaluated. */
declare const idempotency: IdempotencyShape

/** The error type of `Idempotency.run` over an effect that fails with `E`. */
type RunError<E extends Errors.PixgateError> = ErrorOf<typeof idempotency.run<number, E>>

describe("operations' error types", () => {
  it("Idempotency.run keeps the caller's union and adds only its own errors", () => {
    expectTypeOf<RunError<Errors.NotFound>>().toEqualTypeOf<Errors.NotFound | IdempotencyError>()
    expectTypeOf<RunError<Errors.GatewayUnavailable | Errors.NotFound>>().toEqualTypeOf<
      Errors.GatewayUnavailable | Errors.NotFound | IdempotencyError
    >()
    // The bank's failure comes only from the operation run, never from the key itself.
    expectTypeOf<Extract<RunError<Errors.NotFound>, Errors.GatewayUnavailable>>().toBeNever()
    expectTypeOf<Errors.PixgateError>().not.toEqualTypeOf<RunError<Errors.NotFound>>()
    // A replayed refusal is never a server-side failure but `Internal` (a record no class reads).
    expectTypeOf<Extract<IdempotencyError, Errors.GatewayUnavailable>>().toBeNever()
  })

  it("the admin operations fail with their own errors only", () => {
    expectTypeOf<ErrorOf<AdminShape["checkLedger"]>>().toEqualTypeOf<Errors.StorageUnavailable>()
    expectTypeOf<ErrorOf<AdminShape["listRefunds"]>>().toEqualTypeOf<
      Errors.NotFound | Errors.StorageUnavailable
    >()
    expectTypeOf<ErrorOf<AdminShape["auditLog"]>>().toEqualTypeOf<
      Errors.NotFound | Errors.StorageUnavailable
    >()
    expectTypeOf<ErrorOf<AdminShape["setWebhook"]>>().toEqualTypeOf<
      Errors.ValidationError | Errors.NotFound | Errors.StorageUnavailable
    >()
    expectTypeOf<ErrorOf<AdminShape["inviteUser"]>>().toEqualTypeOf<
      Errors.ValidationError | Errors.NotFound | Errors.Refused | Errors.StorageUnavailable
    >()
    expectTypeOf<ErrorOf<AdminShape["resetLink"]>>().toEqualTypeOf<
      Errors.ValidationError | Errors.NotFound | Errors.StorageUnavailable
    >()
    expectTypeOf<ErrorOf<AdminShape["createRefund"]>>().toEqualTypeOf<
      | Errors.ValidationError
      | Errors.NotFound
      | Errors.InsufficientBalance
      | Errors.IdempotencyMismatch
      | Errors.Refused
      | Errors.GatewayUnavailable
      | Errors.StorageUnavailable
    >()
  })

  it("the panel's access operations fail with their own errors only", () => {
    expectTypeOf<ErrorOf<typeof PanelAccess.invite>>().toEqualTypeOf<
      Errors.ValidationError | Errors.NotFound | Errors.Refused | Errors.StorageUnavailable
    >()
    expectTypeOf<ErrorOf<typeof PanelAccess.resetLink>>().toEqualTypeOf<
      Errors.ValidationError | Errors.NotFound | Errors.StorageUnavailable
    >()
  })
})
