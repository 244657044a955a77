/**
 * The webhooks page: the endpoint, its health and the delivery log for every role; its forms
 * (URL, secret, the secret header, signing key and secret rotation, revealing the secret, test
 * events) only for the roles that manage integrations (owner, developer). The others see that a
 * secret and a signing key exist, never their values, and the endpoint's URL by its origin.
 * The forms' actions are in WebhookForms.
 */
import { randomBytes } from "node:crypto"
import { type Domain, Engine, type Errors, SigningKeys, Store, WebhookSignature } from "@pixgate/core"
import { Effect, Option } from "effect"
import {
  errorBox,
  type Handler,
  lift,
  notice,
  pageStatus,
  respond,
  type Signed,
  status,
  when
} from "../Ctx.js"
import * as FormToken from "../FormToken.js"
import { type Html, html, type Part } from "../Html.js"
import type { Dictionary } from "../I18n.js"
import { csrfField, page as frame } from "../Layout.js"
import { deliveryTable, endpointStatus, failingBanner, managesIntegrations, shownUrl } from "./Parts.js"
import * as WebhookOps from "./WebhookOps.js"

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

/** A secret shown on this one answer: a signing key just made, or the secret made or revealed. */
export interface Shown {
  readonly signingKey?: string
  readonly previousKeyExpiresAt?: string | null
  /** The secret, and why it shows: made on the first save (`new`), or asked for again (`revealed`). */
  readonly secret?: { readonly value: string; readonly why: "new" | "revealed" }
}

/** What the page shows besides the endpoint. */
export interface PageOptions {
  readonly error?: Errors.PixgateError
  readonly url?: string
  readonly shown?: Shown
  /** The refusal of a reveal (wrong password or code, or throttled), and its status. */
  readonly revealRefused?: { readonly message: string; readonly status: number }
}

const shownPart = (s: Signed, shown: Shown): Part =>
  html`${
    shown.signingKey === undefined
      ? ""
      : html`<div class="notice" role="status"><p>${s.t.signingKeyOnce}</p><code class="secret" id="new-signing-key" data-testid="signing-key">${shown.signingKey}</code>
<p><button type="button" class="secondary" data-copy="new-signing-key" data-copied="${s.t.copied}">${s.t.copy}</button></p>${
          shown.previousKeyExpiresAt
            ? html`<p>${s.t.previousKeyUntil} ${when(s, Date.parse(shown.previousKeyExpiresAt))}.</p>`
            : ""
        }</div>`
  }${
    shown.secret === undefined
      ? ""
      : html`<div class="notice" role="status"><p>${shown.secret.why === "new" ? s.t.secretOnce : s.t.secretShownNow}</p><code class="secret" id="w-secret-value" data-testid="webhook-secret">${shown.secret.value}</code>
<p><button type="button" class="secondary" data-copy="w-secret-value" data-copied="${s.t.copied}">${s.t.copy}</button></p></div>`
  }`

const endpointForm = (s: Signed, e: Domain.WebhookEndpoint | null, url: string | undefined) =>
  html`<form class="stack" method="post" action="${s.cfg.base}/webhooks">${csrfField(s)}${FormToken.field(s)}
<div><label for="w-url">${s.t.url} (${s.t[s.mode]})</label><input id="w-url" name="url" type="url" required value="${url ?? e?.url ?? ""}"></div>
<div><label for="w-secret">${s.t.secret} <span class="hint">(${s.t.optional})</span></label><input id="w-secret" name="secret" type="password" autocomplete="off" minlength="${SigningKeys.secretLength.min}" maxlength="${SigningKeys.secretLength.max}"></div>
<div><label class="check"><input type="checkbox" name="secretHeader" value="on" data-testid="secret-header"${
    (e?.secretHeader ?? true) ? html` checked` : ""
  }> ${s.t.secretHeaderLabel}</label><p class="hint">${s.t.secretHeaderHint}</p></div>
<div><button type="submit">${s.t.save}</button></div>
</form>`

/** What a role that does not manage integrations sees of the endpoint: that things exist. */
const endpointFacts = (s: Signed, e: Domain.WebhookEndpoint | null) =>
  html`<dl class="fields" data-testid="webhook-endpoint">
<dt>${s.t.url} (${s.t[s.mode]})</dt><dd class="mono">${e === null ? "—" : shownUrl(s, e.url)}</dd>
<dt>${s.t.secret}</dt><dd data-testid="secret-state">${e === null ? s.t.secretNone : s.t.secretSet}</dd>
<dt>${s.t.signingKeyState}</dt><dd>${e === null ? s.t.secretNone : s.t.secretSet}</dd>
<dt>${s.t.secretHeaderState}</dt><dd>${e === null ? "—" : e.secretHeader ? s.t.secretHeaderOn : s.t.secretHeaderOff}</dd>
</dl>
<p class="hint" data-testid="secrets-hidden">${s.t.secretHidden}</p>`

