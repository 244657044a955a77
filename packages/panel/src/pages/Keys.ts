/** API keys: the list, a new key (its secret shown once) and revocation. */
import { type Domain, Errors, type Store } from "@pixgate/core"
import { Effect } from "effect"
import { engine, type Handler, notice, redirect, respond, type Signed, store, when } from "../Ctx.js"
import { html } from "../Html.js"
import { csrfField, page as frame } from "../Layout.js"

/** The keys page; `created` is a key just made, shown on this answer only. */
export const page = (s: Signed, created?: { readonly key: string; readonly mode: string }): Handler =>
  Effect.gen(function* () {
    const keys = yield* store((st) => st.listApiKeys(s.merchant.id))
    const body = html`${
      created
        ? html`<div class="notice" role="status"><p>${s.t.keyOnce}</p><code class="secret" id="new-key" data-testid="new-key">${created.key}</code>
<p><button type="button" class="secondary" data-copy="new-key" data-copied="${s.t.copied}">${s.t.copy}</button></p></div>`
        : ""
    }
<form method="post" action="${s.cfg.base}/keys">${csrfField(s)}<button type="submit">${s.t.createKey} (${s.t[s.mode]})</button></form>
<div class="table-wrap"><table data-testid="keys">
<thead><tr><th scope="col">${s.t.prefix}</th><th scope="col">${s.t.mode}</th><th scope="col">${s.t.created}</th><th scope="col">${s.t.lastUsed}</th><th scope="col">${s.t.status}</th><th scope="col"><span class="skip">${s.t.revoke}</span></th></tr></thead>
<tbody>${keys.map(
      (k) =>
        html`<tr data-key="${k.id}"><td class="mono">sk_${k.mode}_…${k.hint}</td><td>${s.t[k.mode]}</td><td>${when(s, k.createdAt)}</td><td>${
          k.lastUsedAt ? when(s, k.lastUsedAt) : s.t.never
        }</td><td>${k.revokedAt === null ? s.t.active : html`${s.t.revoked} ${when(s, k.revokedAt)}`}</td><td>${
          k.revokedAt === null
            ? html`<a href="${s.cfg.base}/keys/${k.id}/revoke" aria-label="${s.t.revoke} sk_${k.mode}_…${k.hint}">${s.t.revoke}</a>`
            : ""
        }</td></tr>`
    )}</tbody></table></div>`
    return respond(s, frame(s.view, s.t.keys, body, notice(s)))
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
<form method="post" action="${s.cfg.base}/keys/${key.id}/revoke">${csrfField(s)}<button type="submit" class="danger">${s.t.revoke}</button> <a class="button secondary" href="${s.cfg.base}/keys">${s.t.cancel}</a></form>`
    return respond(s, frame(s.view, s.t.revoke, body))
  })

export const create = (s: Signed): Handler =>
  Effect.flatMap(
    engine((e) => e.admin.createKey(s.merchant.id, s.mode)),
    (created) => page(s, created)
  )

export const revoke = (s: Signed, id: string): Handler =>
  Effect.gen(function* () {
    const key = yield* ownKey(s, id)
    yield* engine((e) => e.admin.revokeKey(key.id))
    return redirect(s, "/keys", "keyRevoked")
  })
