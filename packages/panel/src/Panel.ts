/**
 * The merchant panel as a web-standard handler (`Request -> Response`) plus a Node adapter, on
 * the engine's runtime: every page calls the engine's services (charges, payouts, transactions,
 * admin operations) and the store port, never a second set of rules.
 *
 * Sign-in is either the panel's own (e-mail and scrypt password, sessions through the store
 * port) or the embedding platform's `authenticate(request)` hook.
 */
import type { IncomingMessage, ServerResponse } from "node:http"
import { Readable, Transform } from "node:stream"
import { Errors, Passwords, type Store } from "@pixgate/core"
import { ClientAddress } from "@pixgate/core/node"
import { Cause, Effect, Exit, Option, Runtime } from "effect"
import * as Assets from "./Assets.js"
import * as Brand from "./Brand.js"
import type { PanelServices } from "./Ctx.js"
import { Html } from "./Html.js"
import { type Lang, words } from "./I18n.js"
import { cspWith, securityHeaders } from "./Layout.js"
import * as Messages from "./Messages.js"
import * as Password from "./Password.js"
import * as PublicLimit from "./PublicLimit.js"
import * as PublicPay from "./PublicPay.js"
import * as Router from "./Router.js"
import { isAnswered, PayloadTooLarge, type Statuses, statusOf, use } from "./Status.js"
import { limits, type ThrottleOptions } from "./Throttle.js"

export { cookies, type PanelServices, same } from "./Ctx.js"

/** How an embedding platform or the standalone server mounts the panel. */
export interface PanelOptions {
  /**
   * The path prefix of the panel in the URLs it receives and the links it writes, e.g. `/panel`
   * (default). Under Express's `app.use("/panel", handler)` the prefix is read from `originalUrl`.
   */
  readonly basePath?: string
  /**
   * The platform's own sign-in: the merchant id the request acts for, or null when nobody is
   * signed in (401). With it, the panel's e-mail/password sign-in is off.
   */
  readonly authenticate?: (request: Request) => Promise<string | null | undefined> | string | null | undefined
  /**
   * Mark cookies `Secure`. Default: the environment's `PIXGATE_SECURE_COOKIES=true`, or the request
   * arrived over HTTPS (its URL, or `X-Forwarded-Proto: https` from a proxy).
   */
  readonly secureCookies?: boolean
  /**
   * The proxies trusted to report the client, as Express's `trust proxy` (`@pixgate/core/node`
   * `ClientAddress`): `true`, a number of hops, or addresses and CIDRs (`"loopback, 10.0.0.0/8"`).
   * Their `X-Forwarded-For` gives the client's address (sign-in throttle, sessions, audit log)
   * and their `X-Forwarded-Proto: https` sends `Strict-Transport-Security`. Default: none, the
   * connection's peer is the client.
   */
  readonly trustProxy?: ClientAddress.TrustProxy
  /** Session lifetime without activity (default 30 minutes). */
  readonly sessionIdleMs?: number
  /** Session lifetime whatever the activity (default 12 hours). */
  readonly sessionMaxMs?: number
  /**
   * Sign-in throttling, counted in the store and shared by every instance (default: 5 failures
   * of one account from one client address, 20 from one address, in 15 minutes; never an
   * account-wide lock: failures from everywhere only slow the account's answers).
   */
  readonly throttle?: ThrottleOptions
  /**
   * Live-mode payouts, refunds, API keys and webhook changes ask for the user's second factor
   * (TOTP). Default true, or the environment's `PIXGATE_PANEL_REQUIRE_2FA=false`. Not asked when
   * the platform signs people in (`authenticate`).
   */
  readonly requireSecondFactor?: boolean
  /** The name authenticator apps show for the panel's codes (default "Pixgate"). */
  readonly issuer?: string
  /** Largest form body in bytes (default 64 KiB). */
  readonly maxBodySize?: number
  /**
   * White-label options for a platform that embeds the panel: product name, logo (URL, path or
   * inline SVG), primary colour (a CSS colour in hex, `rgb()` or `hsl()` notation) and support
   * link. Checked here: a bad value throws a `TypeError` naming it.
   */
  readonly brand?: Brand.BrandOptions
}

/** Handlers of the panel. */
export interface PanelHandlers {
  /**
   * Web-standard hosts; `address` is the connection's peer (the client, or the proxy in front of
   * it: `trustProxy` says which proxies' `X-Forwarded-For` to read).
   */
  readonly webHandler: (request: Request, info?: { readonly address?: string }) => Promise<Response>
  /** node:http, Express, Connect. */
  readonly nodeHandler: (req: IncomingMessage, res: ServerResponse) => void
  /** Whether a request path belongs to the panel (`basePath` or below). */
  readonly matches: (path: string) => boolean
}

