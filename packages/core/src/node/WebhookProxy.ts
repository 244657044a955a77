/**
 * Webhook POSTs through an HTTP proxy, on undici's `ProxyAgent` (see `NodeWebhookTransport`'s
 * `proxyLayer`, which imports this module only when a proxy is configured).
 */
import { isIP, type LookupFunction } from "node:net"
import { Effect } from "effect"
import { ProxyAgent, request } from "undici"
import {
  bodyReadLimit,
  causeChain,
  refusedAddress,
  timedOut,
  type WebhookOutcome,
  type WebhookRequest
} from "../ports/WebhookTransport.js"
import { refusal } from "../webhooks/WebhookUrl.js"

/** The agent every delivery goes through: `connections` sockets at most to the proxy. */
export const agent = (uri: string, connections: number): ProxyAgent => new ProxyAgent({ uri, connections })

const resolveAll = (lookup: LookupFunction, hostname: string): Promise<ReadonlyArray<string>> =>
  new Promise((resolve, reject) =>
    lookup(hostname, { all: true }, (error, address) => {
      if (error) return reject(error)
      resolve(typeof address === "string" ? [address] : address.map((a) => a.address))
    })
  )

/**
 * A POST through the proxy (undici's `ProxyAgent`): the target's addresses checked first, then
 * the status within the time-out and at most `bodyReadLimit` bytes of the answer.
 */
export const post = (
  proxy: ProxyAgent,
  lookup: LookupFunction,
  { url, headers, body, timeoutMs, publicOnly = false }: WebhookRequest
): Effect.Effect<WebhookOutcome> =>
  Effect.async<WebhookOutcome>((resume) => {
    const controller = new AbortController()
    let done = false
    const finish = (outcome: WebhookOutcome) => {
      if (done) return
      done = true
      clearTimeout(timer)
      resume(Effect.succeed(outcome))
    }
    const timer = setTimeout(() => {
      controller.abort()
      finish({ statusCode: null, error: timedOut(timeoutMs) })
    }, timeoutMs)
    const run = async (): Promise<WebhookOutcome> => {
      const target = new URL(url)
      const host = target.hostname.replace(/^\[|\]$/g, "")
      const addresses = isIP(host) !== 0 ? [host] : await resolveAll(lookup, host)
      const refused = refusal(host, addresses, !publicOnly)
      if (refused !== null) return { statusCode: null, error: refusedAddress(refused) }
      const response = await request(target, {
        method: "POST",
        dispatcher: proxy,
        headers: {
          ...headers,
          "content-type": "application/json",
          "content-length": String(body.byteLength)
        },
        body,
        signal: controller.signal
      })
      let read = 0
      try {
        for await (const chunk of response.body) {
          read += (chunk as Buffer).length
          if (read >= bodyReadLimit) break
        }
      } catch {
        // The status stands whatever happens to the body.
      } finally {
        response.body.destroy()
      }
      return { statusCode: response.statusCode, error: null }
    }
    run().then(finish, (error: NodeJS.ErrnoException) =>
      finish({
        statusCode: null,
        error: `Transport: ${error.code ? `${error.code}: ` : ""}${causeChain(error) || String(error)}`
      })
    )
    return Effect.sync(() => {
      clearTimeout(timer)
      controller.abort()
    })
  })
