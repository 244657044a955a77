import { defineConfig } from "vitest/config"

// One vitest run over the whole workspace. Workspace packages resolve to their TypeScript
// sources through the "@pixgate/source" export condition.
export default defineConfig({
  resolve: { conditions: ["@pixgate/source"] },
  ssr: { resolve: { conditions: ["@pixgate/source"] } },
  test: {
    include: ["packages/*/test/**/*.test.ts", "examples/test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks"
  }
})
