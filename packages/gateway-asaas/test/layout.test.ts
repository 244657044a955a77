/**
 * The gateway's shape (madge over its TypeScript sources, type-only imports included): no
 * module reaches itself through others, the wire mapping imports no other module of the
 * gateway, only the assembly and the layers reach the whole, and no file is above 400 lines.
 */
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { testWait } from "@pixgate/testkit/wait"
import madge from "madge"
import { describe, expect, it } from "vitest"

const src = fileURLToPath(new URL("../src", import.meta.url))
const tsConfig = fileURLToPath(new URL("../../../tsconfig.base.json", import.meta.url))

describe("the Asaas gateway's modules", () => {
  it(
    "have no import cycle; Wire stands alone; Gateway and the layers are the only ones that reach Charges, Sends and Webhooks together",
    async () => {
      const graph = await madge(src, {
        fileExtensions: ["ts"],
        tsConfig,
        detectiveOptions: { ts: { skipTypeImports: false } }
      })
      const all = graph.obj()
      // The gateway's own modules only (madge lists the packages it imports as nodes too).
      const deps = Object.fromEntries(
        Object.entries(all)
          .filter(([m]) => m.endsWith(".ts"))
          .map(([m, ds]) => [m, ds.filter((d) => d.endsWith(".ts"))])
      )
      // Every module of the gateway resolved (only other packages may be left out of the graph).
      expect(graph.warnings().skipped.filter((m) => m.startsWith("."))).toEqual([])
      expect(Object.keys(deps).length).toBeGreaterThan(10)
      expect(graph.circular()).toEqual([])
      expect(deps["Wire.ts"]).toEqual([])
      const assemblers = Object.keys(deps).filter((m) =>
        ["Charges.ts", "Sends.ts", "Webhooks.ts"].every((d) => (deps[m] ?? []).includes(d))
      )
      expect(assemblers).toEqual(["Gateway.ts"])
    },
    testWait(1)
  )

  it("are each at most 400 lines", () => {
    for (const file of readdirSync(src)) {
      const lines = readFileSync(join(src, file), "utf8").split("\n").length
      expect(lines, file).toBeLessThanOrEqual(400)
    }
  })
})
