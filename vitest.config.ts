import { defineConfig } from "vitest/config"

// One vitest run over the whole workspace. Workspace packages resolve to their TypeScript
// sources through the "@pixgate/source" export condition. The global setup gives the run its
// own temporary directory and drops its Postgres databases at the end. Time limits leave room
// for a machine at load 8 on 2 cores (tests assert outcomes, never durations).
export default defineConfig({
  resolve: { conditions: ["@pixgate/source"] },
  ssr: { resolve: { conditions: ["@pixgate/source"] } },
  test: {
    include: ["packages/*/test/**/*.test.ts", "examples/test/**/*.test.ts"],
    globalSetup: ["./vitest.global-setup.ts"],
    // Every answer the shared test senders receive is held against the OpenAPI document.
    setupFiles: ["./packages/http/test/support/contract.setup.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    teardownTimeout: 30_000,
    pool: "forks"
  }
})
