/**
 * The response check of the test suite (`support/contract.ts`) reports what it should: an
 * undocumented status, a body off its schema, an undocumented header, a missing required one;
 * and lets the documented answers and a host's own answers through.
 */
import { afterEach, describe, expect, it } from "@effect/vitest"
import * as Contract from "@pixgate/testkit/contract"
import * as Findings from "@pixgate/testkit/findings"

const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => ({
  status,
  headers: new Headers({ "x-request-id": "r1", "content-type": "application/json", ...headers }),
  text: body === undefined ? "" : JSON.stringify(body)
})

const findings = () => {
  const lines = [...Findings.found()]
  Findings.reset()
  return lines
}

afterEach(() => Findings.reset())

describe("the response check", () => {
  it("lets documented answers through, under a mount prefix too", async () => {
    const ok = { status: "ok", timestamp: "2026-01-02T03:04:05.000Z" }
    await Contract.check("http://x/api/health", "GET", answer(200, ok))
    await Contract.check("http://x/payments/api/health/", "HEAD", answer(200, undefined))
    await Contract.check(
      "http://x/v1/balance",
      "DELETE",
      answer(410, { error: "x", code: "endpoint_removed" })
    )
    await Contract.check(
      "http://x/api/nothing",
      "GET",
      answer(404, { error: "Not found", code: "not_found" })
    )
    expect(findings()).toEqual([])
  })

  it("reports an undocumented status, body or header", async () => {
    await Contract.check("http://x/api/health", "GET", answer(302, undefined))
    await Contract.check("http://x/api/health", "GET", answer(200, { status: 1 }))
    await Contract.check(
      "http://x/api/v1/transactions?page=1",
      "GET",
      answer(401, { error: "x", code: "nope" })
    )
    await Contract.check(
      "http://x/api/health",
      "GET",
      answer(200, { status: "ok", timestamp: "2026-01-02T03:04:05.000Z" }, { "x-extra": "1" })
    )
    await Contract.check("http://x/api/v2/things", "GET", answer(200, {}))
    const lines = findings()
    expect(lines).toEqual([
      expect.stringMatching(/^GET \/api\/health -> 302: status 302 not documented/),
      "GET /api/health -> 200: body: / must have required property 'timestamp'",
      "GET /api/health -> 200: body: /status must be string",
      "GET /api/health -> 200: body: /status must be equal to constant",
      expect.stringMatching(/^GET \/api\/v1\/transactions -> 401: body: \/code must be equal to one of/),
      "GET /api/health -> 200: header x-extra not documented",
      "GET /api/v2/things -> 200: /api/v2/things is not in the document"
    ])
  })

  it("checks a documented header's value", async () => {
    await Contract.check(
      "http://x/api/v1/transactions",
      "GET",
      answer(429, { error: "Too many requests", code: "rate_limited" }, { "retry-after": "soon" })
    )
    expect(findings()).toEqual([
      expect.stringMatching(/^GET \/api\/v1\/transactions -> 429: header retry-after: /)
    ])
  })

  it("leaves a host's own answers and the panel's pages alone", async () => {
    await Contract.check("http://x/api/health", "GET", {
      status: 404,
      headers: new Headers({ "content-type": "text/html" }),
      text: "<pre>Cannot GET</pre>"
    })
    await Contract.check(
      "http://x/panel/signin",
      "GET",
      answer(200, undefined, { "content-type": "text/html" })
    )
    expect(findings()).toEqual([])
  })
})
