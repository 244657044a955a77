/**
 * Vitest setup of every test file: what the test process itself writes straight to standard
 * output (the JSON request and engine logs of the servers the tests run in-process, which go to
 * `process.stdout` rather than through the console) is dropped, unless the run asked for logs
 * with `PIXGATE_TEST_LOGS=1`. The tests that read logs capture them where they are made (a `write`
 * option, a spy on `process.stdout.write`, a child's pipe), and those still see every line;
 * only the copy that would reach the terminal is dropped. Standard error is left alone: a
 * warning there (a suite skipped for want of Postgres) must be seen.
 */
import { testLogs } from "./output.js"

if (!testLogs) {
  const drop = (_chunk: unknown, encoding?: unknown, callback?: unknown): boolean => {
    const done = typeof encoding === "function" ? encoding : callback
    if (typeof done === "function") process.nextTick(done as () => void)
    return true
  }
  process.stdout.write = drop as typeof process.stdout.write
}
