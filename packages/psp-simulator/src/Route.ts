import type { IncomingHttpHeaders } from "node:http"
import type { Bank } from "./Bank.js"
import type { RouteName } from "./Faults.js"
import type { Reply } from "./Reply.js"

/** What a route handler sees of a request. */
export interface RouteRequest {
  readonly params: Readonly<Record<string, string>>
  readonly query: URLSearchParams
  /** The parsed JSON body; `undefined` when empty or not JSON (handlers report it as a schema error). */
  readonly body: unknown
  /** The raw body text. */
  readonly text: string
  readonly headers: IncomingHttpHeaders
  readonly bank: Bank
}

/** One route of the simulated PSP. */
export interface Route {
  readonly name: RouteName
  readonly method: "GET" | "PUT" | "POST" | "PATCH" | "DELETE"
  /** The path, with `:name` segments for parameters. */
  readonly path: string
  /** The OAuth2 scope the route requires; none for the token endpoint. */
  readonly scope?: string
  readonly handle: (request: RouteRequest) => Reply
}

/** A plain JSON object, or undefined. */
export const asObject = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined

/** A string no longer than `max`, or undefined. */
export const boundedString = (value: unknown, max: number, min = 1): string | undefined =>
  typeof value === "string" && value.length >= min && value.length <= max ? value : undefined
