/**
 * A route table compiled for dispatch: static paths in a Map, the few `:param` patterns in
 * match order (a static segment before a parameter, as the previous router tried them), and
 * the table's own answers: 410 for removed paths (every method), 405 with `Allow` for a known
 * path with another method (GET routes also answer HEAD), 404 otherwise. Paths match by the
 * rules of RoutePath (case-sensitive, duplicate and trailing slashes tolerated).
 */
import * as Respond from "./Respond.js"
import type * as Route from "./Route.js"
import * as RoutePath from "./RoutePath.js"

/** How a table is served. */
export interface RouterOptions {
  /** Paths (router syntax) answered with 410 for every method. */
  readonly removed?: ReadonlyArray<`/${string}`>
  /** A prefix the host does not strip, e.g. `/payments`; requests outside it get 404. */
  readonly basePath?: string
}

/** Where a request goes: a route, one of the table's refusals (405, 410), or nowhere (404). */
export type Match<R> =
  | { readonly _tag: "Route"; readonly route: Route.Route<R>; readonly params: Route.Params }
  | { readonly _tag: "Refused"; readonly answer: Respond.Answer }
  | { readonly _tag: "NotFound" }

/** A compiled route table. */
export interface Router<R> {
  /** The match of a request line (`url` as the host passes it, path and query). */
  readonly find: (method: string, url: string) => Match<R>
}

/** A base path in canonical form: `""` or `/segment...` without a trailing slash. */
export const normalizeBasePath = (basePath: string | undefined): string => {
  const trimmed = (basePath ?? "").trim().replace(/\/+$/, "")
  return trimmed === "" ? "" : trimmed.startsWith("/") ? trimmed : `/${trimmed}`
}

/** The path part of a request URL. */
export const pathOf = (url: string): string => {
  const at = url.indexOf("?")
  return at === -1 ? url : url.slice(0, at)
}

/** `url` without `basePath`, or undefined when it is outside it. */
export const stripBase = (url: string, basePath: string): string | undefined => {
  if (basePath === "") return url
  const path = pathOf(url)
  if (path !== basePath && !path.startsWith(`${basePath}/`)) return undefined
  const rest = url.slice(basePath.length)
  return rest.startsWith("/") ? rest : `/${rest}`
}

// The methods a removed path refuses and a known path names in a 405: those the previous router
// registered for "any method". Other extension methods get 404, as they did.
const knownMethods = new Set([
  "ACL",
  "BIND",
  "CHECKOUT",
  "CONNECT",
  "COPY",
  "DELETE",
  "GET",
  "HEAD",
  "LINK",
  "LOCK",
  "M-SEARCH",
  "MERGE",
  "MKACTIVITY",
  "MKCALENDAR",
  "MKCOL",
  "MOVE",
  "NOTIFY",
  "OPTIONS",
  "PATCH",
  "POST",
  "PROPFIND",
  "PROPPATCH",
  "PURGE",
  "PUT",
  "REBIND",
  "REPORT",
  "SEARCH",
  "SOURCE",
  "SUBSCRIBE",
  "TRACE",
  "UNBIND",
  "UNLINK",
  "UNLOCK",
  "UNSUBSCRIBE"
])

/** A parameter longer than this matches nothing. */
const maxParamLength = 2048

/** One path of the table: its routes by method, or a removed path. */
interface Entry<R> {
  readonly routes: Map<string, Route.Route<R>>
  readonly removed: boolean
  readonly notAllowed: Respond.Answer
}

/** What the table declares for one path, before compiling. */
interface Declared<R> {
  readonly routes: Map<string, Route.Route<R>>
  readonly allow: Array<string>
  readonly removed: boolean
}

/** A path with parameters: its segments, `:name` for a parameter. */
interface Pattern<R> {
  readonly entry: Entry<R>
  readonly segments: ReadonlyArray<string>
}

type Hit<R> = { readonly entry: Entry<R>; readonly params: Route.Params }