/** Runs engine effects (a store failure as the engine's `StorageUnavailable`). */
export type Run = <A>(
  effect: Effect.Effect<A, Errors.PixgateError | Store.StoreError, PanelServices>
) => Promise<A>

/** Normalizes a base path: "" or "/x/y" (no trailing slash). */
export const normalizeBasePath = (path: string | undefined): string => {
  const trimmed = (path ?? "/panel").trim().replace(/\/+$/, "")
  if (trimmed === "") return ""
  if (!/^\/[A-Za-z0-9._~\-/]*$/.test(trimmed) || trimmed.includes("//"))
    throw new TypeError(`Pixgate panel: invalid basePath ${path}`)
  return trimmed
}

/** The router's settings from the panel's options. */
const routerConfig = (options: PanelOptions, base: string, brand: Brand.Brand, maxBody: number) => {
  return {
    base,
    maxBody,
    authenticate: options.authenticate,
    secureEnv:
      options.secureCookies ??
      (globalThis.process?.env?.PIXGATE_SECURE_COOKIES === "true" ? true : undefined),
    idleMs: options.sessionIdleMs ?? 30 * 60_000,
    maxMs: options.sessionMaxMs ?? 12 * 3_600_000,
    throttle: limits(options.throttle),
    requireSecondFactor:
      options.requireSecondFactor ?? globalThis.process?.env?.PIXGATE_PANEL_REQUIRE_2FA !== "false",
    issuer: options.issuer ?? "Pixgate",
    brand,
    trust: ClientAddress.compile(options.trustProxy)
  } satisfies Router.Config
}

/** The panel's static files (GET): its style and script, and the brand's style and logo. */
const assetOf = (sub: string, brand: Brand.Brand): Response | undefined => {
  if (sub === "/assets/panel.css") return asset(Assets.css, "text/css")
  if (sub === "/assets/panel.js") return asset(Assets.js, "text/javascript")
  if (sub === "/assets/brand.css" && brand.css !== "") return asset(brand.css, "text/css")
  if (sub === "/assets/logo.svg" && brand.logoSvg !== undefined) return asset(brand.logoSvg, "image/svg+xml")
  return undefined
}

/** The Node handler over `webHandler`: a Node request as a web request, the web answer written back. */
const nodeHandlerOf =
  (
    maxBody: number,
    webHandler: (request: Request, info?: { readonly address?: string }) => Promise<Response>
  ) =>
  (req: IncomingMessage, res: ServerResponse) => {
    const host = req.headers.host ?? "localhost"
    const path = (req as { originalUrl?: string }).originalUrl ?? req.url ?? "/"
    const declared = Number(req.headers["content-length"] ?? 0)
    if (declared > maxBody) {
      res.writeHead(413, { "content-type": "text/plain; charset=utf-8" }).end("Request body too large")
      req.resume()
      return
    }
    const headers = new Headers()
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined) continue
      for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v)
    }
    const hasBody = req.method !== "GET" && req.method !== "HEAD"
    const controller = new AbortController()
    res.on("close", () => controller.abort())
    const tls = "encrypted" in req.socket && req.socket.encrypted === true
    const request = new Request(`${tls ? "https" : "http"}://${host}${path}`, {
      method: req.method ?? "GET",
      headers,
      signal: controller.signal,
      ...(hasBody ? { body: Readable.toWeb(limited(req, maxBody)) as ReadableStream, duplex: "half" } : {})
    } as RequestInit)
    const peer = req.socket.remoteAddress
    void webHandler(request, peer === undefined ? {} : { address: peer }).then(
      async (response) => {
        const out: Record<string, string | Array<string>> = {}
        response.headers.forEach((value, name) => {
          if (name !== "set-cookie") out[name] = value
        })
        const setCookies = response.headers.getSetCookie()
        if (setCookies.length > 0) out["set-cookie"] = setCookies
        res.writeHead(response.status, out)
        if (response.body === null) return void res.end()
        Readable.fromWeb(response.body as import("node:stream/web").ReadableStream)
          .on("error", () => res.destroy())
          .pipe(res)
      },
      () => {
        if (!res.headersSent) res.writeHead(500).end()
        else res.destroy()
      }
    )
  }

/**
 * The panel's handlers. `statuses` is the HTTP contract's status of each error (`@pixgate/http`
 * `Status.all`, which `@pixgate/http/node` passes): the panel answers an error with it.
 */
