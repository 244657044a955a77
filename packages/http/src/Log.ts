/**
 * Structured logs: one JSON object per line (`time`, `level`, `msg`, then the annotations, e.g.
 * a request's method, path, status and duration). Nothing Pixgate logs carries API keys,
 * webhook secrets, tokens or request bodies.
 */
import { Cause, HashMap, Layer, Logger, LogLevel } from "effect"

/** The least severe level written; `none` silences Pixgate. */
export type Level = "debug" | "info" | "warning" | "error" | "none"

/** Where and what to log. */
export interface LogOptions {
  readonly level?: Level
  /** Receives each line without its newline (default: `console.log`, i.e. stdout). */
  readonly write?: (line: string) => void
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
    write(JSON.stringify(line))
  })

/** Replaces the default logger with the JSON one, at `level` (default `info`). */
export const layer = (options: LogOptions = {}): Layer.Layer<never> =>
  Layer.merge(
    Logger.replace(Logger.defaultLogger, json(options.write ?? ((line) => globalThis.console.log(line)))),
    Logger.minimumLogLevel(levels[options.level ?? "info"])
  )
