/**
 * Webhook URL rules. Any mode: an absolute http(s) URL, and never a host that is, or resolves
 * to, a link-local or cloud metadata address (169.254.0.0/16, fe80::/10, fd00:ec2::254,
 * 100.100.100.200, ..., also inside IPv4-mapped, NAT64 and 6to4 forms): on a hosted platform
 * that is the instance's credentials, whatever the operator allows. Live mode also wants `https:`
 * (every delivery carries the endpoint's secret) unless `EngineConfig.allowInsecureLiveWebhooks`
 * is set, and refuses hosts that are, or resolve to, anything but a global unicast address
 * (loopback, private, CGNAT, documentation, benchmarking, NAT64 local-use, ...: the
 * special-purpose ranges of IANA's registries, as `ipaddr.js` names them), so a merchant cannot
 * make the engine probe its own networks, unless `EngineConfig.allowPrivateWebhookUrls` is set
 * (a local trial). Test mode allows them (a developer's local receiver) unless
 * `EngineConfig.allowPrivateTestWebhookUrls` is off (a multi-tenant host).
 */
import { Effect } from "effect"
import ipaddr from "ipaddr.js"
import { type ValidationError, validation } from "../contract/Errors.js"
import type { Mode } from "../domain/Domain.js"
import { HostResolver } from "../ports/HostResolver.js"
import { EngineConfig, type EngineConfigShape } from "../runtime/Config.js"

/** Longest accepted webhook URL. */
export const maxLength = 2048

const invalid = (message: string): ValidationError => validation("invalid_webhook_url", "url", message)

/** IPv6 global unicast (IANA's IPv6 address space: everything else is reserved or special). */
const globalUnicast = ipaddr.IPv6.parseCIDR("2000::/3")
/** RFC 8215's local-use NAT64 prefix, which ipaddr.js files under `rfc6052` with 64:ff9b::/96. */
const nat64LocalUse = ipaddr.IPv6.parseCIDR("64:ff9b:1::/48")

/** ipaddr.js's range names, as the error message says them (after "is a"/"is an"). */
const labels: Readonly<Record<string, string>> = {
  unspecified: "unspecified",
  broadcast: "broadcast",
  multicast: "multicast",
  linkLocal: "link-local",
  loopback: "loopback",
  carrierGradeNat: "shared (CGNAT)",
  private: "private",
  reserved: "reserved",
  benchmarking: "benchmarking",
  amt: "AMT relay",
  as112: "AS112",
  as112v6: "AS112",
  uniqueLocal: "unique-local",
  deprecatedSiteLocal: "site-local",
  discard: "discard-only",
  rfc6145: "IPv4-translated",
  teredo: "Teredo tunnel",
  deprecatedOrchid: "ORCHID",
  orchid2: "ORCHID",
  droneRemoteIdProtocolEntityTags: "drone remote ID",
  segmentRouting: "segment-routing (SRv6)"
}
const label = (range: string): string => labels[range] ?? range

/** The IPv4 address in the low 32 bits of `v6` (NAT64, SIIT). */
const low32 = (v6: ipaddr.IPv6): ipaddr.IPv4 => {
  const [, , , , , , hi = 0, lo = 0] = v6.parts
  return new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff])
}

/**
 * The IPv4 address of the deprecated IPv4-compatible form `::a.b.c.d` (the first 96 bits zero;
 * not `::` nor `::1`). ipaddr.js names it "unicast" when written in hex (`::a9fe:a9fe`, which is
 * how the URL parser writes `[::169.254.169.254]`), so it is recognised by its bits.
 */
const ipv4Compatible = (v6: ipaddr.IPv6): ipaddr.IPv4 | undefined => {
  const [a = 0, b = 0, c = 0, d = 0, e = 0, f = 0, g = 0, h = 0] = v6.parts
  if (a !== 0 || b !== 0 || c !== 0 || d !== 0 || e !== 0 || f !== 0) return undefined
  return g === 0 && h <= 1 ? undefined : low32(v6)
}

/** The two IPv4 addresses of a Teredo address: its server's, and its client's (stored inverted). */
const teredoV4 = (v6: ipaddr.IPv6): ReadonlyArray<ipaddr.IPv4> => {
  const [, , s1 = 0, s2 = 0, , , c1 = 0, c2 = 0] = v6.parts
  const client = [~c1 & 0xffff, ~c2 & 0xffff] as const
  return [
    new ipaddr.IPv4([s1 >> 8, s1 & 0xff, s2 >> 8, s2 & 0xff]),
    new ipaddr.IPv4([client[0] >> 8, client[0] & 0xff, client[1] >> 8, client[1] & 0xff])
  ]
}

const ipv4Kind = (v4: ipaddr.IPv4): string | null => {
  const range: string = v4.range()
  return range === "unicast" ? null : label(range)
}

