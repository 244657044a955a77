/** The page frame: header with navigation, the test/live switch and language, and the security headers. */

import type * as Brand from "./Brand.js"
import { type Html, html, type Part } from "./Html.js"
import { type Dictionary, type Lang, words } from "./I18n.js"
import { teamWords } from "./TeamWords.js"

/** What every page knows about the request. */
export interface View {
  readonly base: string
  /** The path under `base` (for the current-page marker and the switches' return). */
  readonly path: string
  readonly lang: Lang
  readonly t: Dictionary
  readonly mode: "test" | "live"
  readonly csrf: string
  /** Who is signed in, when the panel signs people in itself (null when embedded). */
  readonly email: string | null
  readonly merchantName: string
  /** The embedding platform's white-label options (none: the panel's own look). */
  readonly brand?: Brand.Brand
  /** The signed-in user's role (null when embedded: the platform decides). */
  readonly role?: "owner" | "finance" | "developer" | "viewer" | null
}

/** The product's name: the platform's, or the panel's own in the page's language. */
export const productName = (v: { readonly lang: Lang; readonly brand?: Brand.Brand | undefined }): string =>
  v.brand?.productName ?? words(v.lang).title

/** The style sheets of a page: the panel's, then the platform's colour when it set one. */
const styles = (v: { readonly base: string; readonly brand?: Brand.Brand | undefined }): Html =>
  html`<link rel="stylesheet" href="${v.base}/assets/panel.css">${
    v.brand !== undefined && v.brand.css !== ""
      ? html`\n<link rel="stylesheet" href="${v.base}/assets/brand.css">`
      : ""
  }`

/** The brand's logo (decorative: the name follows it), or nothing. */
const logo = (v: { readonly brand?: Brand.Brand | undefined }): Part =>
  v.brand?.logoSrc === undefined ? "" : html`<img src="${v.brand.logoSrc}" alt="" height="32">`

/** The support link of the platform, or nothing. */
const footer = (v: { readonly lang: Lang; readonly brand?: Brand.Brand | undefined }): Part =>
  v.brand?.supportUrl === undefined
    ? ""
    : html`<footer class="site"><a href="${v.brand.supportUrl}" data-testid="support-link">${words(v.lang).lookSupport}</a></footer>`

/**
 * The Content-Security-Policy of a response: no inline script or style, no framing; images from
 * the panel itself, `data:` URLs (the QR codes) and a white-label logo's origin when it has one.
 */
export const cspWith = (o: { readonly imageOrigin?: string | undefined } = {}): string =>
  `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:${
    o.imageOrigin === undefined ? "" : ` ${o.imageOrigin}`
  }; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`

/** The Content-Security-Policy of every response without a logo on another origin. */
export const csp = cspWith()

/** Security headers of every response. */
export const securityHeaders: Readonly<Record<string, string>> = {
  "content-security-policy": csp,
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cross-origin-opener-policy": "same-origin",
  "cache-control": "no-store"
}

/** The hidden CSRF field of every form. */
export const csrfField = (v: { readonly csrf: string }): Html =>
  html`<input type="hidden" name="_csrf" value="${v.csrf}">`

const nav: ReadonlyArray<readonly [string, keyof Dictionary]> = [
  ["/", "overview"],
  ["/transactions", "transactions"],
  ["/charges", "charges"],
  ["/links", "links"],
  ["/subscriptions", "subscriptions"],
  ["/customers", "customers"],
  ["/payouts", "payouts"],
  ["/infractions", "infractions"],
  ["/keys", "keys"],
  ["/webhooks", "webhooks"]
]

/** Role-aware navigation: pages whose actions the role cannot use are left out (the server refuses them anyway). */
const visible = (v: View, href: string): boolean =>
  v.role === "viewer" || v.role === "developer"
    ? href !== "/payouts"
    : v.role === "finance"
      ? href !== "/keys" && href !== "/webhooks"
      : true

const back = (v: View) => encodeURIComponent(v.path)

