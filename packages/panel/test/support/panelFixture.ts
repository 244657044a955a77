/**
 * A reusable fixture for the panel's browser tests: the standalone server on a temporary SQLite
 * file (`@pixgate/server`), merchants with a panel user each, a headless Chromium
 * (`packages/http/test/support/chromium.ts`), signed-in pages at a given viewport, screenshots
 * to a temporary directory and an axe-core check (no serious or critical violation).
 *
 *   const fx = await PanelFixture.start()
 *   const m = await fx.merchant({ name: "Loja Aurora", balance: Money.reais(100) })
 *   const page = await fx.signedIn(m, PanelFixture.desktop)
 *   await page.goto(fx.url("/payouts"))
 *   await fx.check(page, "payouts") // axe, then screenshots at both widths
 *   await fx.close()
 *
 * Screenshots stay under the temporary directory only with `PIXGATE_KEEP_SCREENSHOTS` set (the
 * directory is reported at start); otherwise `close` removes it with the database.
 */
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type Auth, Engine, type Money } from "@pixgate/core"
import { Server as PixgateServer } from "@pixgate/server"
import * as Chromium from "@pixgate/testkit/chromium"
import { report } from "@pixgate/testkit/output"
import axe from "axe-core"
import { Effect } from "effect"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { expect } from "vitest"

/** The two widths every page is checked at. */
export const desktop = { width: 1366, height: 900 } as const
export const phone = { width: 390, height: 844 } as const
export const sizes = [
  ["desktop", desktop],
  ["phone", phone]
] as const

/** A viewport. */
export interface Size {
  readonly width: number
  readonly height: number
}

/** Whether Chromium exists (skips loudly outside CI, fails in CI): use with `describe.skipIf`. */
export const available = (suite: string): boolean => Chromium.available(suite)

/** A merchant of the fixture with its panel user. */
export interface Merchant {
  readonly merchantId: string
  readonly name: string
  readonly email: string
  readonly password: string
  /** The merchant's test API key (as the engine created it). */
  readonly testKey: string
  /** The engine's caller for that key (for API-side actions in a test). */
  readonly caller: Auth.Caller
}

export interface MerchantOptions {
  readonly name?: string
  /** Balance topped up in test mode, in centavos. */
  readonly balance?: Money.Cents
  readonly email?: string
  readonly password?: string
}

export interface Fixture {
  readonly server: PixgateServer.RunningServer
  /** The temporary directory (database and screenshots). */
  readonly dir: string
  /** Where screenshots go. */
  readonly shots: string
  readonly browser: Browser
  /** A URL of the panel (`/panel` + path). */
  readonly url: (path?: string) => string
  /** Runs an engine operation. */
  readonly engine: <A>(f: (e: Engine.EngineShape) => Effect.Effect<A, unknown>) => Promise<A>
  /** A new merchant with a panel user whose password is set (through the invite link). */
  readonly merchant: (options?: MerchantOptions) => Promise<Merchant>
  /** A new browser context at `size`, signed in as `m`'s panel user (pt-BR unless `lang`). */
  readonly signedIn: (m: Merchant, size?: Size, lang?: "pt-BR" | "en") => Promise<Page>
  /** The page's full-page screenshot at its current size, named `name`. */
  readonly screenshot: (page: Page, name: string) => Promise<string>
  /** axe-core on the page: fails the test on any serious or critical violation. */
  readonly axe: (page: Page, name: string) => Promise<void>
  /** axe, then screenshots at desktop and phone width (the page is left at its first size). */
  readonly check: (page: Page, name: string) => Promise<void>
  readonly close: () => Promise<void>
}

let counter = 0

/**
 * The webhook secret of the page's merchant, shown again the way a person asks for it: the
 * webhooks page's reveal form with the user's password; the page is left on the webhooks page.
 */
export const revealSecret = async (page: Page, password: string): Promise<string> => {
  const at = page.url()
  const webhooks = `${at.slice(0, at.indexOf("/panel") + "/panel".length)}/webhooks`
  await page.goto(webhooks)
  await page.getByLabel(/^(Senha ou código do autenticador|Password or authenticator code)$/).fill(password)
  await page.getByRole("button", { name: /^(Mostrar o segredo|Show the secret)$/ }).click()
  const secret = (await page.locator("#w-secret-value").textContent()) ?? ""
  await page.goto(webhooks)
  return secret
}