/**
 * Only global unicast passes: `unicast` of ipaddr.js inside 2000::/3, or a public IPv4 address
 * embedded the ways that reach it (IPv4-mapped, NAT64's well-known prefix, 6to4). Every other
 * range of IANA's special-purpose registry is refused, the ones that could embed a private
 * IPv4 address included (IPv4-translated ::ffff:0:a.b.c.d, local-use NAT64, Teredo).
 */
const ipv6Kind = (v6: ipaddr.IPv6): string | null => {
  const compatible = ipv4Compatible(v6)
  // Never public: a deprecated form no network routes; a private address inside says which.
  if (compatible !== undefined) return ipv4Kind(compatible) ?? "IPv4-compatible"
  const range: string = v6.range()
  switch (range) {
    case "ipv4Mapped":
      return ipv4Kind(v6.toIPv4Address())
    case "rfc6052":
      return v6.match(nat64LocalUse) ? "NAT64 local-use" : ipv4Kind(low32(v6))
    case "6to4": {
      const [, hi = 0, lo = 0] = v6.parts
      return ipv4Kind(new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]))
    }
    case "unicast":
      return v6.match(globalUnicast) ? null : "reserved"
    default:
      return label(range)
  }
}

/**
 * What kind of non-public address an IP literal is (`"loopback"`, `"private"`, ...); null for a
 * public address; undefined when `address` is not an IP literal. IPv4 must be dotted decimal (as
 * the URL parser and DNS give it); IPv6 may be in brackets and carry a zone.
 */
export const addressKind = (address: string): string | null | undefined => {
  if (ipaddr.IPv4.isValidFourPartDecimal(address)) return ipv4Kind(ipaddr.IPv4.parse(address))
  const text = address.replace(/^\[(.*)\]$/, "$1").replace(/%.*$/, "")
  if (!text.includes(":") || !ipaddr.IPv6.isValid(text)) return undefined
  return ipv6Kind(ipaddr.IPv6.parse(text))
}

/** The first of `addresses` that is not public, with what kind of address it is; null when none. */
export const firstNonPublic = (addresses: ReadonlyArray<string>): readonly [string, string] | null => {
  for (const address of addresses) {
    const kind = addressKind(address)
    if (kind !== null && kind !== undefined) return [address, kind]
  }
  return null
}

/** "a" or "an" before a kind's label. */
const article = (kind: string): string => (/^(?:[aeio]|un[^i]|AMT|AS|IPv|ORCHID)/.test(kind) ? "an" : "a")

/** Why `host`, at the non-public `address` of `kind`, may not receive `mode`'s webhooks. */
export const notPublic = (host: string, address: string, kind: string, mode: Mode = "live"): string =>
  `${host}${address === host ? "" : ` resolves to ${address}, which`} is ${article(kind)} ${kind} address; ` +
  `${mode}-mode webhooks must use a public address`

/**
 * Cloud metadata and platform services outside the link-local ranges: Alibaba Cloud's
 * 100.100.100.200, Oracle Cloud's 192.0.0.192, Azure's WireServer 168.63.129.16, and AWS's IPv6
 * instance metadata fd00:ec2::254 (with its DNS and time servers in fd00:ec2::/112).
 */
const metadataV4 = ["100.100.100.200", "192.0.0.192", "168.63.129.16"].map((a) => ipaddr.IPv4.parse(a))
const metadataV6 = ipaddr.IPv6.parseCIDR("fd00:ec2::/112")

/**
 * The IPv4 addresses an IPv6 address carries (mapped, compatible, NAT64 and its local use, SIIT,
 * 6to4, Teredo's server and client), if any.
 */
const embeddedV4 = (v6: ipaddr.IPv6): ReadonlyArray<ipaddr.IPv4> => {
  const compatible = ipv4Compatible(v6)
  if (compatible !== undefined) return [compatible]
  const range: string = v6.range()
  if (range === "ipv4Mapped") return [v6.toIPv4Address()]
  if (range === "rfc6052" || range === "rfc6145" || v6.match(nat64LocalUse)) return [low32(v6)]
  if (range === "teredo") return teredoV4(v6)
  if (range === "6to4") {
    const [, hi = 0, lo = 0] = v6.parts
    return [new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff])]
  }
  return []
}

const metadataKind = (v4: ipaddr.IPv4): string | null => {
  if (v4.range() === "linkLocal") return "link-local"
  return metadataV4.some((m) => m.toString() === v4.toString()) ? "cloud metadata" : null
}

/**
 * What kind of always-refused address an IP literal is (`"link-local"`, `"cloud metadata"`):
 * no webhook of any mode may reach it. Null for any other address or a host name.
 */
