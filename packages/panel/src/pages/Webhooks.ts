/** Webhooks: the endpoint, its health, signing key and secret rotation, test events and the delivery log. */

import { randomBytes } from "node:crypto"
import { Engine, Errors, SigningKeys, Store, WebhookSignature } from "@pixgate/core"
import { Effect, Option, Schema } from "effect"
import {
  engine,
  errorBox,
  type Handler,
  lift,
  notice,
  pageStatus,
  redirect,
  respond,
  type Signed,
  status,
  statusOf,
  store,
  when
} from "../Ctx.js"
import * as FormToken from "../FormToken.js"
import { html } from "../Html.js"
import type { Dictionary } from "../I18n.js"
import { csrfField, page as frame } from "../Layout.js"
import { deliveryTable, endpointStatus, failingBanner } from "./Parts.js"

/**
 * A generated secret: base64url of 32 random bytes (43 characters, within the engine's rule).
 * Not in the `whsec_` form: that form is the signing key's, and the secret keys nothing.
 */
export const newSecret = () => randomBytes(32).toString("base64url")

/** Overlap choices of a signing key rotation, in seconds (the engine's default first). */
const overlaps: ReadonlyArray<readonly [number, keyof Dictionary]> = [
  [SigningKeys.defaultOverlapSeconds, "overlapDay"],
  [3600, "overlapHour"],
  [SigningKeys.maxOverlapSeconds, "overlapWeek"],
  [0, "overlapNone"]
]

/** A signing key just made, shown on this one page and never again. */
interface ShownKey {
  readonly signingKey: string
  readonly previousKeyExpiresAt?: string | null
}

interface PageOptions {
  readonly error?: Errors.PixgateError
  readonly url?: string
  readonly shown?: ShownKey
}

export const page = (s: Signed, opts: PageOptions = {}): Handler =>
  Effect.gen(function* () {
    const { error, url, shown } = opts
    const { endpoint, log, header } = yield* lift(
      Effect.gen(function* () {
        const st = yield* Store.Store
        const e = yield* Engine.Engine
        const endpoint = yield* st.getWebhookEndpoint(s.merchant.id, s.mode)
        const log = yield* st.listDeliveries({
          merchantId: s.merchant.id,
          mode: s.mode,
          limit: 50,
          offset: 0
        })
        return { endpoint, log, header: `X-${WebhookSignature.token(e.config.serviceName)}-Signature` }
      })
    )
    const e = Option.getOrUndefined(endpoint)
    const health = e === undefined ? undefined : yield* endpointStatus(s)
    const body = html`${error ? errorBox(error, s.lang) : ""}${failingBanner(s, health, false)}${
      shown
        ? html`<div class="notice" role="status"><p>${s.t.signingKeyOnce}</p><code class="secret" id="new-signing-key" data-testid="signing-key">${shown.signingKey}</code>
<p><button type="button" class="secondary" data-copy="new-signing-key" data-copied="${s.t.copied}">${s.t.copy}</button></p>${
            shown.previousKeyExpiresAt
              ? html`<p>${s.t.previousKeyUntil} ${when(s, Date.parse(shown.previousKeyExpiresAt))}.</p>`
              : ""
          }</div>`
        : ""
    }
<p data-testid="webhooks-intro">${s.t.webhooksIntro}</p>
<form class="stack" method="post" action="${s.cfg.base}/webhooks">${csrfField(s)}${FormToken.field(s)}
<div><label for="w-url">${s.t.url} (${s.t[s.mode]})</label><input id="w-url" name="url" type="url" required value="${url ?? e?.url ?? ""}"></div>
<div><label for="w-secret">${s.t.secret} <span class="hint">(${s.t.optional})</span></label><input id="w-secret" name="secret" type="password" autocomplete="off" minlength="${SigningKeys.secretLength.min}" maxlength="${SigningKeys.secretLength.max}"></div>
<div><button type="submit">${s.t.save}</button></div>
</form>
<ul class="hint" data-testid="signature-help">
<li><code>webhook-signature</code>: ${s.t.signingPlain}</li>
<li><code>${header}</code>: ${s.t.secretPlain}</li>
</ul>
${
  e === undefined
    ? ""
    : html`<h2>${s.t.health}</h2>
<dl class="fields" data-testid="webhook-health">
<dt>${s.t.status}</dt><dd>${health === undefined ? "—" : status(s, health.status)}</dd>
<dt>${s.t.consecutiveFailures}</dt><dd>${health?.consecutiveFailures ?? 0}</dd>${
        health?.failingSince
          ? html`<dt>${s.t.failingSince}</dt><dd>${when(s, Date.parse(health.failingSince))}</dd>`
          : ""
      }
<dt>${s.t.pendingDeliveries}</dt><dd>${health?.pending ?? 0}</dd>${
        health?.previousKeyExpiresAt
          ? html`<dt>${s.t.previousKeyUntil}</dt><dd>${when(s, Date.parse(health.previousKeyExpiresAt))}</dd>`
          : ""
      }
</dl>
<h2>${s.t.signingKey}</h2>
<form class="stack" method="post" action="${s.cfg.base}/webhooks/signing-key">${csrfField(s)}${FormToken.field(s)}
<div><label for="w-overlap">${s.t.overlap}</label><select id="w-overlap" name="overlapSeconds">${overlaps.map(
        ([seconds, word]) => html`<option value="${String(seconds)}">${s.t[word]}</option>`
      )}</select></div>
<div><button type="submit" class="secondary">${s.t.rotateSigningKey}</button></div>
</form>
<p class="hint">${s.t.signingKeyLost}</p>
<h2>${s.t.secret}</h2><details><summary>${s.t.secret}</summary><code class="secret" id="w-secret-value">${e.secret}</code></details>
<p><form class="inline" method="post" action="${s.cfg.base}/webhooks/rotate">${csrfField(s)}${FormToken.field(s)}<button type="submit" class="secondary">${s.t.rotate}</button></form>
<form class="inline" method="post" action="${s.cfg.base}/webhooks/test">${csrfField(s)}${FormToken.field(s)}<button type="submit" data-testid="send-test">${s.t.sendTest}</button></form></p>
<p class="hint">${s.t.testEventHint}</p>`
}
<h2>${s.t.deliveryLog}</h2>
${deliveryTable(s, log)}`
    return respond(s, frame(s.view, s.t.webhooks, body, shown ? "" : notice(s)), pageStatus(error))
  })

