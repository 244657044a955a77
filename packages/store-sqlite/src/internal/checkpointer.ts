/**
 * Checkpoints a SQLite file's write-ahead log from a worker thread, off the event loop.
 *
 * In WAL mode every commit appends the pages it changed to the log, and by default the
 * connection that commits copies the log back into the database file (a checkpoint, with an
 * fsync) each time the log passes 1,000 pages. better-sqlite3 is synchronous, so that copy
 * stalls the whole process inside a `COMMIT`: measured on payouts spread over 100 merchants,
 * where every batch dirties a few hundred index pages, commits were two thirds of the
 * store's SQLite time. A second connection on a worker thread runs `wal_checkpoint(PASSIVE)`
 * every `intervalMs` instead: it copies what it can without waiting for or blocking the writer,
 * a page changed by many commits is copied once, and the writer restarts the log at its next
 * commit once everything is copied. The writer's own automatic checkpoint stays on, at a
 * larger threshold, as a backstop should the worker fall behind or stop.
 */
import { createRequire } from "node:module"
import { Worker } from "node:worker_threads"
import { Effect, Runtime, type Scope } from "effect"

/** Pages the log may reach before the writer checkpoints it itself (4 KiB each: 32 MiB). */
export const backstopPages = 8192

// CommonJS, evaluated in the worker: better-sqlite3 is loaded from the path the main thread
// resolved (the worker's own resolution would start from the process's working directory).
const source = `
const { parentPort, workerData } = require("node:worker_threads")
const Database = require(workerData.driver)
const db = new Database(workerData.filename, { fileMustExist: true })
db.pragma("synchronous = NORMAL")
const tick = () => {
  try {
    db.pragma("wal_checkpoint(PASSIVE)")
  } catch {}
}
const timer = setInterval(tick, workerData.intervalMs)
parentPort.on("message", (message) => {
  if (message === "stop") {
    clearInterval(timer)
    tick()
    db.close()
    parentPort.close()
  }
})
`

/**
 * Starts a checkpointer on `filename` (a file already in WAL mode) for the life of the scope;
 * closing the scope runs a last checkpoint and ends the worker.
 */
export const start = (filename: string, intervalMs: number): Effect.Effect<Worker, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.map(Effect.runtime<never>(), (runtime) => {
      const driver = createRequire(import.meta.url).resolve("better-sqlite3")
      const worker = new Worker(source, { eval: true, workerData: { driver, filename, intervalMs } })
      // A worker that fails (a broken driver, a file removed under it) leaves the writer's own
      // checkpoints in charge: the store keeps working, and says so once.
      worker.on("error", (error) => {
        Runtime.runFork(runtime)(
          Effect.logWarning("SQLite checkpointer stopped; the writer checkpoints the log itself").pipe(
            Effect.annotateLogs({ database: filename, error: error.message })
          )
        )
      })
      worker.unref()
      return worker
    }),
    (worker) =>
      worker.threadId === -1
        ? Effect.void
        : Effect.async<void>((resume) => {
            worker.once("exit", () => resume(Effect.void))
            worker.postMessage("stop")
          }).pipe(
            Effect.timeout("5 seconds"),
            Effect.catchAll(() => Effect.promise(() => worker.terminate()))
          )
  )
