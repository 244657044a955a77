/**
 * The webhooks page's forms, each once per form token: set the endpoint (URL, secret, whether
 * deliveries carry the secret), rotate the secret or the signing key after a confirmation, send
 * a test event, and show the secret again after the password or a second-factor code. A secret
 * the panel makes on an empty first save is shown on that answer; the signing key on the answer
 * of the first save and of each rotation of it.
 */
import { Errors, PanelSessions } from "@pixgate/core"
import { Effect, Option, Schema } from "effect"
import {
  access,
  clientOf,
  engine,
  type Handler,
  redirect,
  respond,
  type Signed,
  statusOf,
  store
} from "../Ctx.js"
import * as FormToken from "../FormToken.js"
import { html } from "../Html.js"
import { csrfField, page as frame } from "../Layout.js"
import { newSecret, page } from "./Webhooks.js"

const WebhookChange = Schema.Struct({ signingKeyShown: Schema.Boolean })

/** A repeated webhook form: the first one's result, without a signing key it showed once. */
const repeated = (s: Signed, change: { readonly signingKeyShown: boolean }) =>
  redirect(s, "/webhooks", change.signingKeyShown ? "signingKeyShownOnce" : "formRepeated")

/** The mode's endpoint as stored, if any. */
const current = (s: Signed) => store((st) => st.getWebhookEndpoint(s.merchant.id, s.mode))

export const setWebhook = (s: Signed, f: URLSearchParams): Handler => {
  const url = (f.get("url") ?? "").trim()
  const given = f.get("secret") ?? ""
  // A checkbox: present when ticked; the form always draws it.
  const secretHeader = f.get("secretHeader") === "on"
  const set = Effect.gen(function* () {
    const existing = yield* current(s)
    const made = given === "" && Option.isNone(existing) ? newSecret() : undefined
    const secret = given !== "" ? given : Option.isSome(existing) ? existing.value.secret : (made ?? "")
    const done = yield* engine((e) =>
      e.admin.setWebhook({ merchantId: s.merchant.id, mode: s.mode, url, secret, secretHeader })
    )
    return { ...done, made }
  })
  return Effect.gen(function* () {
    const { outcome, value } = yield* FormToken.once(
      s,
      f,
      "webhook.set",
      set,
      (done) => ({ signingKeyShown: done.signingKey !== undefined }),
      WebhookChange
    )
    if (outcome._tag === "Repeat") return repeated(s, outcome.record)
    // The first set answers the endpoint's signing key (and a secret the panel made): shown on this answer only.
    const signingKey = value?.signingKey
    const made = value?.made
    if (signingKey !== undefined || made !== undefined)
      return yield* page(s, {
        shown: {
          ...(signingKey === undefined ? {} : { signingKey }),
          ...(made === undefined ? {} : { secret: { value: made, why: "new" as const } })
        }
      })
    return redirect(s, "/webhooks", "saved")
  }).pipe(
    Effect.catchIf(
      (error): error is Errors.PixgateError => Errors.isPixgateError(error) && statusOf(error) < 500,
      (error) => page(s, { error, url })
    )
  )
}

/**
 * The confirmation step of a rotation: what happens, in the merchant's words, and a form that
 * posts the same action again with `confirm=yes` (and the fields chosen, e.g. the overlap).
 */
const confirmRotation = (
  s: Signed,
  action: "rotate" | "signing-key",
  keep: ReadonlyArray<readonly [string, string]>
) => {
  const [title, text, yes] =
    action === "rotate"
      ? [s.t.rotateSecretTitle, s.t.rotateSecretConfirm, s.t.rotateSecretYes]
      : [s.t.rotateKeyTitle, s.t.rotateKeyConfirm, s.t.rotateKeyYes]
  const body = html`<div data-testid="confirm-rotation"><p>${text}</p>
<form method="post" action="${s.cfg.base}/webhooks/${action}">${csrfField(s)}${FormToken.field(s)}<input type="hidden" name="confirm" value="yes">${keep.map(
    ([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`
  )}
