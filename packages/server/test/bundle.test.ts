/**
 * The built command (`pnpm start`: scripts/pixgate.mjs's esbuild bundle, run by plain node) on
 * the paths that load a package on first use: a merchant's person invited with the CLI sets a
 * password over HTTP (a guessable one refused with the estimator's reasons), signs in, and
 * downloads the PDF receipt of a sandbox charge. The panel's own tests draw PDFs from the
 * sources; only the bundle shows whether a package still finds its own files (pdfkit's fonts)
 * from there. Runs in a temporary directory: the database, the child's working directory.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { must } from "@pixgate/testkit/must"
import { testWait, until } from "@pixgate/testkit/wait"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { bundle } from "../../../scripts/pixgate.mjs"

const root = fileURLToPath(new URL("../../..", import.meta.url))
const script = join(root, "scripts", "pixgate.mjs")

/** A browser's cookies for one site: set from each answer's `set-cookie`, sent with each request. */
class Jar {
  private readonly values = new Map<string, string>()
  take(response: Response): Response {
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(";")
      const at = pair.indexOf("=")
      const name = pair.slice(0, at).trim()
      const expired = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a))
      if (expired) this.values.delete(name)
      else this.values.set(name, pair.slice(at + 1).trim())
    }
    return response
  }
  header(): string {
    return [...this.values].map(([name, value]) => `${name}=${value}`).join("; ")
  }
  has(name: string): boolean {
    return this.values.has(name)
  }
}

/** The hidden `_csrf` field of the page's form. */
const csrfOf = (page: string): string =>
  must(/name="_csrf" value="([^"]+)"/.exec(page), `a _csrf field in ${page.slice(0, 2000)}`)[1]

