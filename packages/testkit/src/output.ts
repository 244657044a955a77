/**
 * What the tests print. A passing run is quiet: the reporter's lines and nothing else. Request
 * logs, engine logs and the figures some tests measure (throughput of a burst, time to recover
 * from a crash, where screenshots went) appear only when asked, with `PIXGATE_TEST_LOGS=1`; a
 * failing assertion still says everything it knows in its own message.
 */

/** Whether this run asked for logs and measurements (`PIXGATE_TEST_LOGS=1`). */
export const testLogs: boolean = /^(1|true|yes)$/i.test(process.env.PIXGATE_TEST_LOGS ?? "")

/** Prints a measurement or a note when the run asked for them (`PIXGATE_TEST_LOGS=1`). */
export const report = (...values: ReadonlyArray<unknown>): void => {
  if (testLogs) console.info(...values)
}
