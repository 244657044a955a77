/**
 * Every gateway package (`packages/gateway-*`) over its TypeScript sources: no import cycle
 * (madge, type-only imports included), no file above 400 lines, and in this package the BCB
 * standard (`standard/`) knows no PSP profile: it imports nothing from a profile's folder.
 */
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "@effect/vitest"
import { testWait } from "@pixgate/testkit/wait"
import madge from "madge"

const packages = fileURLToPath(new URL("../..", import.meta.url))
const tsConfig = fileURLToPath(new URL("../../../tsconfig.base.json", import.meta.url))
const maxLines = 400

/** Every gateway package: its folder's name and its `src`. */
const gateways = readdirSync(packages, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && entry.name.startsWith("gateway-"))
  .map((entry) => ({ name: entry.name, src: join(packages, entry.name, "src") }))

const sourceFiles = (dir: string): ReadonlyArray<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : entry.name.endsWith(".ts")
        ? [join(dir, entry.name)]
        : []
  )

const graph = (src: string) =>
  madge(src, { fileExtensions: ["ts"], tsConfig, detectiveOptions: { ts: { skipTypeImports: false } } })

describe("the gateway packages' layout", () => {
  it("this package is among them", () => {
    expect(gateways.map((g) => g.src)).toContain(fileURLToPath(new URL("../src", import.meta.url)))
  })

  it.each(gateways)(
    "$name: no import cycle",
    async ({ src }) => {
      const result = await graph(src)
      // The graph is the real one: the index reaches the modules, and only other packages
      // (which have checks of their own) were left out.
      expect(Object.keys(result.obj()).length).toBeGreaterThan(1)
      expect(result.warnings().skipped.filter((module) => module.startsWith("."))).toEqual([])
      expect(result.circular()).toEqual([])
    },
    testWait(2)
  )

  it.each(gateways)("$name: no file above 400 lines", ({ src }) => {
    const long = sourceFiles(src)
      .map((file) => [file, readFileSync(file, "utf8").split("\n").length - 1] as const)
      .filter(([, lines]) => lines > maxLines)
    expect(long).toEqual([])
  })

  it(
    "the standard imports no PSP profile",
    async () => {
      const deps = (await graph(fileURLToPath(new URL("../src", import.meta.url)))).obj()
      const standard = Object.keys(deps).filter((module) => module.startsWith("standard/"))
      expect(standard.length).toBeGreaterThan(5)
      const crossing = standard.flatMap((module) =>
        (deps[module] ?? [])
          .filter((dep) => !dep.startsWith("standard/") && dep !== "Settings.ts")
          .map((dep) => `${module} -> ${dep}`)
      )
      expect(crossing).toEqual([])
    },
    testWait(2)
  )
})
