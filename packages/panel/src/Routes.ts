/** The panel's routes: authentication, CSRF, then each page and action. */
import { randomBytes } from "node:crypto"
import {
  type Auth,
  Domain,
  DueDate,
  Engine,
  Errors,
  Fees,
  Money,
  PanelAccess,
  QrImage,
  type Refunds,
  Requests,
  SigningKeys,
  Store,
  Views,
  WebhookSignature
} from "@pixgate/core"
import { Effect, Either, Option } from "effect"
import * as Chart from "./Chart.js"
import { type Html, html, type Part } from "./Html.js"
import {
  calendarDay,
  type Dictionary,
  day,
  type Lang,
  label,
  money,
  parseAmount,
  time,
  words
} from "./I18n.js"
import { bare, csrfField, page, securityHeaders, type View } from "./Layout.js"
import { cookies, type Run, same } from "./Panel.js"
import * as Password from "./Password.js"
import { statusOf as httpStatus, PayloadTooLarge } from "./Status.js"
import type { Throttle } from "./Throttle.js"

/** What the routes need from `Panel.make`. */
export interface Config {
  readonly base: string
  readonly maxBody: number
  readonly run: Run
  readonly authenticate:
    | ((request: Request) => Promise<string | null | undefined> | string | null | undefined)
    | undefined
  readonly secureEnv: boolean | undefined
  readonly idleMs: number
  readonly maxMs: number
  readonly throttle: Throttle
}

const cookieNames = {
  session: "pixgate_session",
  csrf: "pixgate_csrf",
  mode: "pixgate_mode",
  lang: "pixgate_lang"
} as const

interface Ctx {
  readonly cfg: Config
  readonly request: Request
  readonly url: URL
  readonly path: string
  readonly lang: Lang
  readonly t: Dictionary
  readonly mode: "test" | "live"
  readonly csrf: string
  readonly secure: boolean
  readonly setCookies: Array<string>
}

interface Signed extends Ctx {
  readonly merchant: Domain.Merchant
  readonly caller: Auth.Caller
  readonly user: { readonly id: string; readonly email: string; readonly sessionHash: string } | null
  readonly view: View
}

/** A path under the panel to return to: no scheme-relative or backslash tricks. */
const safePath = (path: string | null, fallback: string): string =>
  path !== null && /^\/(?![/\\])[^\s\\]*$/.test(path) ? path : fallback

const cookie = (ctx: Ctx, name: string, value: string, maxAgeS?: number) =>
  `${name}=${encodeURIComponent(value)}; Path=${ctx.cfg.base || "/"}; HttpOnly; SameSite=Lax${
    ctx.secure ? "; Secure" : ""
  }${maxAgeS === undefined ? "" : `; Max-Age=${maxAgeS}`}`

const respond = (ctx: Ctx, body: Html | string, status = 200, type = "text/html; charset=utf-8") => {
  const headers = new Headers({ ...securityHeaders, "content-type": type })
  for (const c of ctx.setCookies) headers.append("set-cookie", c)
  return new Response(typeof body === "string" ? body : body.text, { status, headers })
}

const redirect = (ctx: Ctx, path: string, done?: keyof Dictionary) => {
  const headers = new Headers({
    ...securityHeaders,
    location: `${ctx.cfg.base}${path}${done ? `${path.includes("?") ? "&" : "?"}done=${done}` : ""}`
  })
  for (const c of ctx.setCookies) headers.append("set-cookie", c)
  return new Response(null, { status: 303, headers })
}

const form = async (ctx: Ctx): Promise<URLSearchParams> => {
  const text = await ctx.request.text().catch(() => {
    throw new PayloadTooLarge()
  })
  if (text.length > ctx.cfg.maxBody) throw new PayloadTooLarge()
  return new URLSearchParams(text)
}

const notice = (ctx: Ctx): Part => {
  const done = ctx.url.searchParams.get("done")
  return done !== null && done in ctx.t
    ? html`<p class="notice" role="status">${ctx.t[done as keyof Dictionary]}</p>`
    : ""
}

const errorBox = (error: unknown): Html =>
  html`<div class="error" role="alert">${
    Errors.isPixgateError(error)
      ? html`<p>${error.message}</p>${
          "details" in error && error.details && error.details.length > 1
            ? html`<ul>${error.details.map((d) => html`<li>${d.path}: ${d.message}</li>`)}</ul>`
            : ""
        }`
      : "Error"
  }</div>`

/** The page's status: the engine's error's, 200 without one. */
const statusOf = (error: unknown): number => (error === undefined ? 200 : httpStatus(error))

const status = (ctx: Ctx, s: string) => html`<span class="status-${s}">${label(ctx.lang, s)}</span>`
const when = (ctx: Ctx, ms: number | null) =>
  ms === null
    ? "—"
    : html`<time datetime="${new Date(ms).toISOString()}" title="${new Date(ms).toISOString()}">${time(ctx.lang, ms)}</time>`
const brl = (ctx: Ctx, cents: number) => money(ctx.lang, cents)

/** Handles one request under the panel's base path. */
export const handle = async (
  cfg: Config,
  request: Request,
  url: URL,
  path: string,
  address: string
): Promise<Response> => {
  const jar = cookies(request)
  const lang: Lang = jar.get(cookieNames.lang) === "en" ? "en" : "pt-BR"
  const mode = jar.get(cookieNames.mode) === "live" ? "live" : "test"
  const secure =
    cfg.secureEnv ?? (url.protocol === "https:" || request.headers.get("x-forwarded-proto") === "https")
  const setCookies: Array<string> = []
  let csrf = jar.get(cookieNames.csrf) ?? ""
  const base: Ctx = { cfg, request, url, path, lang, t: words(lang), mode, csrf, secure, setCookies }
  if (!/^[A-Za-z0-9_-]{32,64}$/.test(csrf)) {
    csrf = randomBytes(24).toString("base64url")
    setCookies.push(cookie(base, cookieNames.csrf, csrf))
  }
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

  let fields: URLSearchParams | undefined
  if (method === "POST") {
    fields = await form(ctx)
    const sent = fields.get("_csrf") ?? ""
    const expected = jar.get(cookieNames.csrf) ?? ""
    if (expected === "" || !same(sent, expected))
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
    if (path === "/signin") return method === "POST" ? signIn(ctx, fields!, address) : signInPage(ctx)
    const invite = /^\/invite\/([A-Za-z0-9]{20,80})$/.exec(path)
    if (invite !== null)
      return method === "POST" ? acceptInvite(ctx, invite[1]!, fields!) : invitePage(ctx, invite[1]!)
  }

  const signed = await signedIn(ctx)
  if (signed === undefined) {
    if (cfg.authenticate !== undefined)
      return respond(ctx, bare({ base: cfg.base, lang }, ctx.t.signIn, html`<p>401</p>`), 401)
    return redirect(ctx, "/signin")
  }
  const s = signed
  const segments = path.split("/").filter((p) => p !== "")
  const [a, b, c] = segments
  try {
    if (method === "GET" || method === "HEAD") {
      if (segments.length === 0) return await overview(s)
      if (a === "transactions" && b === undefined) return await transactions(s)
      if (a === "transactions.csv" && b === undefined) return await csv(s)
      if (a === "transactions" && b !== undefined && c === undefined) return await detail(s, b)
      if (a === "charges" && b === undefined) return await chargesPage(s)
      if (a === "payouts" && b === undefined) return await payoutsPage(s)
      if (a === "keys" && b === undefined) return await keysPage(s)
      if (a === "keys" && b !== undefined && c === "revoke") return await revokePage(s, b)
      if (a === "webhooks" && b === undefined) return await webhooksPage(s)
      if (a === "password" && s.user !== null) return passwordPage(s)
    } else {
      const f = fields!
      if (a === "signout" && s.user !== null) return await signOut(s)
      if (a === "charges" && b === undefined) return await createCharge(s, f)
      if (a === "transactions" && b !== undefined && c === "pay") return await payNow(s, b, f)
      if (a === "transactions" && b !== undefined && c === "refunds" && segments[3] === "review")
        return await reviewRefund(s, b, f)
      if (a === "transactions" && b !== undefined && c === "refunds" && segments.length === 3)
        return await createRefund(s, b, f)
      if (a === "events" && b !== undefined && c === "redeliver") return await redeliver(s, b, f)
      if (a === "payouts" && b === "review") return await reviewPayout(s, f)
      if (a === "payouts" && b === undefined) return await createPayout(s, f)
      if (a === "keys" && b === undefined) return await createKey(s)
      if (a === "keys" && b !== undefined && c === "revoke") return await revokeKey(s, b)
      if (a === "webhooks" && b === undefined) return await setWebhook(s, f)
      if (a === "webhooks" && b === "rotate") return await rotateSecret(s)
      if (a === "webhooks" && b === "signing-key") return await rotateSigningKey(s, f)
      if (a === "webhooks" && b === "test") return await testEvent(s)
      if (a === "password" && s.user !== null) return await changePassword(s, f)
    }
    return notFound(s)
  } catch (error) {
    if (httpStatus(error) === 404) return notFound(s)
    throw error
  }
}

