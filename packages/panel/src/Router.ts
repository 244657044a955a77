/**
 * The panel's router: request context, display switches, the origin check and CSRF, sign-in, then
 * dispatch by method and path (the table in `Routes.ts`) to the page modules (`pages/*.ts`), each
 * handler an `Effect<Response, PanelError>`.
 *
 * A small Effect dispatcher rather than `@effect/platform`'s `HttpRouter`: the panel is mounted
 * by hosts as a web-standard `Request -> Response` function (`Panel.make`'s `webHandler` and
 * `nodeHandler`, embedded by `@pixgate/http` and by platforms directly) and depends on `effect`
 * only. Serving it through `HttpRouter` would make `@effect/platform` a dependency of every
 * embedder of the panel and route through a second request model (`HttpServerRequest`) only to
 * convert back to the web `Request` the pages read; the whole table is a dozen routes matched
 * on path segments, here.
 */
import { Domain, PanelRoles, PanelSessions } from "@pixgate/core"
import type { ClientAddress } from "@pixgate/core/node"
import { Effect, Option } from "effect"
import * as Csrf from "./Csrf.js"
import {
  access,
  type Config,
  type Ctx,
  cookie,
  cookieNames,
  cookies,
  type Handler,
  type PanelError,
  type PanelServices,
  type PanelUser,
  promise,
  redirect,
  respond,
  type Signed,
  safePath,
  same,
  statusOf,
  store
} from "./Ctx.js"
import * as Flows from "./Flows.js"
import { html } from "./Html.js"
import { type Lang, words } from "./I18n.js"
import { bare, page, type View } from "./Layout.js"
import * as Access from "./pages/Access.js"
import * as Account from "./pages/Account.js"
import { find } from "./Routes.js"
import { PayloadTooLarge } from "./Status.js"

export type { Config } from "./Ctx.js"

/** The form body, refused past the configured size. */
const readForm = (ctx: Ctx): Effect.Effect<URLSearchParams, PayloadTooLarge> =>
  Effect.tryPromise({
    try: () => ctx.request.text(),
    catch: () => new PayloadTooLarge()
  }).pipe(
    Effect.filterOrFail(
      (text) => text.length <= ctx.cfg.maxBody,
      () => new PayloadTooLarge()
    ),
    Effect.map((text) => new URLSearchParams(text))
  )

/** The refusal of a POST made from another site or origin (Csrf.foreign): nothing changes. */
const refusedForeign = (ctx: Ctx) =>
  respond(
    ctx,
    bare(
      { base: ctx.cfg.base, lang: ctx.lang, brand: ctx.cfg.brand },
      ctx.t.crossSiteTitle,
      html`<p class="error" role="alert" data-testid="cross-site">${ctx.t.crossSite}</p>`
    ),
    403
  )

/** The refusal of a form whose `_csrf` is missing or another session's. */
const refusedToken = (ctx: Ctx) =>
  respond(
    ctx,
    bare(
      { base: ctx.cfg.base, lang: ctx.lang, brand: ctx.cfg.brand },
      ctx.t.error,
      html`<p class="error" role="alert">${ctx.t.forbidden}</p>`
    ),
    403
  )

/** The request's context: language, mode, the client (per the trusted proxies), the pre-session CSRF cookie. */
const context = (
  cfg: Config,
  request: Request,
  url: URL,
  path: string,
  client: ClientAddress.Client
): Ctx => {
  const jar = cookies(request)
  const lang: Lang = jar.get(cookieNames.lang) === "en" ? "en" : "pt-BR"
  const given = jar.get(cookieNames.csrf) ?? ""
  const ctx: Ctx = {
    cfg,
    request,
    url,
    path,
    lang,
    t: words(lang),
    mode: jar.get(cookieNames.mode) === "live" ? "live" : "test",
    csrf: Csrf.wellFormed(given) ? given : Csrf.fresh(),
    // Cookies are marked Secure for any sign of HTTPS (an untrusted proxy's header included);
    // Strict-Transport-Security, in Panel.ts, only when the client's HTTPS is known.
    secure: cfg.secureEnv ?? (client.https || request.headers.get("x-forwarded-proto") === "https"),
    address: client.address,
    setCookies: []
  }
  if (ctx.csrf !== given) ctx.setCookies.push(cookie(ctx, cookieNames.csrf, ctx.csrf))
  return ctx
}

/**
 * Whether `sent` is a CSRF value of this browser before sign-in: the pre-session cookie's, or
 * the value of the session its cookie holds (a signed-in page's form posting to these pages).
 */
