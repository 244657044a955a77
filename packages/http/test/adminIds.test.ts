/**
 * Ids from outside are decoded, never cast: an id of the wrong kind or of no id's shape in an
 * admin path (or filter) gets exactly the answer of a well-formed id that does not exist.
 */
import { createServer } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { adminSender, type Harness, listen, start } from "@pixgate/testkit/harness"
import { must } from "@pixgate/testkit/must"

const token = "admin-token-ids-0123456789abcdef"
let h: Harness
let adminBase: string
const server = createServer()
const admin = adminSender(() => adminBase, token)

beforeAll(async () => {
  h = await start({ admin: { token, basePath: "/admin" }, engine: { worker: false } })
  server.on("request", must(h.pixgate.admin, "h.pixgate.admin").nodeHandler)
  adminBase = await listen(server)
})
afterAll(async () => {
  server.close()
  await h.close()
})

/** Well-formed ids nothing has: the answer every malformed one must match. */
const unknown = {
  merchant: "mer_01JZZZZZZZZZZZZZZZZZZZZZZZ",
  key: "key_01JZZZZZZZZZZZZZZZZZZZZZZZ",
  event: "evt_01JZZZZZZZZZZZZZZZZZZZZZZZ",
  transaction: "tx_01JZZZZZZZZZZZZZZZZZZZZZZZ",
  chargeback: "cb_01JZZZZZZZZZZZZZZZZZZZZZZZ"
}
/** Ids of another kind, of no id's shape, too long, or with characters a path escapes. */
const malformed = (of: string) => [
  unknown.transaction === of ? unknown.merchant : unknown.transaction,
  "nope",
  `${of.split("_")[0]}_`,
  `${of}-1`,
  `${of}%20x`,
  `${of.split("_")[0]}_${"a".repeat(101)}`
]

const routes: ReadonlyArray<readonly [string, string, (id: string) => string, object | undefined]> = [
  ["GET", unknown.merchant, (id) => `/merchants/${id}`, undefined],
  ["GET", unknown.merchant, (id) => `/merchants/${id}/keys`, undefined],
  ["GET", unknown.merchant, (id) => `/merchants/${id}/balance?mode=test`, undefined],
  ["PUT", unknown.merchant, (id) => `/merchants/${id}/fee-plan`, { percentage: 1, fixed: 0.1, minimum: 0.1 }],
  ["DELETE", unknown.key, (id) => `/keys/${id}`, undefined],
  ["POST", unknown.event, (id) => `/events/${id}/redeliver`, undefined],
  ["POST", unknown.transaction, (id) => `/sandbox/transactions/${id}/pay`, undefined],
  ["POST", unknown.transaction, (id) => `/sandbox/transactions/${id}/settle`, undefined],
  ["POST", unknown.chargeback, (id) => `/sandbox/chargebacks/${id}/resolve`, { outcome: "accepted" }]
]

describe("admin ids from outside", () => {
  for (const [method, id, path, body] of routes) {
    it(`${method} ${path(":id")}: a malformed id is answered as an unknown one`, async () => {
      const expected = await admin(method, path(id), body === undefined ? {} : { body })
      expect(expected.status).toBeGreaterThanOrEqual(400)
      expect(expected.status).toBeLessThan(500)
      for (const bad of malformed(id)) {
        const answer = await admin(method, path(bad), body === undefined ? {} : { body })
        expect([bad, answer.status, answer.body]).toEqual([bad, expected.status, expected.body])
      }
    })
  }

  it("a charge's refunds under a malformed charge id: the answer of an unknown one (GET and POST)", async () => {
    const created = await admin("POST", "/merchants", { body: { name: "Loja Refunds" } })
    const merchantId = (created.body as { merchantId: string }).merchantId
    const calls = [
      (id: string) => admin("GET", `/merchants/${merchantId}/charges/${id}/refunds`),
      (id: string) =>
        admin("POST", `/merchants/${merchantId}/charges/${id}/refunds`, {
          body: { amount: 1 },
          headers: { "idempotency-key": "ids-1" }
        })
    ]
    for (const call of calls) {
      const expected = await call(unknown.transaction)
      expect([expected.status, expected.body]).toEqual([
        404,
        { error: "Charge not found", code: "not_found" }
      ])
      for (const bad of malformed(unknown.transaction)) {
        const answer = await call(bad)
        expect([bad, answer.status, answer.body]).toEqual([bad, expected.status, expected.body])
      }
    }
  })

  it("a webhook-log filter by a malformed event id lists nothing, as an unknown one", async () => {
    const created = await admin("POST", "/merchants", { body: { name: "Loja Ids" } })
    const merchantId = (created.body as { merchantId: string }).merchantId
    const log = (eventId: string) =>
      admin("GET", `/merchants/${merchantId}/webhook-log?eventId=${encodeURIComponent(eventId)}`)
    const expected = await log(unknown.event)
    expect(expected.status).toBe(200)
    for (const bad of malformed(unknown.event)) {
      const answer = await log(bad)
      expect([bad, answer.status, answer.body]).toEqual([bad, expected.status, expected.body])
    }
  })
})