const notFound = (s: Signed) => respond(s, page(s.view, s.t.notFound, html`<p>${s.t.notFound}</p>`), 404)

// ---- Sign-in, sessions, invites, password ----

const signedIn = async (ctx: Ctx): Promise<Signed | undefined> => {
  const { cfg } = ctx
  let merchantId: string | null | undefined
  let user: Signed["user"] = null
  if (cfg.authenticate !== undefined) {
    merchantId = await cfg.authenticate(ctx.request)
  } else {
    const raw = cookies(ctx.request).get(cookieNames.session)
    if (raw === undefined || !/^[A-Za-z0-9]{20,80}$/.test(raw)) return undefined
    const hash = PanelAccess.hashToken(raw)
    const found = await cfg.run(
      Effect.gen(function* () {
        const store = yield* Store.Store
        const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
        const session = yield* store.touchPanelSession(hash, now, cfg.idleMs, 60_000)
        if (Option.isNone(session)) return undefined
        const u = yield* store.getPanelUser(session.value.userId)
        return Option.isNone(u) ? undefined : { session: session.value, user: u.value }
      })
    )
    if (found === undefined) return undefined
    merchantId = found.session.merchantId
    user = { id: found.user.id, email: found.user.email, sessionHash: hash }
  }
  if (merchantId === null || merchantId === undefined) return undefined
  const merchant = await cfg.run(
    Effect.flatMap(Store.Store, (store) => Domain.findById(Domain.MerchantId, merchantId, store.getMerchant))
  )
  if (Option.isNone(merchant)) return undefined
  const m = merchant.value
  const caller: Auth.Caller = {
    merchant: m,
    mode: ctx.mode,
    keyId: `panel:${user?.id ?? m.id}`
  }
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
  return { ...ctx, merchant: m, caller, user, view }
}

const signInForm = (ctx: Ctx, email: string, error?: string) =>
  bare(
    { base: ctx.cfg.base, lang: ctx.lang },
    ctx.t.signIn,
    html`${error ? html`<p class="error" role="alert">${error}</p>` : ""}
<form class="stack" method="post" action="${ctx.cfg.base}/signin">${csrfField(ctx)}
<div><label for="email">${ctx.t.email}</label><input id="email" name="email" type="email" autocomplete="username" required value="${email}"></div>
<div><label for="password">${ctx.t.passwordLabel}</label><input id="password" name="password" type="password" autocomplete="current-password" required></div>
<div><button type="submit">${ctx.t.signIn}</button></div>
</form>
<p><a href="${ctx.cfg.base}/lang?to=${ctx.lang === "en" ? "pt-BR" : "en"}&amp;back=%2Fsignin">${ctx.lang === "en" ? "Português" : "English"}</a></p>`
  )

const signInPage = (ctx: Ctx) => respond(ctx, signInForm(ctx, ""))

const startSession = async (ctx: Ctx, user: Domain.PanelUser) => {
  const token = PanelAccess.newToken()
  await ctx.cfg.run(
    Effect.gen(function* () {
      const store = yield* Store.Store
      const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
      yield* store.createPanelSession({
        idHash: PanelAccess.hashToken(token),
        userId: user.id,
        merchantId: user.merchantId,
        createdAt: now,
        lastSeenAt: now,
        expiresAt: now + ctx.cfg.maxMs,
        revokedAt: null
      })
    })
  )
  ctx.setCookies.push(cookie(ctx, cookieNames.session, token, Math.floor(ctx.cfg.maxMs / 1000)))
}

const signIn = async (ctx: Ctx, f: URLSearchParams, address: string) => {
  const email = PanelAccess.normalizeEmail(f.get("email")) ?? ""
  const password = f.get("password") ?? ""
  const now = Date.now()
  if (!ctx.cfg.throttle.allowed(email, address, now))
    return respond(ctx, signInForm(ctx, email, ctx.t.tooMany), 429)
  const user =
    email === ""
      ? Option.none()
      : await ctx.cfg.run(Effect.flatMap(Store.Store, (s) => s.findPanelUser(email)))
  const stored = Option.isSome(user) ? user.value.passwordHash : null
  // The same work whether or not the account exists.
  const ok = (await Password.verify(password, stored ?? Password.decoy)) && stored !== null
  if (!ok || Option.isNone(user)) {
    ctx.cfg.throttle.fail(email, address, now)
    return respond(ctx, signInForm(ctx, email, ctx.t.wrongPassword), 401)
  }
  ctx.cfg.throttle.succeed(email)
  await startSession(ctx, user.value)
  return redirect(ctx, "/")
}

const signOut = async (s: Signed) => {
  const hash = s.user?.sessionHash
  if (hash !== undefined)
    await s.cfg.run(Effect.flatMap(Store.Store, (store) => store.revokePanelSession(hash, Date.now())))
  s.setCookies.push(cookie(s, cookieNames.session, "", 0))
  return redirect(s, "/signin")
}

const passwordField = (ctx: Ctx) =>
  html`<div><label for="new-password">${ctx.t.newPassword} <span class="hint">(${ctx.t.passwordRule})</span></label><input id="new-password" name="password" type="password" autocomplete="new-password" minlength="${Password.limits.min}" maxlength="${Password.limits.max}" required></div>`

const invitePage = (ctx: Ctx, token: string, error?: string, status = 200) =>
  respond(
    ctx,
    bare(
      { base: ctx.cfg.base, lang: ctx.lang },
      ctx.t.setPassword,
      html`${error ? html`<p class="error" role="alert">${error}</p>` : ""}
<form class="stack" method="post" action="${ctx.cfg.base}/invite/${token}">${csrfField(ctx)}
${passwordField(ctx)}
<div><button type="submit">${ctx.t.setPassword}</button></div>
</form>`
    ),
    status
  )

const validPassword = (p: string) => p.length >= Password.limits.min && p.length <= Password.limits.max

