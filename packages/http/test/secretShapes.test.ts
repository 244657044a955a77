/**
 * A client's secret sent where it does not belong never reaches a log line: an API key or admin
 * token in a path (however spelled) or as `x-request-id`, and an engine log line quoting one.
 */
import { describe, expect, it } from "@effect/vitest"
import { Ids } from "@pixgate/core"
import { start } from "@pixgate/testkit/harness"
import { Cause, Effect } from "effect"
import * as Log from "../src/Log.js"
import * as Redact from "../src/Redact.js"

describe("secrets in paths, request ids and log lines", () => {
  it("masks a key in a path, plain or percent-encoded, keeping the bank callbacks' redaction", () => {
    const key = Ids.newApiKey("test")
    const cases: ReadonlyArray<readonly [string, string]> = [
      [`/api/v1/transactions/${key}`, "/api/v1/transactions/sk_test_[redacted]"],
      [`/api/v1/transactions/${key.replaceAll("_", "%5F")}`, "/api/v1/transactions/sk_test_[redacted]"],
      [`/api/v1/${key.replace("s", "%73")}`, "/api/v1/sk_test_[redacted]"],
      ["/admin/merchants/pxa_0123456789abcdef", "/admin/merchants/pxa_[redacted]"],
      ["/bank/callbacks/whsec_c2VjcmV0/pix", "/bank/callbacks/[redacted]/pix"],
      ["/api/v1/transactions", "/api/v1/transactions"]
    ]
    for (const [raw, logged] of cases) expect(Redact.path(raw), raw).toBe(logged)
  })

  it("answers and logs a new request id instead of one shaped like a secret", async () => {
    const h = await start({ engine: { worker: false } })
    try {
      const { testKey } = await h.merchant()
      const answer = await h.request("GET", "/api/v1/transactions", {
        key: testKey,
        headers: { "x-request-id": testKey }
      })
      expect(answer.status).toBe(200)
      const id = answer.headers.get("x-request-id")
      expect(id).toMatch(/^[0-9a-f-]{36}$/)
      const sane = await h.request("GET", "/api/health", { headers: { "x-request-id": "req-42" } })
      expect(sane.headers.get("x-request-id")).toBe("req-42")
      const logged = await h.request("GET", `/api/v1/transactions/${testKey}`, { key: testKey })
      expect([404, 410]).toContain(logged.status)
      expect(h.logs.join("\n")).not.toContain(testKey.slice(8))
      expect(h.logs.some((l) => l.includes(`"requestId":"${id}"`))).toBe(true)
    } finally {
      await h.close()
    }
  })

  it.effect("masks a secret an engine log line quotes, in its message, fields and cause", () =>
    Effect.gen(function* () {
      const lines: Array<string> = []
      const token = "pxa_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefg"
      yield* Effect.logWarning(`Refused ${token}`).pipe(
        Effect.annotateLogs({ header: `Bearer ${token}`, nested: { key: token } }),
        Effect.zipRight(Effect.logError("Failed", Cause.fail(new Error(`cause ${token}`)))),
        Effect.provide(Log.layer({ level: "info", write: (line) => lines.push(line), flush: () => {} }))
      )
      expect(lines).toHaveLength(2)
      for (const line of lines) {
        expect(line).not.toContain(token.slice(4))
        expect(JSON.parse(line)).toBeTypeOf("object")
      }
      expect(JSON.parse(lines[1]).cause).toContain("cause pxa_[redacted]")
      expect(JSON.parse(lines[0])).toMatchObject({
        msg: "Refused pxa_[redacted]",
        header: "Bearer pxa_[redacted]",
        nested: { key: "pxa_[redacted]" }
      })
    })
  )
})
