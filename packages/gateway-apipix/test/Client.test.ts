/**
 * The PSP client's deadlines and throttling against real sockets: the PSP simulator over mTLS,
 * a server that never completes a TLS handshake, one that never finishes a body. Every call ends
 * within its deadline (generous bounds for a loaded machine); a read answered 429 is asked again
 * after its Retry-After when that fits; a refused webhook says the PSP's reason.
 */
import { createServer as createHttpServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { createServer as createNetServer, type Server as NetServer, type Socket } from "node:net"
import { PspSimulator } from "@pixgate/testkit/simulator"
import { Effect, Redacted } from "effect"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { ApiPix, Client, Problem, Settings } from "../src/index.js"

const pixKey = "recebimentos@pixgate.example"
let psp: PspSimulator.PspSimulator

const settingsOf = (overrides: Partial<Settings.ApiPixSettings> = {}): Settings.ApiPixSettings => ({
  baseUrl: psp.url,
  clientId: psp.client.clientId,
  clientSecret: Redacted.make(psp.client.clientSecret),
  scopes: Settings.defaults.scopes,
  certificate: Settings.pem(psp.tls.clientCertPem, psp.tls.clientKeyPem),
  ca: psp.tls.caPem,
  pixKey,
  timeoutMs: 5000,
  ...overrides
})

/** Runs `use` with a client of `settings` (uninterruptible, as a charge's creation runs it). */
const withClient = <A, E>(
  settings: Settings.ApiPixSettings,
  use: (psp: Client.PspClient) => Effect.Effect<A, E>
) =>
  Effect.runPromise(
    Client.make(settings).pipe(
      Effect.flatMap((client) => Effect.uninterruptible(use(client))),
      Effect.provide(ApiPix.httpClientNode(settings))
    )
  )

const timed = async <A>(run: () => Promise<A>) => {
  const start = Date.now()
  const value = await run()
  return { value, ms: Date.now() - start }
}

const cobPath = (suffix: string) => `/v2/cob/${`pixgateclient${suffix}`.padEnd(30, "0")}`
const cob = { valor: { original: "10.00" }, chave: pixKey }

beforeAll(async () => {
  psp = await PspSimulator.start({ pixKeys: [pixKey] })
})
beforeEach(() => psp.clearFaults())
afterAll(async () => {
  await psp?.close()
})

describe("deadlines", () => {
  it("a PUT the PSP never answers fails as a time-out within the deadline, even inside an uninterruptible caller", async () => {
    psp.addFault({ route: "cob.put", kind: "timeout", times: 1 })
    const { value, ms } = await timed(() =>
      withClient(settingsOf({ timeoutMs: 1500 }), (c) =>
        Effect.either(c.call({ method: "PUT", path: cobPath("hung"), body: cob }))
      )
    )
    expect(value._tag).toBe("Left")
    expect(value._tag === "Left" && value.left.reason).toBe("timeout")
    expect(ms).toBeLessThan(15_000)
  })

  it("a body that never ends fails as a time-out within the deadline", async () => {
    const server: Server = createHttpServer((req, res) => {
      if (req.url === "/oauth/token") {
        res.writeHead(200, { "content-type": "application/json" })
        res.end(JSON.stringify({ access_token: "t", token_type: "Bearer", expires_in: 3600 }))
        return
      }
      res.writeHead(200, { "content-type": "application/json" })
      res.write('{"status":')
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    try {
      const { port } = server.address() as AddressInfo
      const { value, ms } = await timed(() =>
        withClient(settingsOf({ baseUrl: `http://127.0.0.1:${port}`, timeoutMs: 1500 }), (c) =>
          Effect.either(c.call({ method: "GET", path: "/v2/cob/x" }))
        )
      )
      expect(value._tag === "Left" && value.left.reason).toBe("timeout")
      expect(ms).toBeLessThan(15_000)
    } finally {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  })

  it("a connection whose TLS handshake never completes fails at the connect time-out, not the call's", async () => {
    const sockets: Array<Socket> = []
    const silent: NetServer = createNetServer((socket) => {
      sockets.push(socket)
    })
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve))
    try {
      const { port } = silent.address() as AddressInfo
      const { value, ms } = await timed(() =>
        withClient(
          settingsOf({ baseUrl: `https://127.0.0.1:${port}`, timeoutMs: 60_000, connectTimeoutMs: 500 }),
          (c) => Effect.either(c.call({ method: "GET", path: "/v2/cob/x" }))
        )
      )
      expect(value._tag).toBe("Left")
      expect(value._tag === "Left" && value.left.message).toContain("connect time-out")
      // Far below the call's 60 s deadline.
      expect(ms).toBeLessThan(30_000)
    } finally {
      for (const socket of sockets) socket.destroy()
      await new Promise((resolve) => silent.close(resolve))
    }
  })
})

describe("a PSP that throttles (429 with Retry-After)", () => {
  const asked = (route: string) => psp.requests.filter((r) => r.route === route)

  it("a read is asked again after the Retry-After and succeeds within the deadline", async () => {
    const path = cobPath("read429")
    await withClient(settingsOf(), (c) => c.call({ method: "PUT", path, body: cob }))
    const before = asked("cob.get").length
    psp.addFault({ route: "cob.get", kind: "status", status: 429, retryAfter: 1, times: 1 })
    const res = await withClient(settingsOf({ timeoutMs: 8000 }), (c) => c.call({ method: "GET", path }))
    expect(res.status).toBe(200)
    expect(
      asked("cob.get")
        .slice(before)
        .map((r) => r.outcome)
    ).toEqual([429, 200])
  })

  it("a read whose Retry-After does not fit the deadline answers the 429 at once", async () => {
    const before = asked("cob.get").length
    psp.addFault({ route: "cob.get", kind: "status", status: 429, retryAfter: 30, times: 1 })
    const res = await withClient(settingsOf({ timeoutMs: 3000 }), (c) =>
      c.call({ method: "GET", path: cobPath("late429") })
    )
    expect([res.status, res.retryAfterMs]).toEqual([429, 30_000])
    expect(asked("cob.get").length - before).toBe(1)
  })

  it("a write answered 429 is not asked again: the 429 is its answer", async () => {
    const before = asked("cob.put").length
    psp.addFault({ route: "cob.put", kind: "status", status: 429, retryAfter: 1, times: 1 })
    const res = await withClient(settingsOf(), (c) =>
      c.call({ method: "PUT", path: cobPath("write429"), body: cob })
    )
    expect(res.status).toBe(429)
    expect(asked("cob.put").length - before).toBe(1)
  })
})

describe("the PSP's reasons", () => {
  it("a refused webhook registration says the PSP's problem type, detail and violations", async () => {
    const settings = settingsOf({ pixKey: "not-ours@pixgate.example" })
    const refused = await Effect.runPromise(
      Effect.flip(
        ApiPix.registerWebhook(settings, "https://pixgate.example/bank/callbacks/x").pipe(
          Effect.provide(ApiPix.httpClientNode(settings))
        )
      )
    )
    expect(refused.message).toContain("HTTP 400 WebhookOperacaoInvalida")
    expect(refused.message).toContain("chave: chave is not a key of this account.")
    expect(refused.message).not.toContain("[object Object]")
  })

  it("describes problems, Efí errors and plain text as fields and one sentence", () => {
    const problem = {
      type: "https://pix.bcb.gov.br/api/v2/error/CobOperacaoInvalida",
      title: "Cobrança inválida.",
      status: 400,
      detail: "A requisição não respeita o schema.",
      violacoes: [{ razao: "valor inválido", propriedade: "cob.valor.original" }]
    }
    expect(Problem.fields(400, problem)).toEqual({
      pspStatus: 400,
      pspType: problem.type,
      pspTitle: problem.title,
      pspDetail: problem.detail,
      pspViolacoes: "cob.valor.original: valor inválido"
    })
    expect(Problem.describe(400, problem)).toBe(
      "HTTP 400 CobOperacaoInvalida: A requisição não respeita o schema. (cob.valor.original: valor inválido)"
    )
    expect(Problem.describe(409, { nome: "id_envio_duplicado", mensagem: "Já usado" })).toBe(
      "HTTP 409 id_envio_duplicado: Já usado"
    )
    expect(Problem.describe(502, "<html>bad gateway</html>")).toBe("HTTP 502")
    expect(Problem.fields(502, "<html>bad gateway</html>").pspBody).toBe("<html>bad gateway</html>")
    expect(Problem.retryAfterMs("2", 0)).toBe(2000)
    expect(Problem.retryAfterMs(new Date(10_000).toUTCString(), 4000)).toBe(6000)
    expect(Problem.retryAfterMs("soon", 0)).toBeUndefined()
  })
})
