/**
 * The client behind trusted proxies, as Express's `trust proxy` reads it: no trust takes the
 * peer and ignores every forwarded header; a hop count, `true`, or addresses and CIDRs walk
 * `X-Forwarded-For` back to the first hop that is not a trusted proxy; the scheme and host of a
 * trusted proxy count, an untrusted one's never; malformed settings are refused.
 */
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import * as ClientAddress from "../src/node/ClientAddress.js"

const request = (peer: string | undefined, headers: Record<string, string> = {}): ClientAddress.Incoming => ({
  peer,
  encrypted: false,
  header: (name) => headers[name]
})

const forwarded = {
  "x-forwarded-for": "203.0.113.7, 10.0.0.2",
  "x-forwarded-proto": "https",
  host: "panel.example"
}

describe("ClientAddress", () => {
  it("trusts nobody by default: the peer is the client, forwarded headers are ignored", () => {
    const trust = ClientAddress.compile(undefined)
    expect(ClientAddress.of(trust, request("10.0.0.1", forwarded))).toEqual({
      address: "10.0.0.1",
      https: false,
      host: "panel.example"
    })
    expect(ClientAddress.ignoresForwarded(trust, request("10.0.0.1", forwarded))).toBe(true)
    expect(ClientAddress.of(trust, request(undefined)).address).toBe("unknown")
  })

  it("walks X-Forwarded-For back to the first untrusted hop", () => {
    const hops = (setting: ClientAddress.TrustProxy) =>
      ClientAddress.of(ClientAddress.compile(setting), request("10.0.0.1", forwarded)).address
    expect(hops(1)).toBe("10.0.0.2")
    expect(hops(2)).toBe("203.0.113.7")
    expect(hops(9)).toBe("203.0.113.7")
    expect(hops(true)).toBe("203.0.113.7")
    expect(hops("10.0.0.0/8")).toBe("203.0.113.7")
    expect(hops("10.0.0.1")).toBe("10.0.0.2")
    expect(hops(["uniquelocal"])).toBe("203.0.113.7")
    expect(hops("loopback")).toBe("10.0.0.1")
  })

  it("a client cannot choose its address: a spoofed header behind a trusted proxy is walked past only as far as trust goes", () => {
    // The client sends its own X-Forwarded-For; the proxy appends the address it saw.
    const spoofed = request("127.0.0.1", { "x-forwarded-for": "1.2.3.4, 198.51.100.9" })
    expect(ClientAddress.of(ClientAddress.compile("loopback"), spoofed).address).toBe("198.51.100.9")
    expect(ClientAddress.of(ClientAddress.compile(1), spoofed).address).toBe("198.51.100.9")
  })

  it("reads HTTPS and the host from a trusted proxy only; the connection's TLS otherwise", () => {
    const trusted = ClientAddress.compile("loopback")
    const headers = { ...forwarded, "x-forwarded-host": "pay.example" }
    expect(ClientAddress.of(trusted, request("127.0.0.1", headers))).toMatchObject({
      https: true,
      host: "pay.example"
    })
    expect(ClientAddress.of(trusted, request("192.0.2.1", headers))).toMatchObject({
      https: false,
      host: "panel.example"
    })
    expect(ClientAddress.of(trusted, { ...request("192.0.2.1"), encrypted: true }).https).toBe(true)
    expect(
      ClientAddress.of(trusted, request("127.0.0.1", { "x-forwarded-proto": "http, https" })).https
    ).toBe(false)
    // An IPv4-mapped peer is the IPv4 address it maps: trusted, so the next hop is the client.
    expect(ClientAddress.of(trusted, request("::ffff:127.0.0.1", headers)).address).toBe("10.0.0.2")
  })

  it("parses the environment's text and refuses what is not an address, a CIDR or a range name", () => {
    expect(ClientAddress.parse(undefined)).toBeUndefined()
    expect(ClientAddress.parse(" ")).toBeUndefined()
    expect(ClientAddress.parse("false")).toBeUndefined()
    expect(ClientAddress.parse("true")).toBe(true)
    expect(ClientAddress.parse("2")).toBe(2)
    expect(ClientAddress.parse("loopback, 10.0.0.0/8")).toBe("loopback, 10.0.0.0/8")
    expect(() => ClientAddress.parse("10.0.0.0/33")).toThrow(TypeError)
    expect(() => ClientAddress.parse("proxy.example")).toThrow(/trust proxy/)
    expect(() => ClientAddress.compile(-1)).toThrow(TypeError)
  })

  it.prop(
    "with n trusted hops the client is the (n+1)-th address from the server, or the furthest one",
    [fc.array(fc.ipV4(), { minLength: 1, maxLength: 6 }), fc.nat({ max: 8 })],
    ([chain, n]) => {
      // chain[0] is the furthest client; the last is the peer.
      const peer = chain[chain.length - 1] ?? "0.0.0.0"
      const header = chain.slice(0, -1).join(", ")
      const got = ClientAddress.of(
        ClientAddress.compile(n),
        request(peer, header === "" ? {} : { "x-forwarded-for": header })
      ).address
      expect(got).toBe(chain[Math.max(0, chain.length - 1 - n)])
    }
  )
})