const acceptInvite = async (ctx: Ctx, token: string, f: URLSearchParams) => {
  const password = f.get("password") ?? ""
  if (!validPassword(password)) return invitePage(ctx, token, ctx.t.passwordRule, 422)
  const hashed = await Password.hash(password)
  const user = await ctx.cfg.run(
    Effect.flatMap(Store.Store, (store) =>
      store.usePanelInvite(PanelAccess.hashToken(token), hashed, Date.now())
    )
  )
  if (Option.isNone(user)) return invitePage(ctx, token, ctx.t.inviteInvalid, 410)
  await startSession(ctx, user.value)
  return redirect(ctx, "/")
}

const passwordPage = (s: Signed, error?: string, status = 200) =>
  respond(
    s,
    page(
      s.view,
      s.t.changePassword,
      html`${error ? html`<p class="error" role="alert">${error}</p>` : ""}
<form class="stack" method="post" action="${s.cfg.base}/password">${csrfField(s)}
<div><label for="current-password">${s.t.currentPassword}</label><input id="current-password" name="current" type="password" autocomplete="current-password" required></div>
${passwordField(s)}
<div><button type="submit">${s.t.changePassword}</button></div>
</form>`,
      notice(s)
    ),
    status
  )

const changePassword = async (s: Signed, f: URLSearchParams) => {
  const user = s.user!
  const stored = await s.cfg.run(Effect.flatMap(Store.Store, (store) => store.getPanelUser(user.id)))
  const hash = Option.isSome(stored) ? stored.value.passwordHash : null
  if (hash === null || !(await Password.verify(f.get("current") ?? "", hash)))
    return passwordPage(s, s.t.wrongPassword, 422)
  const next = f.get("password") ?? ""
  if (!validPassword(next)) return passwordPage(s, s.t.passwordRule, 422)
  const hashed = await Password.hash(next)
  await s.cfg.run(
    Effect.flatMap(Store.Store, (store) =>
      store.setPanelPassword(user.id, hashed, Date.now(), user.sessionHash)
    )
  )
  return redirect(s, "/password", "passwordChanged")
}

// ---- Reads shared by pages ----

const engine = <A>(
  s: Signed,
  f: (e: Engine.EngineShape) => Effect.Effect<A, Errors.PixgateError | Store.StoreError>
) => s.cfg.run(Effect.flatMap(Engine.Engine, f))

const store = <A>(s: Signed, f: (st: Store.StoreShape) => Effect.Effect<A, Store.StoreError>) =>
  s.cfg.run(Effect.flatMap(Store.Store, f))

/** Every transaction of the query, page by page (newest first), bounded by `to`. */
const allTransactions = (
  query: Omit<Store.TransactionQuery, "offset" | "limit">
): Effect.Effect<ReadonlyArray<Domain.Transaction>, Store.StoreError, Store.Store> =>
  Effect.gen(function* () {
    const st = yield* Store.Store
    const out: Array<Domain.Transaction> = []
    for (let offset = 0; ; offset += 500) {
      const page = yield* st.listTransactions({ ...query, offset, limit: 500 })
      out.push(...page.rows)
      if (page.rows.length < 500) return out
    }
  })

const ownTransaction = async (s: Signed, id: string) => {
  const tx = await store(s, (st) => Domain.findById(Domain.TransactionId, id, st.getTransaction))
  if (Option.isNone(tx) || tx.value.merchantId !== s.merchant.id) throw Errors.notFound("Transaction")
  return tx.value
}

// ---- Overview ----

const overview = async (s: Signed) => {
  const now = Date.now()
  const start = now - 29 * 86_400_000
  const firstDay = Requests.parseDay(day(start)) ?? start
  const { balance, pending, recent } = await s.cfg.run(
    Effect.gen(function* () {
      const st = yield* Store.Store
      const balance = yield* st.balance(s.merchant.id, s.mode)
      const pending = yield* allTransactions({
        merchantId: s.merchant.id,
        mode: s.mode,
        type: "deposit",
        status: "pending"
      })
      // A day of margin before São Paulo's first day, filtered by day below.
      const recent = yield* allTransactions({
        merchantId: s.merchant.id,
        mode: s.mode,
        from: firstDay - 86_400_000
      })
      return { balance, pending, recent }
    })
  )
  const days = new Map<string, { received: number; sent: number; fees: number }>()
  for (let i = 29; i >= 0; i--) days.set(day(now - i * 86_400_000), { received: 0, sent: 0, fees: 0 })
  for (const tx of recent) {
    const bucket = days.get(day(tx.createdAt))
    if (bucket === undefined || tx.status !== "completed") continue
    if (tx.type === "deposit") bucket.received += tx.amount
    if (tx.type === "withdrawal") bucket.sent += tx.amount
    bucket.fees += tx.feeAmount
  }
  const series: ReadonlyArray<Chart.Day> = [...days].map(([d, v]) => ({ day: d, ...v }))
  const health = await endpointStatus(s)
  const pendingSum = pending.reduce((sum, tx) => sum + tx.amount, 0)
  const total = (k: "received" | "sent" | "fees") => series.reduce((sum, d) => sum + d[k], 0)
  const body = html`${failingBanner(s, health, true)}
<section class="cards" aria-label="${s.t.available}">
<div class="card"><div>${s.t.available}</div><div class="value" data-testid="available">${brl(s, balance.available)}</div></div>
<div class="card"><div>${s.t.pending}</div><div class="value" data-testid="pending">${brl(s, pendingSum)}</div></div>
<div class="card"><div>${s.t.held}</div><div class="value" data-testid="held">${brl(s, balance.held)}</div></div>
</section>
<h2 id="chart-heading">${s.t.last30}</h2>
<figure class="chart" aria-labelledby="chart-heading">
${Chart.svg(series, s.t.chart, (c) => brl(s, c))}
<figcaption><ul class="legend">
<li><span class="swatch s-received" aria-hidden="true"></span>${s.t.received}: <span data-testid="total-received">${brl(s, total("received"))}</span></li>
<li><span class="swatch s-sent" aria-hidden="true"></span>${s.t.sent}: <span data-testid="total-sent">${brl(s, total("sent"))}</span></li>
<li><span class="swatch s-fees" aria-hidden="true"></span>${s.t.fees}: <span data-testid="total-fees">${brl(s, total("fees"))}</span></li>
</ul></figcaption>
</figure>
<details><summary>${s.t.details}</summary><div class="table-wrap"><table>
<thead><tr><th scope="col">${s.t.time}</th><th scope="col" class="num">${s.t.received}</th><th scope="col" class="num">${s.t.sent}</th><th scope="col" class="num">${s.t.fees}</th></tr></thead>
<tbody>${series.map((d) => html`<tr><td>${d.day}</td><td class="num">${brl(s, d.received)}</td><td class="num">${brl(s, d.sent)}</td><td class="num">${brl(s, d.fees)}</td></tr>`)}</tbody>
</table></div></details>`
  return respond(s, page(s.view, s.t.overview, body, notice(s)))
}

// ---- Transactions ----

const listParams = (url: URL): typeof Requests.ListTransactionsQuery.Encoded => {
  const get = (k: string) => url.searchParams.get(k) ?? undefined
  return {
    page: get("page"),
    limit: get("limit"),
    type: get("type"),
    status: get("status"),
    startDate: get("startDate"),
    endDate: get("endDate")
  }
}

