/** Webhook URL rules: scheme and shape in every mode; no private addresses in live mode. */
import { describe, expect, it } from "@effect/vitest"
import { Status } from "@pixgate/http"
import { Effect, Layer } from "effect"
import * as MemoryStore from "../src/adapters/MemoryStore.js"
import * as Errors from "../src/contract/Errors.js"
import * as NodeHostResolver from "../src/node/NodeHostResolver.js"
import { HostResolutionError, HostResolver } from "../src/ports/HostResolver.js"
import { WebhookTransport } from "../src/ports/WebhookTransport.js"
import * as Config from "../src/runtime/Config.js"
import * as WebhooksModule from "../src/webhooks/Webhooks.js"
import { Webhooks } from "../src/webhooks/Webhooks.js"
import { addressKind } from "../src/webhooks/WebhookUrl.js"

const dns: Record<string, ReadonlyArray<string>> = {
  "public.example": ["93.184.216.34", "2606:2800:220:1::1"],
  "internal.example": ["10.0.0.5"],
  "mixed.example": ["93.184.216.34", "::1"],
  "metadata.example": ["169.254.169.254"],
  "nat64.example": ["2606:4700::1111", "64:ff9b:1::a00:1"]
}
const fakeDns = Layer.succeed(HostResolver, {
  lookup: (hostname) =>
    hostname in dns
      ? Effect.succeed(dns[hostname])
      : Effect.fail(new HostResolutionError({ hostname, message: "ENOTFOUND" }))
})

const webhooks = (resolver: Layer.Layer<HostResolver>, config: Partial<Config.EngineConfigShape> = {}) =>
  WebhooksModule.layer.pipe(
    Layer.provide(
      Layer.mergeAll(
        MemoryStore.layer,
        Config.layer(config),
        Layer.succeed(WebhookTransport, { post: () => Effect.die("no requests") }),
        resolver
      )
    )
  )

const check = (url: string, mode: "test" | "live", layer = webhooks(fakeDns)) =>
  Effect.flatMap(Webhooks, (w) => w.checkUrl(url, mode)).pipe(
    Effect.match({ onSuccess: () => "ok", onFailure: (e) => e.message }),
    Effect.provide(layer)
  )

/** Hosts refused in live mode, each with the kind of address the message names. */
const privateInLive: ReadonlyArray<readonly [string, string]> = [
  ["https://127.0.0.1/hook", "loopback"],
  ["https://127.8.9.10:8080/", "loopback"],
  ["https://localhost:3000/hook", "loopback"],
  ["https://LOCALHOST./hook", "loopback"],
  ["https://api.localhost/hook", "loopback"],
  ["https://0.0.0.0/", "unspecified"],
  ["https://10.1.2.3/", "private"],
  ["https://172.16.0.1/", "private"],
  ["https://172.31.255.255/", "private"],
  ["https://192.168.1.1/", "private"],
  ["https://169.254.169.254/latest/meta-data", "link-local"],
  ["https://100.64.0.1/", "shared (CGNAT)"],
  ["https://100.127.255.255/", "shared (CGNAT)"],
  ["https://192.0.0.1/", "reserved"],
  ["https://192.0.0.170/", "reserved"],
  ["https://192.0.2.10/", "reserved"],
  ["https://198.18.0.1/", "reserved"],
  ["https://198.19.255.254/", "reserved"],
  ["https://198.51.100.7/", "reserved"],
  ["https://203.0.113.9/", "reserved"],
  ["https://192.88.99.1/", "reserved"],
  ["https://192.175.48.1/", "AS112"],
  ["https://192.52.193.1/", "AMT relay"],
  ["https://240.0.0.1/", "reserved"],
  ["https://224.0.0.251/", "multicast"],
  ["https://255.255.255.255/", "broadcast"],
  ["https://[::1]/", "loopback"],
  ["https://[::]/", "unspecified"],
  ["https://[fc00::1]/", "unique-local"],
  ["https://[fd12:3456::1]/", "unique-local"],
  ["https://[fe80::1]/", "link-local"],
  ["https://[fec0::1]/", "site-local"],
  ["https://[ff02::1]/", "multicast"],
  ["https://[::ffff:127.0.0.1]/", "loopback"],
  ["https://[::ffff:10.0.0.1]/", "private"],
  ["https://[::ffff:192.0.0.1]/", "reserved"],
  ["https://[::ffff:0:8.8.8.8]/", "IPv4-translated"],
  ["https://[::ffff:0:10.0.0.1]/", "IPv4-translated"],
  // IPv4-compatible: judged as the address it carries; a public one is not routable either.
  ["https://[::127.0.0.1]/", "loopback"],
  ["https://[::10.0.0.1]/", "private"],
  ["https://[::8.8.8.8]/", "IPv4-compatible"],
  ["https://[64:ff9b::10.0.0.1]/", "private"],
  ["https://[64:ff9b::127.0.0.1]/", "loopback"],
  ["https://[64:ff9b:1::8.8.8.8]/", "NAT64 local-use"],
  ["https://[2002:c0a8:0101::1]/", "private"],
  ["https://[2002:7f00:1::1]/", "loopback"],
  ["https://[2001::1]/", "Teredo tunnel"],
  ["https://[2001:2::1]/", "benchmarking"],
  ["https://[2001:db8::1]/", "reserved"],
  ["https://[3fff::1]/", "reserved"],
  ["https://[100::1]/", "discard-only"],
  ["https://[2001:20::1]/", "ORCHID"],
  ["https://[5f00::1]/", "segment-routing (SRv6)"],
  ["https://[1:2:3:4:5:6:7:8]/", "reserved"],
  ["https://0x7f000001/", "loopback"],
  ["https://2130706433/", "loopback"],
  ["https://0177.0.0.1/", "loopback"],
  ["https://internal.example/hook", "private"],
  ["https://mixed.example/hook", "loopback"],
  ["https://metadata.example/hook", "link-local"],
  ["https://nat64.example/hook", "NAT64 local-use"]
]
const publicInLive = [
  "https://public.example/hook",
  "https://8.8.8.8/hook",
  "https://172.32.0.1/",
  "https://100.128.0.1/",
  "https://192.169.0.1/",
  "https://192.0.3.1/",
  "https://198.20.0.1/",
  "https://[2001:4860:4860::8888]/",
  "https://[2606:4700::1111]/",
  "https://[::ffff:8.8.8.8]/",
  "https://[64:ff9b::8.8.8.8]/",
  "https://[2002:0808:0808::1]/"
]

