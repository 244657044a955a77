/**
 * Structured logs: one JSON object per line (`time`, `level`, `msg`, then the line's fields,
 * e.g. a request's method, path, status and duration). Effect's logger (engine messages,
 * errors, "Pixgate listening") and the transport's access lines go through one Writer, so they
 * keep their order. Nothing Pixgate logs carries API keys, webhook secrets, tokens or request
 * bodies; paths are logged with their secret segments redacted (Redact), and whatever is shaped
 * like a Pixgate secret is masked wherever it appears in a line (`Redaction.mask`: an error
 * message quoting a key, a client's mistake), so no such secret reaches a log. Failures answered to a
 * client are not also reported by the runtime as unhandled (`layer` turns that report off): a
 * 4xx is its access line, a 5xx that line plus one warning with its cause.
 */
import { Redaction } from "@pixgate/core"
import { Cause, HashMap, Layer, Logger, LogLevel, Option } from "effect"
import * as LineBuffer from "./LineBuffer.js"
import * as Timestamp from "./Timestamp.js"

/** The least severe level written; `none` silences Pixgate. */
export type Level = "debug" | "info" | "warning" | "error" | "none"

/** Where and what to log. */
export interface LogOptions {
  readonly level?: Level
  /**
   * Receives each line without its newline, one call per line (default: stdout, written in
   * batches at the next turn of the event loop, at once on `dispose()` and at process exit).
   */
  readonly write?: (line: string) => void
  /** Without `write`: where the batches of lines go (default: stdout). */
  readonly out?: (chunk: string) => void
}

/** Where lines go, from which level. */
export interface Writer {
  readonly level: Level
  /** Takes one line, without its newline. */
  readonly write: (line: string) => void
  /** Writes out any lines held back. */
  readonly flush: () => void
}

const levels: Record<Level, LogLevel.LogLevel> = {
  debug: LogLevel.Debug,
  info: LogLevel.Info,
  warning: LogLevel.Warning,
  error: LogLevel.Error,
  none: LogLevel.None
}

/** Reads a level name (e.g. from an environment variable); undefined when unknown. */
export const parseLevel = (text: string | undefined): Level | undefined => {
  const name = text?.trim().toLowerCase()
  return name !== undefined && name in levels ? (name as Level) : undefined
}

/** Whether `writer` takes lines of `level`. */
export const enabled = (writer: Writer, level: Exclude<Level, "none">): boolean =>
  LogLevel.greaterThanEqual(levels[level], levels[writer.level])

/** Standard output; off Node (no `process`), the console. */
const stdout = (chunk: string): void => {
  if (typeof process !== "undefined" && process.stdout !== undefined) process.stdout.write(chunk)
  else console.log(chunk.replace(/\n$/, ""))
}

/** The writer of `options`: the given `write`, or `out` (stdout) in batches. */
export const writer = (options: LogOptions = {}): Writer => {
  const level = options.level ?? "info"
  if (options.write !== undefined) return { level, write: options.write, flush: () => {} }
  const lines = LineBuffer.make(options.out ?? stdout)
  return { level, write: lines.write, flush: lines.flush }
}

/** A logger that writes JSON lines. */
export const json = (write: (line: string) => void) =>
  Logger.make(({ logLevel, message, annotations, cause, date }) => {
    const parts = Array.isArray(message) ? message : [message]
    const line: Record<string, unknown> = {
      time: date.toISOString(),
      level: logLevel.label.toLowerCase(),
      msg: String(parts[0])
    }
    if (parts.length > 1) line.detail = parts.slice(1).map(String).join("\n")
    for (const [key, value] of HashMap.toEntries(annotations)) line[key] = value
    if (!Cause.isEmpty(cause)) line.cause = Cause.pretty(cause)
    // Masked as written: a secret's characters need no JSON escape, so the line stays JSON.
    write(Redaction.mask(JSON.stringify(line)))
  })

/** Replaces Effect's default logger with the JSON one on `writer`, from its level. */
export const layer = (writer: Writer): Layer.Layer<never> =>
  Layer.mergeAll(
    Logger.replace(Logger.defaultLogger, json(writer.write)),
    Logger.minimumLogLevel(levels[writer.level]),
    // A request's fiber ends in its refusal (a 401, a 422) by design; the dispatcher answers and
    // logs it. Effect would add "Fiber terminated with an unhandled error" with a stack at debug.
    Layer.setUnhandledErrorLogLevel(Option.none())
  )

/**
 * `text` as a JSON string. Request ids, methods and most paths hold only printable ASCII
 * without `"` or a backslash: those are quoted as they are, the rest go through `JSON.stringify`.
 */
const quote = (text: string): string => {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) return JSON.stringify(text)
  }
  return `"${text}"`
}

/**
 * The access line of one request, built directly (no logger, no annotations). Its fields come
 * in the order Effect's logger wrote them, so the lines stay byte for byte what they were; an
 * error answer adds its `code`, and a host that knows the client's address (per the trusted
 * proxies) adds it as `client`, last. This line is the only one an ordinary refusal (a 4xx) gets.
 * `path` must already be redacted (`Redact.path`).
 */
export const requestLine = (
  time: number,
  method: string,
  path: string,
  status: number,
  durationMs: number,
  requestId: string,
  code?: string,
  client?: string
): string =>
  `{"time":"${Timestamp.iso(time)}","level":"info","msg":"request","durationMs":${durationMs},` +
  `"path":${quote(path)},"status":${status},"requestId":${quote(requestId)},` +
  `"method":${quote(method)}${code === undefined ? "" : `,"code":${JSON.stringify(code)}`}${
    client === undefined ? "" : `,"client":${quote(client)}`
  }}`

/** The `code` of an error body `{ error, code }`, without parsing the whole body. */
export const codeOf = (body: string): string | undefined => /"code":"([a-z_]{1,64})"/.exec(body)?.[1]

/** A line of its fields, secrets masked. */
const jsonLine = (fields: Record<string, unknown>): string => Redaction.mask(JSON.stringify(fields))

/** The error line of a defect met while answering a request (as `Effect.logError` wrote it). */
export const defectLine = (time: number, detail: string, requestId: string): string =>
  jsonLine({
    time: new Date(time).toISOString(),
    level: "error",
    msg: "Unexpected defect while handling a request",
    detail,
    requestId
  })

/** The messages of an error and of its causes, outermost first, each once. */
export const causeChain = (error: unknown): string => {
  const parts: Array<string> = []
  let current: unknown = error
  for (let depth = 0; current !== undefined && current !== null && depth < 8; depth++) {
    const text =
      current instanceof Error
        ? current.message || ("code" in current ? String(current.code) : current.name)
        : typeof current === "object" && "message" in current
          ? String(current.message)
          : String(current)
    if (text !== "" && !parts.some((p) => p.includes(text))) parts.push(text)
    current = typeof current === "object" && "cause" in current ? current.cause : undefined
  }
  return parts.join(" <- ")
}

/**
 * The line of a request answered with a 5xx error (a 502 from the bank, a 503 from the
 * database): warn level, with the underlying cause, written once per request.
 */
export const failureLine = (
  time: number,
  status: number,
  code: string,
  cause: string,
  requestId: string,
  outcome: "unknown" | undefined
): string =>
  jsonLine({
    time: new Date(time).toISOString(),
    level: "warn",
    msg: outcome === "unknown" ? "Request failed; its outcome is unknown" : "Request failed",
    status,
    code,
    cause,
    outcome,
    requestId
  })
