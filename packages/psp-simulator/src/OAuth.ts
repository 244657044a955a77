import { randomBytes, timingSafeEqual } from "node:crypto"
import type { IncomingHttpHeaders } from "node:http"
import type { Token } from "./Model.js"
import { json, problem, type Reply } from "./Reply.js"
import { asObject, type Route } from "./Route.js"
import { recScopes } from "./rec/RouteNames.js"

/** Every scope the simulator knows: the API Pix ones and Efí's send and infraction scopes. */
export const allScopes = [
  "cob.write",
  "cob.read",
  "cobv.write",
  "cobv.read",
  "pix.write",
  "pix.read",
  "webhook.write",
  "webhook.read",
  "pix.send",
  "gn.pix.send.read",
  "gn.infractions.read",
  "gn.infractions.write",
  ...recScopes
] as const

/** An OAuth2 client allowed to ask for tokens (client credentials grant). */
export interface OAuthClient {
  readonly clientId: string
  readonly clientSecret: string
  /** The scopes it may be granted; all of them when absent. */
  readonly scopes?: ReadonlyArray<string>
}

const same = (a: string, b: string) => {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  return left.length === right.length && timingSafeEqual(left, right)
}

const oauthError = (status: number, error: string, description: string): Reply => ({
  status,
  body: { error, error_description: description },
  ...(status === 401 ? { headers: { "www-authenticate": 'Basic realm="psp-simulator"' } } : {})
})

/** Reads `grant_type` and `scope` from a JSON or form-encoded body. */
const grant = (text: string, headers: IncomingHttpHeaders) => {
  if ((headers["content-type"] ?? "").includes("application/x-www-form-urlencoded")) {
    const form = new URLSearchParams(text)
    return { grantType: form.get("grant_type") ?? undefined, scope: form.get("scope") ?? undefined }
  }
  try {
    const body = asObject(JSON.parse(text))
    const scope = body?.scope
    return {
      grantType: typeof body?.grant_type === "string" ? body.grant_type : undefined,
      scope: typeof scope === "string" ? scope : undefined
    }
  } catch {
    return { grantType: undefined, scope: undefined }
  }
}

/** `POST /oauth/token`: client credentials with HTTP Basic authentication. */
export const tokenRoute = (settings: {
  readonly clients: ReadonlyArray<OAuthClient>
  readonly tokenTtlSeconds: () => number
  readonly tokens: Map<string, Token>
  readonly now: () => Date
}): Route => ({
  name: "token",
  method: "POST",
  path: "/oauth/token",
  handle: ({ headers, text }) => {
    const authorization = headers.authorization ?? ""
    const match = /^Basic\s+(.+)$/i.exec(authorization)
    const decoded = match ? Buffer.from(match[1], "base64").toString("utf8") : ""
    const colon = decoded.indexOf(":")
    const client =
      colon < 0
        ? undefined
        : settings.clients.find(
            (candidate) =>
              same(candidate.clientId, decoded.slice(0, colon)) &&
              same(candidate.clientSecret, decoded.slice(colon + 1))
          )
    if (!client) return oauthError(401, "invalid_client", "Unknown client or wrong secret.")
    const { grantType, scope } = grant(text, headers)
    if (grantType !== "client_credentials") {
      return oauthError(400, "unsupported_grant_type", "grant_type must be client_credentials.")
    }
    const allowed: ReadonlyArray<string> = client.scopes ?? allScopes
    const requested = scope === undefined ? allowed : scope.split(/\s+/).filter((item) => item.length > 0)
    const refused = requested.filter((item) => !allowed.includes(item))
    if (refused.length > 0)
      return oauthError(400, "invalid_scope", `Scopes not allowed: ${refused.join(" ")}.`)
    const ttl = settings.tokenTtlSeconds()
    const accessToken = randomBytes(24).toString("base64url")
    settings.tokens.set(accessToken, {
      clientId: client.clientId,
      scopes: requested,
      expiresAt: settings.now().getTime() + ttl * 1000
    })
    return json(200, {
      access_token: accessToken,
      token_type: "Bearer",
      expires_in: ttl,
      scope: requested.join(" ")
    })
  }
})

/** The bearer token of a request, if it sent one. */
export const bearer = (headers: IncomingHttpHeaders) =>
  /^Bearer\s+(\S+)$/i.exec(headers.authorization ?? "")?.[1] ?? undefined

/** 401 for a missing, unknown or expired token, in the problem shape of the API Pix. */
export const unauthorized = (): Reply => ({
  ...problem(401, "AcessoNegado", "Unauthorized.", "The access token is missing, unknown or expired."),
  headers: { "www-authenticate": 'Bearer error="invalid_token"' }
})

/** Checks the bearer token and its scope: undefined when allowed, else the error reply. */
export const authorize = (
  headers: IncomingHttpHeaders,
  scope: string,
  tokens: Map<string, Token>,
  now: () => Date
): Reply | undefined => {
  const value = bearer(headers)
  const token = value === undefined ? undefined : tokens.get(value)
  if (!token || token.expiresAt <= now().getTime()) return unauthorized()
  if (!token.scopes.includes(scope)) {
    return problem(403, "AcessoNegado", "Access denied.", `The access token lacks the scope ${scope}.`)
  }
  return undefined
}