/** The reveal form: the password, or a code of the second factor (none when the platform signs people in). */
const revealForm = (s: Signed, refused: PageOptions["revealRefused"]) =>
  html`<form class="stack" method="post" action="${s.cfg.base}/webhooks/reveal" data-testid="reveal-form">${csrfField(s)}${
    refused === undefined
      ? ""
      : html`<p class="error" role="alert" data-testid="reveal-refused">${refused.message}</p>`
  }${
    s.user === null
      ? ""
      : html`<p>${s.t.revealPrompt}</p><div><label for="w-answer">${s.t.revealAnswer}</label><input id="w-answer" name="answer" type="password" autocomplete="current-password" required maxlength="200"></div>`
  }
<div><button type="submit" class="secondary">${s.t.revealSecret}</button></div>
</form>`

/** The endpoint's signing key and secret, for the roles that manage integrations. */
const secretsPart = (s: Signed, e: Domain.WebhookEndpoint, opts: PageOptions): Html =>
  html`<h2>${s.t.signingKey}</h2>
<form class="stack" method="post" action="${s.cfg.base}/webhooks/signing-key">${csrfField(s)}${FormToken.field(s)}
<div><label for="w-overlap">${s.t.overlap}</label><select id="w-overlap" name="overlapSeconds">${overlaps.map(
    ([seconds, word]) => html`<option value="${String(seconds)}">${s.t[word]}</option>`
  )}</select></div>
<div><button type="submit" class="secondary">${s.t.rotateSigningKey}</button></div>
</form>
<p class="hint">${s.t.signingKeyLost}</p>
<h2>${s.t.secret}</h2>
<p data-testid="secret-state">${s.t.secretSet} · ${s.t.secretHeaderState}: ${e.secretHeader ? s.t.secretHeaderOn : s.t.secretHeaderOff}</p>
${revealForm(s, opts.revealRefused)}
<p><form class="inline" method="post" action="${s.cfg.base}/webhooks/rotate">${csrfField(s)}${FormToken.field(s)}<button type="submit" class="secondary">${s.t.rotate}</button></form>
<form class="inline" method="post" action="${s.cfg.base}/webhooks/test">${csrfField(s)}${FormToken.field(s)}<button type="submit" data-testid="send-test">${s.t.sendTest}</button></form></p>
<p class="hint">${s.t.testEventHint}</p>`

export const page = (s: Signed, opts: PageOptions = {}): Handler =>
  Effect.gen(function* () {
    const { error, url, shown } = opts
    const manages = managesIntegrations(s)
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
    const e = Option.getOrNull(endpoint)
    const health = e === null ? undefined : yield* endpointStatus(s)
    const ops = e === null ? undefined : yield* WebhookOps.healthOf(s)
    const body = html`${error ? errorBox(error, s.lang) : ""}${WebhookOps.disabledBanner(s, ops, manages)}${
      ops?.state === "disabled" ? "" : failingBanner(s, health, false)
    }${shown && manages ? shownPart(s, shown) : ""}
<p data-testid="webhooks-intro">${s.t.webhooksIntro}</p>
${manages ? endpointForm(s, e, url) : endpointFacts(s, e)}
<ul class="hint" data-testid="signature-help">
<li><code>webhook-signature</code>: ${s.t.signingPlain}</li>
<li><code>${header}</code>: ${s.t.secretPlain}</li>
</ul>
${
  e === null
    ? ""
    : html`<h2>${s.t.health}</h2>
<dl class="fields" data-testid="webhook-health">
<dt>${s.t.status}</dt><dd>${health === undefined ? "—" : status(s, health.status)}</dd>
<dt>${s.t.consecutiveFailures}</dt><dd>${health?.consecutiveFailures ?? 0}</dd>${
        health?.failingSince
          ? html`<dt>${s.t.failingSince}</dt><dd>${when(s, Date.parse(health.failingSince))}</dd>`
          : ""
      }
<dt>${s.t.pendingDeliveries}</dt><dd>${health?.pending ?? 0}</dd>${WebhookOps.healthRows(s, ops)}${
        health?.previousKeyExpiresAt
          ? html`<dt>${s.t.previousKeyUntil}</dt><dd>${when(s, Date.parse(health.previousKeyExpiresAt))}</dd>`
          : ""
      }
</dl>
${manages ? html`${WebhookOps.resendForm(s)}${secretsPart(s, e, opts)}` : ""}`
}
<h2>${s.t.deliveryLog}</h2>
${deliveryTable(s, log)}`
    const code = opts.revealRefused?.status ?? pageStatus(error)
    return respond(s, frame(s.view, s.t.webhooks, body, shown ? "" : notice(s)), code)
  })