describe("Webhooks.checkUrl", () => {
  it.effect("accepts only absolute http(s) URLs, in any mode", () =>
    Effect.gen(function* () {
      for (const mode of ["test", "live"] as const) {
        expect(yield* check("https://public.example/hooks?x=1", mode)).toBe("ok")
        expect(yield* check("not a url", mode)).toBe("Webhook URL must be a valid absolute URL")
        expect(yield* check("/relative/path", mode)).toBe("Webhook URL must be a valid absolute URL")
        expect(yield* check("ftp://public.example/x", mode)).toBe("Webhook URL must use http or https")
        expect(yield* check("javascript:alert(1)", mode)).toBe("Webhook URL must use http or https")
        expect(yield* check(`https://public.example/${"a".repeat(2048)}`, mode)).toBe(
          "Webhook URL must be at most 2048 characters"
        )
      }
    })
  )

  it.effect("the error is a 422 invalid_webhook_url on the url field", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flatMap(Webhooks, (w) => w.checkUrl("https://10.0.0.1/", "live")).pipe(
        Effect.flip,
        Effect.provide(webhooks(fakeDns))
      )
      expect(Errors.body(error)).toEqual({
        error: "Webhook URL host 10.0.0.1 is a private address; live-mode webhooks must use a public address",
        code: "invalid_webhook_url",
        details: [{ path: "url", message: error.message }]
      })
      expect(Status.statusOf(error)).toBe(422)
    })
  )

  it.effect("refuses every special-purpose address in live mode only, naming its kind", () =>
    Effect.gen(function* () {
      for (const [url, kind] of privateInLive) {
        if (kind === "link-local") continue
        expect([url, yield* check(url, "live")]).toEqual([
          url,
          expect.stringMatching(/ is an? .* address; live-mode webhooks must use a public address$/)
        ])
        expect([url, yield* check(url, "live")]).toEqual([url, expect.stringContaining(` ${kind} address; `)])
        expect([url, yield* check(url, "test")]).toEqual([url, "ok"])
      }
      // Link-local addresses are refused in every mode (see "link-local and metadata addresses").
      for (const [url] of privateInLive.filter(([, kind]) => kind === "link-local")) {
        for (const mode of ["live", "test"] as const)
          expect([url, yield* check(url, mode)]).toEqual([
            url,
            expect.stringMatching(/no webhook may use it$/)
          ])
      }
      for (const url of publicInLive) expect([url, yield* check(url, "live")]).toEqual([url, "ok"])
    })
  )

  it.effect("live mode wants https unless allowInsecureLiveWebhooks; test mode takes http", () =>
    Effect.gen(function* () {
      const insecure = "Live-mode webhook URLs must use https (each delivery carries the endpoint's secret)"
      for (const url of ["http://public.example/hook", "http://8.8.8.8/", "HTTP://[2001:4860:4860::8888]/"]) {
        expect([url, yield* check(url, "live")]).toEqual([url, insecure])
        expect([url, yield* check(url, "test")]).toEqual([url, "ok"])
        const allowed = webhooks(fakeDns, { allowInsecureLiveWebhooks: true })
        expect([url, yield* check(url, "live", allowed)]).toEqual([url, "ok"])
      }
      const error = yield* Effect.flatMap(Webhooks, (w) => w.checkUrl("http://public.example/", "live")).pipe(
        Effect.flip,
        Effect.provide(webhooks(fakeDns))
      )
      expect(Status.statusOf(error)).toBe(422)
      expect(error.code).toBe("invalid_webhook_url")
      // Allowing http does not allow private hosts, nor the other way round.
      const httpOnly = webhooks(fakeDns, { allowInsecureLiveWebhooks: true })
      expect(yield* check("http://10.0.0.1/", "live", httpOnly)).toMatch(/is a private address/)
      const privateOnly = webhooks(fakeDns, { allowPrivateWebhookUrls: true })
      expect(yield* check("http://10.0.0.1/", "live", privateOnly)).toBe(insecure)
    })
  )

  it.effect("names the address a host resolves to", () =>
    Effect.gen(function* () {
      expect(yield* check("https://mixed.example/hook", "live")).toBe(
        "Webhook URL host mixed.example resolves to ::1, which is a loopback address; " +
          "live-mode webhooks must use a public address"
      )
      expect(yield* check("https://nowhere.example/hook", "live")).toBe(
        "Webhook URL host nowhere.example could not be resolved"
      )
    })
  )

  it.effect("allowPrivateWebhookUrls lets live mode use private hosts", () =>
    Effect.gen(function* () {
      const layer = webhooks(fakeDns, { allowPrivateWebhookUrls: true })
      for (const [url, kind] of privateInLive)
        expect([url, yield* check(url, "live", layer)]).toEqual([
          url,
          kind === "link-local" ? expect.stringMatching(/link-local address .*no webhook may use it$/) : "ok"
        ])
    })
  )

  it.effect("the default resolver judges IP literals and localhost, and lets other names through", () =>
    Effect.gen(function* () {
      const layer = webhooks(Layer.succeed(HostResolver, { lookup: () => Effect.succeed([]) }))
      expect(yield* check("https://localhost/", "live", layer)).toMatch(/loopback/)
      expect(yield* check("https://192.168.0.10/", "live", layer)).toMatch(/private/)
      expect(yield* check("https://internal.example/", "live", layer)).toBe("ok")
    })
  )

  it.live("the Node resolver resolves through node:dns", () =>
    Effect.gen(function* () {
      const resolver = NodeHostResolver.make()
      const addresses = yield* resolver.lookup("localhost")
      expect(addresses.length).toBeGreaterThan(0)
      expect(addresses.every((a) => addressKind(a) === "loopback")).toBe(true)
      const error = yield* Effect.flip(resolver.lookup("no-such-host.invalid"))
      expect(error._tag).toBe("HostResolutionError")
    })
  )
})