const txTable = (s: Signed, rows: ReadonlyArray<Views.TransactionJson>) =>
  rows.length === 0
    ? html`<p>${s.t.none}</p>`
    : html`<div class="table-wrap"><table data-testid="transactions">
<thead><tr><th scope="col">${s.t.id}</th><th scope="col">${s.t.type}</th><th scope="col">${s.t.status}</th><th scope="col" class="num">${s.t.amount}</th><th scope="col" class="num">${s.t.fee}</th><th scope="col">${s.t.dueDate}</th><th scope="col">${s.t.created}</th></tr></thead>
<tbody>${rows.map(
        (r) =>
          html`<tr data-id="${r.id}"><td><a class="mono" href="${s.cfg.base}/transactions/${r.id}">${r.id}</a></td><td>${label(s.lang, r.type)}</td><td>${status(s, r.status)}</td><td class="num">${brl(s, Math.round(r.amount * 100))}${
            r.amountDue === undefined
              ? ""
              : html`<br><span class="hint" data-testid="amount-due">${s.t.dueToday}: ${brl(s, Math.round(r.amountDue * 100))}</span>`
          }</td><td class="num">${brl(s, Math.round(r.feeAmount * 100))}</td><td>${dueCell(s, r)}</td><td>${when(s, Date.parse(r.createdAt))}</td></tr>`
      )}</tbody></table></div>`

/** A due-date charge's due date and last payable day in the list; a dash for other transactions. */
const dueCell = (s: Signed, r: Views.TransactionJson) =>
  r.dueDate === undefined
    ? "—"
    : html`<span data-testid="due-date">${calendarDay(s.lang, r.dueDate)}</span>${
        r.payableUntil === undefined
          ? ""
          : html`<br><span class="hint" data-testid="payable-until">${s.t.payableUntil} ${calendarDay(s.lang, r.payableUntil)}</span>`
      }`

/**
 * What a pending due-date charge asks for today (São Paulo) and how: the original amount less
 * abatement and discount, plus fine and interest (the parts that are not zero).
 */
const dueToday = (s: Signed, tx: Domain.Transaction, terms: DueDate.DueTerms): Part => {
  const due = DueDate.amountDueAt(tx.amount, terms, Date.now())
  const parts: ReadonlyArray<readonly [string, string, number]> = [
    ["−", s.t.dueAbatement, due.abatement],
    ["−", s.t.dueDiscount, due.discount],
    ["+", s.t.dueFine, due.fine],
    ["+", s.t.dueInterest, due.interest]
  ]
  const shown = parts.filter(([, , cents]) => cents > 0)
  return html`<span data-testid="due-today">${brl(s, due.total)}</span>${
    shown.length === 0
      ? ""
      : html` <span class="hint" data-testid="due-breakdown">(${s.t.dueOriginal} ${brl(s, due.original)}${shown.map(
          ([sign, name, cents]) => ` ${sign} ${name} ${brl(s, cents)}`
        )})</span>`
  }`
}

const select = (
  id: string,
  name: string,
  text: string,
  values: ReadonlyArray<string>,
  current: string | null,
  s: Signed
) =>
  html`<div><label for="${id}">${text}</label><select id="${id}" name="${name}"><option value="">${s.t.any}</option>${values.map(
    (v) => html`<option value="${v}"${v === current ? html` selected` : ""}>${label(s.lang, v)}</option>`
  )}</select></div>`

const transactions = async (s: Signed) => {
  const params = listParams(s.url)
  const q = s.url.searchParams
  const filters = html`<form class="filters" method="get" action="${s.cfg.base}/transactions">
${select("f-type", "type", s.t.type, Domain.transactionTypes, q.get("type"), s)}
${select("f-status", "status", s.t.status, Domain.transactionStatuses, q.get("status"), s)}
<div><label for="f-start">${s.t.from}</label><input id="f-start" name="startDate" type="date" value="${q.get("startDate") ?? ""}"></div>
<div><label for="f-end">${s.t.to}</label><input id="f-end" name="endDate" type="date" value="${q.get("endDate") ?? ""}"></div>
<div><button type="submit">${s.t.filter}</button></div>
</form>`
  let result: Views.TransactionPageJson
  try {
    result = await engine(s, (e) =>
      Effect.flatMap(Requests.decode(Requests.ListTransactionsRequest)(params), (input) =>
        e.transactions.list(s.caller, input)
      )
    )
  } catch (error) {
    if (httpStatus(error) !== 422) throw error
    return respond(s, page(s.view, s.t.transactions, html`${filters}${errorBox(error)}`), 422)
  }
  const link = (p: number) => {
    const next = new URLSearchParams(q)
    next.set("page", String(p))
    next.delete("done")
    return `${s.cfg.base}/transactions?${next.toString()}`
  }
  const csvQuery = new URLSearchParams(q)
  csvQuery.delete("page")
  csvQuery.delete("done")
  const body = html`${filters}
<p><a class="button secondary" href="${s.cfg.base}/transactions.csv?${csvQuery.toString()}" download>${s.t.exportCsv}</a> <span data-testid="total">${result.total}</span></p>
${txTable(s, result.data)}
<nav class="pager" aria-label="${s.t.page}">${
    result.page > 1 ? html`<a href="${link(result.page - 1)}" rel="prev">${s.t.previous}</a>` : ""
  }<span>${s.t.page} ${result.page} ${s.t.of} ${Math.max(1, result.pages)}</span>${
    result.page < result.pages ? html`<a href="${link(result.page + 1)}" rel="next">${s.t.next}</a>` : ""
  }</nav>`
  return respond(s, page(s.view, s.t.transactions, body, notice(s)))
}

const csvColumns = [
  "id",
  "type",
  "status",
  "amount",
  "feeAmount",
  "gatewayFeeAmount",
  "netAmount",
  "clientName",
  "clientDocument",
  "pixKey",
  "txid",
  "endToEndId",
  "createdAt",
  "updatedAt"
] as const satisfies ReadonlyArray<keyof Views.TransactionJson>

/** A CSV cell; text a spreadsheet would run as a formula starts with a quote. */
const cell = (value: unknown): string => {
  if (value === null || value === undefined) return ""
  let text = String(value)
  if (typeof value === "string" && /^[=+\-@\t\r]/.test(text)) text = `'${text}`
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text
}

const csv = async (s: Signed) => {
  const parsed = Requests.decodeEither(Requests.ListTransactionsRequest)(listParams(s.url))
  if (Either.isLeft(parsed))
    return respond(s, parsed.left.message, httpStatus(parsed.left), "text/plain; charset=utf-8")
  const input = parsed.right
  // Rows created after the export starts are left out, so offsets stay stable while it streams.
  const to = Math.min(input.to ?? Number.POSITIVE_INFINITY, Date.now() + 1)
  const query = {
    merchantId: s.merchant.id,
    mode: s.mode,
    ...(input.type === undefined ? {} : { type: input.type }),
    ...(input.status === undefined ? {} : { status: input.status }),
    ...(input.from === undefined ? {} : { from: input.from }),
    to
  }
  const encoder = new TextEncoder()
  let offset = 0
  let done = false
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(`${csvColumns.join(",")}\r\n`))
    },
    async pull(controller) {
      if (done) return controller.close()
      const page = await store(s, (st) => st.listTransactions({ ...query, offset, limit: 500 }))
      offset += page.rows.length
      if (page.rows.length < 500) done = true
      const lines = page.rows.map((tx) => {
        const v = Views.transaction(tx)
        return `${csvColumns.map((c) => cell(v[c])).join(",")}\r\n`
      })
      if (lines.length > 0) controller.enqueue(encoder.encode(lines.join("")))
      if (done) controller.close()
    }
  })
  const headers = new Headers({
    ...securityHeaders,
    "content-type": "text/csv; charset=utf-8",
    "content-disposition": `attachment; filename="transactions-${s.mode}-${day(Date.now())}.csv"`
  })
  for (const c of s.setCookies) headers.append("set-cookie", c)
  return new Response(stream, { status: 200, headers })
}

