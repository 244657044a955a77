/**
 * What every page handler works with: the request's context (`Ctx`, and `Signed` once someone
 * is signed in), the panel's typed errors, and the helpers that answer (HTML, redirects) and
 * reach the engine. Handlers are effects `Effect<Response, PanelError, PanelServices>`; engine
 * and store failures arrive as the engine's own tagged errors (a store failure as
 * `StorageUnavailable`), anything the host or node:crypto throws as `PanelFailure`.
 */
import { timingSafeEqual } from "node:crypto"
import { type Auth, type Domain, Engine, Errors, Store } from "@pixgate/core"
import { Data, Effect } from "effect"
import { type Html, html, type Part } from "./Html.js"
import { type Dictionary, type Lang, label, money, time } from "./I18n.js"
import { securityHeaders, type View } from "./Layout.js"
import { statusOf as httpStatus } from "./Status.js"
import type { Throttle } from "./Throttle.js"

/** Services the panel runs on. */
export type PanelServices = Engine.Engine | Store.Store

/** A failure outside the engine: the host's `authenticate` hook, password hashing. Answered 500. */
export class PanelFailure extends Data.TaggedError("PanelFailure")<{
  readonly reason: string
  readonly cause: unknown
}> {}

/** What a page handler can fail with. */
export type PanelError = Errors.PixgateError | PanelFailure

/** A page handler's effect. */
export type Handler = Effect.Effect<Response, PanelError, PanelServices>

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
  readonly throttle: Throttle
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
  readonly csrf: string
  readonly secure: boolean
  /** Cookies the answer sets (appended as the request goes). */
  readonly setCookies: Array<string>
}

/** A signed-in panel user (null when the embedding platform signs people in). */
export interface PanelUser {
  readonly id: string
  readonly email: string
  readonly sessionHash: string
}

/** A request with someone signed in for a merchant. */
export interface Signed extends Ctx {
  readonly merchant: Domain.Merchant
  readonly caller: Auth.Caller
  readonly user: PanelUser | null
  readonly view: View
}

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

/** An engine error as an alert box (its details listed when there are several). */
export const errorBox = (error: unknown): Html =>
  html`<div class="error" role="alert">${
    Errors.isPixgateError(error)
      ? html`<p>${error.message}</p>${
          "details" in error && error.details && error.details.length > 1
            ? html`<ul>${error.details.map((d) => html`<li>${d.path}: ${d.message}</li>`)}</ul>`
            : ""
        }`
      : "Error"
  }</div>`

/** The HTTP status of an error (the one table in Status.ts). */
export const statusOf = (error: unknown): number => httpStatus(error)

/** The page's status: the engine's error's, 200 without one. */
export const pageStatus = (error: unknown): number => (error === undefined ? 200 : httpStatus(error))

export const status = (ctx: Ctx, s: string) => html`<span class="status-${s}">${label(ctx.lang, s)}</span>`

export const when = (ctx: Ctx, ms: number | null) =>
  ms === null
    ? "—"
    : html`<time datetime="${new Date(ms).toISOString()}" title="${new Date(ms).toISOString()}">${time(ctx.lang, ms)}</time>`

export const brl = (ctx: Ctx, cents: number) => money(ctx.lang, cents)

/** An engine or store effect with a store failure turned into the engine's `StorageUnavailable`. */
export const lift = <A, R>(
  effect: Effect.Effect<A, Errors.PixgateError | Store.StoreError, R>
): Effect.Effect<A, Errors.PixgateError, R> =>
  Effect.catchTag(effect, "StoreError", () => Effect.fail(Errors.unavailable()))

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
