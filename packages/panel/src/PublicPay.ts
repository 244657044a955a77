/**
 * The public checkout of payment links (issue 38): `/pay/<slug>` on the host's root, outside the
 * panel's base path, so the browser sends it none of the panel's cookies (they are scoped to the
 * base path); it sets none and reads none. No sign-in: whoever holds the link's unguessable slug
 * may open it.
 *
 * - `GET /pay/<slug>`: the merchant's name, the link's description and amount (or an amount field
 *   within the link's bounds), optional name and CPF/CNPJ, and a hidden submission nonce.
 * - `POST /pay/<slug>`: takes one use of the link (atomically, against its limit), then creates the
 *   charge through the engine exactly as `POST /api/v1/charges` does (same decoding, fees, ledger
 *   unit, events), under the engine's Idempotency-Key `link:<linkId>:<nonce>`: a double click, a
 *   reload that re-posts or a retry makes one charge. A charge refused outright gives its use back;
 *   an unknown outcome keeps it (the charge may exist).
 * - `GET /pay/<slug>/<ref>`: the charge (the nonce is its reference: only its payer's browser
 *   knows it): QR, copia-e-cola with a copy button, and the live status the panel's script
 *   follows (`data-live-status`, as the panel's charge page) until "Pago".
 * - `GET /pay/<slug>/<ref>/status`: that small JSON status (`LiveStatus.json`).
 * - `GET /pay/assets/...`: the panel's style sheet, script and logo, served here too.
 *
 * Every request takes a token from the client address's bucket (`PublicLimit`); the answers carry
 * the panel's security headers and strict Content-Security-Policy.
 */
import {
  type Auth,
  Domain,
  Engine,
  Errors,
  Money,
  PaymentLink,
  PaymentLinkStore,
  QrImage,
  Requests,
  type Store
} from "@pixgate/core"
import type { ClientAddress } from "@pixgate/core/node"
import { Effect, Option } from "effect"
import * as Assets from "./Assets.js"
import type { Brand } from "./Brand.js"
import { lift, type PanelServices, store } from "./Ctx.js"
import { type Html, html, type Part } from "./Html.js"
import { money, parseAmount } from "./I18n.js"
import { cspWith, securityHeaders } from "./Layout.js"
import { type LinkWords, linkWords } from "./LinkWords.js"
import * as LiveStatus from "./LiveStatus.js"
import type * as PublicLimit from "./PublicLimit.js"
import { statusOf } from "./Status.js"

/** Where the public pages live, on the host's root. */
export const prefix = "/pay"

/** Whether a request path is a public payment page's. */
export const matches = (path: string): boolean => path === prefix || path.startsWith(`${prefix}/`)

/** The public pages' settings (from `Panel.make`). */
export interface Config {
  readonly brand: Brand
  readonly maxBody: number
}

/** The address of a link's public page on a host (`origin` like `https://loja.example`). */
export const urlOf = (origin: string, slug: string): string => `${origin}${prefix}/${slug}`

/** A WhatsApp share link of a payment link's address. */
export const whatsAppUrl = (text: string, url: string): string =>
  `https://wa.me/?text=${encodeURIComponent(`${text} ${url}`)}`

const t: LinkWords = linkWords("pt-BR")
const brl = (cents: number) => money("pt-BR", cents)

const headers = (brand: Brand, extra: Record<string, string> = {}): Headers => {
  const h = new Headers({ ...securityHeaders, ...extra })
  if (brand.imageOrigin !== undefined)
    h.set("content-security-policy", cspWith({ imageOrigin: brand.imageOrigin }))
  return h
}

const answer = (cfg: Config, body: Html, status = 200, extra: Record<string, string> = {}) =>
  new Response(body.text, {
    status,
    headers: headers(cfg.brand, { "content-type": "text/html; charset=utf-8", ...extra })
  })

const see = (cfg: Config, location: string) =>
  new Response(null, { status: 303, headers: headers(cfg.brand, { location }) })

type Services = PanelServices

const asset = (body: string, type: string) =>
  new Response(body, {
    headers: {
      ...securityHeaders,
      "content-type": `${type}; charset=utf-8`,
      "cache-control": "public, max-age=300"
    }
  })

