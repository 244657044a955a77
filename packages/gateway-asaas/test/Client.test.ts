/**
 * The Asaas client against the simulated Asaas over real sockets: the headers Asaas requires, one
 * deadline per call (even inside an uninterruptible caller), a read answered 429 asked again
 * after Asaas's `RateLimit-Reset` when that fits, a write's 429 left as its answer, and metric
 * operations that carry no id.
 */
import { AsaasSimulator } from "@pixgate/testkit/simulator"
import { Effect, Redacted } from "effect"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { Asaas, type Client, type Settings } from "../src/index.js"
import { operationOf } from "../src/Metrics.js"

let sim: AsaasSimulator.AsaasSimulator
let customerId: string

const settingsOf = (overrides: Partial<Settings.AsaasSettings> = {}): Settings.AsaasSettings => ({
  baseUrl: sim.url,
  apiKey: Redacted.make(sim.apiKey),
  customerId,
  ca: sim.caPem,
  timeoutMs: 5000,
  ...overrides
})

const withClient = <A, E>(
  settings: Settings.AsaasSettings,
  use: (c: Client.AsaasClient) => Effect.Effect<A, E>
) =>
  Effect.runPromise(
    Asaas.client(settings).pipe(
      Effect.flatMap((c) => Effect.uninterruptible(use(c))),
      Effect.provide(Asaas.httpClientNode(settings))
    )
  )

beforeAll(async () => {
  sim = await AsaasSimulator.start()
  customerId = sim.createCustomer("Pixgate", "12345678000195")
})
beforeEach(() => sim.clearFaults())
afterAll(async () => {
  await sim?.close()
})

describe("the Asaas client", () => {
  it("sends access_token and User-Agent: Asaas answers", async () => {
    const res = await withClient(settingsOf(), (c) =>
      c.call({ method: "GET", path: `/customers/${customerId}` })
    )
    expect([res.status, (res.body as { id: string }).id]).toEqual([200, customerId])
  })

  it("a call Asaas never answers fails as a time-out within the deadline, even inside an uninterruptible caller", async () => {
    sim.addFault({ route: "payments.list", kind: "timeout", times: 1 })
    const started = Date.now()
    const res = await withClient(settingsOf({ timeoutMs: 1500 }), (c) =>
      Effect.either(c.call({ method: "GET", path: "/payments" }))
    )
    expect(res._tag === "Left" && res.left.reason).toBe("timeout")
    expect(Date.now() - started).toBeLessThan(15_000)
  })

  it("a read answered 429 is asked again after RateLimit-Reset; a write's 429 is its answer", async () => {
    sim.addFault({ route: "payments.list", kind: "status", status: 429, retryAfter: 1, times: 1 })
    const read = await withClient(settingsOf(), (c) => c.call({ method: "GET", path: "/payments" }))
    expect(read.status).toBe(200)
    expect(
      sim.requests
        .filter((r) => r.route === "payments.list")
        .map((r) => r.outcome)
        .slice(-2)
    ).toEqual([429, 200])
    sim.addFault({ route: "customers.create", kind: "status", status: 429, retryAfter: 1, times: 1 })
    const write = await withClient(settingsOf(), (c) =>
      c.call({ method: "POST", path: "/customers", body: { name: "X", cpfCnpj: "12345678909" } })
    )
    expect([write.status, write.retryAfterMs]).toEqual([429, 1000])
    expect(sim.requests.filter((r) => r.route === "customers.create")).toHaveLength(1)
  })

  it("a 429 whose wait does not fit the deadline is the answer", async () => {
    sim.addFault({ route: "payments.list", kind: "status", status: 429, retryAfter: 60, times: 1 })
    const read = await withClient(settingsOf(), (c) => c.call({ method: "GET", path: "/payments" }))
    expect(read.status).toBe(429)
  })

  it("metric operations name the route, never an id", () => {
    expect(operationOf({ method: "GET", path: "/payments/pay_080225913252/pixQrCode" })).toBe(
      "GET /payments/:id/pixQrCode"
    )
    expect(operationOf({ method: "GET", path: "/transfers/777eb7c8-b1a2-4356-8fd8-a1b0644b5282" })).toBe(
      "GET /transfers/:id"
    )
    expect(operationOf({ method: "POST", path: "/payments" })).toBe("POST /payments")
  })
})