/** The language switch (named by `labelledBy`, or by its own label in the phone menu). */
const languages = (v: View, labelledBy?: string): Html =>
  html`<span role="group" ${labelledBy === undefined ? html`aria-label="${v.t.language}"` : html`aria-labelledby="${labelledBy}"`}>${(
    ["pt-BR", "en"] as const
  ).map(
    (l) =>
      html`<a class="pill" href="${v.base}/lang?to=${l}&amp;back=${back(v)}" lang="${l}" aria-current="${l === v.lang ? "true" : "false"}">${l === "en" ? "English" : "Português"}</a> `
  )}</span>`

/**
 * The signed-in person's links and sign-out. Written twice in the frame: in the header's row at
 * desktop width, and in the "Conta" menu at phone width (CSS shows one of them), so the phone's
 * header keeps to the brand, the pages and the mode.
 */
const account = (v: View): Part =>
  v.email === null
    ? ""
    : html`<a class="pill" href="${v.base}/security">${v.t.security}</a>
<a class="pill" href="${v.base}/sessions">${v.t.sessions}</a>
${v.role === "owner" ? html`<a class="pill" href="${v.base}/audit">${v.t.audit}</a>` : ""}
${v.role === "owner" ? html`<a class="pill" href="${v.base}/team">${teamWords(v.lang).team}</a>` : ""}
<a class="pill" href="${v.base}/notifications">${teamWords(v.lang).notifications}</a>
<a class="pill" href="${v.base}/password">${v.t.password}</a>
<form class="inline" method="post" action="${v.base}/signout">${csrfField(v)}<button type="submit" class="secondary">${v.t.signOut}</button></form>`

/** A full page with the panel's frame. */
export const page = (v: View, title: string, body: Part, notice?: Part): Html => {
  const current = (href: string) =>
    href === "/" ? v.path === "/" : v.path === href || v.path.startsWith(`${href}/`)
  return html`<!doctype html>
<html lang="${v.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · ${productName(v)}</title>
${styles(v)}
<script src="${v.base}/assets/panel.js" defer></script>
</head>
<body class="${v.mode === "live" ? "mode-live" : "mode-test"}">
<a class="skip" href="#content">${v.t.skip}</a>
<header class="top">
<a class="brand" href="${v.base}/">${logo(v)}<span>${productName(v)} · ${v.merchantName}</span></a>
<nav class="main" aria-label="${productName(v)}"><ul>${nav
    .filter(([href]) => visible(v, href))
    .map(
      ([href, key]) =>
        html`<li><a href="${v.base}${href}"${current(href) ? html` aria-current="page"` : ""}>${v.t[key]}</a></li>`
    )}</ul></nav>
<div class="switches">
<span id="mode-label">${v.t.mode}:</span>
<span role="group" aria-labelledby="mode-label">${(["test", "live"] as const).map(
    (m) =>
      html`<a class="pill" data-mode="${m}" href="${v.base}/mode?to=${m}&amp;back=${back(v)}" aria-current="${m === v.mode ? "true" : "false"}">${v.t[m]}</a> `
  )}</span>
<span class="wide-only" data-testid="header-account">
<span id="lang-label">${v.t.language}:</span>
${languages(v, "lang-label")}
${account(v)}
</span>
</div>
<details class="account-menu narrow-only" data-testid="account-menu"><summary>${v.t.accountMenu}</summary>
<div class="menu-panel">${languages(v)}${account(v)}</div>
</details>
</header>
<main id="content">
<h1>${title}</h1>
${notice ?? ""}
${body}
</main>
<div id="live-announce" class="visually-hidden" aria-live="polite"></div>
${footer(v)}
</body>
</html>`
}

/** A page without the frame (sign-in, invites, errors before sign-in). */
export const bare = (
  v: { readonly base: string; readonly lang: Lang; readonly brand?: Brand.Brand | undefined },
  title: string,
  body: Part
): Html => html`<!doctype html>
<html lang="${v.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · ${productName(v)}</title>
${styles(v)}
</head>
<body>
<main id="content" class="signin">
${v.brand?.logoSrc === undefined ? "" : html`<p class="brand-logo">${logo(v)} <span>${productName(v)}</span></p>`}
<h1>${title}</h1>
${body}
</main>
${footer(v)}
</body>
</html>`
