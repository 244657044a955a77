/**
 * Webhook POSTs over node:http / node:https with keep-alive agents: a small fraction of the CPU
 * of a `fetch`-based client per attempt (measured: about 120 µs against 680 µs for `fetch` and
 * over 2 ms through Effect's Fetch client), which is what bounds the deliveries per second.
 * Redirects are not followed; at most `bodyReadLimit` bytes of an answer are read, then the
 * connection is dropped. The status must arrive within the time-out; an answer still arriving
 * then is cut short without failing the attempt. A `publicOnly` request (live mode) goes through
 * agents of its own whose DNS lookup refuses every non-public address, checked when the socket
 * connects, so a host that resolved to a public address when its URL was set and to a private
 * one now (DNS rebinding) is never reached, and no socket to it is shared with other requests.
 * Every request, public-only or not, refuses link-local and cloud metadata addresses the same way.
 * Deliveries through a proxy (`proxyLayer`) use undici, in `WebhookProxy`, imported only when a
 * proxy is configured: a few megabytes of code a direct server never loads.
 */
import * as dns from "node:dns"
import * as http from "node:http"
import * as https from "node:https"
import type { LookupFunction } from "node:net"
import { Effect, Layer } from "effect"
import {
  bodyReadLimit,
  causeChain,
  refusedAddress,
  timedOut,
  type WebhookOutcome,
  type WebhookRequest,
  WebhookTransport
} from "../ports/WebhookTransport.js"
import { defaults } from "../runtime/Config.js"
import { refusal } from "../webhooks/WebhookUrl.js"

/** Agent settings. */
export interface NodeWebhookTransportOptions {
  /** Open connections kept per receiver origin (default: the default `webhookConcurrency`, 64). */
  readonly maxSocketsPerOrigin?: number
  /** How host names are resolved (default `dns.lookup`; tests give their own). */
  readonly lookup?: LookupFunction
  /**
   * An HTTP proxy every delivery goes through (`http://host:port`, user info for its basic
   * auth): a fixed egress address for receivers that allow-list. The target's host is resolved
   * here and checked by the address policy before anything is sent to the proxy (the proxy
   * connects by name, so a receiver's DNS could still answer it otherwise: a residual race the
   * proxy's own egress rules close). https targets go through CONNECT, end to end encrypted.
   */
  readonly proxy?: string
}

interface Agents {
  readonly http: http.Agent
  readonly https: https.Agent
}

/**
 * `lookup`, failing when an address it finds is refused: link-local and cloud metadata ones
 * always, every non-public one for a public-only pool.
 */
const checkedLookup =
  (lookup: LookupFunction, publicOnly: boolean): LookupFunction =>
  (hostname, options, callback) =>
    lookup(hostname, options, (error, address, family) => {
      if (error) return callback(error, address, family)
      const refused = refusal(
        hostname,
        typeof address === "string" ? [address] : address.map((a) => a.address),
        !publicOnly
      )
      if (refused === null) return callback(null, address, family)
      callback(Object.assign(new Error(refused), { code: "EPRIVATEADDRESS" }), address, family)
    })

