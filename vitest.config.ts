import { availableParallelism } from "node:os"
import { defineConfig } from "vitest/config"
import { testLogs } from "./packages/testkit/src/output.js"
import { testTimeoutMs, testWait, testWaitMs } from "./packages/testkit/src/wait.js"

/**
 * How many test files run at once (`PIXGATE_TEST_WORKERS` overrides). Most of the suite's time
 * is spent waiting (child processes starting, sandbox timers, webhook deliveries, Postgres), not
 * computing, so one file per core plus one keeps both cores of a small machine busy; vitest's
 * own default (cores - 1) ran the files one at a time on 2 cores. docs/performance.md has the
 * measurements.
 */
const workers = Number(process.env.PIXGATE_TEST_WORKERS ?? availableParallelism() + 1)

// One vitest run over the whole workspace. Workspace packages resolve to their TypeScript
// sources through the "@pixgate/source" export condition. The global setup gives the run its
// own temporary directory and drops its Postgres databases at the end. Every time limit derives
// from one setting, PIXGATE_TEST_WAIT_MS (packages/testkit/src/wait.ts), sized for a machine at load 8
// on 2 cores (tests assert outcomes, never durations). Output stays quiet unless
// PIXGATE_TEST_LOGS=1: one line per test file and the summary, plus whatever fails.
export default defineConfig({
  resolve: { conditions: ["@pixgate/source"] },
  ssr: { resolve: { conditions: ["@pixgate/source"] } },
  test: {
    include: ["packages/*/test/**/*.test.ts", "examples/test/**/*.test.ts"],
    globalSetup: ["./vitest.global-setup.ts"],
    setupFiles: [
      // Every answer the shared test senders receive is held against the OpenAPI document.
      "./packages/testkit/src/contract.setup.ts",
      // Request logs of in-process servers off unless PIXGATE_TEST_LOGS=1.
      "./packages/testkit/src/quiet.setup.ts"
    ],
    testTimeout: testTimeoutMs,
    hookTimeout: testTimeoutMs,
    teardownTimeout: testWait(0.5),
    // `expect.poll` without a timeout of its own: one base wait, not vitest's 1 s (a page that
    // answers a second late on a loaded machine is not a failure).
    expect: { poll: { timeout: testWaitMs } },
    pool: "forks",
    maxWorkers: workers,
    minWorkers: 1,
    // One line per file and the summary (also in CI, where vitest would otherwise pick the same).
    reporters: ["default"],
    // Under each file's line, only its tests slower than this (the default, 300 ms, listed
    // hundreds of ordinary HTTP tests on a loaded machine).
    slowTestThreshold: 10_000,
    // console.log and console.info of tests and libraries only when asked; warnings and errors always.
    onConsoleLog: (_log, type) => (testLogs || type === "stderr" ? undefined : false)
  }
})