export const make = (
  runtime: Runtime.Runtime<PanelServices>,
  options: PanelOptions,
  statuses: Statuses
): PanelHandlers => {
  use(statuses)
  const base = normalizeBasePath(options.basePath)
  const brand = Brand.make(options.brand, base)
  const maxBody = options.maxBodySize ?? 64 * 1024
  const runExit = Runtime.runPromiseExit(runtime)
  const config = routerConfig(options, base, brand, maxBody)
  const passwords = Password.make()
  const warnForwarded = forwardedWarning(runtime)

  // A logo on another origin: the pages' policy allows images from it too.
  const policy = brand.imageOrigin === undefined ? undefined : cspWith({ imageOrigin: brand.imageOrigin })
  const withBrand = (response: Response): Response => {
    if (policy !== undefined && response.headers.has("content-security-policy"))
      response.headers.set("content-security-policy", policy)
    return response
  }

  const matches = (path: string) =>
    base === "" || path === base || path.startsWith(`${base}/`) || PublicPay.matches(path)
  // The payment links' public pages, at /pay on the host's root (outside the panel's cookies' path).
  const publicConfig: PublicPay.Config = { brand, maxBody }
  const publicLimit = PublicLimit.make()

  const webHandler = async (request: Request, info?: { readonly address?: string }): Promise<Response> => {
    const url = new URL(request.url)
    const seen = {
      peer: info?.address,
      encrypted: url.protocol === "https:",
      header: (name: string) => request.headers.get(name) ?? undefined
    }
    if (ClientAddress.ignoresForwarded(config.trust, seen)) warnForwarded()
    const client = ClientAddress.of(config.trust, seen)
    const answer = PublicPay.matches(url.pathname)
      ? await Runtime.runPromise(runtime)(PublicPay.handle(publicConfig, request, url, client, publicLimit))
      : await serve(request, url, client)
    // Over HTTPS (directly, or per a trusted proxy): browsers keep to HTTPS for a year.
    if (client.https) answer.headers.set("strict-transport-security", hsts)
    return answer
  }

  const serve = async (request: Request, url: URL, client: ClientAddress.Client): Promise<Response> => {
    const sub = url.pathname.slice(base.length) || "/"
    const file = request.method === "GET" ? assetOf(sub, brand) : undefined
    if (file !== undefined) return file
    const exit = await runExit(
      Router.handle(config, request, url, sub, client).pipe(
        Effect.provideService(Passwords.Passwords, passwords)
      )
    )
    if (Exit.isSuccess(exit)) return withBrand(exit.value)
    const failed = Cause.failureOption(exit.cause)
    const error = Option.isSome(failed)
      ? failed.value._tag === "PanelFailure"
        ? failed.value.cause
        : failed.value
      : Cause.squash(exit.cause)
    if (!isAnswered(error)) {
      // The path without an invite's token; never a body (it may hold passwords or secrets).
      const path = url.pathname.replace(/\/invite\/[^/]+/, "/invite/[token]")
      void Runtime.runPromise(runtime)(
        Effect.logError("Panel request failed").pipe(
          Effect.annotateLogs({ method: request.method, path, error: String(error) })
        )
      )
    }
    return failure(error)
  }

  const nodeHandler = nodeHandlerOf(maxBody, webHandler)

  return { webHandler, nodeHandler, matches }
}

/** `Strict-Transport-Security` of answers to HTTPS requests: a year, subdomains included. */
export const hsts = "max-age=31536000; includeSubDomains"

/**
 * Warns once that requests carry `X-Forwarded-For` from a peer that is not a trusted proxy: every
 * client behind that proxy then shares its address for the sign-in throttle and the audit log.
 */
const forwardedWarning = (runtime: Runtime.Runtime<PanelServices>) => {
  let warned = false
  return () => {
    if (warned) return
    warned = true
    void Runtime.runPromise(runtime)(
      Effect.logWarning(
        "Panel requests carry X-Forwarded-For from a proxy that is not trusted: every client behind it " +
          "shares its address for the sign-in throttle and the audit log (set trustProxy, or PIXGATE_TRUST_PROXY)"
      )
    )
  }
}

/** The request's body, failing once it passes `max` bytes (chunked bodies declare no length). */
const limited = (req: IncomingMessage, max: number): Readable => {
  let seen = 0
  const out = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length
      done(seen > max ? new RangeError("Request body too large") : null, chunk)
    }
  })
  req.on("error", (error) => out.destroy(error))
  return req.pipe(out)
}

const asset = (body: string, type: string) =>
  new Response(body, {
    headers: {
      ...securityHeaders,
      "content-type": `${type}; charset=utf-8`,
      "cache-control": "public, max-age=300"
    }
  })

const failure = (error: unknown): Response => {
  const lang: Lang = "pt-BR"
  const status = statusOf(error)
  const message = Errors.isPixgateError(error)
    ? Messages.errorMessage(lang, error)
    : error instanceof PayloadTooLarge
      ? (Messages.forCode(lang, "too_large") ?? "413")
      : words(lang).error
  const body = new Html(
    `<!doctype html><html lang="pt-BR"><head><meta charset="utf-8"><title>${status}</title></head><body><main><h1>${status}</h1><p>${message.replace(/[<>&"]/g, "")}</p></main></body></html>`
  )
  return new Response(body.text, {
    status,
    headers: { ...securityHeaders, "content-type": "text/html; charset=utf-8" }
  })
}
