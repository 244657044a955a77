/**
 * The docs page's parts that need no browser: the committed renderer module is the installed
 * `@scalar/api-reference` bundle (regenerate with `scripts/scalar-bundle.mjs` after an upgrade),
 * and the page names the document and the renderer under the mount path of `servers`.
 */
import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { describe, expect, it } from "@effect/vitest"
import { MemoryStore } from "@pixgate/core"
import * as DocsPage from "../src/DocsPage.js"
import { Pixgate } from "../src/index.js"

describe("the docs page", () => {
  it("serves the bundle of the installed @scalar/api-reference", async () => {
    const script = fileURLToPath(new URL("../scripts/scalar-bundle.mjs", import.meta.url))
    const run = await promisify(execFile)(process.execPath, [script, "--check"]).then(
      () => 0,
      (error: { code?: number; stderr?: string }) => error.stderr ?? error.code
    )
    expect(run).toBe(0)
  })

  it("reads the document and the renderer under the mount path", async () => {
    const pixgate = await Pixgate.make({
      store: MemoryStore.layer,
      log: { level: "none" },
      mountPath: "/payments"
    })
    try {
      const page = await (await pixgate.webHandler(new Request("http://x/api/docs"))).text()
      expect(page).toContain(`<script src="/payments/api/docs/scalar.js?v=${DocsPage.rendererHash}">`)
      expect(page).toContain('"url":"/payments/api/openapi.json"')
      const renderer = await pixgate.webHandler(new Request("http://x/api/docs/scalar.js"))
      expect(renderer.status).toBe(200)
      expect(renderer.headers.get("content-type")).toBe("text/javascript; charset=utf-8")
    } finally {
      await pixgate.dispose()
    }
  })
})
