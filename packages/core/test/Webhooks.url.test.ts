/** Webhook URL rules: scheme and shape in every mode; no private addresses in live mode. */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as Config from "../src/Config.js"
import { HostResolutionError, HostResolver } from "../src/HostResolver.js"
import * as MemoryStore from "../src/MemoryStore.js"
import * as NodeHostResolver from "../src/node/NodeHostResolver.js"
import * as WebhooksModule from "../src/Webhooks.js"
import { Webhooks } from "../src/Webhooks.js"
import { WebhookTransport } from "../src/WebhookTransport.js"
import { addressKind } from "../src/WebhookUrl.js"

const dns: Record<string, ReadonlyArray<string>> = {
  "public.example": ["93.184.216.34", "2606:2800:220:1::1"],
  "internal.example": ["10.0.0.5"],
  "mixed.example": ["93.184.216.34", "::1"],
  "metadata.example": ["169.254.169.254"]
}
const fakeDns = Layer.succeed(HostResolver, {
  lookup: (hostname) =>
    hostname in dns
      ? Effect.succeed(dns[hostname]!)
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

const privateInLive = [
  "http://127.0.0.1/hook",
  "http://127.8.9.10:8080/",
  "http://localhost:3000/hook",
  "http://LOCALHOST./hook",
  "http://api.localhost/hook",
  "http://0.0.0.0/",
  "http://10.1.2.3/",
  "http://172.16.0.1/",
  "http://172.31.255.255/",
  "http://192.168.1.1/",
  "http://169.254.169.254/latest/meta-data",
  "http://100.64.0.1/",
  "http://100.127.255.255/",
  "http://[::1]/",
  "http://[::]/",
  "http://[fc00::1]/",
  "http://[fd12:3456::1]/",
  "http://[fe80::1]/",
  "http://[::ffff:127.0.0.1]/",
  "http://[::ffff:10.0.0.1]/",
  "http://0x7f000001/",
  "http://2130706433/",
  "http://0177.0.0.1/",
  "https://internal.example/hook",
  "https://mixed.example/hook",
  "https://metadata.example/hook"
]
const publicInLive = [
  "https://public.example/hook",
  "http://8.8.8.8/hook",
  "http://172.32.0.1/",
  "http://100.128.0.1/",
  "http://192.169.0.1/",
  "http://[2001:4860:4860::8888]/",
  "http://[::ffff:8.8.8.8]/"
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
      const error = yield* Effect.flatMap(Webhooks, (w) => w.checkUrl("http://10.0.0.1/", "live")).pipe(
        Effect.flip,
        Effect.provide(webhooks(fakeDns))
      )
      expect(error.toJson()).toEqual({
        error: "Webhook URL host 10.0.0.1 is a private address; live-mode webhooks must use a public address",
        code: "invalid_webhook_url",
        details: [{ path: "url", message: error.message }]
      })
      expect(error.status).toBe(422)
    })
  )

  it.effect("refuses loopback, private, link-local, unspecified and CGNAT hosts in live mode only", () =>
    Effect.gen(function* () {
      for (const url of privateInLive) {
        expect([url, yield* check(url, "live")]).toEqual([url, expect.stringMatching(/live-mode webhooks/)])
        expect([url, yield* check(url, "test")]).toEqual([url, "ok"])
      }
      for (const url of publicInLive) expect([url, yield* check(url, "live")]).toEqual([url, "ok"])
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
      for (const url of privateInLive) expect([url, yield* check(url, "live", layer)]).toEqual([url, "ok"])
    })
  )

  it.effect("the default resolver judges IP literals and localhost, and lets other names through", () =>
    Effect.gen(function* () {
      const layer = webhooks(Layer.succeed(HostResolver, { lookup: () => Effect.succeed([]) }))
      expect(yield* check("http://localhost/", "live", layer)).toMatch(/loopback/)
      expect(yield* check("http://192.168.0.10/", "live", layer)).toMatch(/private/)
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
  it("classifies IPv4 and IPv6 text forms", () => {
    const cases: ReadonlyArray<[string, string | null | undefined]> = [
      ["8.8.8.8", null],
      ["127.0.0.1", "loopback"],
      ["0.0.0.0", "unspecified"],
      ["255.255.255.255", "multicast or reserved"],
      ["224.0.0.1", "multicast or reserved"],
      ["256.1.1.1", undefined],
      ["::1", "loopback"],
      ["::", "unspecified"],
      ["::ffff:127.0.0.1", "loopback"],
      ["::ffff:7f00:1", "loopback"],
      ["::ffff:8.8.8.8", null],
      ["64:ff9b::10.0.0.1", "private"],
      ["2002:c0a8:0101::1", "private"],
      ["fe80::1%eth0", "link-local"],
      ["febf::1", "link-local"],
      ["fec0::1", "private"],
      ["ff02::1", "multicast or reserved"],
      ["2001:db8::1", null],
      ["1:2:3:4:5:6:7:8", null],
      ["1:2:3:4:5:6:7:8:9", undefined],
      ["1::2::3", undefined],
      ["example.com", undefined]
    ]
    expect(cases.map(([ip]) => [ip, addressKind(ip)])).toEqual(cases)
  })
})