/** The brand's logo as the public pages serve it (an inline SVG from `/pay/assets/logo.svg`). */
const logoSrc = (brand: Brand): string | undefined =>
  brand.logoSvg !== undefined ? `${prefix}/assets/logo.svg` : brand.logoSrc

/** The checkout's frame: the brand, the merchant, the test-mode notice. */
const frame = (
  cfg: Config,
  title: string,
  merchant: string,
  mode: Domain.Mode | undefined,
  body: Part
): Html => {
  const logo = logoSrc(cfg.brand)
  return html`<!doctype html>
<html lang="pt-BR">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${title} · ${merchant}</title>
<link rel="stylesheet" href="${prefix}/assets/panel.css">${
    cfg.brand.css === "" ? "" : html`\n<link rel="stylesheet" href="${prefix}/assets/brand.css">`
  }
<script src="${prefix}/assets/panel.js" defer></script>
</head>
<body class="checkout">
<main id="content" class="signin checkout">
${
  logo === undefined && cfg.brand.productName === undefined
    ? ""
    : html`<p class="brand-logo">${logo === undefined ? "" : html`<img src="${logo}" alt="" height="32"> `}<span>${cfg.brand.productName ?? ""}</span></p>`
}
${mode === "test" ? html`<p class="notice" data-testid="test-mode">${t.payTest}</p>` : ""}
<h1 data-testid="merchant">${merchant}</h1>
${body}
</main>
<div id="live-announce" class="visually-hidden" aria-live="polite"></div>
${
  cfg.brand.supportUrl === undefined
    ? ""
    : html`<footer class="site"><a href="${cfg.brand.supportUrl}">Ajuda</a></footer>`
}
</body>
</html>`
}

const message = (cfg: Config, status: number, text: string, retryAfter?: number) =>
  answer(
    cfg,
    frame(cfg, t.payTitle, t.payTitle, undefined, html`<p class="error" role="alert">${text}</p>`),
    status,
    retryAfter === undefined ? {} : { "retry-after": String(retryAfter) }
  )

const bounds = (link: PaymentLink.PaymentLink): string =>
  link.minAmount !== null && link.maxAmount !== null
    ? t.payAmountRange.replace("{min}", brl(link.minAmount)).replace("{max}", brl(link.maxAmount))
    : link.minAmount !== null
      ? t.payAmountFrom.replace("{min}", brl(link.minAmount))
      : link.maxAmount !== null
        ? t.payAmountUpTo.replace("{max}", brl(link.maxAmount))
        : ""

/** The link's form, refilled (and its error shown) after a refused submission. */
const formPage = (
  cfg: Config,
  merchant: string,
  link: PaymentLink.PaymentLink,
  f?: URLSearchParams,
  error?: string
): Html => {
  const range = bounds(link)
  return frame(
    cfg,
    link.description,
    merchant,
    link.mode,
    html`<p data-testid="link-description">${link.description}</p>
${error === undefined ? "" : html`<p class="error" role="alert" data-testid="pay-error">${error}</p>`}
<form class="stack" method="post" action="${prefix}/${link.slug}">
<input type="hidden" name="n" value="${PaymentLink.newSlug()}">
${
  link.amount !== null
    ? html`<p><span class="hint">${t.payAmount}</span><br><strong class="amount" data-testid="pay-amount">${brl(link.amount)}</strong></p>`
    : html`<div><label for="p-amount">${t.payAmount}${range === "" ? "" : html` <span class="hint">(${range})</span>`}</label><input id="p-amount" name="amount" type="text" inputmode="decimal" autocomplete="transaction-amount" required value="${f?.get("amount") ?? ""}"></div>`
}
<div><label for="p-name">${t.payName} <span class="hint">(${t.payOptional})</span></label><input id="p-name" name="clientName" type="text" maxlength="140" autocomplete="name" value="${f?.get("clientName") ?? ""}"></div>
<div><label for="p-doc">${t.payDoc} <span class="hint">(${t.payOptional})</span></label><input id="p-doc" name="clientDoc" type="text" inputmode="numeric" maxlength="20" value="${f?.get("clientDoc") ?? ""}"></div>
<div><button type="submit" data-testid="pay-generate">${t.payGenerate}</button></div>
</form>`
  )
}