const preSessionToken = (ctx: Ctx, sent: string): boolean => {
  const jar = cookies(ctx.request)
  const given = jar.get(cookieNames.csrf) ?? ""
  const session = jar.get(cookieNames.session)
  return (
    sent !== "" &&
    ((given !== "" && same(sent, given)) || (session !== undefined && same(sent, Csrf.ofSession(session))))
  )
}

/** Sign-in, reset and invite pages: before any session, their forms carry the pre-session cookie's value. */
const beforeSignIn = (ctx: Ctx, post: boolean, fields: URLSearchParams): Handler | undefined => {
  const { path } = ctx
  const reset = /^\/reset\/([A-Za-z0-9]{20,80})$/.exec(path)?.[1]
  const invite = /^\/invite\/([A-Za-z0-9]{20,80})$/.exec(path)?.[1]
  if (path !== "/signin" && reset === undefined && invite === undefined) return undefined
  if (post && !preSessionToken(ctx, fields.get("_csrf") ?? "")) return Effect.succeed(refusedToken(ctx))
  if (reset !== undefined) return post ? Access.acceptReset(ctx, reset, fields) : Access.resetPage(ctx, reset)
  if (invite !== undefined)
    return post ? Account.acceptInvite(ctx, invite, fields) : Account.invitePage(ctx, invite)
  return post ? Account.signIn(ctx, fields) : Account.signInPage(ctx)
}

/** Where a request that is not signed in goes: 401 under a platform's sign-in, else the sign-in page. */
const notSignedIn = (ctx: Ctx, post: boolean): Response => {
  const { cfg, url, path } = ctx
  if (cfg.authenticate !== undefined)
    return respond(
      ctx,
      bare({ base: cfg.base, lang: ctx.lang, brand: cfg.brand }, ctx.t.signIn, html`<p>401</p>`),
      401
    )
  // Back to the same page after signing in: a GET page as it was asked for, a form's page
  // for a POST (its values are not kept); "expired" when a session cookie came with it.
  const back = Flows.safeNext(post ? Flows.pageOfPost(path) : `${path}${url.search}`)
  const query = new URLSearchParams()
  if (back !== undefined && back !== "/") query.set("next", back)
  if (cookies(ctx.request).get(cookieNames.session) !== undefined) query.set("expired", "1")
  const rest = query.toString()
  return redirect(ctx, rest === "" ? "/signin" : `/signin?${rest}`)
}

/**
 * Handles one request under the panel's base path (`path` is the part below it) from `client`
 * (the trusted proxies already read): display switches, the origin check of every POST, the
 * pages before sign-in, then the session (or the platform's hook), its CSRF value, and the route.
 */
export const handle = (
  cfg: Config,
  request: Request,
  url: URL,
  path: string,
  client: ClientAddress.Client
): Handler =>
  Effect.gen(function* () {
    const ctx = context(cfg, request, url, path, client)
    const method = request.method
    if (method !== "GET" && method !== "HEAD" && method !== "POST")
      return respond(ctx, "Method not allowed", 405, "text/plain")

    // Display preferences: plain links, no server state changes.
    if (method === "GET" && (path === "/mode" || path === "/lang")) {
      const to = url.searchParams.get("to")
      const safeBack = safePath(url.searchParams.get("back"), "/")
      if (path === "/mode" && (to === "test" || to === "live"))
        ctx.setCookies.push(cookie(ctx, cookieNames.mode, to, 31_536_000))
      if (path === "/lang" && (to === "en" || to === "pt-BR"))
        ctx.setCookies.push(cookie(ctx, cookieNames.lang, to, 31_536_000))
      return redirect(ctx, safeBack)
    }

    const post = method === "POST"
    if (post && Csrf.foreign(request, client.host, client.https)) return refusedForeign(ctx)
    const fields = post ? yield* readForm(ctx) : new URLSearchParams()
    const open = cfg.authenticate === undefined ? beforeSignIn(ctx, post, fields) : undefined
    if (open !== undefined) return yield* open

    const signed = yield* signedIn(ctx)
    if (signed === undefined) return notSignedIn(ctx, post)
    if (post && !same(fields.get("_csrf") ?? "", signed.csrf)) return refusedToken(signed)
    return yield* dispatch(signed, post, fields)
  })

