/**
 * The webhook address policy: link-local and cloud metadata addresses are refused in every mode,
 * when a URL is set and again at send time after resolving its host; loopback and private
 * addresses in test mode are the operator's call (`allowPrivateTestWebhookUrls`). Deliveries go
 * over node:http to a real receiver on 127.0.0.1, so a refusal that did not hold would show up
 * as a request the receiver saw.
 */
import * as dns from "node:dns"
import { createServer } from "node:http"
import type { AddressInfo, LookupFunction } from "node:net"
import { describe, expect, it } from "@effect/vitest"
import { testWaitMs } from "@pixgate/testkit/wait"
import { Duration, Effect, Layer, Schedule } from "effect"
import * as MemoryStore from "../src/adapters/MemoryStore.js"
import type { Mode } from "../src/domain/Domain.js"
import * as NodeWebhookTransport from "../src/node/NodeWebhookTransport.js"
import { HostResolutionError, HostResolver } from "../src/ports/HostResolver.js"
import { Store } from "../src/ports/Store.js"
import { WebhookTransport } from "../src/ports/WebhookTransport.js"
import * as Config from "../src/runtime/Config.js"
import * as WebhooksModule from "../src/webhooks/Webhooks.js"
import { Webhooks } from "../src/webhooks/Webhooks.js"
import { forbiddenKind } from "../src/webhooks/WebhookUrl.js"
import { emit, engineOver, event, log, setEndpoint } from "./support/webhooks.js"

/** A resolver over a table that a test may change (the name "moves" between set and send). */
const tableResolver = (table: Record<string, ReadonlyArray<string>>) =>
  Layer.succeed(HostResolver, {
    lookup: (hostname) =>
      hostname in table
        ? Effect.sync(() => table[hostname])
        : Effect.fail(new HostResolutionError({ hostname, message: "ENOTFOUND" }))
  })

const checkWith = (url: string, mode: Mode, config: Partial<Config.EngineConfigShape> = {}) =>
  Effect.flatMap(Webhooks, (w) => w.checkUrl(url, mode)).pipe(
    Effect.match({ onSuccess: () => "ok", onFailure: (e) => e.message }),
    Effect.provide(
      WebhooksModule.layer.pipe(
        Layer.provide(
          Layer.mergeAll(
            MemoryStore.layer,
            Config.layer(config),
            Layer.succeed(WebhookTransport, { post: () => Effect.die("no requests") }),
            tableResolver({
              "metadata.example": ["169.254.169.254"],
              "alibaba.example": ["100.100.100.200"],
              "aws6.example": ["2606:4700::1111", "fd00:ec2::254"],
              "loopback.example": ["127.0.0.1"]
            })
          )
        )
      )
    )
  )

const metadataUrls = [
  "http://169.254.169.254/latest/meta-data/iam/security-credentials/",
  "http://169.254.170.2/v2/credentials",
  "http://0xa9fea9fe/",
  "http://2852039166/",
  "http://0251.0376.0251.0376/",
  "http://[fe80::1]/",
  "http://[fd00:ec2::254]/latest/meta-data",
  "http://100.100.100.200/latest/meta-data",
  "http://[::ffff:169.254.169.254]/",
  "http://[::ffff:a9fe:a9fe]/",
  "http://[64:ff9b::169.254.169.254]/",
  "http://[2002:a9fe:a9fe::1]/",
  // IPv4-compatible: the URL parser writes it [::a9fe:a9fe], which ipaddr.js calls unicast.
  "http://[::169.254.169.254]:1/h",
  "http://[::a9fe:a9fe]/",
  "http://[0:0:0:0:0:0:a9fe:a9fe]/",
  // Teredo whose client (stored inverted) is the metadata address.
  "http://[2001:0:4136:e378:8000:63bf:5601:5601]/",
  "http://metadata.example/computeMetadata/v1/",
  "http://alibaba.example/",
  "https://aws6.example/"
]

describe("forbiddenKind", () => {
  it("names link-local and metadata addresses, in their IPv6 disguises too; nothing else", () => {
    const cases: ReadonlyArray<readonly [string, string | null]> = [
      ["169.254.169.254", "link-local"],
      ["169.254.0.1", "link-local"],
      ["fe80::1", "link-local"],
      ["[fe80::1%eth0]", "link-local"],
      ["fd00:ec2::254", "cloud metadata"],
      ["fd00:ec2::23", "cloud metadata"],
      ["100.100.100.200", "cloud metadata"],
      ["192.0.0.192", "cloud metadata"],
      ["168.63.129.16", "cloud metadata"],
      ["::ffff:169.254.169.254", "link-local"],
      ["::ffff:100.100.100.200", "cloud metadata"],
      ["64:ff9b::a9fe:a9fe", "link-local"],
      ["64:ff9b:1::a9fe:a9fe", "link-local"],
      ["::ffff:0:169.254.169.254", "link-local"],
      ["2002:a9fe:a9fe::1", "link-local"],
      ["::169.254.169.254", "link-local"],
      ["::a9fe:a9fe", "link-local"],
      ["[::a9fe:a9fe]", "link-local"],
      ["::6464:64c8", "cloud metadata"],
      ["2001:0:a9fe:a9fe::1", "link-local"],
      ["2001:0:4136:e378:8000:63bf:5601:5601", "link-local"],
      ["127.0.0.1", null],
      ["10.0.0.1", null],
      ["100.100.100.201", null],
      ["fd00:ec2::1:0", null],
      ["::1", null],
      ["::", null],
      ["8.8.8.8", null],
      ["hooks.example", null]
    ]
    for (const [address, kind] of cases) expect([address, forbiddenKind(address)]).toEqual([address, kind])
  })
})