const detail = async (s: Signed, id: string, error?: unknown, code = 409) => {
  const tx = await ownTransaction(s, id)
  const { events, deliveries, chargebacks } = await s.cfg.run(
    Effect.gen(function* () {
      const st = yield* Store.Store
      const events = (yield* st.listEvents(s.merchant.id, tx.mode)).filter(
        (e) => e.data.transactionId === tx.id
      )
      const deliveries = yield* Effect.forEach(events, (e) =>
        st.listDeliveries({ merchantId: s.merchant.id, eventId: e.id, limit: 50, offset: 0 })
      )
      const chargebacks = yield* st.listChargebacks(tx.id)
      return { events, deliveries: deliveries.flat(), chargebacks }
    })
  )
  const refunds =
    tx.type === "deposit" ? await engine(s, (e) => e.refunds.list(s.merchant.id, tx.id)) : undefined
  const v = Views.transaction(tx)
  const fields: ReadonlyArray<readonly [string, Part]> = [
    [s.t.id, html`<span class="mono">${tx.id}</span>`],
    [s.t.type, label(s.lang, tx.type)],
    [s.t.status, status(s, tx.status)],
    [s.t.mode, s.t[tx.mode]],
    [s.t.amount, brl(s, tx.amount)],
    ...dueFields(s, tx),
    [s.t.fee, brl(s, tx.feeAmount)],
    ["gatewayFeeAmount", brl(s, tx.gatewayFeeAmount)],
    [s.t.net, brl(s, tx.netAmount)],
    [s.t.description, tx.description ?? "—"],
    ["clientName", v.clientName ?? "—"],
    ["clientDocument", v.clientDocument ?? "—"],
    ["pixKey", tx.pixKey ?? "—"],
    ["txid", tx.txid ?? "—"],
    ["endToEndId", tx.endToEndId ?? "—"],
    ["failureReason", tx.failureReason ?? "—"],
    [s.t.expires, when(s, tx.expiresAt)],
    [s.t.created, when(s, tx.createdAt)],
    [s.t.updated, when(s, tx.updatedAt)]
  ]
  const timeline: Array<readonly [number, string]> = [[tx.createdAt, label(s.lang, "pending")]]
  if (tx.paidAt !== null) timeline.push([tx.paidAt, label(s.lang, "completed")])
  if (tx.status !== "pending" && tx.paidAt === null) timeline.push([tx.updatedAt, label(s.lang, tx.status)])
  for (const cb of chargebacks)
    timeline.push([cb.createdAt, `chargeback ${cb.status} (${brl(s, cb.amount)})`])
  for (const r of refunds?.refunds ?? []) {
    timeline.push([r.createdAt, `${s.t.newRefund} ${brl(s, r.amount)}`])
    if (r.status !== "pending")
      timeline.push([r.updatedAt, `${s.t.refunds}: ${label(s.lang, r.status)} (${brl(s, r.amount)})`])
  }
  timeline.sort((x, y) => x[0] - y[0])
  const pendingCharge = tx.type === "deposit" && tx.status === "pending" && tx.qrCode !== null
  const body = html`${
    pendingCharge
      ? html`<section class="qr" aria-labelledby="qr-heading"><h2 id="qr-heading">QR Code</h2>
<img src="data:image/png;base64,${QrImage.pngBase64(tx.qrCode!)}" alt="${s.t.qrAlt}" data-testid="qr">
<p><span id="copy-label">${s.t.copyPaste}</span></p>
<code class="secret" id="brcode" aria-labelledby="copy-label" data-testid="brcode">${tx.qrCode}</code>
<p><button type="button" class="secondary" data-copy="brcode" data-copied="${s.t.copied}">${s.t.copy}</button></p>
${
  tx.mode === "test"
    ? html`<form method="post" action="${s.cfg.base}/transactions/${tx.id}/pay">${csrfField(s)}${
        tx.dueTerms === null
          ? ""
          : html`<div><label for="pay-on">${s.t.payOn} <span class="hint">(${s.t.optional}; ${s.t.payOnHint})</span></label><input id="pay-on" name="paidAt" type="date" min="${day(tx.createdAt)}"></div>`
      }<button type="submit" data-testid="pay-now">${s.t.payNow}</button></form>`
    : ""
}</section>`
      : ""
  }
<h2>${s.t.details}</h2>
<dl class="fields">${fields.map(([k, val]) => html`<dt>${k}</dt><dd>${val}</dd>`)}</dl>
${refunds === undefined ? "" : refundSection(s, tx, refunds)}
<h2>${s.t.timeline}</h2>
<ol>${timeline.map(([at, what]) => html`<li>${when(s, at)}: ${what}</li>`)}</ol>
<h2>${s.t.events}</h2>
${
  events.length === 0
    ? html`<p>${s.t.none}</p>`
    : html`<ul>${events.map(
        (e) => html`<li><code>${e.type}</code> · <span class="mono">${e.id}</span> · ${when(s, e.createdAt)}
<form class="inline" method="post" action="${s.cfg.base}/events/${e.id}/redeliver">${csrfField(s)}<input type="hidden" name="back" value="/transactions/${tx.id}"><button type="submit" class="secondary">${s.t.redeliver}</button></form></li>`
      )}</ul>`
}
<h2>${s.t.deliveries}</h2>
${deliveryTable(s, deliveries)}`
  return respond(
    s,
    page(s.view, `${label(s.lang, tx.type)} ${brl(s, tx.amount)}`, body, error ? errorBox(error) : notice(s)),
    error ? code : 200
  )
}

/** A due-date charge's dates, today's amount while pending, and what it was paid once a PIX came. */
const dueFields = (s: Signed, tx: Domain.Transaction): ReadonlyArray<readonly [string, Part]> => {
  const terms = tx.dueTerms
  if (terms === null) return []
  return [
    [s.t.dueDate, html`<span data-testid="detail-due-date">${calendarDay(s.lang, terms.dueDate)}</span>`],
    [
      s.t.payableUntil,
      html`<span data-testid="detail-payable-until">${calendarDay(s.lang, DueDate.formatDay(DueDate.lastPayableDay(terms)))}</span>`
    ],
    ...(tx.status === "pending" ? [[s.t.dueToday, dueToday(s, tx, terms)] as const] : []),
    ...(tx.receivedAmount === null
      ? []
      : [
          [
            s.t.receivedAmount,
            html`<span data-testid="received-amount">${brl(s, tx.receivedAmount)}</span>`
          ] as const
        ])
  ]
}

