/**
 * docs/fees.md's worked examples against a running server: each line of its table is made
 * through the HTTP API (a test charge, paid through the admin API's sandbox action, or a payout),
 * and the answer's `fees` and the change of the available balance must be the table's. The
 * custom plan is the one the page shows, set through the admin API.
 */
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { must } from "@pixgate/testkit/must"
import * as Server from "../src/Server.js"

const page = readFileSync(fileURLToPath(new URL("../../../docs/fees.md", import.meta.url)), "utf8")
const token = "fees-admin-token-0123456789abcdef"

/** The text between `<!-- name:start -->` and `<!-- name:end -->`. */
const block = (name: string): string =>
  must(page.split(`<!-- ${name}:start -->`)[1], `the ${name} block`).split(`<!-- ${name}:end -->`)[0]

interface Example {
  readonly plan: string
  readonly operation: "charge" | "payout"
  readonly amount: number
  readonly fees: { feeAmount: number; gatewayFeeAmount: number; adminMargin: number; netAmount: number }
  readonly balance: number
}

/** The table's lines as examples. */
const examples = (): ReadonlyArray<Example> =>
  block("fees-examples")
    .trim()
    .split("\n")
    .slice(2)
    .map((line) => {
      const [plan, operation, amount, feeAmount, gatewayFeeAmount, adminMargin, netAmount, balance] = line
        .split("|")
        .slice(1, -1)
        .map((cell) => cell.trim())
      if (operation !== "charge" && operation !== "payout") throw new Error(`unknown operation in ${line}`)
      return {
        plan,
        operation,
        amount: Number(amount),
        fees: {
          feeAmount: Number(feeAmount),
          gatewayFeeAmount: Number(gatewayFeeAmount),
          adminMargin: Number(adminMargin),
          netAmount: Number(netAmount)
        },
        balance: Number(balance)
      }
    })

let server: Server.RunningServer
const call = async (method: string, path: string, headers: Record<string, string>, body?: unknown) => {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  return { status: response.status, body: await response.json() }
}
const admin = (method: string, path: string, body?: unknown) =>
  call(method, `/admin${path}`, { authorization: `Bearer ${token}` }, body)

beforeAll(async () => {
  server = await Server.start({
    port: 0,
    database: "sqlite::memory:",
    adminToken: token,
    rateLimit: false,
    log: { level: "none" }
  })
})
afterAll(() => server.close())

describe("docs/fees.md", () => {
  it("has the defaults, the plan and examples of both operations under each plan", () => {
    expect(page).toContain("| Charge    | 0.99% | 0.25%          | 0.74%             |")
    expect(page).toContain("| Payout    | 0.33  | 0.10           | 0.23              |")
    const lines = examples()
    expect(new Set(lines.map((l) => `${l.plan} ${l.operation}`))).toEqual(
      new Set(["default charge", "default payout", "above charge", "above payout"])
    )
  })

  it("every worked example is what the server answers and books", async () => {
    const plan = JSON.parse(must(/```json\n([\s\S]*?)```/.exec(block("fees-plan")), "the plan's JSON")[1])
    for (const example of examples()) {
      const created = await admin("POST", "/merchants", { name: `Fees ${example.plan}` })
      const { merchantId, testKey } = created.body
      if (example.plan === "above")
        expect((await admin("PUT", `/merchants/${merchantId}/fee-plan`, plan)).status).toBe(200)
      if (example.operation === "payout")
        await admin("POST", `/merchants/${merchantId}/sandbox/topup`, { amount: 100 })
      const available = async () =>
        (await admin("GET", `/merchants/${merchantId}/balance?mode=test`)).body.available
      const before = await available()
      const answer = await call(
        "POST",
        `/api/v1/${example.operation}s`,
        { "x-api-key": testKey },
        {
          amount: example.amount,
          ...(example.operation === "payout" ? { pixKey: "maria@example.com" } : {})
        }
      )
      expect(answer.status, JSON.stringify(example)).toBe(201)
      expect(answer.body.fees, JSON.stringify(example)).toEqual(example.fees)
      if (example.operation === "charge")
        expect((await admin("POST", `/sandbox/transactions/${answer.body.transactionId}/pay`)).status).toBe(
          200
        )
      expect(Math.round(((await available()) - before) * 100) / 100, JSON.stringify(example)).toBe(
        example.balance
      )
    }
  })
})
