/**
 * A running Pixgate server as the CLI talks to it (`listen` and `trigger` with `--server URL`):
 * its base URL, the merchant's API key (`--api-key -` or `PIXGATE_API_KEY`) for the public API
 * and the admin token (`PIXGATE_ADMIN_TOKEN`) for the admin API under `/admin`. Nothing of the
 * local database is opened. An answer outside 2xx fails with the server's own error message.
 */
import { Data, Effect } from "effect"

/** The server answered with an error, or could not be reached: exit code 1, its message on stderr. */
export class RemoteFailure extends Data.TaggedError("RemoteFailure")<{ readonly message: string }> {}

/** Which credential a request carries. */
export type Credential = "key" | "admin"

/** A server and the credentials given for it. */
export interface Server {
  /** The base URL, without a trailing slash (`http://127.0.0.1:3000`). */
  readonly url: string
  readonly apiKey: string | undefined
  readonly adminToken: string | undefined
  /** The merchant the admin token acts for (`--merchant`). */
  readonly merchant: string | undefined
}

/** The headers that carry a credential. */
export const authHeaders = (server: Server, credential: Credential): Record<string, string> =>
  credential === "key"
    ? server.apiKey === undefined
      ? {}
      : { "x-api-key": server.apiKey }
    : server.adminToken === undefined
      ? {}
      : { authorization: `Bearer ${server.adminToken}` }

/** What went wrong, as the server put it (`{ error, code }`), or the status. */
const described = (status: number, text: string): string => {
  try {
    const body = JSON.parse(text) as { error?: unknown; code?: unknown }
    if (typeof body.error === "string")
      return typeof body.code === "string" ? `${body.error} (${body.code})` : body.error
  } catch {
    // Not JSON: the status says it.
  }
  return `HTTP ${status}`
}

/** One JSON request to the server; fails with its error (or the network's). */
export const request = (
  server: Server,
  credential: Credential,
  method: "GET" | "POST" | "PUT",
  path: string,
  body?: unknown,
  headers: Record<string, string> = {}
): Effect.Effect<unknown, RemoteFailure> =>
  Effect.tryPromise({
    try: async (signal) => {
      const response = await fetch(`${server.url}${path}`, {
        method,
        signal,
        headers: {
          ...authHeaders(server, credential),
          ...(body === undefined ? {} : { "content-type": "application/json" }),
          ...headers
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) })
      })
      const text = await response.text()
      if (!response.ok)
        throw new RemoteFailure({ message: `${method} ${path}: ${described(response.status, text)}` })
      return text === "" ? undefined : (JSON.parse(text) as unknown)
    },
    catch: (error) =>
      error instanceof RemoteFailure
        ? error
        : new RemoteFailure({
            message: `${server.url} did not answer: ${error instanceof Error ? error.message : String(error)}`
          })
  })

/** The base URL as given, checked: http or https, no path beyond `/`. */
export const baseUrl = (given: string): string | undefined => {
  try {
    const url = new URL(given)
    if (url.protocol !== "http:" && url.protocol !== "https:") return undefined
    return url.href.replace(/\/+$/, "")
  } catch {
    return undefined
  }
}
