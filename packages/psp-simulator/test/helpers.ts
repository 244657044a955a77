import * as http from "node:http"
import * as https from "node:https"
import type { AddressInfo } from "node:net"
import { testWaitMs } from "@pixgate/testkit/wait"
import type { PspSimulator } from "../src/PspSimulator.js"

/** An answer of the simulator, read whole. */
export interface Answer {
  readonly status: number
  readonly headers: http.IncomingHttpHeaders
  readonly text: string
  // biome-ignore lint/suspicious/noExplicitAny: tests read JSON answers field by field
  readonly body: any
}

/** Calls the simulator's HTTPS API on a fresh connection (PEM client certificate by default). */
export const call = (
  psp: PspSimulator,
  request: {
    readonly method: string
    readonly path: string
    readonly body?: unknown
    readonly token?: string
    readonly headers?: Record<string, string>
    readonly credentials?: "pem" | "pkcs12" | "none"
    readonly timeoutMs?: number
  }
) =>
  new Promise<Answer>((resolve, reject) => {
    const payload =
      request.body === undefined
        ? undefined
        : typeof request.body === "string"
          ? request.body
          : JSON.stringify(request.body)
    const credentials = request.credentials ?? "pem"
    const req = https.request(
      `${psp.url}${request.path}`,
      {
        method: request.method,
        agent: false,
        ca: psp.tls.caPem,
        ...(credentials === "pem" ? { cert: psp.tls.clientCertPem, key: psp.tls.clientKeyPem } : {}),
        ...(credentials === "pkcs12"
          ? { pfx: psp.tls.clientPkcs12, passphrase: psp.tls.clientPkcs12Passphrase }
          : {}),
        headers: {
          ...(payload === undefined ? {} : { "content-type": "application/json" }),
          ...(request.token ? { authorization: `Bearer ${request.token}` } : {}),
          ...request.headers
        }
      },
      (response) => {
        const chunks: Array<Buffer> = []
        response.on("data", (chunk: Buffer) => chunks.push(chunk))
        response.on("error", reject)
        response.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8")
          let body: unknown
          try {
            body = text.length > 0 ? JSON.parse(text) : undefined
          } catch {
            body = undefined
          }
          resolve({ status: response.statusCode ?? 0, headers: response.headers, text, body })
        })
      }
    )
    if (request.timeoutMs !== undefined) {
      req.setTimeout(request.timeoutMs, () => req.destroy(new Error("client time-out")))
    }
    req.on("error", reject)
    req.end(payload)
  })

const basic = (clientId: string, secret: string) =>
  `Basic ${Buffer.from(`${clientId}:${secret}`).toString("base64")}`

/** Gets an access token with the simulator's default client (all its scopes unless given). */
export const token = async (psp: PspSimulator, scope?: string) => {
  const answer = await call(psp, {
    method: "POST",
    path: "/oauth/token",
    headers: { authorization: basic(psp.client.clientId, psp.client.clientSecret) },
    body: { grant_type: "client_credentials", scope }
  })
  if (answer.status !== 200) throw new Error(`token: ${answer.status} ${answer.text}`)
  return answer.body.access_token as string
}

export { basic }

/** A plain-HTTP receiver recording the callbacks posted to it. */
export const receiver = async (answerStatus = 200) => {
  const received: Array<{ readonly path: string; readonly body: unknown }> = []
  const server = http.createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      received.push({ path: request.url ?? "", body: JSON.parse(Buffer.concat(chunks).toString("utf8")) })
      response.writeHead(answerStatus)
      response.end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}/hooks/secret-segment`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
  }
}

/** Waits until `check` holds, polling (for callbacks delivered on their own schedule). */
export const eventually = async (check: () => boolean, what: string, limitMs = testWaitMs) => {
  const started = Date.now()
  while (!check()) {
    if (Date.now() - started > limitMs) throw new Error(`never happened: ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** A txid in the standard's shape (26 to 35 letters or digits). */
export const txid = (suffix: string) => `pixgatetest${suffix}`.padEnd(30, "0").slice(0, 35)

/** A valid cob body. */
export const cobBody = (valor = "10.00", chave = "merchant@example.com") => ({
  calendario: { expiracao: 3600 },
  devedor: { nome: "Fulano de Tal", cpf: "12345678909" },
  valor: { original: valor },
  chave,
  solicitacaoPagador: "Pedido 42"
})

/** Registers `url` as the webhook of the simulated PSP's key `merchant@example.com`. */
export const registerWebhook = (psp: PspSimulator, bearer: string, url: string) =>
  call(psp, {
    method: "PUT",
    path: "/v2/webhook/merchant%40example.com",
    token: bearer,
    body: { webhookUrl: url }
  })