/** Starts the server (with `server`'s options over the fixture's) and the browser. */
export const start = async (
  options: { readonly prefix?: string; readonly server?: Partial<PixgateServer.ServerOptions> } = {}
): Promise<Fixture> => {
  const dir = await mkdtemp(join(tmpdir(), options.prefix ?? "pixgate-panel-fx-"))
  const shots = join(dir, "screenshots")
  const server = await PixgateServer.start({
    port: 0,
    database: `sqlite:${join(dir, "pixgate.db")}`,
    log: { level: "none" },
    ...options.server
  })
  const browser = await Chromium.launch()
  const contexts: Array<BrowserContext> = []
  report(`panel screenshots: ${shots}`)

  const engine = <A>(f: (e: Engine.EngineShape) => Effect.Effect<A, unknown>) =>
    server.pixgate.runtime.runPromise(
      Effect.flatMap(Engine.Engine, f) as Effect.Effect<A, never, Engine.Engine>
    )
  const url = (path = "") => `${server.url}/panel${path}`

  const merchant = async (o: MerchantOptions = {}): Promise<Merchant> => {
    counter += 1
    const name = o.name ?? `Loja ${counter}`
    const email = o.email ?? `owner${counter}-${Date.now()}@shop.example`
    const password = o.password ?? "correct horse battery"
    const created = await engine((e) => e.admin.createMerchant({ name }))
    if (o.balance !== undefined && o.balance > 0) {
      const amount = o.balance
      await engine((e) => e.admin.topUp(created.merchantId, { amount }))
    }
    const invite = await engine((e) => e.admin.inviteUser(created.merchantId, { email }))
    // The password is set through the invite link, as a person would, in a throwaway context.
    const context = await browser.newContext({ viewport: desktop, locale: "pt-BR" })
    const page = await context.newPage()
    await page.goto(`${url()}${invite.path}`)
    await page.locator("#new-password").fill(password)
    await page.locator("form button[type=submit]").click()
    await expect.poll(() => new URL(page.url()).pathname).toBe("/panel/")
    await context.close()
    const caller = await engine((e) => e.auth.authenticate(created.testKey))
    return { merchantId: created.merchantId, name, email, password, testKey: created.testKey, caller }
  }

  const signedIn = async (m: Merchant, size: Size = desktop, lang: "pt-BR" | "en" = "pt-BR") => {
    const context = await browser.newContext({ viewport: size, locale: lang, acceptDownloads: true })
    contexts.push(context)
    const page = await context.newPage()
    if (lang === "en") await page.goto(url("/lang?to=en&back=%2Fsignin"))
    else await page.goto(url("/signin"))
    await page.locator("#email").fill(m.email)
    await page.locator("#password").fill(m.password)
    await page.locator("form button[type=submit]").click()
    await expect.poll(() => new URL(page.url()).pathname).toBe("/panel/")
    return page
  }

  const screenshot = async (page: Page, name: string) => {
    const size = page.viewportSize()
    const path = join(shots, `${name}-${size?.width ?? 0}x${size?.height ?? 0}.png`)
    await page.screenshot({ path, fullPage: true })
    return path
  }

  const runAxe = async (page: Page, name: string) => {
    // axe runs through the DevTools protocol, which the page's CSP does not govern.
    await page.evaluate(axe.source)
    const results = (await page.evaluate(
      "axe.run(document, { resultTypes: ['violations'] })"
    )) as axe.AxeResults
    const bad = results.violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => `${name}: ${v.id} (${v.impact}) ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)
    expect(bad.join("\n")).toBe("")
  }

  const check = async (page: Page, name: string) => {
    const first = page.viewportSize() ?? desktop
    await runAxe(page, name)
    for (const [, size] of sizes) {
      await page.setViewportSize(size)
      await screenshot(page, name)
    }
    await page.setViewportSize(first)
  }

  const close = async () => {
    for (const c of contexts) await c.close().catch(() => undefined)
    await browser.close()
    await server.close()
    if (process.env.PIXGATE_KEEP_SCREENSHOTS === undefined) await rm(dir, { recursive: true, force: true })
  }

  return {
    server,
    dir,
    shots,
    browser,
    url,
    engine,
    merchant,
    signedIn,
    screenshot,
    axe: runAxe,
    check,
    close
  }
}
