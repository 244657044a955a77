/**
 * Core's layout rules over its import graph (madge over the TypeScript sources, type-only imports
 * included): the folders say what a module may depend on (packages/core/README.md, "Layout").
 */
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "@effect/vitest"
import { testWait } from "@pixgate/testkit/wait"
import madge from "madge"

const src = fileURLToPath(new URL("../src", import.meta.url))
const tsConfig = fileURLToPath(new URL("../../../tsconfig.base.json", import.meta.url))

/** The folder of a module path as madge names it (`domain/Money.ts`), "." at the top. */
const folderOf = (module: string) => (module.includes("/") ? module.slice(0, module.indexOf("/")) : ".")

/** Where each folder's modules may import from (their own folder always). */
const allowed: Record<string, ReadonlyArray<string> | undefined> = {
  domain: [],
  pix: ["domain", "internal"],
  contract: ["domain"],
  ports: ["domain", "contract"]
}

describe("core's layout", () => {
  it(
    "every module is in its folder and keeps its folder's import rules, with no cycle",
    async () => {
      const result = await madge(src, {
        fileExtensions: ["ts"],
        tsConfig,
        detectiveOptions: { ts: { skipTypeImports: false } }
      })
      const deps = result.obj()
      const modules = Object.keys(deps)
      const broken: Array<string> = []
      // The graph is the real one: the index reaches the modules, nothing was skipped.
      expect(modules.length).toBeGreaterThan(40)
      expect(deps["index.ts"]).toContain("Engine.ts")
      expect(result.warnings().skipped).toEqual([])
      for (const module of modules) {
        const folder = folderOf(module)
        if (folder === "." && module !== "index.ts" && module !== "Engine.ts") {
          broken.push(
            `${module} is not in a folder (domain/, pix/, contract/, ports/, adapters/, services/, ...)`
          )
        }
        for (const dep of deps[module] ?? []) {
          const to = folderOf(dep)
          const rule = allowed[folder]
          if (rule !== undefined && to !== folder && !rule.includes(to)) {
            broken.push(
              `${module} imports ${dep}: ${folder}/ may import only ${[folder, ...rule].join(", ")}`
            )
          }
          if (folder === "services" && (to === "adapters" || to === "node")) {
            broken.push(`${module} imports ${dep}: services never import adapters`)
          }
          if (dep === "Engine.ts" && module !== "index.ts") {
            broken.push(`${module} imports Engine.ts: only the index does`)
          }
        }
      }
      expect(broken).toEqual([])
      expect(result.circular()).toEqual([])
    },
    testWait(2)
  )
})
