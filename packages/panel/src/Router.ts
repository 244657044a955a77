/**
 * The panel's router: request context, display switches, CSRF, sign-in, then dispatch by method
 * and path to the page modules (`pages/*.ts`), each handler an `Effect<Response, PanelError>`.
 *
 * A small Effect dispatcher rather than `@effect/platform`'s `HttpRouter`: the panel is mounted
 * by hosts as a web-standard `Request -> Response` function (`Panel.make`'s `webHandler` and
 * `nodeHandler`, embedded by `@pixgate/http` and by platforms directly) and depends on `effect`
 * only. Serving it through `HttpRouter` would make `@effect/platform` a dependency of every
 * embedder of the panel and route through a second request model (`HttpServerRequest`) only to
 * convert back to the web `Request` the pages read; the whole table is a dozen routes matched
 * on path segments, here.
 */
import { randomBytes } from "node:crypto"
import { Domain, Errors, PanelAccess } from "@pixgate/core"
import { Effect, Option } from "effect"
import {
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
import * as Account from "./pages/Account.js"
import * as Charges from "./pages/Charges.js"
import * as Detail from "./pages/Detail.js"
import * as Keys from "./pages/Keys.js"
import * as Overview from "./pages/Overview.js"
import * as Payouts from "./pages/Payouts.js"
import * as Refunds from "./pages/Refunds.js"
import * as Transactions from "./pages/Transactions.js"
import * as Webhooks from "./pages/Webhooks.js"

export type { Config } from "./Ctx.js"

/** A signed-in route: method, path pattern (its groups are the handler's parameters), handler. */
interface Route {
  readonly method: "GET" | "POST"
  readonly path: RegExp
  /** Only for the panel's own users (not when the platform signs people in). */
  readonly ownUsers?: true
  readonly handle: (s: Signed, params: ReadonlyArray<string>, fields: URLSearchParams) => Handler
}

const id = "([^/]+)"
const at = (pattern: string) => new RegExp(`^${pattern}$`)
const param = (params: ReadonlyArray<string>, i: number) => params[i] ?? ""

const routes: ReadonlyArray<Route> = [
  { method: "GET", path: at("/"), handle: (s) => Overview.overview(s) },
  { method: "GET", path: at("/transactions"), handle: (s) => Transactions.list(s) },
  { method: "GET", path: at("/transactions\\.csv"), handle: (s) => Transactions.csv(s) },
  { method: "GET", path: at(`/transactions/${id}`), handle: (s, p) => Detail.detail(s, param(p, 0)) },
  { method: "GET", path: at("/charges"), handle: (s) => Charges.page(s) },
  { method: "GET", path: at("/payouts"), handle: (s) => Payouts.page(s) },
  { method: "GET", path: at("/keys"), handle: (s) => Keys.page(s) },
  { method: "GET", path: at(`/keys/${id}/revoke`), handle: (s, p) => Keys.revokePage(s, param(p, 0)) },
  { method: "GET", path: at("/webhooks"), handle: (s) => Webhooks.page(s) },
  { method: "GET", path: at("/password"), ownUsers: true, handle: (s) => Account.passwordPage(s) },
  { method: "POST", path: at("/signout"), ownUsers: true, handle: (s) => Account.signOut(s) },
  { method: "POST", path: at("/charges"), handle: (s, _, f) => Charges.create(s, f) },
  {
    method: "POST",
    path: at(`/transactions/${id}/pay`),
    handle: (s, p, f) => Detail.payNow(s, param(p, 0), f)
  },
  {
    method: "POST",
    path: at(`/transactions/${id}/refunds/review`),
    handle: (s, p, f) => Refunds.review(s, param(p, 0), f)
  },
  {
    method: "POST",
    path: at(`/transactions/${id}/refunds`),
    handle: (s, p, f) => Refunds.create(s, param(p, 0), f)
  },
  {
    method: "POST",
    path: at(`/events/${id}/redeliver`),
    handle: (s, p, f) => Detail.redeliver(s, param(p, 0), f)
  },
  { method: "POST", path: at("/payouts/review"), handle: (s, _, f) => Payouts.review(s, f) },
  { method: "POST", path: at("/payouts"), handle: (s, _, f) => Payouts.create(s, f) },
  { method: "POST", path: at("/keys"), handle: (s) => Keys.create(s) },
  { method: "POST", path: at(`/keys/${id}/revoke`), handle: (s, p) => Keys.revoke(s, param(p, 0)) },
  { method: "POST", path: at("/webhooks"), handle: (s, _, f) => Webhooks.setWebhook(s, f) },
  { method: "POST", path: at("/webhooks/rotate"), handle: (s, _, f) => Webhooks.rotateSecret(s, f) },
  {
    method: "POST",
    path: at("/webhooks/signing-key"),
    handle: (s, _, f) => Webhooks.rotateSigningKey(s, f)
  },
  { method: "POST", path: at("/webhooks/test"), handle: (s) => Webhooks.testEvent(s) },
  { method: "POST", path: at("/password"), ownUsers: true, handle: (s, _, f) => Account.changePassword(s, f) }
]

/** The route for a signed-in request, with its path parameters. */
const find = (method: "GET" | "POST", path: string, ownUser: boolean) => {
  for (const route of routes) {
    if (route.method !== method || (route.ownUsers === true && !ownUser)) continue
    const match = route.path.exec(path)
    if (match !== null) return { route, params: match.slice(1) }
  }
  return undefined
}

/** The form body, refused past the configured size. */
const readForm = (ctx: Ctx): Effect.Effect<URLSearchParams, Errors.PixgateError> =>
  Effect.tryPromise({
    try: () => ctx.request.text(),
    catch: () => new Errors.PayloadTooLarge({ code: "too_large" })
  }).pipe(
    Effect.filterOrFail(
      (text) => text.length <= ctx.cfg.maxBody,
      () => new Errors.PayloadTooLarge({ code: "too_large" })
    ),
    Effect.map((text) => new URLSearchParams(text))
  )

/** Handles one request under the panel's base path (`path` is the part below it). */
export const handle = (cfg: Config, request: Request, url: URL, path: string, address: string): Handler =>
  Effect.gen(function* () {
    const jar = cookies(request)
    const lang: Lang = jar.get(cookieNames.lang) === "en" ? "en" : "pt-BR"
    const mode = jar.get(cookieNames.mode) === "live" ? "live" : "test"
    const secure =
      cfg.secureEnv ?? (url.protocol === "https:" || request.headers.get("x-forwarded-proto") === "https")
    const setCookies: Array<string> = []
    const given = jar.get(cookieNames.csrf) ?? ""
    const base: Ctx = { cfg, request, url, path, lang, t: words(lang), mode, csrf: given, secure, setCookies }
    const fresh = !/^[A-Za-z0-9_-]{32,64}$/.test(given)
    const csrf = fresh ? randomBytes(24).toString("base64url") : given
    if (fresh) setCookies.push(cookie(base, cookieNames.csrf, csrf))
    const ctx: Ctx = { ...base, csrf }
    const method = request.method
    if (method !== "GET" && method !== "HEAD" && method !== "POST")
      return respond(ctx, "Method not allowed", 405, "text/plain")

    // Display preferences: plain links, no server state changes.
    if (method === "GET" && (path === "/mode" || path === "/lang")) {
      const to = url.searchParams.get("to")
      const safeBack = safePath(url.searchParams.get("back"), "/")
      if (path === "/mode" && (to === "test" || to === "live"))
        setCookies.push(cookie(ctx, cookieNames.mode, to, 31_536_000))
      if (path === "/lang" && (to === "en" || to === "pt-BR"))
        setCookies.push(cookie(ctx, cookieNames.lang, to, 31_536_000))
      return redirect(ctx, safeBack)
    }

    const post = method === "POST"
    const fields = post ? yield* readForm(ctx) : new URLSearchParams()
    if (post) {
      const sent = fields.get("_csrf") ?? ""
      if (given === "" || !same(sent, given))
        return respond(
          ctx,
          bare(
            { base: cfg.base, lang },
            ctx.t.error,
            html`<p class="error" role="alert">${ctx.t.forbidden}</p>`
          ),
          403
        )
    }

    if (cfg.authenticate === undefined) {
      if (path === "/signin")
        return yield* post ? Account.signIn(ctx, fields, address) : Account.signInPage(ctx)
      const invite = /^\/invite\/([A-Za-z0-9]{20,80})$/.exec(path)?.[1]
      if (invite !== undefined)
        return yield* post ? Account.acceptInvite(ctx, invite, fields) : Account.invitePage(ctx, invite)
    }

    const signed = yield* signedIn(ctx)
    if (signed === undefined) {
      if (cfg.authenticate !== undefined)
        return respond(ctx, bare({ base: cfg.base, lang }, ctx.t.signIn, html`<p>401</p>`), 401)
      // Back to the same page after signing in: a GET page as it was asked for, a form's page
      // for a POST (its values are not kept); "expired" when a session cookie came with it.
      const back = Flows.safeNext(post ? Flows.pageOfPost(path) : `${path}${url.search}`)
      const query = new URLSearchParams()
      if (back !== undefined && back !== "/") query.set("next", back)
      if (jar.get(cookieNames.session) !== undefined) query.set("expired", "1")
      const rest = query.toString()
      return redirect(ctx, rest === "" ? "/signin" : `/signin?${rest}`)
    }
    const segments = path.split("/").filter((p) => p !== "")
    const found = find(post ? "POST" : "GET", `/${segments.join("/")}`, signed.user !== null)
    if (found === undefined) return notFound(signed)
    return yield* found.route.handle(signed, found.params, fields).pipe(
      Effect.catchIf(
        (error) => statusOf(error) === 404,
        () => Effect.succeed(notFound(signed))
      )
    )
  })

const notFound = (s: Signed) => respond(s, page(s.view, s.t.notFound, html`<p>${s.t.notFound}</p>`), 404)

/** Who the request acts for: the platform's hook, or the panel's own session cookie. */
const signedIn = (ctx: Ctx): Effect.Effect<Signed | undefined, PanelError, PanelServices> =>
  Effect.gen(function* () {
    const { cfg } = ctx
    const found = yield* cfg.authenticate === undefined ? session(ctx) : hook(ctx, cfg.authenticate)
    if (found === undefined) return undefined
    const { merchantId, user } = found
    const merchant = yield* store((st) => Domain.findById(Domain.MerchantId, merchantId, st.getMerchant))
    if (Option.isNone(merchant)) return undefined
    const m = merchant.value
    const view: View = {
      base: cfg.base,
      path: ctx.path,
      lang: ctx.lang,
      t: ctx.t,
      mode: ctx.mode,
      csrf: ctx.csrf,
      email: user?.email ?? null,
      merchantName: m.name
    }
    return {
      ...ctx,
      merchant: m,
      caller: { merchant: m, mode: ctx.mode, keyId: `panel:${user?.id ?? m.id}` },
      user,
      view
    }
  })

interface Who {
  readonly merchantId: string
  readonly user: PanelUser | null
}

const hook = (
  ctx: Ctx,
  authenticate: NonNullable<Config["authenticate"]>
): Effect.Effect<Who | undefined, PanelError> =>
  Effect.map(
    promise("authenticate", () => authenticate(ctx.request)),
    (merchantId) => (merchantId === null || merchantId === undefined ? undefined : { merchantId, user: null })
  )

const session = (ctx: Ctx): Effect.Effect<Who | undefined, PanelError, PanelServices> => {
  const raw = cookies(ctx.request).get(cookieNames.session)
  if (raw === undefined || !/^[A-Za-z0-9]{20,80}$/.test(raw)) return Effect.succeed(undefined)
  const hash = PanelAccess.hashToken(raw)
  return store((st) =>
    Effect.gen(function* () {
      const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
      const found = yield* st.touchPanelSession(hash, now, ctx.cfg.idleMs, 60_000)
      if (Option.isNone(found)) return undefined
      const u = yield* st.getPanelUser(found.value.userId)
      if (Option.isNone(u)) return undefined
      return {
        merchantId: found.value.merchantId,
        user: { id: u.value.id, email: u.value.email, sessionHash: hash }
      }
    })
  )
}