/** The charge's page: QR and copia-e-cola while pending, "Pago" once paid, a way back once expired. */
const chargePage = (
  cfg: Config,
  merchant: string,
  link: PaymentLink.PaymentLink,
  ref: string,
  tx: Domain.Transaction
): Html => {
  const pending = tx.status === "pending" && tx.qrCode !== null
  const paid = tx.status === "completed"
  const body = html`<p data-testid="link-description">${link.description}</p>
<p><span class="hint">${t.payAmount}</span><br><strong class="amount" data-testid="pay-amount">${brl(tx.amount)}</strong></p>
${
  pending
    ? html`<section class="qr" aria-labelledby="qr-heading"><h2 id="qr-heading">${t.payWith}</h2>
<p class="live hint" data-testid="live-status" data-state="waiting" data-live-status="${prefix}/${link.slug}/${ref}/status" data-status="${tx.status}">${t.payWaiting}</p>
<p>${t.payScan}</p>
<img src="data:image/png;base64,${QrImage.pngBase64(tx.qrCode ?? "")}" alt="QR Code PIX de ${brl(tx.amount)}" data-testid="qr">
<p><span id="copy-label">PIX copia e cola</span></p>
<code class="secret" id="brcode" aria-labelledby="copy-label" data-testid="brcode">${tx.qrCode}</code>
<p><button type="button" class="secondary" data-copy="brcode" data-copied="Copiado" data-testid="copy">Copiar código</button></p>
</section>`
    : paid
      ? html`<section class="paid-box" data-testid="paid-box" data-live-message="${t.payPaidMessage}" aria-labelledby="paid-heading">
<h2 id="paid-heading" class="live" data-state="paid" data-testid="paid">${t.payPaid}</h2>
<p>${t.payPaidMessage}</p></section>`
      : html`<p class="error" role="alert" data-testid="pay-expired">${t.payExpired}</p>
<p><a class="button" href="${prefix}/${link.slug}">${t.payAgain}</a></p>`
}`
  return frame(cfg, paid ? t.payPaid : link.description, merchant, link.mode, body)
}

const linkStore: Effect.Effect<PaymentLinkStore.PaymentLinkStoreShape, Errors.PixgateError> = Effect.flatMap(
  Effect.serviceOption(PaymentLinkStore.PaymentLinkStore),
  Option.match({ onNone: () => Effect.fail(Errors.unavailable()), onSome: Effect.succeed })
)

/** A payment link store operation (the store's `PaymentLinkStore`), a store failure as `StorageUnavailable`. */
export const links = <A>(
  f: (st: PaymentLinkStore.PaymentLinkStoreShape) => Effect.Effect<A, Store.StoreError>
): Effect.Effect<A, Errors.PixgateError> => Effect.flatMap(linkStore, (st) => lift(f(st)))

/** A link and its merchant by slug; none for a malformed or unknown slug. */
const found = (slug: string) =>
  Effect.gen(function* () {
    if (!PaymentLink.isSlug(slug)) return Option.none()
    const link = yield* links((st) => st.findPaymentLinkBySlug(slug))
    if (Option.isNone(link)) return Option.none()
    const merchant = yield* store((st) =>
      Domain.findById(Domain.MerchantId, link.value.merchantId, st.getMerchant)
    )
    if (Option.isNone(merchant)) return Option.none()
    return Option.some({ link: link.value, merchant: merchant.value })
  })

/** The form's body, refused past the panel's size limit. */
const readForm = (request: Request, max: number): Effect.Effect<URLSearchParams | undefined> =>
  Effect.promise(() => request.text().catch(() => "")).pipe(
    Effect.map((text) => (text.length > max ? undefined : new URLSearchParams(text)))
  )

const blank = (f: URLSearchParams, name: string) => {
  const v = f.get(name)?.trim() ?? ""
  return v === "" ? undefined : v
}

/** What the payer typed or the link fixes, or the reason it is refused. */
const amountOf = (link: PaymentLink.PaymentLink, f: URLSearchParams): Money.Cents | string => {
  if (link.amount !== null) return link.amount
  const typed = parseAmount(f.get("amount") ?? "")
  if (typeof typed !== "number" || !Number.isFinite(typed) || typed <= 0) return t.payAmountInvalid
  const cents = Math.round(typed * 100)
  if (Math.abs(cents - typed * 100) > 1e-6) return t.payAmountInvalid
  return PaymentLink.fits(link, Money.Cents(cents)) ? Money.Cents(cents) : t.payAmountOutside
}

