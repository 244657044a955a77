/**
 * What every page handler works with: the request's context (`Ctx`, and `Signed` once someone
 * is signed in), the panel's typed errors, and the helpers that answer (HTML, redirects) and
 * reach the engine. Handlers are effects `Effect<Response, PanelError, PanelServices>`; engine
 * and store failures arrive as the engine's own tagged errors (a store failure as
 * `StorageUnavailable`), anything the host or node:crypto throws as `PanelFailure`.
 */
import { timingSafeEqual } from "node:crypto"
import {
  type Audit,
  type Auth,
  type Domain,
  Engine,
  Errors,
  type PanelSessions,
  type Passwords,
  type SignInThrottle,
  Store
} from "@pixgate/core"
import type { ClientAddress } from "@pixgate/core/node"
import { Data, Effect } from "effect"
import type { Brand } from "./Brand.js"
import { type Html, html, type Part } from "./Html.js"
import { type Dictionary, type Lang, label, money, time, utcTitle } from "./I18n.js"
import { securityHeaders, type View } from "./Layout.js"
import * as Messages from "./Messages.js"
import { statusOf as httpStatus, PayloadTooLarge } from "./Status.js"

/** Services the panel runs on (the embedding host's runtime). */
export type PanelServices = Engine.Engine | Store.Store

/** Services the pages run on: the host's, and the panel's own passwords (scrypt and zxcvbn-ts). */
export type PageServices = PanelServices | Passwords.Passwords

/** A failure outside the engine: the host's `authenticate` hook, password hashing. Answered 500. */
export class PanelFailure extends Data.TaggedError("PanelFailure")<{
  readonly reason: string
  readonly cause: unknown
}> {}

/** What a page handler can fail with. */
export type PanelError = Errors.PixgateError | PayloadTooLarge | PanelFailure

/** A page handler's effect. */
export type Handler = Effect.Effect<Response, PanelError, PageServices>

/** What the router needs from `Panel.make`. */
export interface Config {
  readonly base: string
  readonly maxBody: number
  readonly authenticate:
    | ((request: Request) => Promise<string | null | undefined> | string | null | undefined)
    | undefined
  readonly secureEnv: boolean | undefined
  readonly idleMs: number
  readonly maxMs: number
  /** The embedding platform's white-label options (`Brand.none` without them). */
  readonly brand: Brand
  /** Sign-in throttling limits (counts in the store). */
  readonly throttle: SignInThrottle.Limits
  /** Live payouts, refunds, keys and webhook changes ask for the second factor (default true). */
  readonly requireSecondFactor: boolean
  /** The issuer shown by authenticator apps. */
  readonly issuer: string
  /** Which proxies are trusted to report the client (`trustProxy`). */
  readonly trust: ClientAddress.Trust
}

export const cookieNames = {
  session: "pixgate_session",
  csrf: "pixgate_csrf",
  mode: "pixgate_mode",
  lang: "pixgate_lang"
} as const

/** One request under the panel's base path. */
export interface Ctx {
  readonly cfg: Config
  readonly request: Request
  readonly url: URL
  readonly path: string
  readonly lang: Lang
  readonly t: Dictionary
  readonly mode: "test" | "live"
  /** The `_csrf` value of this request's forms: the session's, or the pre-session cookie's (Csrf). */
  readonly csrf: string
  /** Cookies are marked `Secure`. */
  readonly secure: boolean
  /** The client's address per the trusted proxies (for the throttle, sessions and audit), or "unknown". */
  readonly address: string
  /** Cookies the answer sets (appended as the request goes). */
  readonly setCookies: Array<string>
}

/** A signed-in panel user (null when the embedding platform signs people in). */
export type PanelUser = PanelSessions.SessionUser

/** A request with someone signed in for a merchant. */
export interface Signed extends Ctx {
  readonly merchant: Domain.Merchant
  readonly caller: Auth.Caller
  readonly user: PanelUser | null
  readonly view: View
}

/** Who a request comes from, for core's access operations. */
export const clientOf = (ctx: Ctx): Audit.Client => ({
  address: ctx.address === "unknown" ? null : ctx.address,
  userAgent: ctx.request.headers.get("user-agent")
})

/** Parsed cookies of a request. */
export const cookies = (request: Request): ReadonlyMap<string, string> => {
  const out = new Map<string, string>()
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const at = part.indexOf("=")
    if (at < 0) continue
    const name = part.slice(0, at).trim()
    try {
      if (!out.has(name)) out.set(name, decodeURIComponent(part.slice(at + 1).trim()))
    } catch {
      // An unreadable cookie is no cookie.
    }
  }
  return out
}

