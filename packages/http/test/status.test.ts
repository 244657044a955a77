import { Errors } from "@pixgate/core"
import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import * as ApiErrors from "../src/ApiErrors.js"
import * as Respond from "../src/Respond.js"
import { all, statusOf } from "../src/Status.js"
import * as TransportErrors from "../src/TransportErrors.js"

// One instance of every error, with the status and body the API answers for it.
const cases: ReadonlyArray<readonly [TransportErrors.ApiError, number, Errors.ErrorBody]> = [
  [
    Errors.validation("invalid_amount", "amount", "amount must be a positive number"),
    422,
    {
      error: "amount must be a positive number",
      code: "invalid_amount",
      details: [{ path: "amount", message: "amount must be a positive number" }]
    }
  ],
  [Errors.invalidJson(), 400, { error: "Invalid JSON body", code: "invalid_json" }],
  [Errors.unauthorized(), 401, { error: "Unauthorized", code: "unauthorized" }],
  [
    Errors.forbidden("This admin token's scope (read-only) does not allow this operation; it needs full"),
    403,
    {
      error: "This admin token's scope (read-only) does not allow this operation; it needs full",
      code: "forbidden"
    }
  ],
  [Errors.notFound("Merchant"), 404, { error: "Merchant not found", code: "not_found" }],
  [new Errors.NotFound(), 404, { error: "Not found", code: "not_found" }],
  [Errors.insufficientBalance(), 422, { error: "Insufficient balance", code: "insufficient_balance" }],
  [
    new Errors.Conflict(),
    409,
    { error: "A request with this Idempotency-Key is still being processed", code: "idempotency_in_flight" }
  ],
  [
    new Errors.IdempotencyMismatch(),
    422,
    { error: "Idempotency-Key was already used with a different request", code: "idempotency_mismatch" }
  ],
  [
    new Errors.Refused({ code: "sandbox_only", message: "Sandbox actions apply to test mode only" }),
    409,
    { error: "Sandbox actions apply to test mode only", code: "sandbox_only" }
  ],
  [
    new Errors.GatewayUnavailable({ operation: "charge" }),
    502,
    { error: "Failed to create charge", code: "gateway_error" }
  ],
  [
    new Errors.GatewayUnavailable({ operation: "payout", code: "gateway_not_configured" }),
    502,
    { error: "Failed to process payout", code: "gateway_not_configured" }
  ],
  [Errors.unavailable(), 503, { error: "Service temporarily unavailable", code: "service_unavailable" }],
  [
    new TransportErrors.RateLimited({ retryAfter: 2 }),
    429,
    { error: "Too many requests", code: "rate_limited" }
  ],
  [
    new TransportErrors.Gone(),
    410,
    { error: "This endpoint was removed in version 2.0.0", code: "endpoint_removed" }
  ],
  [
    new TransportErrors.MethodNotAllowed({ allowed: ["GET"] }),
    405,
    { error: "Method not allowed", code: "method_not_allowed" }
  ],
  [
    new TransportErrors.PayloadTooLarge(),
    413,
    { error: "Request body too large", code: "payload_too_large" }
  ],
  [new Errors.Internal(), 500, { error: "Internal server error", code: "internal_error" }]
]

describe("error statuses and bodies", () => {
  it("every error class has a case here", () => {
    expect(new Set(cases.map(([e]) => e._tag))).toEqual(
      new Set(TransportErrors.ApiError.members.map((m) => m._tag))
    )
  })

  it("every error class, core's and the transport's, has one wire declaration with its status and codes", () => {
    const classes = TransportErrors.ApiError.members
    const declared = new Map(ApiErrors.all.map((wire) => [wire.tag, wire]))
    expect(ApiErrors.all.length).toBe(declared.size)
    for (const member of classes) {
      const wire = declared.get(member._tag)
      expect(wire, `${member._tag} has no wire declaration (ApiErrors.of)`).toBeDefined()
      expect([member._tag, all.get(member._tag)]).toEqual([member._tag, wire?.status])
      // Every code the class declares is on the wire, but the merchant panel's own (never an API answer).
      const panelOnly: ReadonlyArray<string> = [
        ...Errors.PanelValidationCode.literals,
        ...Errors.PanelRefusedCode.literals
      ]
      const codes: ReadonlyArray<string> = Errors.codesOf<TransportErrors.ApiError>(member)
      expect([member._tag, codes.filter((code) => !panelOnly.includes(code))]).toEqual([
        member._tag,
        wire?.codes
      ])
    }
    expect([...all.keys()].sort()).toEqual(classes.map((m) => m._tag).sort())
  })

  it("each error answers its status and docs/decisions.md body (the panel's: packages/panel/test/status.test.ts)", () => {
    for (const [error, status, body] of cases) {
      expect([error._tag, statusOf(error), Errors.body(error)]).toEqual([error._tag, status, body])
      expect(TransportErrors.isApiError(error)).toBe(true)
      const answer = Respond.failure(error)
      expect([answer.status, JSON.parse(answer.body as string)]).toEqual([status, body])
    }
    expect(TransportErrors.isApiError(new Error("x"))).toBe(false)
  })

  it("a 503 says when to retry; a replayed error says it is one", () => {
    expect(Respond.failure(Errors.unavailable()).headers["retry-after"]).toBe("1")
    expect(Respond.failure(new Errors.StorageUnavailable({ retryAfter: 10 })).headers["retry-after"]).toBe(
      "10"
    )
    expect(
      Respond.failure(Errors.replayed(Errors.insufficientBalance())).headers[
        Respond.replayedHeader.toLowerCase()
      ]
    ).toBe("true")
  })

  it("errors are Schemas: they encode and decode (how an idempotent refusal is stored)", () => {
    for (const [error] of cases) {
      const encoded = Schema.encodeSync(TransportErrors.ApiError)(error)
      const decoded = Schema.decodeUnknownSync(TransportErrors.ApiError)(JSON.parse(JSON.stringify(encoded)))
      expect([error._tag, Errors.body(decoded), statusOf(decoded)]).toEqual([
        error._tag,
        Errors.body(error),
        statusOf(error)
      ])
    }
  })
})
