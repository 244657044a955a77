/**
 * Webhook URL rules. Any mode: an absolute http(s) URL. Live mode also wants `https:` (every
 * delivery carries the endpoint's secret) unless `EngineConfig.allowInsecureLiveWebhooks` is set,
 * and refuses hosts that are, or resolve to, anything but a global unicast address (loopback,
 * private, link-local, CGNAT, documentation, benchmarking, NAT64 local-use, ...: the
 * special-purpose ranges of IANA's registries, as `ipaddr.js` names them), so a merchant cannot
 * make the engine probe its own networks, unless `EngineConfig.allowPrivateWebhookUrls` is set.
 * Test mode allows both (local receivers).
 */
import { Effect } from "effect"
import ipaddr from "ipaddr.js"
import { EngineConfig } from "./Config.js"
import type { Mode } from "./Domain.js"
import { type PixgateError, validation } from "./Errors.js"
import { HostResolver } from "./HostResolver.js"

/** Longest accepted webhook URL. */
export const maxLength = 2048

const invalid = (message: string): PixgateError => validation("invalid_webhook_url", "url", message)

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

/** Why `host`, at the non-public `address` of `kind`, may not receive live-mode webhooks. */
export const notPublic = (host: string, address: string, kind: string): string =>
  `${host}${address === host ? "" : ` resolves to ${address}, which`} is ${article(kind)} ${kind} address; ` +
  "live-mode webhooks must use a public address"

/** The refusal of a plain-http live-mode URL. */
export const insecureMessage =
  "Live-mode webhook URLs must use https (each delivery carries the endpoint's secret)"

/** Checks a webhook URL for `mode`; fails with 422 `invalid_webhook_url`. */
export const check = (
  url: string,
  mode: Mode
): Effect.Effect<void, PixgateError, EngineConfig | HostResolver> =>
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
    if (mode === "test" || config.allowPrivateWebhookUrls) return
    const refuse = (address: string, kind: string) =>
      invalid(`Webhook URL host ${notPublic(hostname, address, kind)}`)
    const literal = addressKind(hostname)
    if (literal === null) return
    if (literal !== undefined) return yield* refuse(hostname, literal)
    if (hostname === "localhost" || hostname.endsWith(".localhost")) {
      return yield* refuse(hostname, "loopback")
    }
    const resolver = yield* HostResolver
    const addresses = yield* resolver
      .lookup(hostname)
      .pipe(Effect.mapError(() => invalid(`Webhook URL host ${hostname} could not be resolved`)))
    const found = firstNonPublic(addresses)
    if (found !== null) return yield* refuse(...found)
  })
