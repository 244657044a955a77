/** API keys: the list, a new key (its secret shown once) and revocation. */
import { type Domain, Errors, type Store } from "@pixgate/core"
import { Effect, Schema } from "effect"
import { cookies, engine, type Handler, notice, redirect, respond, type Signed, store, when } from "../Ctx.js"
import * as FormToken from "../FormToken.js"
import { html } from "../Html.js"
import { csrfField, page as frame } from "../Layout.js"
import { allows, gated } from "./Parts.js"

/**
 * A new key's secret on its way from the POST that made it to the page that shows it (post,
 * redirect, get): a cookie on the keys path only, read and cleared by the first page that shows
 * it, so a reload shows that the key was made but never its secret again.
 */
const newKeyCookie = "pixgate_new_key"

const newKeyCookieFor = (s: Signed, value: string, maxAgeS: number) =>
  `${newKeyCookie}=${encodeURIComponent(value)}; Path=${s.cfg.base}/keys; HttpOnly; SameSite=Strict${
    s.secure ? "; Secure" : ""
  }; Max-Age=${maxAgeS}`

/** The key just made and its secret, if this request still carries it (and clears it). */
const takeNewKey = (s: Signed): { readonly keyId: string; readonly key: string } | undefined => {
  const raw = cookies(s.request).get(newKeyCookie)
  if (raw === undefined) return undefined
  s.setCookies.push(newKeyCookieFor(s, "", 0))
  const at = raw.indexOf(" ")
  return at < 0 ? undefined : { keyId: raw.slice(0, at), key: raw.slice(at + 1) }
}

/**
 * The keys page. After a key was made (`?created=<id>`), its secret once, from the cookie the
 * creating POST set; on any later visit, that the key was made and its secret was shown once.
 */
export const page = (s: Signed): Handler =>
  Effect.gen(function* () {
    const keys = yield* store((st) => st.listApiKeys(s.merchant.id))
    const createdId = s.url.searchParams.get("created")
    const made = createdId === null ? undefined : keys.find((k) => k.id === createdId)
    const flash = takeNewKey(s)
    const shown = made !== undefined && flash !== undefined && flash.keyId === made.id ? flash.key : undefined
    const body = html`${
      shown !== undefined
        ? html`<div class="notice" role="status"><p>${s.t.keyOnce}</p><code class="secret" id="new-key" data-testid="new-key">${shown}</code>
<p><button type="button" class="secondary" data-copy="new-key" data-copied="${s.t.copied}">${s.t.copy}</button></p></div>`
        : made !== undefined
          ? html`<p class="notice" role="status" data-testid="key-shown-once">${s.t.keyShownOnce} <span class="mono">sk_${made.mode}_…${made.hint}</span></p>`
          : ""
    }
${gated(
  s,
  "key.manage",
  s.t.createKey,
  html`<form method="post" action="${s.cfg.base}/keys">${csrfField(s)}${FormToken.field(s)}<button type="submit">${s.t.createKey} (${s.t[s.mode]})</button></form>`
)}
<div class="table-wrap"><table class="responsive" data-testid="keys">
<thead><tr><th scope="col">${s.t.prefix}</th><th scope="col">${s.t.mode}</th><th scope="col">${s.t.created}</th><th scope="col">${s.t.lastUsed}</th><th scope="col">${s.t.status}</th><th scope="col"><span class="skip">${s.t.revoke}</span></th></tr></thead>
<tbody>${keys.map(
      (k) =>
        html`<tr data-key="${k.id}"><td class="mono" data-label="${s.t.prefix}">sk_${k.mode}_…${k.hint}</td><td data-label="${s.t.mode}">${s.t[k.mode]}</td><td data-label="${s.t.created}">${when(s, k.createdAt)}</td><td data-label="${s.t.lastUsed}">${
          k.lastUsedAt ? when(s, k.lastUsedAt) : s.t.never
        }</td><td data-label="${s.t.status}">${k.revokedAt === null ? s.t.active : html`${s.t.revoked} ${when(s, k.revokedAt)}`}</td><td>${
          k.revokedAt === null && allows(s, "key.manage")
            ? html`<a href="${s.cfg.base}/keys/${k.id}/revoke" aria-label="${s.t.revoke} sk_${k.mode}_…${k.hint}">${s.t.revoke}</a>`
            : ""
        }</td></tr>`
    )}</tbody></table></div>`
    return respond(s, frame(s.view, s.t.keys, body, made === undefined ? notice(s) : ""))
  })

/** The merchant's own key, or NotFound. */
const ownKey = (s: Signed, id: string): Effect.Effect<Domain.ApiKey, Errors.PixgateError, Store.Store> =>
  store((st) => st.listApiKeys(s.merchant.id)).pipe(
    Effect.flatMap((keys) => {
      const key = keys.find((k) => k.id === id)
      return key === undefined ? Effect.fail(Errors.notFound("API key")) : Effect.succeed(key)
    })
  )

export const revokePage = (s: Signed, id: string): Handler =>
  Effect.map(ownKey(s, id), (key) => {
    const body = html`<p>${s.t.revokeConfirm}</p><p class="mono">sk_${key.mode}_…${key.hint}</p>
<form method="post" action="${s.cfg.base}/keys/${key.id}/revoke">${csrfField(s)}${FormToken.field(s)}<button type="submit" class="danger">${s.t.revoke}</button> <a class="button secondary" href="${s.cfg.base}/keys">${s.t.cancel}</a></form>`
    return respond(s, frame(s.view, s.t.revoke, body))
  })

const CreatedKey = Schema.Struct({ keyId: Schema.String })

/**
 * Makes a key once per form token, then redirects to the keys page, which shows its secret once
 * (post, redirect, get): reloading that page makes no key, and neither does a repeated POST.
 */
export const create = (s: Signed, f: URLSearchParams): Handler =>
  Effect.map(
    FormToken.once(
      s,
      f,
      "key.create",
      engine((e) => e.admin.createKey(s.merchant.id, s.mode)),
      // The record keeps the key's id only: its secret is never stored.
      (created) => ({ keyId: created.keyId }),
      CreatedKey
    ),
    ({ outcome, value }) => {
      if (value !== undefined) s.setCookies.push(newKeyCookieFor(s, `${value.keyId} ${value.key}`, 300))
      return redirect(s, `/keys?created=${encodeURIComponent(outcome.record.keyId)}`)
    }
  )

export const revoke = (s: Signed, id: string, f: URLSearchParams): Handler =>
  Effect.gen(function* () {
    const key = yield* ownKey(s, id)
    const { outcome } = yield* FormToken.once(
      s,
      f,
      "key.revoke",
      engine((e) => e.admin.revokeKey(key.id)),
      () => ({ done: true as const }),
      FormToken.Done
    )
    return redirect(s, "/keys", outcome._tag === "Done" ? "keyRevoked" : "formRepeated")
  })
