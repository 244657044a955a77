/**
 * The docs page in a real Chromium: a Pixgate on a real socket, under a base path (`/payments`)
 * and without one, every request to anything but that server blocked. The page renders the
 * operations and the webhooks from the served document with the renderer the server serves,
 * with no console error (a CSP violation is one), no failed request and no request elsewhere;
 * "Test Request" calls the same server under the same prefix. Screenshots go to a temporary
 * directory, kept when PIXGATE_KEEP_SCREENSHOTS is set.
 */
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as Chromium from "@pixgate/testkit/chromium"
import { type Harness, start } from "@pixgate/testkit/harness"
import { report } from "@pixgate/testkit/output"
import { testWaitMs } from "@pixgate/testkit/wait"
import type { Browser } from "playwright-core"

const available = Chromium.available("the docs page's browser tests")

describe.skipIf(!available)("the docs page in Chromium", () => {
  let browser: Browser
  let dir: string
  const servers: Array<Harness> = []

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "pixgate-docs-"))
    browser = await Chromium.launch()
    report(`docs page screenshots: ${dir}`)
  })

  afterAll(async () => {
    await browser?.close()
    for (const h of servers) await h.close()
    if (process.env.PIXGATE_KEEP_SCREENSHOTS === undefined && dir !== undefined)
      await rm(dir, { recursive: true, force: true })
  })

  /** Opens the docs page of a server under `basePath`, recording what went wrong. */
  const open = async (basePath: string) => {
    const h = await start(basePath === "" ? {} : { basePath })
    servers.push(h)
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
    const outside: Array<string> = []
    const problems: Array<string> = []
    await context.route("**/*", (route) => {
      const url = route.request().url()
      if (url.startsWith(`${h.base}/`)) return route.continue()
      outside.push(url)
      return route.abort()
    })
    const page = await context.newPage()
    page.on("console", (message) => {
      if (message.type() === "error" || message.type() === "warning")
        problems.push(`console ${message.type()}: ${message.text()}`)
    })
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`))
    page.on("requestfailed", (request) =>
      problems.push(`failed: ${request.url()} ${request.failure()?.errorText ?? ""}`)
    )
    page.on("response", (response) => {
      if (response.status() >= 400) problems.push(`${response.status()}: ${response.url()}`)
    })
    const response = await page.goto(`${h.base}${basePath}/api/docs`)
    expect(response?.status()).toBe(200)
    expect(response?.headers()["content-security-policy"]).toContain("script-src 'self'")
    return { h, context, page, outside, problems }
  }

  it("renders every operation and webhook, offline, with no error", async () => {
    const { context, page, outside, problems } = await open("")
    for (const text of ["Create a PIX charge", "Send a PIX payout", "List transactions", "Health check"])
      await expect.poll(() => page.getByText(text).first().isVisible(), { timeout: testWaitMs }).toBe(true)
    // Scalar renders sections as they come into view: the webhooks are reached from the sidebar.
    await page.getByText("A charge was paid").first().click()
    await expect
      .poll(() => page.getByText("transaction.completed").first().count(), { timeout: testWaitMs })
      .toBeGreaterThan(0)
    await page.screenshot({ path: join(dir, "docs.png"), fullPage: false })
    expect(outside).toEqual([])
    expect(problems).toEqual([])
    await context.close()
  })

  it("the endpoints removed in 2.0.0 close the reference in one collapsed section", async () => {
    const { context, page, outside, problems } = await open("")
    await expect
      .poll(() => page.getByText("Create a PIX charge").first().isVisible(), { timeout: testWaitMs })
      .toBe(true)
    // Its heading shows; its 22 operations do not until it is opened.
    const removed = page.getByRole("button", { name: "Open Group - Removed in 2.0.0" })
    await expect.poll(() => removed.count(), { timeout: testWaitMs }).toBe(1)
    expect(await page.getByText("Removed: Refunds").count()).toBe(0)
    await removed.click()
    await expect.poll(() => page.getByText("Removed: Refunds").first().isVisible()).toBe(true)
    expect(outside).toEqual([])
    expect(problems).toEqual([])
    await context.close()
  })

  it("under a base path: reads that document and Test Request calls that server", async () => {
    const { h, context, page, outside, problems } = await open("/payments")
    const health = page.getByText("Health check").first()
    await expect.poll(() => health.isVisible(), { timeout: testWaitMs }).toBe(true)
    await page
      .getByRole("button", { name: /Test Request/ })
      .first()
      .click()
    const answered = page.waitForResponse((r) => r.url() === `${h.base}/payments/api/health`)
    await page.getByRole("button", { name: /^Send/ }).first().click()
    expect((await answered).status()).toBe(200)
    await expect.poll(() => page.getByText("200 OK").first().isVisible()).toBe(true)
    await page.screenshot({ path: join(dir, "try.png"), fullPage: false })
    expect(outside).toEqual([])
    expect(problems).toEqual([])
    await context.close()
  })
})