const deliveryTable = (s: Signed, entries: ReadonlyArray<Store.DeliveryLogEntry>) =>
  entries.length === 0
    ? html`<p>${s.t.none}</p>`
    : html`<div class="table-wrap"><table data-testid="deliveries">
<thead><tr><th scope="col">${s.t.event}</th><th scope="col">${s.t.url}</th><th scope="col">${s.t.status}</th><th scope="col">${s.t.attempts}</th></tr></thead>
<tbody>${entries.map(
        ({ delivery, event, attempts }) =>
          html`<tr><td><code>${event.type}</code><br><span class="mono">${event.id}</span></td><td class="mono">${delivery.url}</td><td>${status(s, delivery.status)}</td><td>${
            attempts.length === 0
              ? "—"
              : html`<ul>${attempts.map(
                  (a) =>
                    html`<li>#${a.attempt} ${when(s, a.at)} · ${s.t.statusCode} ${a.statusCode ?? a.error ?? "—"} · ${a.durationMs} ms</li>`
                )}</ul>`
          }</td></tr>`
      )}</tbody></table></div>`

/**
 * The sandbox's payer pays now, or, given a day (a due-date charge's form asks for one), as on
 * that day: the engine's `paidAt`, which asks for what the terms give on it. Today means now
 * (noon today may be before the charge was created).
 */
const payNow = async (s: Signed, id: string, f: URLSearchParams) => {
  const tx = await ownTransaction(s, id)
  const on = f.get("paidAt")?.trim() ?? ""
  const paidAt = on === "" || on === day(Date.now()) ? {} : { paidAt: on }
  try {
    await engine(s, (e) => e.admin.sandboxPayCharge(tx.id, paidAt))
  } catch (error) {
    // Already paid (the sandbox pays most test charges by itself), expired, or live mode.
    if (httpStatus(error) === 409) return detail(s, tx.id, error)
    // A day that is not one, or before the charge was created.
    if (httpStatus(error) === 422) return detail(s, tx.id, error, 422)
    throw error
  }
  return redirect(s, `/transactions/${tx.id}`, "paid")
}

const redeliver = async (s: Signed, id: string, f: URLSearchParams) => {
  const event = await store(s, (st) => Domain.findById(Domain.EventId, id, st.getEvent))
  if (Option.isNone(event) || event.value.merchantId !== s.merchant.id) throw Errors.notFound("Event")
  await engine(s, (e) => e.admin.redeliver(event.value.id))
  return redirect(s, safePath(f.get("back"), "/webhooks"), "redelivered")
}

// ---- Charges ----

const chargeForm = (s: Signed, f?: URLSearchParams) =>
  html`<form class="stack" method="post" action="${s.cfg.base}/charges">${csrfField(s)}
<div><label for="c-amount">${s.t.amount} <span class="hint">(${s.t.amountHint})</span></label><input id="c-amount" name="amount" type="text" inputmode="decimal" required value="${f?.get("amount") ?? ""}"></div>
<div><label for="c-description">${s.t.description} <span class="hint">(${s.t.optional})</span></label><input id="c-description" name="description" type="text" maxlength="140" value="${f?.get("description") ?? ""}"></div>
<div><label for="c-name">${s.t.payerName} <span class="hint">(${s.t.optional})</span></label><input id="c-name" name="clientName" type="text" maxlength="140" value="${f?.get("clientName") ?? ""}"></div>
<div><label for="c-doc">${s.t.payerDoc} <span class="hint">(${s.t.optional})</span></label><input id="c-doc" name="clientDoc" type="text" inputmode="numeric" value="${f?.get("clientDoc") ?? ""}"></div>
<div><button type="submit">${s.t.create}</button></div>
</form>`

const chargesPage = async (s: Signed, f?: URLSearchParams, error?: unknown) => {
  const recent = await engine(s, (e) =>
    e.transactions.list(s.caller, { page: 1, limit: 10, type: "deposit" })
  )
  const body = html`${error ? errorBox(error) : ""}<h2>${s.t.newCharge}</h2>${chargeForm(s, f)}<h2>${s.t.charges}</h2>${txTable(s, recent.data)}`
  return respond(s, page(s.view, s.t.charges, body, notice(s)), statusOf(error))
}

const textField = (f: URLSearchParams, name: string) => {
  const v = f.get(name)
  return v === null || v.trim() === "" ? undefined : v
}

const createCharge = async (s: Signed, f: URLSearchParams) => {
  const body = {
    amount: parseAmount(f.get("amount") ?? ""),
    description: textField(f, "description"),
    clientName: textField(f, "clientName"),
    clientDoc: textField(f, "clientDoc")
  }
  try {
    const charge = await engine(s, (e) =>
      Effect.flatMap(Requests.decode(Requests.CreateCharge, e.config)(body), (input) =>
        e.charges.create(s.caller, input)
      )
    )
    return redirect(s, `/transactions/${charge.transactionId}`, "chargeCreated")
  } catch (error) {
    if (Errors.isPixgateError(error)) return chargesPage(s, f, error)
    throw error
  }
}

// ---- Payouts ----

const payoutFields = (f: URLSearchParams) => ({
  amount: parseAmount(f.get("amount") ?? ""),
  pixKey: textField(f, "pixKey"),
  description: textField(f, "description")
})

const payoutsPage = async (s: Signed, f?: URLSearchParams, error?: unknown) => {
  const balance = await store(s, (st) => st.balance(s.merchant.id, s.mode))
  const recent = await engine(s, (e) =>
    e.transactions.list(s.caller, { page: 1, limit: 10, type: "withdrawal" })
  )
  const body = html`${error ? errorBox(error) : ""}<p>${s.t.available}: <strong data-testid="available">${brl(s, balance.available)}</strong></p>
<h2>${s.t.newPayout}</h2>
<form class="stack" method="post" action="${s.cfg.base}/payouts/review">${csrfField(s)}
<div><label for="p-amount">${s.t.amount} <span class="hint">(${s.t.amountHint})</span></label><input id="p-amount" name="amount" type="text" inputmode="decimal" required value="${f?.get("amount") ?? ""}"></div>
<div><label for="p-key">${s.t.pixKey}</label><input id="p-key" name="pixKey" type="text" required value="${f?.get("pixKey") ?? ""}"></div>
<div><label for="p-description">${s.t.description} <span class="hint">(${s.t.optional})</span></label><input id="p-description" name="description" type="text" maxlength="140" value="${f?.get("description") ?? ""}"></div>
<div><button type="submit">${s.t.review}</button></div>
</form>
<h2>${s.t.payouts}</h2>${txTable(s, recent.data)}`
  return respond(s, page(s.view, s.t.payouts, body, notice(s)), statusOf(error))
}

const reviewPayout = async (s: Signed, f: URLSearchParams) => {
  const config = await s.cfg.run(Effect.map(Engine.Engine, (e) => e.config))
  const input = Requests.decodeEither(Requests.CreatePayout, config)(payoutFields(f))
  if (Either.isLeft(input)) return payoutsPage(s, f, input.left)
  const fees = Fees.forPayout(s.merchant.feePlan, input.right.amount)
  const debit = Money.add(input.right.amount, fees.feeAmount)
  const hidden = (name: string) => html`<input type="hidden" name="${name}" value="${f.get(name) ?? ""}">`
  const body = html`<dl class="fields" data-testid="payout-review">
