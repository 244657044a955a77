/**
 * Webhook URL rules. Any mode: an absolute http(s) URL. Live mode also refuses hosts that are,
 * or resolve to, addresses of the engine's own networks (loopback, private, link-local,
 * unspecified, CGNAT, multicast/reserved), so a merchant cannot make the engine probe them,
 * unless `EngineConfig.allowPrivateWebhookUrls` is set. Test mode allows them (local receivers).
 */
import { Effect } from "effect"
import { EngineConfig } from "./Config.js"
import type { Mode } from "./Domain.js"
import { type PixgateError, validation } from "./Errors.js"
import { HostResolver } from "./HostResolver.js"

/** Longest accepted webhook URL. */
export const maxLength = 2048

const invalid = (message: string): PixgateError => validation("invalid_webhook_url", "url", message)

const parseIPv4 = (s: string): ReadonlyArray<number> | null => {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(s)
  if (m === null) return null
  const bytes = m.slice(1).map(Number)
  return bytes.every((b) => b <= 255) ? bytes : null
}

const parseIPv6 = (s: string): ReadonlyArray<number> | null => {
  const text = s.replace(/^\[|\]$/g, "").replace(/%.*$/, "")
  if (!text.includes(":")) return null
  const halves = text.split("::")
  if (halves.length > 2) return null
  const words = (part: string): Array<number> | null => {
    if (part === "") return []
    const out: Array<number> = []
    const groups = part.split(":")
    for (const [i, group] of groups.entries()) {
      const v4 = i === groups.length - 1 ? parseIPv4(group) : null
      if (v4 !== null) out.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!)
      else if (/^[0-9a-f]{1,4}$/i.test(group)) out.push(Number.parseInt(group, 16))
      else return null
    }
    return out
  }
  const head = words(halves[0]!)
  const tail = halves.length === 2 ? words(halves[1]!) : []
  if (head === null || tail === null) return null
  const missing = 8 - head.length - tail.length
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null
  return [...head, ...Array<number>(missing).fill(0), ...tail].flatMap((w) => [w >> 8, w & 0xff])
}

const ipv4Kind = ([a, b]: ReadonlyArray<number>): string | null => {
  if (a === undefined || b === undefined) return null
  if (a === 0) return "unspecified"
  if (a === 127) return "loopback"
  if (a === 10 || (a === 172 && (b & 0xf0) === 16) || (a === 192 && b === 168)) return "private"
  if (a === 169 && b === 254) return "link-local"
  if (a === 100 && (b & 0xc0) === 64) return "shared (CGNAT)"
  if (a >= 224) return "multicast or reserved"
  return null
}

const ipv6Kind = (x: ReadonlyArray<number>): string | null => {
  const zeroUpTo = (n: number) => x.slice(0, n).every((b) => b === 0)
  if (zeroUpTo(15)) return x[15] === 0 ? "unspecified" : x[15] === 1 ? "loopback" : ipv4Kind(x.slice(12))
  // IPv4-mapped (::ffff:0:0/96), IPv4-compatible (::/96), NAT64 (64:ff9b::/96), 6to4 (2002::/16)
  if (zeroUpTo(10) && x[10] === 0xff && x[11] === 0xff) return ipv4Kind(x.slice(12))
  if (zeroUpTo(12)) return ipv4Kind(x.slice(12))
  if (x[0] === 0 && x[1] === 0x64 && x[2] === 0xff && x[3] === 0x9b && x.slice(4, 12).every((b) => b === 0)) {
    return ipv4Kind(x.slice(12))
  }
  if (x[0] === 0x20 && x[1] === 0x02) return ipv4Kind(x.slice(2, 6))
  const [b0 = 0, b1 = 0] = x
  if ((b0 & 0xfe) === 0xfc) return "private"
  if (b0 === 0xfe && (b1 & 0xc0) === 0x80) return "link-local"
  if (b0 === 0xfe && (b1 & 0xc0) === 0xc0) return "private"
  if (b0 === 0xff) return "multicast or reserved"
  return null
}

/**
 * What kind of non-public address an IP literal is (`"loopback"`, `"private"`, ...); null for a
 * public address; undefined when `address` is not an IP literal.
 */
export const addressKind = (address: string): string | null | undefined => {
  const v4 = parseIPv4(address)
  if (v4 !== null) return ipv4Kind(v4)
  const v6 = parseIPv6(address)
  return v6 === null ? undefined : ipv6Kind(v6)
}

/** The first of `addresses` that is not public, with what kind of address it is; null when none. */
export const firstNonPublic = (addresses: ReadonlyArray<string>): readonly [string, string] | null => {
  for (const address of addresses) {
    const kind = addressKind(address)
    if (kind !== null && kind !== undefined) return [address, kind]
  }
  return null
}

/** Why `host`, at the non-public `address` of `kind`, may not receive live-mode webhooks. */
export const notPublic = (host: string, address: string, kind: string): string =>
  `${host}${address === host ? "" : ` resolves to ${address}, which`} is a ${kind} address; ` +
  "live-mode webhooks must use a public address"

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
