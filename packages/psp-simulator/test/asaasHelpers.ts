import * as http from "node:http"
import * as https from "node:https"
import type { AddressInfo } from "node:net"
import type { AsaasSimulator } from "../src/asaas/AsaasSimulator.js"

/** An answer of the simulated Asaas, read whole. */
export interface AsaasAnswer {
  readonly status: number
  readonly headers: http.IncomingHttpHeaders
  // biome-ignore lint/suspicious/noExplicitAny: tests read JSON answers field by field
  readonly body: any
}

/** Calls the simulated Asaas with its API key (another key, or none, when given). */
export const asaas = (
  sim: AsaasSimulator,
  method: string,
  path: string,
  options: { readonly body?: unknown; readonly apiKey?: string | null; readonly userAgent?: string } = {}
) =>
  new Promise<AsaasAnswer>((resolve, reject) => {
    const payload = options.body === undefined ? undefined : JSON.stringify(options.body)
    const key = options.apiKey === undefined ? sim.apiKey : options.apiKey
    const request = https.request(
      `${sim.url}${path}`,
      {
        method,
        agent: false,
        ca: sim.caPem,
        headers: {
          "user-agent": options.userAgent ?? "pixgate-tests",
          ...(payload === undefined ? {} : { "content-type": "application/json" }),
          ...(key === null ? {} : { access_token: key })
        }
      },
      (response) => {
        const chunks: Array<Buffer> = []
        response.on("data", (chunk: Buffer) => chunks.push(chunk))
        response.on("error", reject)
        response.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8")
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: text.length > 0 ? JSON.parse(text) : undefined
          })
        })
      }
    )
    request.on("error", reject)
    request.end(payload)
  })

/** A receiver of Asaas's events: what arrived, with its `asaas-access-token` header. */
export const eventReceiver = async (answer: () => number = () => 200) => {
  const received: Array<{ readonly token: string | undefined; readonly body: Record<string, unknown> }> = []
  const server = http.createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      const token = request.headers["asaas-access-token"]
      received.push({
        token: typeof token === "string" ? token : undefined,
        body: JSON.parse(Buffer.concat(chunks).toString("utf8"))
      })
      response.writeHead(answer()).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/bank/callbacks/secret`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
  }
}
