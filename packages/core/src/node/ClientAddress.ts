/**
 * The client behind trusted proxies: its address, whether it came over HTTPS and the host it
 * asked for, read from `X-Forwarded-For`, `X-Forwarded-Proto` and `X-Forwarded-Host` only as far
 * as the proxies that wrote them are trusted. The setting reads as Express's `trust proxy` does
 * (the `proxy-addr` package does the work):
 *
 * - `false` (the default): no proxy is trusted; the client is the connection's peer.
 * - `true`: every proxy is trusted; the client is the left-most `X-Forwarded-For` address.
 * - a number `n`: the `n` hops nearest the server are proxies (`1`: one load balancer).
 * - addresses and CIDRs, comma-separated (`10.0.0.0/8, 192.168.1.5`), or the names `loopback`,
 *   `linklocal` and `uniquelocal`: the proxies at those addresses are trusted.
 *
 * A forwarded header from a peer that is not trusted is ignored, so nobody sets their own
 * address by sending one. `proxy-addr` compiles the setting (addresses, CIDRs, named ranges,
 * IPv4-mapped IPv6 peers); the walk along `X-Forwarded-For` is its own, over any host's headers.
 */
import proxyAddr from "proxy-addr"

/** The trusted-proxy setting, as Express's `trust proxy` takes it. */
export type TrustProxy = boolean | number | string | ReadonlyArray<string>

/** Whether the hop at `address`, `hop` steps from the server (0: the peer), is a trusted proxy. */
export type Trust = (address: string, hop: number) => boolean

/** Trusts no proxy. */
export const none: Trust = () => false

/**
 * The setting as a function. Throws a `TypeError` naming the value when an address or CIDR in
 * it is not one, so a typo stops the server at start rather than trusting nobody (or everybody).
 */
export const compile = (setting: TrustProxy | undefined): Trust => {
  if (setting === undefined || setting === false) return none
  if (setting === true) return () => true
  if (typeof setting === "number") {
    if (!Number.isSafeInteger(setting) || setting < 0)
      throw new TypeError(`trust proxy: ${setting} is not a number of hops`)
    return (_, hop) => hop < setting
  }
  const list = typeof setting === "string" ? setting.split(",") : [...setting]
  const entries = list.map((entry) => entry.trim()).filter((entry) => entry !== "")
  try {
    return proxyAddr.compile(entries)
  } catch (error) {
    throw new TypeError(`trust proxy: ${error instanceof Error ? error.message : String(error)}`)
  }
}

/**
 * Reads the setting from text (an environment variable such as `PIXGATE_TRUST_PROXY`): empty or
 * missing is no proxy, `true`/`false`, a whole number of hops, or a comma-separated list of
 * addresses, CIDRs and range names.
 */
export const parse = (text: string | undefined): TrustProxy | undefined => {
  const value = text?.trim() ?? ""
  if (value === "" || value === "false") return undefined
  if (value === "true") return true
  if (/^\d+$/.test(value)) return Number(value)
  compile(value)
  return value
}

/** A request as this module reads it, whatever the host. */
export interface Incoming {
  /** The connection's peer (undefined once the socket is gone). */
  readonly peer: string | undefined
  /** Whether the connection itself is TLS. */
  readonly encrypted: boolean
  /** A header by its lower-case name. */
  readonly header: (name: string) => string | undefined
}

/** The client as the trusted proxies report it. */
export interface Client {
  /** The client's address: the furthest hop that is not a trusted proxy ("unknown" without one). */
  readonly address: string
  /** Whether the client's request came over HTTPS (the connection's, or per a trusted proxy). */
  readonly https: boolean
  /** The host the client asked for (`Host`, or a trusted proxy's `X-Forwarded-Host`), if any. */
  readonly host: string | undefined
}

/** The first value of a header a proxy may have appended to (`a, b` is `a`). */
const first = (value: string | undefined) => value?.split(",")[0]?.trim() || undefined

/**
 * The client's address: from the peer back along `X-Forwarded-For` (nearest hop first), the first
 * hop that is not a trusted proxy, or the furthest address when every hop is trusted (how
 * `proxy-addr` walks it).
 */
const addressOf = (trust: Trust, peer: string, forwardedFor: string | undefined): string => {
  const hops = [
    peer,
    ...(forwardedFor ?? "")
      .split(",")
      .map((a) => a.trim())
      .filter((a) => a !== "")
      .reverse()
  ]
  let at = 0
  while (at < hops.length - 1 && trust(hops[at] ?? "", at)) at++
  return hops[at] ?? peer
}

/** Who a request comes from, per `trust`. */
export const of = (trust: Trust, request: Incoming): Client => {
  const peer = request.peer
  const proxied = peer !== undefined && trust(peer, 0)
  const proto = proxied ? first(request.header("x-forwarded-proto"))?.toLowerCase() : undefined
  const host = (proxied ? first(request.header("x-forwarded-host")) : undefined) ?? request.header("host")
  return {
    address: peer === undefined ? "unknown" : addressOf(trust, peer, request.header("x-forwarded-for")),
    https: proto === undefined ? request.encrypted : proto === "https",
    host
  }
}

/** Whether a request carries a forwarded address (a proxy in front) that `trust` ignores. */
export const ignoresForwarded = (trust: Trust, request: Incoming): boolean =>
  request.peer !== undefined && !trust(request.peer, 0) && request.header("x-forwarded-for") !== undefined
