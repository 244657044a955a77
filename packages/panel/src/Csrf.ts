/**
 * Cross-site request forgery, refused twice over on every POST:
 *
 * - **Where it comes from.** A browser says where a request was made: `Sec-Fetch-Site` (anything
 *   but `same-origin`, or `none` for what the person typed, is refused); a browser too old to
 *   send it is judged by `Origin` (it must be the panel's own scheme and host, and `https:` over
 *   HTTPS). The panel's pages go out with `Referrer-Policy: no-referrer`, which makes browsers
 *   send `Origin: null` for its own forms, so `null` proves nothing either way. A request that
 *   carries neither (not a browser) still needs the token below.
 * - **A token bound to the session.** Signed in, the `_csrf` field is an HMAC-SHA256 of a fixed
 *   label keyed by the session's token (238 random bits, in the browser's `HttpOnly` cookie only;
 *   the store keeps its SHA-256), and the one-time form tokens are keyed by that value (see
 *   FormToken). A cookie planted by someone else (a sibling subdomain, a plain-http answer) or
 *   a token obtained with another account is worth nothing: it was made for another session.
 *   Every instance derives the same value, so no server key has to be shared.
 *
 * Before signing in (the sign-in, invite and reset forms) there is no session: the field must
 * match the random `pixgate_csrf` cookie (double submit), which is replaced at sign-in and at
 * sign-out. When an embedding platform signs people in (`authenticate`), the panel does not see
 * the platform's session, so its forms use that cookie too, behind the same origin check.
 */
import { createHmac, randomBytes } from "node:crypto"

/** A new random value for the pre-session `pixgate_csrf` cookie. */
export const fresh = (): string => randomBytes(24).toString("base64url")

/** Whether a cookie's value has the form `fresh` gives. */
export const wellFormed = (value: string): boolean => /^[A-Za-z0-9_-]{32,64}$/.test(value)

/** The CSRF value of a session (what its forms carry in `_csrf`). */
export const ofSession = (sessionToken: string): string =>
  createHmac("sha256", sessionToken).update("pixgate-panel-csrf").digest("base64url")

/**
 * Whether a state-changing request comes from another site or origin, by what the browser
 * says: `Sec-Fetch-Site`, then `Origin` against the request's own `host` and scheme (`https`:
 * the client reached the panel over HTTPS, directly or per a trusted proxy).
 */
export const foreign = (request: Request, host: string | undefined, https: boolean): boolean => {
  const site = request.headers.get("sec-fetch-site")
  if (site !== null) return site !== "same-origin" && site !== "none"
  // Without Sec-Fetch-Site (an older browser): the Origin. Pages sent with `Referrer-Policy:
  // no-referrer` make browsers write `null` there even for the panel's own forms.
  const origin = request.headers.get("origin")
  if (origin === null || origin === "null") return false
  let from: URL
  try {
    from = new URL(origin)
  } catch {
    return true
  }
  if (from.protocol !== "https:" && (https || from.protocol !== "http:")) return true
  if (host === undefined) return true
  try {
    // The host as it would read under the origin's scheme (a default port dropped, case folded).
    return new URL(`${from.protocol}//${host}`).host !== from.host
  } catch {
    return true
  }
}
