/**
 * How long the tests wait, from one setting. Every wait of the suite that gives up (a child's
 * expected line, a delivery to arrive, a server to listen, a poll until a condition holds) and
 * every test and hook time limit derives from `testWaitMs`, so that a slower machine needs one
 * change, never a hunt for constants, and no single step gives up before the test's own limit
 * would. The default, 60 s for one step, is tuned for a 2-core machine at load 8 (other
 * processes using both cores): the slowest step measured there (a child process importing the
 * sources through tsx) took about 15 s. `PIXGATE_TEST_WAIT_MS` overrides it, for all of them.
 *
 * A wait ends as soon as its condition holds: these are limits, never sleeps, so a larger
 * setting costs nothing on a run that passes.
 */

const read = (name: string, fallback: number): number => {
  const text = process.env[name]
  if (text === undefined || text.trim() === "") return fallback
  const value = Number(text)
  if (!Number.isInteger(value) || value < 1000)
    throw new Error(
      `${name} must be a whole number of milliseconds, at least 1000 (got ${JSON.stringify(text)})`
    )
  return value
}

/** The base wait in milliseconds: how long one step may take (`PIXGATE_TEST_WAIT_MS`, default 60 000). */
export const testWaitMs: number = read("PIXGATE_TEST_WAIT_MS", 60_000)

/** `factor` base waits, in milliseconds: the limit of something that takes `factor` steps. */
export const testWait = (factor = 1): number => Math.round(testWaitMs * factor)

/** vitest's `testTimeout` and `hookTimeout`: two base waits (120 s by default). */
export const testTimeoutMs: number = testWait(2)

/** Resolves after `ms`: the pause between two polls, never a wait for something to happen. */
export const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Polls `check` every `everyMs` until it answers true and resolves with the time it took; fails
 * naming `what` after `timeoutMs` (one base wait unless given). `what` may be a function, called
 * only then, to say what was seen (a child's output so far).
 */
export const until = async (
  what: string | (() => string),
  check: () => boolean | Promise<boolean>,
  timeoutMs: number = testWaitMs,
  everyMs = 50
): Promise<number> => {
  const start = Date.now()
  for (;;) {
    if (await check()) return Date.now() - start
    if (Date.now() - start > timeoutMs)
      throw new Error(
        `Timed out after ${timeoutMs} ms waiting for ${typeof what === "string" ? what : what()}`
      )
    await pause(everyMs)
  }
}