describe("link-local and metadata webhook URLs", () => {
  it.effect("are refused in test and live mode, whatever private targets the operator allows", () =>
    Effect.gen(function* () {
      const allowAll = {
        allowPrivateWebhookUrls: true,
        allowPrivateTestWebhookUrls: true,
        allowInsecureLiveWebhooks: true
      }
      for (const url of metadataUrls)
        for (const mode of ["test", "live"] as const)
          expect([url, mode, yield* checkWith(url, mode, allowAll)]).toEqual([
            url,
            mode,
            expect.stringMatching(
              /^Webhook URL host .* is an? (link-local|cloud metadata) address .*no webhook may use it$/
            )
          ])
      expect(yield* checkWith("http://169.254.169.254/latest/meta-data", "test")).toBe(
        "Webhook URL host 169.254.169.254 is a link-local address (where cloud instances reach their " +
          "metadata and credentials); no webhook may use it"
      )
    })
  )
})

describe("loopback and private test-mode URLs", () => {
  it.effect("are allowed by default (a developer's receiver) and refused when the operator denies them", () =>
    Effect.gen(function* () {
      const urls = [
        "http://127.0.0.1:4000/hook",
        "http://localhost:4000/",
        "http://10.0.0.7/",
        "http://loopback.example/"
      ]
      for (const url of urls) expect([url, yield* checkWith(url, "test")]).toEqual([url, "ok"])
      const deny = { allowPrivateTestWebhookUrls: false }
      for (const url of urls)
        expect([url, yield* checkWith(url, "test", deny)]).toEqual([
          url,
          expect.stringMatching(/is an? (loopback|private) address; .*must use a public address$/)
        ])
      expect(yield* checkWith("http://loopback.example/", "test", deny)).toBe(
        "Webhook URL host loopback.example resolves to 127.0.0.1, which is a loopback address; " +
          "test-mode webhooks must use a public address"
      )
      // A name that does not resolve is kept where private targets are allowed, refused elsewhere.
      expect(yield* checkWith("http://not-yet.example/", "test")).toBe("ok")
      expect(yield* checkWith("http://not-yet.example/", "test", deny)).toBe(
        "Webhook URL host not-yet.example could not be resolved"
      )
      expect(yield* checkWith("https://8.8.8.8/", "test", deny)).toBe("ok")
    })
  )
})

/** A receiver on 127.0.0.1 counting the requests it gets. */
const receiver = Effect.acquireRelease(
  Effect.async<{ port: number; seen: Array<string>; close: () => void }>((resume) => {
    const seen: Array<string> = []
    const server = createServer((req, res) => {
      seen.push(String(req.headers["webhook-id"]))
      req.resume()
      res.end("ok")
    })
    server.listen(0, "127.0.0.1", () =>
      resume(
        Effect.succeed({
          port: (server.address() as AddressInfo).port,
          seen,
          close: () => server.close()
        })
      )
    )
    server.on("close", () => server.closeAllConnections())
  }),
  ({ close }) => Effect.sync(close)
)

/** Connects every name to 127.0.0.1, the receiver, whatever the engine's resolver says. */
const toReceiver: LookupFunction = (hostname, options, callback) => {
  if (!hostname.endsWith(".example")) return dns.lookup(hostname, options, callback)
  if (options.all) return callback(null, [{ address: "127.0.0.1", family: 4 }])
  callback(null, "127.0.0.1", 4)
}

/** Delivers `ids` to `url` in `mode` with `table` as the engine's resolver; the webhook log. */
const deliver = (
  mode: Mode,
  url: string,
  table: Record<string, ReadonlyArray<string>>,
  config: Partial<Config.EngineConfigShape>,
  ...ids: ReadonlyArray<string>
) =>
  Effect.gen(function* () {
    const store = yield* MemoryStore.make
    return yield* Effect.gen(function* () {
      yield* setEndpoint(url, "s", mode)
      yield* emit(...ids.map((id) => event(id, Date.now(), mode)))
      return yield* log.pipe(
        Effect.filterOrFail(
          (entries) => entries.length === ids.length && entries.every((e) => e.delivery.status !== "pending")
        ),
        Effect.retry(Schedule.spaced("10 millis")),
        Effect.timeoutFail({
          duration: Duration.millis(testWaitMs),
          onTimeout: () => new Error("deliveries still pending")
        })
      )
    }).pipe(
      Effect.provide(
        engineOver(
          store,
          NodeWebhookTransport.layerWith({ lookup: toReceiver }),
          { webhookTimeout: Duration.seconds(5), webhookRetryDelays: [], ...config },
          {},
          tableResolver(table)
        )
      ),
      Effect.provideService(Store, store)
    )
  })