<dt>${s.t.amount}</dt><dd>${brl(s, input.right.amount)}</dd>
<dt>${s.t.fee}</dt><dd data-testid="payout-fee">${brl(s, fees.feeAmount)}</dd>
<dt>${s.t.net}</dt><dd data-testid="payout-net">${brl(s, fees.netAmount)}</dd>
<dt>${s.t.debited}</dt><dd>${brl(s, debit)}</dd>
<dt>${s.t.pixKey}</dt><dd class="mono">${input.right.pixKey.value}</dd>
</dl>
<form method="post" action="${s.cfg.base}/payouts">${csrfField(s)}${hidden("amount")}${hidden("pixKey")}${hidden("description")}
<button type="submit">${s.t.confirmPayout}</button> <a class="button secondary" href="${s.cfg.base}/payouts">${s.t.cancel}</a></form>`
  return respond(s, page(s.view, s.t.confirmPayout, body))
}

const createPayout = async (s: Signed, f: URLSearchParams) => {
  try {
    const payout = await engine(s, (e) =>
      Effect.flatMap(Requests.decode(Requests.CreatePayout, e.config)(payoutFields(f)), (input) =>
        e.payouts.create(s.caller, input)
      )
    )
    return redirect(s, `/transactions/${payout.transactionId}`, "payoutCreated")
  } catch (error) {
    if (Errors.isPixgateError(error)) return payoutsPage(s, f, error)
    throw error
  }
}

// ---- Refunds (devoluções) ----

/**
 * A charge's refunds, each as a receipt line (id, amount, status, the bank's return id, when),
 * and the form of a new one while there is something left to refund.
 */
const refundSection = (
  s: Signed,
  tx: Domain.Transaction,
  r: Refunds.RefundSummary,
  f?: URLSearchParams
) => html`<section aria-labelledby="refunds-heading" data-testid="refunds">
<h2 id="refunds-heading">${s.t.refunds}</h2>
<p>${s.t.refunded}: <strong data-testid="refunded">${brl(s, r.refunded)}</strong> · ${s.t.refundable}: <strong data-testid="refundable">${brl(s, r.refundable)}</strong></p>
${
  r.refunds.length === 0
    ? html`<p>${s.t.none}</p>`
    : html`<ul class="receipts">${r.refunds.map(
        (x) =>
          html`<li data-testid="refund-receipt"><span class="mono">${x.id}</span> · ${brl(s, x.amount)} · ${status(s, x.status)}${
            x.failureReason === null ? "" : html` (${x.failureReason})`
          } · ${when(s, x.createdAt)}${
            x.returnId === null ? "" : html` · ${s.t.bankReturn} <span class="mono">${x.returnId}</span>`
          }${x.description === null ? "" : html` · ${x.description}`}</li>`
      )}</ul>`
}
${
  tx.status === "completed" && r.refundable > 0
    ? html`<h3>${s.t.newRefund}</h3>
<form class="stack" method="post" action="${s.cfg.base}/transactions/${tx.id}/refunds/review">${csrfField(s)}
<div><label for="r-amount">${s.t.amount} <span class="hint">(${s.t.amountHint})</span></label><input id="r-amount" name="amount" type="text" inputmode="decimal" required value="${f?.get("amount") ?? ""}"></div>
<div><label for="r-description">${s.t.description} <span class="hint">(${s.t.optional})</span></label><input id="r-description" name="description" type="text" maxlength="140" value="${f?.get("description") ?? ""}"></div>
<div><button type="submit">${s.t.reviewRefund}</button></div>
</form>`
    : ""
}</section>`

const refundFields = (f: URLSearchParams) => ({
  amount: parseAmount(f.get("amount") ?? ""),
  description: textField(f, "description")
})

/**
 * The confirmation step: what leaves the balance, and a one-time form token that becomes the
 * refund's Idempotency-Key, so submitting the confirmation twice (a double click, a reload, a
 * retry after a lost answer) shows the first refund and never makes a second one.
 */
const reviewRefund = async (s: Signed, id: string, f: URLSearchParams) => {
  const tx = await ownTransaction(s, id)
  const config = await s.cfg.run(Effect.map(Engine.Engine, (e) => e.config))
  const input = Requests.decodeEither(Requests.CreateRefund, config)(refundFields(f))
  if (Either.isLeft(input)) return detail(s, tx.id, input.left)
  const token = randomBytes(18).toString("base64url")
  const hidden = (name: string, value: string) => html`<input type="hidden" name="${name}" value="${value}">`
  const body = html`<dl class="fields" data-testid="refund-review">
<dt>${s.t.amount}</dt><dd data-testid="refund-amount">${brl(s, input.right.amount)}</dd>
<dt>${s.t.debited}</dt><dd>${brl(s, input.right.amount)}</dd>
<dt>${s.t.id}</dt><dd class="mono">${tx.id}</dd>
</dl>
<p>${s.t.refundDebit}</p>
<form method="post" action="${s.cfg.base}/transactions/${tx.id}/refunds">${csrfField(s)}${hidden("amount", f.get("amount") ?? "")}${hidden("description", f.get("description") ?? "")}${hidden("token", token)}
<button type="submit" data-testid="confirm-refund">${s.t.confirmRefund}</button> <a class="button secondary" href="${s.cfg.base}/transactions/${tx.id}">${s.t.cancel}</a></form>`
  return respond(s, page(s.view, s.t.confirmRefund, body))
}

const createRefund = async (s: Signed, id: string, f: URLSearchParams) => {
  const tx = await ownTransaction(s, id)
  const token = f.get("token") ?? ""
  if (!/^[A-Za-z0-9_-]{16,64}$/.test(token))
    return detail(
      s,
      tx.id,
      Errors.validation(
        "invalid_form_token",
        "token",
        "This form is no longer valid: review the refund again"
      )
    )
  try {
    await engine(s, (e) =>
      Effect.flatMap(Requests.decode(Requests.CreateRefund, e.config)(refundFields(f)), (input) =>
        e.refunds.create(s.merchant.id, tx.id, input, `panel-${token}`)
      )
    )
    return redirect(s, `/transactions/${tx.id}`, "refundCreated")
  } catch (error) {
    if (Errors.isPixgateError(error)) return detail(s, tx.id, error)
    throw error
  }
}

// ---- API keys ----

const keysPage = async (s: Signed, created?: { readonly key: string; readonly mode: string }) => {
  const keys = await store(s, (st) => st.listApiKeys(s.merchant.id))
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
  return respond(s, page(s.view, s.t.keys, body, notice(s)))
}

const ownKey = async (s: Signed, id: string) => {
  const keys = await store(s, (st) => st.listApiKeys(s.merchant.id))
  const key = keys.find((k) => k.id === id)
  if (key === undefined) throw Errors.notFound("API key")
  return key
}

const revokePage = async (s: Signed, id: string) => {
  const key = await ownKey(s, id)
  const body = html`<p>${s.t.revokeConfirm}</p><p class="mono">sk_${key.mode}_…${key.hint}</p>
<form method="post" action="${s.cfg.base}/keys/${key.id}/revoke">${csrfField(s)}<button type="submit" class="danger">${s.t.revoke}</button> <a class="button secondary" href="${s.cfg.base}/keys">${s.t.cancel}</a></form>`
  return respond(s, page(s.view, s.t.revoke, body))
}

const createKey = async (s: Signed) => {
  const created = await engine(s, (e) => e.admin.createKey(s.merchant.id, s.mode))
  return keysPage(s, created)
}

const revokeKey = async (s: Signed, id: string) => {
  const key = await ownKey(s, id)
  await engine(s, (e) => e.admin.revokeKey(key.id))
  return redirect(s, "/keys", "keyRevoked")
}

// ---- Webhooks ----

/**
 * A generated secret: base64url of 32 random bytes (43 characters, within the engine's rule).
 * Not in the `whsec_` form: that form is the signing key's, and the secret keys nothing.
 */
export const newSecret = () => randomBytes(32).toString("base64url")

/** Overlap choices of a signing key rotation, in seconds (the engine's default first). */
const overlaps: ReadonlyArray<readonly [number, keyof Dictionary]> = [
  [SigningKeys.defaultOverlapSeconds, "overlapDay"],
  [3600, "overlapHour"],
  [SigningKeys.maxOverlapSeconds, "overlapWeek"],
  [0, "overlapNone"]
]

type EndpointStatus = Effect.Effect.Success<
  ReturnType<Engine.EngineShape["admin"]["webhookStatus"]>
>["endpoints"][number]

/** The engine's health of the mode's endpoint (failing after `webhookFailingAfter` failures in a row). */
const endpointStatus = async (s: Signed): Promise<EndpointStatus | undefined> => {
  const status = await engine(s, (e) => e.admin.webhookStatus(s.merchant.id))
  return status.endpoints.find((e) => e.mode === s.mode)
}

/** The banner shown while the engine marks the mode's endpoint failing. */
const failingBanner = (s: Signed, health: EndpointStatus | undefined, link: boolean) =>
  health?.status === "failing"
    ? html`<div class="banner" role="alert" data-testid="webhook-failing">${s.t.webhookFailing} ${health.consecutiveFailures} ${s.t.webhookFailingCount}${
        link ? html` <a href="${s.cfg.base}/webhooks">${s.t.seeLog}</a>` : ""
      }</div>`
    : ""

/** A signing key just made, shown on this one page and never again. */
interface ShownKey {
  readonly signingKey: string
  readonly previousKeyExpiresAt?: string | null
}

const webhooksPage = async (
  s: Signed,
  opts: { readonly error?: unknown; readonly url?: string; readonly shown?: ShownKey } = {}
) => {
  const { error, url, shown } = opts
  const { endpoint, log, header } = await s.cfg.run(
    Effect.gen(function* () {
      const st = yield* Store.Store
      const e = yield* Engine.Engine
      const endpoint = yield* st.getWebhookEndpoint(s.merchant.id, s.mode)
      const log = yield* st.listDeliveries({ merchantId: s.merchant.id, mode: s.mode, limit: 50, offset: 0 })
      return { endpoint, log, header: `X-${WebhookSignature.token(e.config.serviceName)}-Signature` }
    })
  )
  const e = Option.getOrUndefined(endpoint)
  const health = e === undefined ? undefined : await endpointStatus(s)
  const body = html`${error ? errorBox(error) : ""}${failingBanner(s, health, false)}${
    shown
      ? html`<div class="notice" role="status"><p>${s.t.signingKeyOnce}</p><code class="secret" id="new-signing-key" data-testid="signing-key">${shown.signingKey}</code>
<p><button type="button" class="secondary" data-copy="new-signing-key" data-copied="${s.t.copied}">${s.t.copy}</button></p>${
          shown.previousKeyExpiresAt
            ? html`<p>${s.t.previousKeyUntil} ${when(s, Date.parse(shown.previousKeyExpiresAt))}.</p>`
            : ""
        }</div>`
      : ""
  }