const unavailableText = (claim: PaymentLink.Claim) => (claim === "missing" ? t.payNotFound : t.payUnavailable)

/** A link's charge, made once per idempotency key (the form's nonce). */
const linkCharge = (caller: Auth.Caller, key: string, body: Record<string, unknown>) =>
  Effect.flatMap(Engine.Engine, (e) =>
    lift(
      e.idempotency.run(
        caller,
        key,
        "link.pay",
        body,
        Effect.flatMap(Requests.decode(Requests.CreateCharge, e.config)(body), (input) =>
          e.charges.create(caller, input)
        )
      )
    )
  )

/** The first submission's charge page once it exists (up to 10 s), or an error page. */
const firstSubmission = (cfg: Config, nonce: string, chargePath: string) =>
  Effect.gen(function* () {
    for (let i = 0; i < 40; i++) {
      const done = yield* links((st) => st.findLinkCharge(nonce))
      if (Option.isSome(done)) return see(cfg, chargePath)
      yield* Effect.sleep("250 millis")
    }
    return message(cfg, 503, t.payError)
  })

/** What the form shows when the charge was refused as invalid. */
const refusalText = (error: Errors.PixgateError) =>
  error._tag === "ValidationError" && error.details?.some((d) => d.path === "clientDoc")
    ? `${t.payDoc}: ${error.message}`
    : error._tag === "ValidationError" && error.details?.some((d) => d.path === "amount")
      ? t.payAmountOutside
      : t.payError

/** Submits a link's form: one use, one charge per nonce, then the charge's page. */
const pay = (
  cfg: Config,
  request: Request,
  slug: string
): Effect.Effect<Response, Errors.PixgateError, Services> =>
  Effect.gen(function* () {
    const hit = yield* found(slug)
    if (Option.isNone(hit)) return message(cfg, 404, t.payNotFound)
    const { link, merchant } = hit.value
    const f = yield* readForm(request, cfg.maxBody)
    if (f === undefined) return message(cfg, 413, t.payError)
    const nonce = f.get("n") ?? ""
    if (!PaymentLink.isSlug(nonce))
      return answer(cfg, formPage(cfg, merchant.name, link, f, t.payFormExpired), 400)
    const chargePath = `${prefix}/${link.slug}/${nonce}`
    // The same submission again, after it finished: its charge.
    const earlier = yield* links((st) => st.findLinkCharge(nonce))
    if (Option.isSome(earlier))
      return earlier.value.linkId === link.id ? see(cfg, chargePath) : message(cfg, 404, t.payNotFound)
    const amount = amountOf(link, f)
    if (typeof amount === "string") return answer(cfg, formPage(cfg, merchant.name, link, f, amount), 422)
    const now = Date.now()
    const why = PaymentLink.unavailable(link, now)
    if (why !== undefined) return message(cfg, 410, unavailableText(why))

    const claim = yield* links((st) => st.claimPaymentLinkUse(link.id, now))
    if (claim !== "claimed") return message(cfg, 410, unavailableText(claim))
    const release = links((st) => st.releasePaymentLinkUse(link.id))
    const caller = { merchant, mode: link.mode, keyId: `panel:link:${link.id}` as const }
    const body = {
      amount: Money.toReais(amount),
      description: link.description,
      clientName: blank(f, "clientName"),
      clientDoc: blank(f, "clientDoc")
    }
    const made = yield* Effect.either(linkCharge(caller, `link:${link.id}:${nonce}`, body))
    if (made._tag === "Left") {
      const error = made.left
      // Refused outright (bad name or document, an amount past the maximum): the use comes back.
      // A second submission of the same form while the first is on its way: its use too, and the
      // first one's charge page once it exists. An unknown outcome keeps the use.
      if (error._tag === "Conflict") {
        yield* release
        return yield* firstSubmission(cfg, nonce, chargePath)
      }
      if (
        error._tag === "ValidationError" ||
        error._tag === "IdempotencyMismatch" ||
        error._tag === "InvalidJson"
      ) {
        yield* release
        return answer(cfg, formPage(cfg, merchant.name, link, f, refusalText(error)), 422)
      }
      // Any other refusal (4xx: live mode not enabled, a merchant not allowed) made no charge:
      // the use comes back. A 5xx may hide a charge the bank made: the use stays taken.
      const status = statusOf(error)
      if (status < 500) yield* release
      return message(cfg, status < 500 ? status : 502, t.payError)
    }
    const charge = made.right
    if (charge.replayed) yield* release
    const transactionId = String((charge.value as { readonly transactionId: unknown }).transactionId)
    yield* links((st) =>
      st.insertLinkCharge({ linkId: link.id, transactionId, ref: nonce, createdAt: now })
    ).pipe(Effect.catchAll((e) => (charge.replayed ? Effect.void : Effect.fail(e))))
    return see(cfg, chargePath)
  })