describe("addressKind", () => {
  it("classifies IPv4 and IPv6 text forms by IANA's special-purpose ranges (via ipaddr.js)", () => {
    const cases: ReadonlyArray<[string, string | null | undefined]> = [
      ["8.8.8.8", null],
      ["127.0.0.1", "loopback"],
      ["0.0.0.0", "unspecified"],
      ["0.1.2.3", "unspecified"],
      ["255.255.255.255", "broadcast"],
      ["224.0.0.1", "multicast"],
      ["192.0.0.8", "reserved"],
      ["198.18.5.5", "reserved"],
      ["256.1.1.1", undefined],
      ["0x7f.0.0.1", undefined],
      ["::1", "loopback"],
      ["[::1]", "loopback"],
      ["::", "unspecified"],
      ["::ffff:127.0.0.1", "loopback"],
      ["::ffff:7f00:1", "loopback"],
      ["::ffff:8.8.8.8", null],
      ["::ffff:0:7f00:1", "IPv4-translated"],
      ["::7f00:1", "loopback"],
      ["::a00:1", "private"],
      ["::808:808", "IPv4-compatible"],
      ["64:ff9b::10.0.0.1", "private"],
      ["64:ff9b::8.8.8.8", null],
      ["64:ff9b:1::1", "NAT64 local-use"],
      ["2002:c0a8:0101::1", "private"],
      ["2002:0808:0808::1", null],
      ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "Teredo tunnel"],
      ["fe80::1%eth0", "link-local"],
      ["febf::1", "link-local"],
      ["fec0::1", "site-local"],
      ["fc00::1", "unique-local"],
      ["ff02::1", "multicast"],
      ["2001:db8::1", "reserved"],
      ["2620:4f:8000::1", "AS112"],
      ["2001:4860:4860::8888", null],
      ["1:2:3:4:5:6:7:8", "reserved"],
      ["4000::1", "reserved"],
      ["1:2:3:4:5:6:7:8:9", undefined],
      ["1::2::3", undefined],
      ["example.com", undefined]
    ]
    expect(cases.map(([ip]) => [ip, addressKind(ip)])).toEqual(cases)
  })
})
