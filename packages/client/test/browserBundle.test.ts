import { fileURLToPath } from "node:url"
import * as esbuild from "esbuild"
import { describe, expect, it } from "vitest"
import { browserBundle } from "../../../scripts/browser-bundle.mjs"

// The client's own folder: `@pixgate/client` resolves there, through the sources.
const resolveDir = fileURLToPath(new URL("..", import.meta.url))
const conditions = ["@pixgate/source"]

describe("@pixgate/client in a browser bundle", () => {
  it("bundles for the browser with the contract and schemas only: no Node modules, no QR writer", async () => {
    const bundle = await browserBundle(esbuild, { resolveDir, conditions })
    expect(bundle.problems).toEqual([])
    expect(bundle.included.some((path) => path.endsWith("packages/client/src/Pixgate.ts"))).toBe(true)
    expect(bundle.included.some((path) => /core\/src\/.*Requests\.ts$/.test(path))).toBe(true)
  })

  it("names what does not belong: core's QR writer and Node's modules", async () => {
    const qr = await browserBundle(esbuild, {
      resolveDir,
      conditions,
      source: 'export { QrImage } from "@pixgate/core"'
    })
    expect(qr.problems.some((p) => /Qr(Image|Matrix)\.ts/.test(p))).toBe(true)
    const node = await browserBundle(esbuild, {
      resolveDir,
      conditions,
      source: 'export { readFileSync } from "node:fs"'
    })
    expect(node.problems.some((p) => p.startsWith("the browser build failed"))).toBe(true)
  })
})