/** The charge a link made, by its reference. */
const chargeOf = (link: PaymentLink.PaymentLink, ref: string) =>
  Effect.gen(function* () {
    if (!PaymentLink.isSlug(ref)) return Option.none()
    const row = yield* links((st) => st.findLinkCharge(ref))
    if (Option.isNone(row) || row.value.linkId !== link.id) return Option.none()
    const tx = yield* store((st) =>
      Domain.findById(Domain.TransactionId, row.value.transactionId, st.getTransaction)
    )
    return Option.filter(tx, (x) => x.merchantId === link.merchantId)
  })

/** Answers one request under `/pay`. `client` is the client per the trusted proxies. */
export const handle = (
  cfg: Config,
  request: Request,
  url: URL,
  client: ClientAddress.Client,
  take: ReturnType<typeof PublicLimit.make>
): Effect.Effect<Response, never, Services> => {
  const path = url.pathname
  const method = request.method
  if (method === "GET" && path === `${prefix}/assets/panel.css`)
    return Effect.succeed(asset(Assets.css, "text/css"))
  if (method === "GET" && path === `${prefix}/assets/panel.js`)
    return Effect.succeed(asset(Assets.js, "text/javascript"))
  if (method === "GET" && path === `${prefix}/assets/brand.css` && cfg.brand.css !== "")
    return Effect.succeed(asset(cfg.brand.css, "text/css"))
  if (method === "GET" && path === `${prefix}/assets/logo.svg` && cfg.brand.logoSvg !== undefined)
    return Effect.succeed(asset(cfg.brand.logoSvg, "image/svg+xml"))
  const parts = path
    .slice(prefix.length)
    .split("/")
    .filter((p) => p !== "")
  const post = method === "POST"
  return Effect.gen(function* () {
    if (method !== "GET" && method !== "HEAD" && !post) return message(cfg, 405, t.payError)
    const wait = yield* take(post ? "create" : "read", client.address)
    if (wait > 0) return message(cfg, 429, t.payTooMany, wait)
    const [slug, ref, tail] = parts
    if (slug === undefined || parts.length > 3 || (tail !== undefined && tail !== "status"))
      return message(cfg, 404, t.payNotFound)
    if (post) return ref === undefined ? yield* pay(cfg, request, slug) : message(cfg, 405, t.payError)
    const hit = yield* found(slug)
    if (Option.isNone(hit)) return message(cfg, 404, t.payNotFound)
    const { link, merchant } = hit.value
    if (ref === undefined) {
      const why = PaymentLink.unavailable(link, Date.now())
      return why === undefined
        ? answer(cfg, formPage(cfg, merchant.name, link))
        : message(cfg, 410, unavailableText(why))
    }
    const tx = yield* chargeOf(link, ref)
    if (Option.isNone(tx)) return message(cfg, 404, t.payNotFound)
    if (tail === "status") {
      const plain: Record<string, string> = {}
      headers(cfg.brand).forEach((value, name) => {
        plain[name] = value
      })
      return LiveStatus.response(tx.value, plain)
    }
    return answer(cfg, chargePage(cfg, merchant.name, link, ref, tx.value))
  }).pipe(
    Effect.catchAll((error) =>
      Effect.as(
        Effect.logError("Payment page failed").pipe(
          Effect.annotateLogs({ method, path: `${prefix}/[slug]`, error: String(error) })
        ),
        message(cfg, error._tag === "StorageUnavailable" ? 503 : 500, t.payError)
      )
    )
  )
}