describe("the send-time check, after DNS", () => {
  it.scopedLive(
    "a test-mode host that now resolves to a metadata address gets nothing; the attempt says why",
    () =>
      Effect.gen(function* () {
        const { port, seen } = yield* receiver
        // The name was a local receiver's when the URL was set; it resolves to 169.254.169.254 now.
        const table: Record<string, ReadonlyArray<string>> = { "hooks.example": ["127.0.0.1"] }
        const url = `http://hooks.example:${port}/hook`
        const [before] = yield* deliver("test", url, table, {}, "evt_before")
        expect(before?.delivery.status).toBe("delivered")
        table["hooks.example"] = ["169.254.169.254"]
        const [after] = yield* deliver("test", url, table, {}, "evt_after")
        expect(after?.delivery.status).toBe("failed")
        expect(after?.attempts[0]?.statusCode).toBeNull()
        expect(after?.attempts[0]?.error).toBe(
          "Transport: EPRIVATEADDRESS: hooks.example resolves to 169.254.169.254, which is a link-local " +
            "address (where cloud instances reach their metadata and credentials); no webhook may use it"
        )
        expect(seen).toEqual(["evt_before"])
      })
  )

  it.scopedLive(
    "a metadata literal stored before the policy is never requested, even in live mode allowed private",
    () =>
      Effect.gen(function* () {
        const { seen } = yield* receiver
        const [entry] = yield* deliver(
          "live",
          "http://169.254.169.254/hook",
          {},
          {
            allowPrivateWebhookUrls: true,
            allowInsecureLiveWebhooks: true
          },
          "evt_literal"
        )
        expect(entry?.delivery.status).toBe("failed")
        expect(entry?.attempts[0]?.error).toMatch(
          /^Transport: EPRIVATEADDRESS: 169.254.169.254 is a link-local address/
        )
        expect(seen).toEqual([])
      })
  )

  it.scopedLive(
    "an IPv4-compatible metadata literal stored before the policy is never requested in test mode",
    () =>
      Effect.gen(function* () {
        const { seen } = yield* receiver
        const [entry] = yield* deliver("test", "http://[::169.254.169.254]:1/h", {}, {}, "evt_compatible")
        expect(entry?.delivery.status).toBe("failed")
        expect(entry?.attempts[0]?.error).toMatch(
          /^Transport: EPRIVATEADDRESS: \[?::a9fe:a9fe\]? is a link-local address/
        )
        expect(seen).toEqual([])
      })
  )

  it.scopedLive("with private test targets denied, a test host that resolves to loopback gets nothing", () =>
    Effect.gen(function* () {
      const { port, seen } = yield* receiver
      const [entry] = yield* deliver(
        "test",
        `http://hooks.example:${port}/hook`,
        { "hooks.example": ["127.0.0.1"] },
        { allowPrivateTestWebhookUrls: false },
        "evt_denied"
      )
      expect(entry?.delivery.status).toBe("failed")
      expect(entry?.attempts[0]?.error).toBe(
        "Transport: EPRIVATEADDRESS: hooks.example resolves to 127.0.0.1, which is a loopback address; " +
          "test-mode webhooks must use a public address"
      )
      expect(seen).toEqual([])
    })
  )

  it.scopedLive("the transport refuses a metadata address it resolves itself when connecting", () =>
    Effect.gen(function* () {
      // The engine's resolver knows nothing of the name; node:http's lookup gives 169.254.169.254.
      const toMetadata: LookupFunction = (_hostname, options, callback) => {
        if (options.all) return callback(null, [{ address: "169.254.169.254", family: 4 }])
        callback(null, "169.254.169.254", 4)
      }
      const store = yield* MemoryStore.make
      const entries = yield* Effect.gen(function* () {
        yield* setEndpoint("http://elsewhere.example/hook", "s", "test")
        yield* emit(event("evt_connect", Date.now(), "test"))
        return yield* log.pipe(
          Effect.filterOrFail((e) => e.length === 1 && e[0].delivery.status !== "pending"),
          Effect.retry(Schedule.spaced("10 millis")),
          Effect.timeout(Duration.millis(testWaitMs))
        )
      }).pipe(
        Effect.provide(
          engineOver(store, NodeWebhookTransport.layerWith({ lookup: toMetadata }), {
            webhookTimeout: Duration.seconds(5),
            webhookRetryDelays: []
          })
        ),
        Effect.provideService(Store, store)
      )
      expect(entries[0]?.attempts[0]?.error).toBe(
        "Transport: EPRIVATEADDRESS: elsewhere.example resolves to 169.254.169.254, which is a link-local " +
          "address (where cloud instances reach their metadata and credentials); no webhook may use it"
      )
    })
  )
})
