/**
 * The web entry (`@pixgate/http`) pulls in only what a web-standard host has: its module graph,
 * bundled by esbuild for a neutral platform, imports no node built-in and reaches no store or
 * driver package (better-sqlite3, pg, @effect/sql-*, the store packages, the panel, the live
 * gateway); and, bundled whole, it runs in a V8 context that has only the web's globals (no
 * `process`, `Buffer`, `require` nor `setImmediate`): it builds, answers health, takes a charge.
 * The Node entry is bundled the same way to show the check sees node built-ins when they are there.
 * `packages/server` holds what needs drivers: the database URL, the standalone server, the CLI.
 */
import { builtinModules } from "node:module"
import { fileURLToPath } from "node:url"
import vm from "node:vm"
import { describe, expect, it } from "@effect/vitest"
import * as esbuild from "esbuild"

const src = fileURLToPath(new URL("../src/", import.meta.url))
const builtins = new Set(builtinModules)
const isBuiltin = (path: string) => path.startsWith("node:") || builtins.has(path.split("/")[0])
const forbidden =
  /(^|\/)(better-sqlite3|pg|pg-native|@effect\/sql[^/]*|@pixgate\/(store-[^/]+|panel|gateway-apipix|server))(\/|$)|packages\/(store-[^/]+|panel|gateway-apipix|server)\//

/** Every import of the entry's graph esbuild resolves: builtins and forbidden packages recorded. */
const graph = async (entry: string) => {
  const builtinImports: Array<string> = []
  const result = await esbuild.build({
    entryPoints: [`${src}${entry}`],
    bundle: true,
    write: false,
    platform: "neutral",
    format: "esm",
    conditions: ["@pixgate/source"],
    mainFields: ["module", "main"],
    metafile: true,
    logLevel: "silent",
    // Effect and @pixgate/core's own dependencies stay outside; everything else is followed.
    external: [
      "effect",
      "effect/*",
      "@effect/platform",
      "@effect/platform/*",
      "@noble/hashes/*",
      "ipaddr.js",
      "qrcode"
    ],
    plugins: [
      {
        name: "record-builtins",
        setup: (build) => {
          build.onResolve({ filter: /.*/ }, (args) => {
            if (!isBuiltin(args.path)) return undefined
            builtinImports.push(`${args.path} <- ${args.importer.replace(src, "")}`)
            return { path: args.path, external: true }
          })
        }
      }
    ]
  })
  const inputs = Object.keys(result.metafile.inputs)
  const imports = Object.values(result.metafile.inputs).flatMap((input) => input.imports.map((i) => i.path))
  return { builtinImports, reached: [...inputs, ...imports].filter((path) => forbidden.test(path)) }
}

/** The globals a web-standard runtime (a browser worker, Deno, workerd) gives, and nothing of Node's. */
const webGlobals = [
  "setTimeout",
  "clearTimeout",
  "setInterval",
  "clearInterval",
  "queueMicrotask",
  "structuredClone",
  "URL",
  "URLSearchParams",
  "TextEncoder",
  "TextDecoder",
  "Request",
  "Response",
  "Headers",
  "fetch",
  "crypto",
  "AbortController",
  "AbortSignal",
  "console",
  "performance",
  "ReadableStream",
  "WritableStream",
  "TransformStream",
  "Blob",
  "FormData",
  "atob",
  "btoa",
  "Event",
  "EventTarget",
  "DOMException"
] as const

describe("the web entry", () => {
  it("imports no node built-in and reaches no store or driver package", async () => {
    expect(await graph("index.ts")).toEqual({ builtinImports: [], reached: [] })
  })

  it("so does the contract entry (`@pixgate/http/api`, PixgateApi alone)", async () => {
    expect(await graph("contract.ts")).toEqual({ builtinImports: [], reached: [] })
  })

  it("(the check sees them: the Node entry imports node built-ins)", async () => {
    const node = await graph("node.ts")
    expect(node.builtinImports.some((line) => line.startsWith("node:http"))).toBe(true)
    // The panel (an optional peer, loaded when asked for) is the Node entry's; drivers are not.
    expect(node.reached.filter((path) => !/panel/.test(path))).toEqual([])
  })

  it("runs with only the web's globals: builds, answers health, takes a charge, disposes", async () => {
    const bundled = await esbuild.build({
      stdin: {
        contents: [
          `export { Pixgate } from "./index.ts"`,
          `export { Engine, MemoryStore } from "@pixgate/core"`,
          `export { Effect } from "effect"`
        ].join("\n"),
        resolveDir: src,
        loader: "ts"
      },
      bundle: true,
      write: false,
      platform: "browser",
      format: "iife",
      globalName: "PixgateWeb",
      conditions: ["@pixgate/source"],
      logLevel: "silent"
    })
    const context = vm.createContext(Object.fromEntries(webGlobals.map((name) => [name, globalThis[name]])))
    vm.runInContext(`${bundled.outputFiles[0].text}\nglobalThis.PixgateWeb = PixgateWeb`, context)
    expect(
      vm.runInContext("[typeof process, typeof Buffer, typeof require, typeof setImmediate]", context)
    ).toEqual(["undefined", "undefined", "undefined", "undefined"])
    const { Pixgate, Engine, MemoryStore, Effect } =
      context.PixgateWeb as typeof import("./webEntry.support.js")
    const lines: Array<string> = []
    const pixgate = await Pixgate.make({
      store: MemoryStore.layer,
      log: { write: (line) => lines.push(line) }
    })
    const health = await pixgate.webHandler(new Request("http://web.host/api/health"))
    expect([health.status, (await health.json()).status]).toEqual([200, "ok"])
    const { testKey } = await pixgate.runtime.runPromise(
      Effect.flatMap(Engine.Engine, (engine) => engine.admin.createMerchant({ name: "Web" }))
    )
    const charge = await pixgate.webHandler(
      new Request("http://web.host/api/v1/charges", {
        method: "POST",
        headers: { "x-api-key": testKey, "content-type": "application/json" },
        body: JSON.stringify({ amount: 7 })
      })
    )
    expect([charge.status, (await charge.json()).amount]).toEqual([201, 7])
    await pixgate.dispose()
    expect(lines.map((line) => JSON.parse(line).status)).toEqual([200, 201])
  })
})