/** A signed-in request: the second step first, then the route, its role, second factor and audit. */
const dispatch = (signed: Signed, post: boolean, fields: URLSearchParams): Handler =>
  Effect.gen(function* () {
    const { cfg } = signed
    const clean = `/${signed.path
      .split("/")
      .filter((p) => p !== "")
      .join("/")}`
    const user = signed.user
    // The second step at sign-in: a user with a second factor passes it before anything else.
    if (user?.enrolled && user.secondFactorAt === null) {
      if (clean === "/signin/2fa")
        return yield* post ? Access.secondStep(signed, fields) : Access.secondStepPage(signed)
      if (!(post && clean === "/signout")) return redirect(signed, "/signin/2fa")
    }
    if (clean === "/signin/2fa") return redirect(signed, "/")
    const found = find(post ? "POST" : "GET", clean, user !== null)
    if (found === undefined) return notFound(signed)
    const { route } = found
    const role = user?.role ?? "owner"
    if (!PanelRoles.can(role, route.need ?? "read")) return forbidden(signed, signed.t.forbiddenRole)
    if (
      post &&
      user !== null &&
      signed.mode === "live" &&
      cfg.requireSecondFactor &&
      route.need !== undefined &&
      PanelRoles.needsSecondFactorLive.has(route.need) &&
      user.secondFactorAt === null
    )
      return forbidden(
        signed,
        user.enrolled ? signed.t.twoFactorRequired : signed.t.twoFactorEnrolFirst,
        true
      )
    const response = yield* route.handle(signed, found.params, fields).pipe(
      Effect.catchIf(
        (error) => statusOf(error) === 404,
        () => Effect.succeed(notFound(signed))
      )
    )
    const location = response.headers.get("location") ?? ""
    // An action is recorded once, when it happens: not for the first POST of a confirmed action
    // (it only shows the confirmation page), nor for a repeated form (it changed nothing).
    const happened =
      response.status < 400 &&
      (route.confirmed !== true || fields.get("confirm") === "yes") &&
      new URL(location, "http://panel.invalid").searchParams.get("done") !== "formRepeated"
    if (post && route.audit !== undefined && happened) {
      const redirected = /\/(tx_[A-Za-z0-9]+|key_[A-Za-z0-9]+)(?:[/?]|$)/.exec(location)?.[1]
      const objectId = found.params[0] ?? redirected ?? null
      yield* Access.record(signed, signed.merchant.id, user, route.audit, objectId, signed.mode)
    }
    return response
  })

/** 403: the role does not allow the action, or a live action needs the second factor. */
const forbidden = (s: Signed, message: string, secondFactor = false) =>
  respond(
    s,
    page(
      s.view,
      s.t.error,
      html`<p class="error" role="alert" data-testid="forbidden">${message}</p>${
        secondFactor ? html`<p><a class="button" href="${s.cfg.base}/security">${s.t.security}</a></p>` : ""
      }`
    ),
    403
  )

const notFound = (s: Signed) => respond(s, page(s.view, s.t.notFound, html`<p>${s.t.notFound}</p>`), 404)

/** Who the request acts for: the platform's hook, or the panel's own session cookie. */
const signedIn = (ctx: Ctx): Effect.Effect<Signed | undefined, PanelError, PanelServices> =>
  Effect.gen(function* () {
    const { cfg } = ctx
    const found = yield* cfg.authenticate === undefined ? session(ctx) : hook(ctx, cfg.authenticate)
    if (found === undefined) return undefined
    const { merchantId, user, csrf } = found
    const merchant = yield* store((st) => Domain.findById(Domain.MerchantId, merchantId, st.getMerchant))
    if (Option.isNone(merchant)) return undefined
    const m = merchant.value
    const view: View = {
      base: cfg.base,
      path: ctx.path,
      lang: ctx.lang,
      t: ctx.t,
      mode: ctx.mode,
      csrf,
      email: user?.email ?? null,
      merchantName: m.name,
      brand: cfg.brand,
      role: user?.role ?? null
    }
    return {
      ...ctx,
      csrf,
      merchant: m,
      caller: { merchant: m, mode: ctx.mode, keyId: `panel:${user?.id ?? m.id}` },
      user,
      view
    }
  })

interface Who {
  readonly merchantId: string
  readonly user: PanelUser | null
  /** The `_csrf` value of the request's forms: the session's, or the pre-session cookie's under a platform. */
  readonly csrf: string
}

const hook = (
  ctx: Ctx,
  authenticate: NonNullable<Config["authenticate"]>
): Effect.Effect<Who | undefined, PanelError> =>
  Effect.map(
    promise("authenticate", () => authenticate(ctx.request)),
    (merchantId) =>
      merchantId === null || merchantId === undefined ? undefined : { merchantId, user: null, csrf: ctx.csrf }
  )

/** The panel's own session: core opens it from the cookie's token; its CSRF value derives from that token. */
const session = (ctx: Ctx): Effect.Effect<Who | undefined, PanelError, PanelServices> => {
  const token = cookies(ctx.request).get(cookieNames.session)
  if (token === undefined) return Effect.succeed(undefined)
  return Effect.map(access(PanelSessions.open(token, ctx.cfg.idleMs)), (found) =>
    Option.isNone(found)
      ? undefined
      : { merchantId: found.value.merchantId, user: found.value, csrf: Csrf.ofSession(token) }
  )
}