<button type="submit" class="danger" data-testid="confirm-rotate">${yes}</button> <a class="button secondary" href="${s.cfg.base}/webhooks">${s.t.cancel}</a></form></div>`
  return respond(s, frame(s.view, title, body))
}

/** A new secret for the endpoint, its other settings kept (seen again through `reveal`). */
export const rotateSecret = (s: Signed, f: URLSearchParams): Handler =>
  Effect.gen(function* () {
    const existing = yield* current(s)
    if (Option.isNone(existing)) return yield* Effect.fail(Errors.notFound("Webhook endpoint"))
    if (f.get("confirm") !== "yes") return confirmRotation(s, "rotate", [])
    const { url, secretHeader } = existing.value
    const secret = newSecret()
    const { outcome } = yield* FormToken.once(
      s,
      f,
      "webhook.rotate-secret",
      engine((e) =>
        e.admin.setWebhook({ merchantId: s.merchant.id, mode: s.mode, url, secret, secretHeader })
      ),
      () => ({ done: true as const }),
      FormToken.Done
    )
    return redirect(s, "/webhooks", outcome._tag === "Done" ? "saved" : "formRepeated")
  })

export const rotateSigningKey = (s: Signed, f: URLSearchParams): Handler => {
  const raw = (f.get("overlapSeconds") ?? "").trim()
  if (f.get("confirm") !== "yes")
    return Effect.succeed(confirmRotation(s, "signing-key", [["overlapSeconds", raw]]))
  // The engine checks the range; text that is no number goes to it as NaN and is refused there.
  const overlapSeconds = raw === "" ? undefined : /^\d+$/.test(raw) ? Number(raw) : Number.NaN
  const rotate = engine((e) =>
    e.admin.rotateSigningKey({
      merchantId: s.merchant.id,
      mode: s.mode,
      ...(overlapSeconds === undefined ? {} : { overlapSeconds })
    })
  )
  return FormToken.once(
    s,
    f,
    "webhook.signing-key",
    rotate,
    () => ({ signingKeyShown: true }),
    WebhookChange
  ).pipe(
    Effect.flatMap(({ outcome, value }) =>
      outcome._tag === "Repeat" || value === undefined
        ? Effect.succeed(repeated(s, { signingKeyShown: true }))
        : page(s, {
            shown: { signingKey: value.signingKey, previousKeyExpiresAt: value.previousKeyExpiresAt }
          })
    ),
    Effect.catchIf(
      (error): error is Errors.PixgateError => Errors.isPixgateError(error) && statusOf(error) === 422,
      (error) => page(s, { error })
    )
  )
}

/**
 * Shows the endpoint's secret again, once the person proved to be the user: their password or a
 * second-factor code (counted by the sign-in throttle). The router records it in the audit log.
 * Under a platform's sign-in the platform vouches for the person: no password is asked.
 */
export const reveal = (s: Signed, f: URLSearchParams): Handler =>
  Effect.gen(function* () {
    const existing = yield* current(s)
    if (Option.isNone(existing)) return yield* Effect.fail(Errors.notFound("Webhook endpoint"))
    const user = s.user
    if (user !== null) {
      const proof = yield* access(
        PanelSessions.confirmIdentity(user, f.get("answer") ?? "", clientOf(s), s.cfg.throttle)
      )
      if (proof === "throttled")
        return yield* page(s, { revealRefused: { message: s.t.tooMany, status: 429 } })
      if (proof === "wrong")
        return yield* page(s, { revealRefused: { message: s.t.revealWrong, status: 422 } })
    }
    return yield* page(s, { shown: { secret: { value: existing.value.secret, why: "revealed" } } })
  })

/**
 * Sends a real `webhook.test` event (signed, delivered and logged like every event; no money
 * moves) to the mode's endpoint, once per form token; without an endpoint, the page says to set
 * it first.
 */
export const testEvent = (s: Signed, f: URLSearchParams): Handler =>
  FormToken.once(
    s,
    f,
    "webhook.test",
    engine((e) => e.admin.sendTestEvent(s.merchant.id, s.mode)),
    () => ({ done: true as const }),
    FormToken.Done
  ).pipe(
    Effect.map(({ outcome }) =>
      redirect(s, "/webhooks", outcome._tag === "Done" ? "testEventSent" : "formRepeated")
    ),
    Effect.catchIf(
      (error): error is Errors.PixgateError => Errors.isPixgateError(error) && statusOf(error) === 404,
      () => page(s, { error: new Errors.Refused({ code: "no_endpoint", message: s.t.noEndpoint }) })
    )
  )
