/**
 * Request bodies: `Content-Type: application/json` only, at most `maxBodySize` bytes (counted
 * while reading, never buffered beyond the limit), UTF-8, a JSON object, nested at most
 * `maxDepth` levels (deeper bodies would exhaust the stack of anything that walks them).
 * Anything else is 400 `Invalid JSON body`; too large is 413; a string with U+0000 is 422.
 * Numbers a double cannot hold arrive as `Money.JsonDecimal` (see `JsonText`).
 */
import { Errors } from "@pixgate/core"
import { Effect } from "effect"
import type { Incoming, RawBody } from "./Incoming.js"
import * as JsonText from "./JsonText.js"
import type { ApiError } from "./TransportErrors.js"

/** Default body limit: 64 KiB. */
export const defaultMaxBodySize = 64 * 1024

/** Deepest nesting of arrays and objects accepted in a body. */
export const maxDepth = 32

/** Whether a declared `Content-Length` is already above `limit` (413 before reading). */
export const declaredTooLarge = (contentLength: string | undefined, limit: number): boolean =>
  contentLength !== undefined && /^\d+$/.test(contentLength) && Number(contentLength) > limit

/** True for `application/json`, with an optional UTF-8 charset (or other parameters). */
export const isJsonContentType = (header: string | undefined): boolean => {
  if (header === undefined) return false
  const [type, ...params] = header.split(";")
  if (type?.trim().toLowerCase() !== "application/json") return false
  return params.every((p) => {
    const [name, value = ""] = p.split("=")
    if (name?.trim().toLowerCase() !== "charset") return true
    return /^"?utf-?8"?$/i.test(value.trim())
  })
}

/** Whether `text` nests arrays and objects deeper than `limit` (strings are skipped). */
export const nestsDeeperThan = (text: string, limit: number): boolean => {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 92) i++
      else if (c === 34) inString = false
    } else if (c === 34) inString = true
    else if (c === 91 || c === 123) {
      if (++depth > limit) return true
    } else if (c === 93 || c === 125) depth--
  }
  return false
}

/**
 * Where the first string (key or value) holding U+0000 is: valid JSON, but no database text
 * column can store it (Postgres refuses it), so it is refused here as a validation error.
 */
export const nulPath = (value: unknown): string | undefined => {
  const stack: Array<readonly [unknown, string]> = [[value, ""]]
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [v, path] = next
    if (typeof v === "string" && v.includes("\u0000")) return path
    if (typeof v !== "object" || v === null) continue
    for (const [key, child] of Object.entries(v)) {
      const at = path === "" ? key : `${path}.${key}`
      if (key.includes("\u0000")) return at
      stack.push([child, at])
    }
  }
  return undefined
}

const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false })

/** Bytes or text to a JSON object, or 400 `Invalid JSON body`. */
export const parseObject = (
  raw: RawBody
): Effect.Effect<Record<string, unknown>, Errors.InvalidJson | Errors.ValidationError> =>
  Effect.suspend((): Effect.Effect<Record<string, unknown>, Errors.InvalidJson | Errors.ValidationError> => {
    let text: string
    try {
      text = typeof raw === "string" ? raw : decoder.decode(raw)
    } catch {
      return Effect.fail(Errors.invalidJson())
    }
    if (nestsDeeperThan(text, maxDepth)) return Effect.fail(Errors.invalidJson())
    let value: unknown
    try {
      value = JsonText.parse(text)
    } catch {
      return Effect.fail(Errors.invalidJson())
    }
    if (typeof value !== "object" || value === null || Array.isArray(value))
      return Effect.fail(Errors.invalidJson())
    const nul = nulPath(value)
    return nul === undefined
      ? Effect.succeed(value as Record<string, unknown>)
      : Effect.fail(Errors.validation("invalid_text", nul, `${nul} must not contain NUL characters`))
  })

/** What is wrong when the body is refused for its content type (the body itself is not read). */
const contentTypeDetail = (header: string | undefined): Errors.ErrorDetail => ({
  path: "headers.content-type",
  message:
    header === undefined || header.trim() === ""
      ? "Content-Type must be application/json (the request has none)"
      : `Content-Type must be application/json (the request has ${JSON.stringify(header.slice(0, 100))})`
})

/** The request's JSON object body (content type first, then size, then syntax). */
export const readJsonObject = (request: Incoming): Effect.Effect<Record<string, unknown>, ApiError> =>
  isJsonContentType(request.header("content-type"))
    ? Effect.flatMap(request.body(), parseObject)
    : Effect.fail(Errors.invalidJson([contentTypeDetail(request.header("content-type"))]))
