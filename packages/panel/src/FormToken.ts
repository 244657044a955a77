/**
 * One-time form tokens: every form that changes something (a payout, a charge, a key, a webhook
 * change, a rotation, a redelivery, a refund, "pay now") carries a token made when the page was
 * drawn, so the same submission arriving twice (a double click, a reload that re-posts, a
 * retry after a lost answer, a replayed request) has its effect once and the repeat is shown
 * the first result.
 *
 * A token is `nonce` then `mac` (67 base64url characters): 18 random bytes and an HMAC-SHA256 of the nonce keyed by the
 * browser's CSRF secret (the `pixgate_csrf` cookie), so it is bound to that browser's session and
 * a token from another browser is refused. The nonce becomes the engine's Idempotency-Key
 * (`panel:<nonce>`, per merchant and mode) through `Engine.idempotency.run`, the same mechanism
 * the HTTP API's `Idempotency-Key` header uses: charges and payouts store their answer with
 * their money movement in one unit, so a repeat replays it and never moves money twice; the
 * other operations (keys, webhook changes, rotations, redeliveries, "pay now") have their answer
 * recorded under the key right after they succeed, without any secret (a new key's or signing
 * key's secret is never stored: a repeat says it was made and shown once). Refunds already take
 * an idempotency key of their own: the nonce is that key (`panel-<nonce>`).
 */
import { createHmac, randomBytes } from "node:crypto"
import { Engine, Errors } from "@pixgate/core"
import { Effect, Either, Schema } from "effect"
import { type Ctx, lift, type PanelError, type PanelServices, type Signed, same, store } from "./Ctx.js"
import { type Html, html } from "./Html.js"

/** The form field that carries the token. */
export const fieldName = "token"

const mac = (ctx: Ctx, nonce: string) =>
  createHmac("sha256", `pixgate-form-token\n${ctx.csrf}`).update(nonce).digest("base64url")

/** A new token for one form of this browser. */
export const issue = (ctx: Ctx): string => {
  const nonce = randomBytes(18).toString("base64url")
  return `${nonce}${mac(ctx, nonce)}`
}

/** The hidden field of a new token (one per form drawn). */
export const field = (ctx: Ctx): Html => html`<input type="hidden" name="${fieldName}" value="${issue(ctx)}">`

/** The refusal of a missing, malformed or foreign token: open the page again. */
export const invalid = (ctx: Ctx): Errors.ValidationError =>
  Errors.validation("invalid_form_token", fieldName, ctx.t.formTokenInvalid)

/** The nonce of the form's token when it is one this browser was given. */
export const nonceOf = (ctx: Ctx, f: URLSearchParams): Either.Either<string, Errors.ValidationError> => {
  const token = f.get(fieldName) ?? ""
  const match = /^([A-Za-z0-9_-]{24})([A-Za-z0-9_-]{43})$/.exec(token)
  const nonce = match?.[1]
  const sent = match?.[2]
  return nonce !== undefined && sent !== undefined && same(sent, mac(ctx, nonce))
    ? Either.right(nonce)
    : Either.left(invalid(ctx))
}

/** The form's fields that identify the submission (everything but the CSRF field and the token). */
const submission = (f: URLSearchParams): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [k, v] of f) if (k !== "_csrf" && k !== fieldName) out[k] = v
  return out
}

/** What a form's effect left, as recorded under its token. */
export type Outcome<R> =
  /** The first submission: the effect ran (its full result is `value` beside the outcome). */
  | { readonly _tag: "Done"; readonly record: R }
  /** A repeat: the first submission's record. */
  | { readonly _tag: "Repeat"; readonly record: R }

/**
 * Runs `effect` once for the form's token. `record` is what a repeat is shown (no secrets);
 * `schema` reads it back. For charges and payouts the engine stores its own answer with the
 * change (the record read back is that answer, so `schema` must fit it); for the others the
 * record is written here after the effect succeeded.
 */
export const once = <A, R, I>(
  s: Signed,
  f: URLSearchParams,
  operation: string,
  effect: Effect.Effect<A, Errors.PixgateError, PanelServices>,
  record: (a: A) => R,
  schema: Schema.Schema<R, I>
): Effect.Effect<
  { readonly outcome: Outcome<R>; readonly value: A | undefined },
  PanelError,
  PanelServices
> =>
  Effect.gen(function* () {
    const nonce = nonceOf(s, f)
    if (Either.isLeft(nonce)) return yield* Effect.fail(nonce.left)
    const key = `panel:${nonce.right}`
    const run = yield* lift(
      Effect.flatMap(Engine.Engine, (e) =>
        e.idempotency.run(s.caller, key, `panel.${operation}`, submission(f), effect)
      )
    )
    if (!run.replayed) {
      const kept = record(run.value)
      const encoded = yield* Schema.encode(schema)(kept).pipe(Effect.orDie)
      // A key whose operation stored its answer with its change keeps that one.
      yield* store((st) =>
        st.finishIdempotent(
          { merchantId: s.merchant.id, mode: s.mode, key },
          "answered",
          JSON.stringify(encoded)
        )
      )
      return { outcome: { _tag: "Done", record: kept } as const, value: run.value }
    }
    const stored = yield* Schema.decodeUnknown(schema)(run.value).pipe(Effect.mapError(() => invalid(s)))
    return { outcome: { _tag: "Repeat", record: stored } as const, value: undefined }
  })

/** The record of an operation that made a transaction (a charge, a payout): its id. */
export const CreatedTransaction = Schema.Struct({ transactionId: Schema.String })

/** The record of an operation that keeps nothing to show but that it was done. */
export const Done = Schema.Struct({ done: Schema.Literal(true) })