const WebhookChange = Schema.Struct({ signingKeyShown: Schema.Boolean })

/** A repeated webhook form: the first one's result, without a signing key it showed once. */
const repeated = (s: Signed, change: { readonly signingKeyShown: boolean }) =>
  redirect(s, "/webhooks", change.signingKeyShown ? "signingKeyShownOnce" : "formRepeated")

export const setWebhook = (s: Signed, f: URLSearchParams): Handler => {
  const url = (f.get("url") ?? "").trim()
  const given = f.get("secret") ?? ""
  const set = Effect.gen(function* () {
    const existing = yield* store((st) => st.getWebhookEndpoint(s.merchant.id, s.mode))
    const secret = given !== "" ? given : Option.isSome(existing) ? existing.value.secret : newSecret()
    return yield* engine((e) => e.admin.setWebhook({ merchantId: s.merchant.id, mode: s.mode, url, secret }))
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
    // The first set answers the endpoint's signing key: shown on this answer only, like a new API key.
    const signingKey = value?.signingKey
    if (signingKey !== undefined) return yield* page(s, { shown: { signingKey } })
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

export const rotateSecret = (s: Signed, f: URLSearchParams): Handler =>
  Effect.gen(function* () {
    const existing = yield* store((st) => st.getWebhookEndpoint(s.merchant.id, s.mode))
    if (Option.isNone(existing)) return yield* Effect.fail(Errors.notFound("Webhook endpoint"))
    if (f.get("confirm") !== "yes") return confirmRotation(s, "rotate", [])
    const url = existing.value.url
    const { outcome } = yield* FormToken.once(
      s,
      f,
      "webhook.rotate-secret",
      engine((e) =>
        e.admin.setWebhook({ merchantId: s.merchant.id, mode: s.mode, url, secret: newSecret() })
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