describe("the bundle `pnpm start` runs", () => {
  const dir = mkdtempSync(join(tmpdir(), "pixgate-bundle-pdf-"))
  const env = {
    ...process.env,
    NODE_OPTIONS: "",
    PIXGATE_DATABASE: `sqlite:${join(dir, "pixgate.db")}`,
    PORT: "0",
    HOST: "127.0.0.1"
  }
  let server: ChildProcess | undefined
  let exited: Promise<unknown> = Promise.resolve()
  let output = ""
  let url = ""

  /** `node scripts/pixgate.mjs <argv> --json` in the temporary directory: its JSON output. */
  const cli = (...argv: Array<string>) =>
    new Promise<Record<string, unknown>>((resolve, reject) =>
      execFile(
        process.execPath,
        [script, ...argv, "--json"],
        { cwd: dir, env, timeout: testWait() },
        (error, stdout, stderr) =>
          error
            ? reject(new Error(`pixgate ${argv.join(" ")}: ${error.message}\n${stderr}`))
            : resolve(JSON.parse(stdout))
      )
    )

  beforeAll(async () => {
    // Built here (or found built) once: the commands below only import it, as `pnpm start` does.
    await bundle()
    const child = spawn(process.execPath, [script, "serve"], {
      cwd: dir,
      env,
      stdio: ["ignore", "pipe", "pipe"]
    })
    server = child
    exited = new Promise((done) => child.once("exit", done))
    let gone = false
    void exited.then(() => {
      gone = true
    })
    const collect = (chunk: Buffer) => {
      output = (output + chunk).slice(-50_000)
    }
    must(child.stdout, "child.stdout").on("data", collect)
    must(child.stderr, "child.stderr").on("data", collect)
    await until(
      () => `pixgate serve to log its URL; its output: ${output}`,
      () => {
        if (gone) throw new Error(`pixgate serve exited: ${output}`)
        url = /"url":"(http:[^"]+)"/.exec(output)?.[1] ?? ""
        return url !== ""
      },
      testWait()
    )
  }, testWait(2))

  afterAll(async () => {
    if (server !== undefined && server.exitCode === null && server.signalCode === null) {
      server.kill("SIGTERM")
      const stopped = await Promise.race([
        exited.then(() => true),
        new Promise<boolean>((done) => setTimeout(() => done(false), testWait(0.5)).unref())
      ])
      if (!stopped) server.kill("SIGKILL")
    }
    rmSync(dir, { recursive: true, force: true })
  }, testWait())

  it(
    "sets a password from an invite (a guessable one refused), signs in and downloads a charge's PDF receipt",
    async () => {
      const merchant = await cli("merchant", "create", "--name", "Padaria do Bundle")
      const merchantId = String(merchant.merchantId)
      const testKey = String(merchant.testKey)
      expect(testKey).toMatch(/^sk_test_/)
      const email = "ana@bundle.example"
      const invite = await cli(
        "user",
        "invite",
        "--merchant",
        merchantId,
        "--email",
        email,
        "--panel",
        `${url}/panel`
      )
      const link = String(invite.link)
      expect(link.startsWith(`${url}/panel/invite/`)).toBe(true)

      // The invite link, as a browser: its form, then the password (no redirects followed).
      const browser = new Jar()
      const go = (target: string, init: RequestInit = {}) =>
        fetch(target, {
          ...init,
          redirect: "manual",
          headers: { ...(init.headers as Record<string, string>), cookie: browser.header() }
        }).then((r) => browser.take(r))
      const submit = (target: string, fields: Record<string, string>) =>
        go(target, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams(fields)
        })
      const form = await go(link)
      expect(form.status).toBe(200)
      const csrf = csrfOf(await form.text())

      // A guessable password: refused with the estimator's own reasons (zxcvbn-ts, loaded now).
      const weak = await submit(link, { _csrf: csrf, password: "aaaaaaaaaa" })
      const weakPage = await weak.text()
      expect(weak.status, weakPage.slice(0, 2000)).toBe(422)
      expect(weakPage).toContain("Essa senha é fácil de adivinhar")
      expect(weakPage).toContain("Caracteres repetidos")

      const password = "quatro palavras bem diferentes"
      const set = await submit(link, { _csrf: csrfOf(weakPage), password })
      expect(set.status, await set.text()).toBe(303)

      // Signing in, as another browser would: the sign-in form, then the e-mail and password.
      const signIn = new Jar()
      const page = signIn.take(await fetch(`${url}/panel/signin`, { redirect: "manual" }))
      expect(page.status).toBe(200)
      const signed = signIn.take(
        await fetch(`${url}/panel/signin`, {
          method: "POST",
          redirect: "manual",
          headers: { "content-type": "application/x-www-form-urlencoded", cookie: signIn.header() },
          body: new URLSearchParams({ _csrf: csrfOf(await page.text()), email, password })
        })
      )
      expect(signed.status, await signed.text()).toBe(303)
      expect(signed.headers.get("location")).toBe("/panel/")
      expect(signIn.has("pixgate_session")).toBe(true)

      // A sandbox charge, paid by the sandbox a few seconds later.
      const api = `${url}/api/v1`
      const created = await fetch(`${api}/charges`, {
        method: "POST",
        headers: { "x-api-key": testKey, "content-type": "application/json" },
        body: JSON.stringify({ amount: 12.34, description: "pao de queijo" })
      })
      const charge = (await created.json()) as { transactionId: string }
      expect(created.status, JSON.stringify(charge)).toBe(201)
      await until(
        `the sandbox to pay ${charge.transactionId}`,
        async () => {
          const paid = (await (
            await fetch(`${api}/transactions?type=deposit&status=completed`, {
              headers: { "x-api-key": testKey }
            })
          ).json()) as { data?: ReadonlyArray<{ id: string }> }
          return paid.data?.some((tx) => tx.id === charge.transactionId) === true
        },
        testWait(),
        250
      )

      // Its receipt as a PDF (pdfkit, loaded now, with its standard fonts).
      const receipt = await fetch(`${url}/panel/transactions/${charge.transactionId}/receipt.pdf`, {
        redirect: "manual",
        headers: { cookie: signIn.header() }
      })
      const body = Buffer.from(await receipt.arrayBuffer())
      // On failure: the answer and the server's lines other than its requests' log.
      const said = output
        .split("\n")
        .filter((line) => !line.includes('"msg":"request"'))
        .slice(-30)
        .join("\n")
      expect(receipt.status, `${body.toString("utf8", 0, 2000)}\nserver: ${said}`).toBe(200)
      expect(receipt.headers.get("content-type")).toContain("application/pdf")
      expect(body.subarray(0, 5).toString("latin1")).toBe("%PDF-")
    },
    testWait(3)
  )
})