const isParam = (segment: string) => segment.charCodeAt(0) === 58

// Earlier segments decide first; a static segment goes before a parameter.
const byPrecedence = <R>(a: Pattern<R>, b: Pattern<R>): number => {
  for (let i = 0; i < Math.min(a.segments.length, b.segments.length); i++) {
    const order = Number(isParam(a.segments[i])) - Number(isParam(b.segments[i]))
    if (order !== 0) return order
  }
  return 0
}

const match = <R>(pattern: Pattern<R>, segments: ReadonlyArray<string>, decode: boolean) => {
  if (pattern.segments.length !== segments.length) return undefined
  const params: Record<string, string> = {}
  for (let i = 0; i < segments.length; i++) {
    const expected = pattern.segments[i]
    const segment = segments[i]
    if (isParam(expected)) params[expected.slice(1)] = decode ? RoutePath.decodeParam(segment) : segment
    else if (expected !== segment) return undefined
  }
  return params
}

/** Compiles a route table. */
export const make = <R>(routes: ReadonlyArray<Route.Route<R>>, options: RouterOptions = {}): Router<R> => {
  const paths = new Map<string, Declared<R>>()
  const at = (path: string, removed: boolean): Declared<R> => {
    const key = RoutePath.ofRoute(path)
    const found = paths.get(key) ?? { routes: new Map(), allow: [], removed }
    paths.set(key, found)
    return found
  }
  for (const route of routes) {
    const path = at(route.path, false)
    path.routes.set(route.method, route)
    path.allow.push(route.method, ...(route.method === "GET" ? ["HEAD"] : []))
  }
  for (const path of options.removed ?? []) at(path, true)

  const statics = new Map<string, Entry<R>>()
  const patterns: Array<Pattern<R>> = []
  for (const [path, { routes: byMethod, allow, removed }] of paths) {
    const entry = { routes: byMethod, removed, notAllowed: Respond.failure(Respond.methodNotAllowed(allow)) }
    const segments = path.split("/")
    if (segments.some(isParam)) patterns.push({ entry, segments })
    else statics.set(path, entry)
  }
  patterns.sort(byPrecedence)

  const lookup = (
    path: string,
    decode: boolean,
    accept: (entry: Entry<R>) => boolean
  ): Hit<R> | undefined => {
    const hit = statics.get(path)
    if (hit !== undefined && accept(hit)) return { entry: hit, params: {} }
    if (patterns.length === 0) return undefined
    const segments = path.split("/")
    for (const pattern of patterns) {
      if (!accept(pattern.entry)) continue
      const params = match(pattern, segments, decode)
      if (params === undefined) continue
      for (const name in params) if (params[name].length > maxParamLength) return undefined
      return { entry: pattern.entry, params }
    }
    return undefined
  }

  const basePath = normalizeBasePath(options.basePath)
  const gone = Respond.failure(Respond.endpointRemoved())
  const notFound: Match<R> = { _tag: "NotFound" }
  return {
    find: (method, url) => {
      const inside = stripBase(url, basePath)
      const canonical = inside === undefined ? undefined : RoutePath.canonical(inside)
      if (canonical === undefined) return notFound
      const { path, decodeParams } = canonical
      const known = knownMethods.has(method)
      let hit = lookup(path, decodeParams, (e) => (e.removed ? known : e.routes.has(method)))
      let served = method
      if (hit === undefined && method === "HEAD") {
        hit = lookup(path, decodeParams, (e) => e.removed || e.routes.has("GET"))
        served = "GET"
      }
      if (hit !== undefined) {
        if (hit.entry.removed) return { _tag: "Refused", answer: gone }
        const route = hit.entry.routes.get(served)
        if (route !== undefined) return { _tag: "Route", route, params: hit.params }
      }
      const other = known ? lookup(path, decodeParams, (e) => !e.removed) : undefined
      return other === undefined ? notFound : { _tag: "Refused", answer: other.entry.notAllowed }
    }
  }
}
