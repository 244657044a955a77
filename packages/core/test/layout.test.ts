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

/**
 * Where each folder's modules may import from (their own folder always), lowest first: plumbing
 * (`runtime/`) sits below everything that does work, and no folder imports one above it. A folder
 * missing from this table is refused, so a new one has to say where it stands.
 */
const allowed: Record<string, ReadonlyArray<string> | undefined> = {
  domain: [],
  contract: ["domain"],
  ports: ["domain", "contract"],
  internal: ["domain", "ports"],
  pix: ["domain", "internal"],
  runtime: ["domain", "contract", "ports"],
  access: ["domain", "contract", "ports", "internal", "runtime"],
  jobs: ["domain", "contract", "ports", "internal", "runtime"],
  webhooks: ["domain", "contract", "ports", "internal", "pix", "runtime", "jobs"],
  adapters: ["domain", "contract", "ports", "internal", "pix", "runtime"],
  services: ["domain", "contract", "ports", "internal", "pix", "runtime", "jobs", "webhooks", "access"],
  node: ["domain", "contract", "ports", "internal", "runtime", "webhooks"]
}

describe("core's layout", () => {
  it(
    "every module is in its folder and keeps its folder's import rules, with no cycle",
    async () => {
      const result = await madge(src, {
        fileExtensions: ["ts"],
        tsConfig,
        detectiveOptions: { ts: { skipTypeImports: false, suppressDeprecatedPropertyWarnings: true } }
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
          broken.push(`${module} is not in a folder (${Object.keys(allowed).join("/, ")}/)`)
        }
        const rule = allowed[folder]
        if (folder !== "." && rule === undefined) {
          broken.push(`${module} is in ${folder}/, a folder the layout rules do not name`)
        }
        for (const dep of deps[module] ?? []) {
          const to = folderOf(dep)
          if (rule !== undefined && to !== folder && !rule.includes(to)) {
            broken.push(
              `${module} imports ${dep}: ${folder}/ may import only ${[folder, ...rule].join(", ")}`
            )
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
