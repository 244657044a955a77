/**
 * Log lines written in batches. One synchronous write per request line costs a system call
 * each, so lines are collected and written together at the next turn of the event loop, or as
 * soon as 64 KiB wait; `flush` writes them at once, and so does the process's exit. Off Node
 * (no `setImmediate`, no `process`), the next turn is a zero timeout and there is no exit hook.
 */

/** Characters held before they are written without waiting for the next turn. */
export const highWaterMark = 64 * 1024

/** A batching line writer. */
export interface LineBuffer {
  /** Takes one line, without its newline. */
  readonly write: (line: string) => void
  /** Writes every line held, now. */
  readonly flush: () => void
}

// Buffers with lines waiting, flushed when the process exits (one listener for all of them).
const waiting = new Set<() => void>()
let exitHooked = false
const flushWaiting = () => {
  for (const flush of waiting) flush()
}

/** Runs `f` at the next turn of the event loop; answers its cancel. */
const nextTurn: (f: () => void) => () => void =
  typeof setImmediate === "function"
    ? (f) => {
        const turn = setImmediate(f)
        return () => clearImmediate(turn)
      }
    : (f) => {
        const turn = setTimeout(f, 0)
        return () => clearTimeout(turn)
      }

/** A buffer writing its batches (newline-terminated lines) with `out`. */
export const make = (out: (chunk: string) => void): LineBuffer => {
  let text = ""
  let turn: (() => void) | undefined
  const flush = () => {
    turn?.()
    turn = undefined
    waiting.delete(flush)
    if (text === "") return
    const chunk = text
    text = ""
    out(chunk)
  }
  const write = (line: string) => {
    text += `${line}\n`
    if (text.length >= highWaterMark) return flush()
    if (turn !== undefined) return
    turn = nextTurn(flush)
    waiting.add(flush)
    if (!exitHooked && typeof process !== "undefined" && typeof process.on === "function") {
      exitHooked = true
      process.on("exit", flushWaiting)
    }
  }
  return { write, flush }
}