<form class="stack" method="post" action="${s.cfg.base}/webhooks">${csrfField(s)}
<div><label for="w-url">${s.t.url} (${s.t[s.mode]})</label><input id="w-url" name="url" type="url" required value="${url ?? e?.url ?? ""}"></div>
<div><label for="w-secret">${s.t.secret} <span class="hint">(${s.t.optional})</span></label><input id="w-secret" name="secret" type="password" autocomplete="off" minlength="${SigningKeys.secretLength.min}" maxlength="${SigningKeys.secretLength.max}"></div>
<div><button type="submit">${s.t.save}</button></div>
</form>
<ul class="hint" data-testid="signature-help">
<li><code>webhook-signature</code> ${s.t.signingExplain}</li>
<li><code>${header}</code> ${s.t.secretExplain}</li>
</ul>
${
  e === undefined
    ? ""
    : html`<h2>${s.t.health}</h2>
<dl class="fields" data-testid="webhook-health">
<dt>${s.t.status}</dt><dd>${health === undefined ? "—" : status(s, health.status)}</dd>
<dt>${s.t.consecutiveFailures}</dt><dd>${health?.consecutiveFailures ?? 0}</dd>${
        health?.failingSince
          ? html`<dt>${s.t.failingSince}</dt><dd>${when(s, Date.parse(health.failingSince))}</dd>`
          : ""
      }
<dt>${s.t.pendingDeliveries}</dt><dd>${health?.pending ?? 0}</dd>${
        health?.previousKeyExpiresAt
          ? html`<dt>${s.t.previousKeyUntil}</dt><dd>${when(s, Date.parse(health.previousKeyExpiresAt))}</dd>`
          : ""
      }
</dl>
<h2>${s.t.signingKey}</h2>
<form class="stack" method="post" action="${s.cfg.base}/webhooks/signing-key">${csrfField(s)}
<div><label for="w-overlap">${s.t.overlap}</label><select id="w-overlap" name="overlapSeconds">${overlaps.map(
        ([seconds, word]) => html`<option value="${String(seconds)}">${s.t[word]}</option>`
      )}</select></div>
<div><button type="submit" class="secondary">${s.t.rotateSigningKey}</button></div>
</form>
<p class="hint">${s.t.signingKeyLost}</p>
<h2>${s.t.secret}</h2><details><summary>${s.t.secret}</summary><code class="secret" id="w-secret-value">${e.secret}</code></details>
<p><form class="inline" method="post" action="${s.cfg.base}/webhooks/rotate">${csrfField(s)}<button type="submit" class="secondary">${s.t.rotate}</button></form>
<form class="inline" method="post" action="${s.cfg.base}/webhooks/test">${csrfField(s)}<button type="submit" data-testid="send-test">${s.t.sendTest}</button></form></p>
<p class="hint">${s.t.sendTestHint}</p>`
}
<h2>${s.t.deliveryLog}</h2>
${deliveryTable(s, log)}`
  return respond(s, page(s.view, s.t.webhooks, body, shown ? "" : notice(s)), statusOf(error))
}

const setWebhook = async (s: Signed, f: URLSearchParams) => {
  const url = (f.get("url") ?? "").trim()
  const given = f.get("secret") ?? ""
  try {
    const existing = await store(s, (st) => st.getWebhookEndpoint(s.merchant.id, s.mode))
    const secret = given !== "" ? given : Option.isSome(existing) ? existing.value.secret : newSecret()
    const set = await engine(s, (e) =>
      e.admin.setWebhook({ merchantId: s.merchant.id, mode: s.mode, url, secret })
    )
    // The first set answers the endpoint's signing key: shown on this answer only, like a new API key.
    if (set.signingKey !== undefined) return webhooksPage(s, { shown: { signingKey: set.signingKey } })
    return redirect(s, "/webhooks", "saved")
  } catch (error) {
    if (httpStatus(error) < 500) return webhooksPage(s, { error, url })
    throw error
  }
}

const rotateSecret = async (s: Signed) => {
  const existing = await store(s, (st) => st.getWebhookEndpoint(s.merchant.id, s.mode))
  if (Option.isNone(existing)) throw Errors.notFound("Webhook endpoint")
  const url = existing.value.url
  await engine(s, (e) =>
    e.admin.setWebhook({ merchantId: s.merchant.id, mode: s.mode, url, secret: newSecret() })
  )
  return redirect(s, "/webhooks", "saved")
}

const rotateSigningKey = async (s: Signed, f: URLSearchParams) => {
  const raw = (f.get("overlapSeconds") ?? "").trim()
  // The engine checks the range; text that is no number goes to it as NaN and is refused there.
  const overlapSeconds = raw === "" ? undefined : /^\d+$/.test(raw) ? Number(raw) : Number.NaN
  try {
    const rotated = await engine(s, (e) =>
      e.admin.rotateSigningKey({
        merchantId: s.merchant.id,
        mode: s.mode,
        ...(overlapSeconds === undefined ? {} : { overlapSeconds })
      })
    )
    return webhooksPage(s, {
      shown: { signingKey: rotated.signingKey, previousKeyExpiresAt: rotated.previousKeyExpiresAt }
    })
  } catch (error) {
    if (httpStatus(error) === 422) return webhooksPage(s, { error })
    throw error
  }
}

const testEvent = async (s: Signed) => {
  const events = await store(s, (st) => st.listEvents(s.merchant.id, s.mode))
  const latest = events[events.length - 1]
  if (latest === undefined) {
    return webhooksPage(s, {
      error: new Errors.Refused({ code: "no_event", message: s.t.noEvent })
    })
  }
  await engine(s, (e) => e.admin.redeliver(latest.id))
  return redirect(s, "/webhooks", "testSent")
}