/** Constant-time equality of two strings. */
export const same = (a: string, b: string): boolean => {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

/** A path under the panel to return to: no scheme-relative or backslash tricks. */
export const safePath = (path: string | null, fallback: string): string =>
  path !== null && /^\/(?![/\\])[^\s\\]*$/.test(path) ? path : fallback

export const cookie = (ctx: Ctx, name: string, value: string, maxAgeS?: number) =>
  `${name}=${encodeURIComponent(value)}; Path=${ctx.cfg.base || "/"}; HttpOnly; SameSite=Lax${
    ctx.secure ? "; Secure" : ""
  }${maxAgeS === undefined ? "" : `; Max-Age=${maxAgeS}`}`

/** Sets a cookie on the answer, in place of one of that name set earlier in the same request. */
export const setCookie = (ctx: Ctx, name: string, value: string, maxAgeS?: number) => {
  const kept = ctx.setCookies.filter((c) => !c.startsWith(`${name}=`))
  ctx.setCookies.splice(0, ctx.setCookies.length, ...kept, cookie(ctx, name, value, maxAgeS))
}

/** An answer with the security headers and the cookies set so far. */
export const respond = (
  ctx: Ctx,
  body: Html | string,
  status = 200,
  type = "text/html; charset=utf-8"
): Response => {
  const headers = new Headers({ ...securityHeaders, "content-type": type })
  for (const c of ctx.setCookies) headers.append("set-cookie", c)
  return new Response(typeof body === "string" ? body : body.text, { status, headers })
}

/** A 303 to a path under the panel, with an optional `done` notice. */
export const redirect = (ctx: Ctx, path: string, done?: keyof Dictionary): Response => {
  const headers = new Headers({
    ...securityHeaders,
    location: `${ctx.cfg.base}${path}${done ? `${path.includes("?") ? "&" : "?"}done=${done}` : ""}`
  })
  for (const c of ctx.setCookies) headers.append("set-cookie", c)
  return new Response(null, { status: 303, headers })
}

/** The notice named by the `done` query parameter, if it is one of the dictionary's. */
export const notice = (ctx: Ctx): Part => {
  const done = ctx.url.searchParams.get("done")
  return done !== null && done in ctx.t
    ? html`<p class="notice" role="status">${ctx.t[done as keyof Dictionary]}</p>`
    : ""
}

/**
 * An engine error as an alert box in the page's language: the catalogue's text of its code
 * (`Messages`), and one line per field at fault when there are several; never the engine's
 * English message.
 */
export const errorBox = (error: unknown, lang: Lang): Html => {
  if (error instanceof PayloadTooLarge)
    return html`<div class="error" role="alert" data-code="${error.code}"><p>${Messages.forCode(lang, "too_large") ?? "413"}</p></div>`
  if (!Errors.isPixgateError(error))
    return html`<div class="error" role="alert">${lang === "en" ? "Error" : "Erro"}</div>`
  const lines = Messages.detailLines(lang, error)
  return html`<div class="error" role="alert" data-code="${error.code}"><p>${Messages.errorMessage(lang, error)}</p>${
    lines.length > 1 || error.code === "invalid_query" || error.code === "invalid_field"
      ? html`<ul>${lines.map((line) => html`<li>${line}</li>`)}</ul>`
      : ""
  }</div>`
}

/** The HTTP status of an error (the one table in Status.ts). */
export const statusOf = (error: unknown): number => httpStatus(error)

/** The page's status: the engine's error's, 200 without one. */
export const pageStatus = (error: unknown): number => (error === undefined ? 200 : httpStatus(error))

/** A status; given the transaction's type, in agreement with it ("Cobrança paga", "Saque concluído"). */
export const status = (ctx: Ctx, s: string, type?: string) =>
  html`<span class="status-${s}">${type === undefined ? label(ctx.lang, s) : Messages.statusLabel(ctx.lang, type, s)}</span>`

export const when = (ctx: Ctx, ms: number | null) =>
  ms === null
    ? "—"
    : html`<time datetime="${new Date(ms).toISOString()}" title="${utcTitle(ms)}">${time(ctx.lang, ms)}</time>`

export const brl = (ctx: Ctx, cents: number) => money(ctx.lang, cents)

/** An engine or store effect with a store failure turned into the engine's `StorageUnavailable`. */
export const lift = <A, R>(
  effect: Effect.Effect<A, Errors.PixgateError | Store.StoreError, R>
): Effect.Effect<A, Errors.PixgateError, R> =>
  Effect.catchTag(effect, "StoreError", () => Effect.fail(Errors.unavailable()))

/**
 * A core access operation (`PanelSessions`, `PanelPasswords`, `PanelSecondFactor`, `Audit`, on
 * `PanelStore`) over the host's store, a store failure as the engine's `StorageUnavailable`.
 */
export const access = <A, E extends Errors.PixgateError, R>(
  effect: Effect.Effect<A, E | Store.StoreError, R>
): Effect.Effect<A, E | Errors.PixgateError, Exclude<R, Store.PanelStore> | Store.Store> =>
  lift(Effect.provideServiceEffect(effect, Store.PanelStore, Store.Store))

/** An engine operation. */
export const engine = <A>(
  f: (e: Engine.EngineShape) => Effect.Effect<A, Errors.PixgateError | Store.StoreError>
): Effect.Effect<A, Errors.PixgateError, Engine.Engine> => lift(Effect.flatMap(Engine.Engine, f))

/** A store read or write. */
export const store = <A>(
  f: (st: Store.StoreShape) => Effect.Effect<A, Store.StoreError>
): Effect.Effect<A, Errors.PixgateError, Store.Store> => lift(Effect.flatMap(Store.Store, f))

/** A promise from outside the engine (the host's hook, node:crypto) as an effect. */
export const promise = <A>(reason: string, f: () => PromiseLike<A> | A): Effect.Effect<A, PanelError> =>
  Effect.tryPromise({
    try: async () => f(),
    catch: (cause) => (Errors.isPixgateError(cause) ? cause : new PanelFailure({ reason, cause }))
  })

/** A form field's text, or undefined when blank. */
export const textField = (f: URLSearchParams, name: string) => {
  const v = f.get(name)
  return v === null || v.trim() === "" ? undefined : v
}