const post = (
  agents: { readonly any: Agents; readonly publicOnly: Agents },
  { url, headers, body, timeoutMs, publicOnly = false }: WebhookRequest
) =>
  Effect.async<WebhookOutcome>((resume) => {
    let done = false
    // Set once the request is under way; an attempt that ends before (a URL that cannot be
    // requested) has no timer to clear.
    let timer: ReturnType<typeof setTimeout> | undefined
    const finish = (outcome: WebhookOutcome) => {
      if (done) return
      done = true
      clearTimeout(timer)
      resume(Effect.succeed(outcome))
    }
    let target: URL
    try {
      target = new URL(url)
    } catch (error) {
      return finish({ statusCode: null, error: causeChain(error) || "Invalid URL" })
    }
    // An address literal is connected to without a lookup: check it here.
    const literal = target.hostname.replace(/^\[|\]$/g, "")
    const refused = refusal(literal, [literal], !publicOnly)
    if (refused !== null) return finish({ statusCode: null, error: refusedAddress(refused) })
    const secure = target.protocol === "https:"
    const pool = publicOnly ? agents.publicOnly : agents.any
    const request = (secure ? https : http).request(target, {
      method: "POST",
      agent: secure ? pool.https : pool.http,
      headers: { ...headers, "content-type": "application/json", "content-length": body.byteLength }
    })
    let status: number | null = null
    // The answer's status stands whatever happens to its body.
    const answered = () => finish({ statusCode: status, error: null })
    // The status must come within the time-out; an answer still arriving then is cut short, but
    // the attempt keeps its status (a receiver's slow body is not the engine's failure).
    timer = setTimeout(() => {
      request.destroy()
      if (status === null) finish({ statusCode: null, error: timedOut(timeoutMs) })
      else answered()
    }, timeoutMs)
    request.on("error", (error: NodeJS.ErrnoException) =>
      finish({
        statusCode: null,
        error: `Transport: ${error.code ? `${error.code}: ` : ""}${causeChain(error)}`
      })
    )
    request.on("response", (response) => {
      status = response.statusCode ?? null
      let read = 0
      response.on("data", (chunk: Buffer) => {
        read += chunk.length
        // Enough of it: drop the connection rather than read an answer without end.
        if (read >= bodyReadLimit) {
          response.destroy()
          answered()
        }
      })
      response.on("end", answered)
      response.on("error", answered)
    })
    request.end(body)
    return Effect.sync(() => {
      clearTimeout(timer)
      request.destroy()
    })
  })

/** Resolves `hostname` to all its addresses with `lookup`. */
/** The Node transport with its own keep-alive agents. */
export const layerWith = (options: NodeWebhookTransportOptions = {}): Layer.Layer<WebhookTransport> =>
  Layer.scoped(
    WebhookTransport,
    Effect.map(
      Effect.acquireRelease(
        Effect.sync(() => {
          const lookup = options.lookup ?? (dns.lookup as LookupFunction)
          const pair = (settings: http.AgentOptions): Agents => ({
            http: new http.Agent(settings),
            https: new https.Agent(settings)
          })
          const settings = {
            keepAlive: true,
            maxSockets: options.maxSocketsPerOrigin ?? defaults.webhookConcurrency
          }
          return {
            any: pair({ ...settings, lookup: checkedLookup(lookup, false) }),
            publicOnly: pair({ ...settings, lookup: checkedLookup(lookup, true) })
          }
        }),
        (agents) =>
          Effect.sync(() => {
            for (const pair of [agents.any, agents.publicOnly]) {
              pair.http.destroy()
              pair.https.destroy()
            }
          })
      ),
      (agents) => WebhookTransport.of({ post: (request) => post(agents, request) })
    )
  )

/**
 * `layerWith`, through `options.proxy` when given (`proxyLayer`), else direct: what the server
 * builds from `PIXGATE_WEBHOOK_PROXY`.
 */
export const layerFor = (options: NodeWebhookTransportOptions = {}): Layer.Layer<WebhookTransport> =>
  options.proxy === undefined || options.proxy === ""
    ? layerWith(options)
    : proxyLayer(options.proxy, options)

/** Deliveries through the HTTP proxy at `proxyUrl` (see `NodeWebhookTransportOptions.proxy`). */
export const proxyLayer = (
  proxyUrl: string,
  options: Omit<NodeWebhookTransportOptions, "proxy"> = {}
): Layer.Layer<WebhookTransport> =>
  Layer.scoped(
    WebhookTransport,
    Effect.map(
      Effect.acquireRelease(
        Effect.promise(() => import("./WebhookProxy.js")).pipe(
          Effect.map((WebhookProxy) => ({
            WebhookProxy,
            agent: WebhookProxy.agent(proxyUrl, options.maxSocketsPerOrigin ?? defaults.webhookConcurrency)
          }))
        ),
        ({ agent }) => Effect.promise(() => agent.close().catch(() => undefined))
      ),
      ({ WebhookProxy, agent }) => {
        const lookup = options.lookup ?? (dns.lookup as LookupFunction)
        return WebhookTransport.of({ post: (request) => WebhookProxy.post(agent, lookup, request) })
      }
    )
  )

/** `layerWith` with the default options. */
export const layer: Layer.Layer<WebhookTransport> = layerWith()
