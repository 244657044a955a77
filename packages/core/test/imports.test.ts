/**
 * Core's import graph (madge over the TypeScript sources, type-only imports included): no
 * module depends on itself through others, and a bank gateway's port does not reach the engine.
 */
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "@effect/vitest"
import { testWait } from "@pixgate/testkit/wait"
import madge from "madge"

const src = fileURLToPath(new URL("../src", import.meta.url))
const tsConfig = fileURLToPath(new URL("../../../tsconfig.base.json", import.meta.url))

const graph = () =>
  madge(src, {
    fileExtensions: ["ts"],
    tsConfig,
    // `import type` counts: a cycle of types is still a cycle a reader has to untangle.
    detectiveOptions: { ts: { skipTypeImports: false, suppressDeprecatedPropertyWarnings: true } }
  })

/**
 * A module's key in the graph by its file name or the end of its path, wherever it lives under
 * src (`Engine.ts`, `services/Charges.ts`); a name two modules share (`Admin.ts`) is refused.
 */
const named = (deps: Record<string, ReadonlyArray<string>>, file: string) => {
  const keys = Object.keys(deps).filter((k) => k === file || k.endsWith(`/${file}`))
  if (keys.length === 0) throw new Error(`${file} is not in core's import graph`)
  if (keys.length > 1) throw new Error(`${file} names ${keys.join(", ")}: give more of its path`)
  return keys[0]
}

/** Every module a module reaches through its imports. */
const reach = (deps: Record<string, ReadonlyArray<string>>, from: string) => {
  const seen = new Set<string>()
  const next = [...(deps[from] ?? [])]
  while (next.length > 0) {
    const module = next.pop() as string
    if (seen.has(module)) continue
    seen.add(module)
    next.push(...(deps[module] ?? []))
  }
  return seen
}

describe("core's imports", () => {
  it(
    "have no cycle, and the bank-gateway port does not reach the engine or its services",
    async () => {
      const result = await graph()
      const deps = result.obj()
      // The graph is the real one: the façade imports the services, and nothing was skipped.
      const engine = named(deps, "Engine.ts")
      expect(deps[engine]).toContain(named(deps, "Charges.ts"))
      expect(deps[engine]).toContain(named(deps, "services/Admin.ts"))
      expect(result.warnings().skipped).toEqual([])
      expect(result.circular()).toEqual([])
      const port = reach(deps, named(deps, "ports/BankGateway.ts"))
      // The port has imports of its own: an empty reach would make the check below vacuous.
      expect(port.size).toBeGreaterThan(0)
      for (const service of [
        "Engine.ts",
        "services/Charges.ts",
        "services/Payouts.ts",
        "services/BankEvents.ts",
        "services/Admin.ts",
        "adapters/Sandbox.ts"
      ]) {
        expect(port.has(named(deps, service)), `BankGateway.ts reaches ${service}`).toBe(false)
      }
    },
    testWait(2)
  )
})