export const forbiddenKind = (address: string): string | null => {
  if (ipaddr.IPv4.isValidFourPartDecimal(address)) return metadataKind(ipaddr.IPv4.parse(address))
  const text = address.replace(/^\[(.*)\]$/, "$1").replace(/%.*$/, "")
  if (!text.includes(":") || !ipaddr.IPv6.isValid(text)) return null
  const v6 = ipaddr.IPv6.parse(text)
  if (v6.range() === "linkLocal") return "link-local"
  if (v6.match(metadataV6)) return "cloud metadata"
  for (const v4 of embeddedV4(v6)) {
    const kind = metadataKind(v4)
    if (kind !== null) return kind
  }
  return null
}

/** Why `host`, at the `address` of an always-refused `kind`, may receive no webhook. */
export const forbidden = (host: string, address: string, kind: string): string =>
  `${host}${address === host ? "" : ` resolves to ${address}, which`} is ${article(kind)} ${kind} address ` +
  "(where cloud instances reach their metadata and credentials); no webhook may use it"

/** Whether `mode`'s webhooks may reach loopback and private addresses under `config`. */
export const allowsPrivate = (config: EngineConfigShape, mode: Mode): boolean =>
  mode === "test" ? config.allowPrivateTestWebhookUrls : config.allowPrivateWebhookUrls

/**
 * Why a webhook may not go to `host` at any of `addresses` (what the host is or resolves to);
 * null when it may. Link-local and metadata addresses never; the other non-public ones only
 * when `allowPrivate`.
 */
export const refusal = (
  host: string,
  addresses: ReadonlyArray<string>,
  allowPrivate: boolean,
  mode: Mode = "live"
): string | null => {
  for (const address of addresses) {
    const kind = forbiddenKind(address)
    if (kind !== null) return forbidden(host, address, kind)
  }
  if (allowPrivate) return null
  const found = firstNonPublic(addresses)
  return found === null ? null : notPublic(host, found[0], found[1], mode)
}

const isLocalhost = (hostname: string) => hostname === "localhost" || hostname.endsWith(".localhost")

/**
 * Why a delivery of `mode` may not go to `url` now, after resolving its host (the send-time
 * check: the name may resolve elsewhere than when it was set); null when it may. A name that
 * does not resolve is left to the transport, which fails the attempt with its own error.
 */
export const refusalAtSend = (
  url: string,
  mode: Mode
): Effect.Effect<string | null, never, EngineConfig | HostResolver> =>
  Effect.gen(function* () {
    if (!URL.canParse(url)) return null
    const hostname = new URL(url).hostname.replace(/\.$/, "").toLowerCase()
    const allowPrivate = allowsPrivate(yield* EngineConfig, mode)
    if (addressKind(hostname) !== undefined) return refusal(hostname, [hostname], allowPrivate, mode)
    if (isLocalhost(hostname)) return allowPrivate ? null : notPublic(hostname, hostname, "loopback", mode)
    const resolver = yield* HostResolver
    const addresses = yield* resolver.lookup(hostname).pipe(Effect.orElseSucceed(() => []))
    return refusal(hostname, addresses, allowPrivate, mode)
  })

/** The refusal of a plain-http live-mode URL. */
export const insecureMessage =
  "Live-mode webhook URLs must use https (each delivery carries the endpoint's secret)"

/** Checks a webhook URL for `mode`; fails with 422 `invalid_webhook_url`. */
export const check = (
  url: string,
  mode: Mode
): Effect.Effect<void, ValidationError, EngineConfig | HostResolver> =>
  Effect.gen(function* () {
    if (url.length > maxLength) return yield* invalid(`Webhook URL must be at most ${maxLength} characters`)
    if (!URL.canParse(url)) return yield* invalid("Webhook URL must be a valid absolute URL")
    const parsed = new URL(url)
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
      return yield* invalid("Webhook URL must use http or https")
    }
    const hostname = parsed.hostname.replace(/\.$/, "").toLowerCase()
    if (hostname === "") return yield* invalid("Webhook URL must name a host")
    const config = yield* EngineConfig
    if (mode === "live" && parsed.protocol === "http:" && !config.allowInsecureLiveWebhooks) {
      return yield* invalid(insecureMessage)
    }
    const allowPrivate = allowsPrivate(config, mode)
    const refuse = (why: string | null) => (why === null ? Effect.void : invalid(`Webhook URL host ${why}`))
    if (addressKind(hostname) !== undefined) {
      return yield* refuse(refusal(hostname, [hostname], allowPrivate, mode))
    }
    if (isLocalhost(hostname)) {
      return yield* refuse(allowPrivate ? null : notPublic(hostname, hostname, "loopback", mode))
    }
    const resolver = yield* HostResolver
    const addresses = yield* Effect.either(resolver.lookup(hostname))
    // Where private targets are allowed (a developer's machine), a name that does not resolve
    // yet is kept; sending checks it again. Elsewhere it must resolve now.
    if (addresses._tag === "Left") {
      if (allowPrivate) return
      return yield* invalid(`Webhook URL host ${hostname} could not be resolved`)
    }
    return yield* refuse(refusal(hostname, addresses.right, allowPrivate, mode))
  })
