import { describe, expect, it } from "@effect/vitest"
import { Status } from "@pixgate/http"
import { Effect, Either, FastCheck, JSONSchema, Schema } from "effect"
import * as Errors from "../src/contract/Errors.js"
import * as Requests from "../src/contract/Requests.js"
import * as Money from "../src/domain/Money.js"

const decode = <A, I>(schema: Schema.Schema<A, I>, input: unknown, maxAmount?: Money.Cents) =>
  Requests.decodeEither(schema, maxAmount === undefined ? {} : { maxAmount })(input)

/** The answer body of a failed decoding, with its status. */
const refusal = <A, I>(schema: Schema.Schema<A, I>, input: unknown, maxAmount?: Money.Cents) => {
  const result = decode(schema, input, maxAmount)
  if (Either.isRight(result)) throw new Error(`expected a refusal, got ${JSON.stringify(result.right)}`)
  return { status: Status.statusOf(result.left), ...Errors.body(result.left) }
}

const one = (code: string, path: string, message: string) => ({
  status: 422,
  error: message,
  code,
  details: [{ path, message }]
})

describe("Requests: the public API", () => {
  it("a charge: every field read, text trimmed, blank and null absent, clientDoc normalised", () => {
    expect(
      decode(Requests.CreateCharge, {
        amount: 150.5,
        clientName: "  Maria  ",
        clientDoc: "529.982.247-25",
        description: "   ",
        expiresIn: null,
        unknownField: true
      })
    ).toEqual(Either.right({ amount: 15050, clientName: "Maria", clientDocument: "52998224725" }))
    expect(decode(Requests.CreateCharge, { amount: 0.01, expiresIn: 60 })).toEqual(
      Either.right({ amount: 1, expiresIn: 60 })
    )
  })

  it("amounts are read from their decimal form, never rounded", () => {
    for (const [reais, cents] of [
      [0.07, 7],
      [1.1, 110],
      [10.07, 1007],
      [999999.99, 99999999],
      [1e6, 100000000]
    ] as const) {
      expect(decode(Requests.CreateCharge, { amount: reais })).toEqual(Either.right({ amount: cents }))
    }
  })

  it("each charge field's code and message (docs/decisions.md)", () => {
    const cases: ReadonlyArray<readonly [unknown, string, string, string]> = [
      [{}, "invalid_amount", "amount", "amount must be a positive number"],
      [{ amount: null }, "invalid_amount", "amount", "amount must be a positive number"],
      [{ amount: 0 }, "invalid_amount", "amount", "amount must be a positive number"],
      [{ amount: -1 }, "invalid_amount", "amount", "amount must be a positive number"],
      [{ amount: 0.001 }, "invalid_amount", "amount", "amount must have at most 2 decimal places"],
      [{ amount: 1.001 }, "invalid_amount", "amount", "amount must have at most 2 decimal places"],
      [{ amount: 1000000.01 }, "amount_above_maximum", "amount", "amount exceeds the maximum of 1000000.00"],
      [
        { amount: 1, clientName: 5 },
        "invalid_client_name",
        "clientName",
        "clientName must be a string of at most 140 characters"
      ],
      [
        { amount: 1, clientName: "x".repeat(141) },
        "invalid_client_name",
        "clientName",
        "clientName must be a string of at most 140 characters"
      ],
      [
        { amount: 1, clientName: "a\u0000b" },
        "invalid_text",
        "clientName",
        "clientName must not contain NUL characters"
      ],
      [
        { amount: 1, clientDoc: "123.456.789-00" },
        "invalid_client_doc",
        "clientDoc",
        "clientDoc must be a valid CPF or CNPJ"
      ],
      [
        { amount: 1, clientDoc: 52998224725 },
        "invalid_client_doc",
        "clientDoc",
        "clientDoc must be a valid CPF or CNPJ"
      ],
      [
        { amount: 1, description: ["x"] },
        "invalid_description",
        "description",
        "description must be a string of at most 140 characters"
      ],
      [
        { amount: 1, description: "\u0000" },
        "invalid_text",
        "description",
        "description must not contain NUL characters"
      ],
      [
        { amount: 1, expiresIn: 59 },
        "invalid_expires_in",
        "expiresIn",
        "expiresIn must be an integer between 60 and 604800"
      ],
      [
        { amount: 1, expiresIn: 604801 },
        "invalid_expires_in",
        "expiresIn",
        "expiresIn must be an integer between 60 and 604800"
      ],
      [
        { amount: 1, expiresIn: 60.5 },
        "invalid_expires_in",
        "expiresIn",
        "expiresIn must be an integer between 60 and 604800"
      ],
      [
        { amount: 1, expiresIn: "60" },
        "invalid_expires_in",
        "expiresIn",
        "expiresIn must be an integer between 60 and 604800"
      ]
    ]
    for (const [body, code, path, message] of cases) {
      expect([body, refusal(Requests.CreateCharge, body)]).toEqual([body, one(code, path, message)])
    }
    // A string amount keeps the contract's message; a second detail says what is wrong with it.
    expect(refusal(Requests.CreateCharge, { amount: "10" })).toEqual({
      ...one("invalid_amount", "amount", "amount must be a positive number"),
      details: [
        { path: "amount", message: "amount must be a positive number" },
        { path: "amount", message: "amount must be a JSON number, not a string" }
      ]
    })
  })

  it("several problems: the first in field order answers, details lists them all", () => {
    expect(
      refusal(Requests.CreateCharge, {
        expiresIn: 1,
        description: 5,
        clientDoc: "1",
        clientName: 5,
        amount: "x"
      })
    ).toEqual({
      status: 422,
      error: "amount must be a positive number",
      code: "invalid_amount",
      details: [
        { path: "amount", message: "amount must be a positive number" },
        { path: "amount", message: "amount must be a JSON number, not a string" },
        { path: "clientName", message: "clientName must be a string of at most 140 characters" },
        { path: "clientDoc", message: "clientDoc must be a valid CPF or CNPJ" },
        { path: "description", message: "description must be a string of at most 140 characters" },
        { path: "expiresIn", message: "expiresIn must be an integer between 60 and 604800" }
      ]
    })
  })

  it("the maximum amount comes from the engine's configuration", () => {
    expect(refusal(Requests.CreateCharge, { amount: 10.01 }, Money.Cents(1000))).toEqual(
      one("amount_above_maximum", "amount", "amount exceeds the maximum of 10.00")
    )
    expect(decode(Requests.CreateCharge, { amount: 10 }, Money.Cents(1000))).toEqual(
      Either.right({ amount: 1000 })
    )
    // Without the option, the decoder reads MaxAmount from the context.
    const inContext = Requests.decode(Requests.CreatePayout)({ amount: 5.01, pixKey: "a@b.co" }).pipe(
      Effect.provideService(Requests.MaxAmount, Money.Cents(500)),
      Effect.flip,
      Effect.runSync
    )
    expect(Errors.body(inContext)).toEqual({
      error: "amount exceeds the maximum of 5.00",
      code: "amount_above_maximum",
      details: [{ path: "amount", message: "amount exceeds the maximum of 5.00" }]
    })
  })

  it("anything but a JSON object is 400 Invalid JSON body", () => {
    for (const body of [null, [], [{ amount: 1 }], "x", 1, true, undefined]) {
      expect(refusal(Requests.CreateCharge, body)).toEqual({
        status: 400,
        error: "Invalid JSON body",
        code: "invalid_json"
      })
    }
  })

  it("each payout field's code and message", () => {
    expect(decode(Requests.CreatePayout, { amount: 1, pixKey: " Maria@Example.COM " })).toEqual(
      Either.right({ amount: 100, pixKey: { type: "email", value: "maria@example.com" } })
    )
    const cases: ReadonlyArray<readonly [unknown, string, string, string]> = [
      [{ pixKey: "a@b.co" }, "invalid_amount", "amount", "amount must be a positive number"],
      [{ amount: 1 }, "pix_key_required", "pixKey", "pixKey is required"],
      [{ amount: 1, pixKey: null }, "pix_key_required", "pixKey", "pixKey is required"],
      [{ amount: 1, pixKey: "  " }, "pix_key_required", "pixKey", "pixKey is required"],
      [{ amount: 1, pixKey: "not a key" }, "invalid_pix_key", "pixKey", "pixKey is not a valid PIX key"],
      [{ amount: 1, pixKey: 42 }, "invalid_pix_key", "pixKey", "pixKey is not a valid PIX key"]
    ]
    for (const [body, code, path, message] of cases) {
      expect([body, refusal(Requests.CreatePayout, body)]).toEqual([body, one(code, path, message)])
    }
    expect(refusal(Requests.CreatePayout, { amount: 0, clientDoc: "1" }).details).toEqual([
      { path: "amount", message: "amount must be a positive number" },
      { path: "pixKey", message: "pixKey is required" },
      { path: "clientDoc", message: "clientDoc must be a valid CPF or CNPJ" }
    ])
  })

  it("the transaction list query: defaults, clamping, filters, every problem", () => {
    expect(decode(Requests.ListTransactionsRequest, {})).toEqual(Either.right({ page: 1, limit: 20 }))
    expect(
      decode(Requests.ListTransactionsRequest, {
        page: "2",
        limit: "500",
        type: "deposit",
        status: "",
        startDate: "2024-01-01",
        endDate: "2024-01-01"
      })
    ).toEqual(Either.right({ page: 2, limit: 100, type: "deposit", from: 1704067200000, to: 1704153600000 }))
    expect(
      refusal(Requests.ListTransactionsRequest, {
        page: "0",
        limit: "x",
        type: "refund",
        status: "done",
        startDate: "2024-02-01",
        endDate: "2024-01-01"
      })
    ).toEqual({
      status: 422,
      error: "page must be a positive integer",
      code: "invalid_query",
      details: [
        { path: "page", message: "page must be a positive integer" },
        { path: "limit", message: "limit must be a positive integer" },
        { path: "type", message: "type must be one of: deposit, withdrawal, payment" },
        { path: "status", message: "status must be one of: pending, completed, failed, refunded" },
        { path: "startDate", message: "startDate must not be after endDate" }
      ]
    })
    expect(refusal(Requests.ListTransactionsRequest, { endDate: "2024-02-30" })).toEqual(
      one("invalid_query", "endDate", "endDate must be a valid date in YYYY-MM-DD format")
    )
  })
})

describe("Requests: the admin API (the first problem only)", () => {
  it("a merchant, its fee plan and the plan's paths", () => {
    expect(decode(Requests.CreateMerchant, { name: "Loja", city: null })).toEqual(
      Either.right({ name: "Loja" })
    )
    expect(refusal(Requests.CreateMerchant, { name: 5, feePlan: null })).toEqual(
      one("invalid_field", "name", "name must be a string")
    )
    expect(refusal(Requests.CreateMerchant, {})).toEqual(
      one("invalid_field", "name", "name must be a string")
    )
    expect(refusal(Requests.CreateMerchant, { name: "n", city: 5 })).toEqual(
      one("invalid_field", "city", "city must be a string")
    )
    expect(refusal(Requests.CreateMerchant, { name: "n", feePlan: null })).toEqual(
      one("invalid_field", "feePlan", "feePlan must be an object with charge and payout rules")
    )
    expect(refusal(Requests.CreateMerchant, { name: "n", feePlan: { charge: 1 } })).toEqual(
      one("invalid_field", "feePlan.charge", "feePlan.charge must be an object")
    )
    expect(refusal(Requests.CreateMerchant, { name: "n", feePlan: { charge: { gatewayRate: 1 } } })).toEqual(
      one(
        "invalid_field",
        "feePlan.charge.marginRate",
        "feePlan.charge.marginRate must be a number (ppm for rates, centavos for fixed)"
      )
    )
    expect(refusal(Requests.FeePlanInput, { payout: {} })).toEqual(
      one("invalid_field", "body.charge", "body.charge must be an object")
    )
  })

  it("modes, outcomes, secrets, overlaps, top-ups and the webhook log query", () => {
    expect(refusal(Requests.CreateKey, { mode: "prod" })).toEqual(
      one("invalid_field", "mode", "mode must be one of: test, live")
    )
    expect(refusal(Requests.ModeParameter, {})).toEqual(
      one("invalid_field", "mode", "mode must be one of: test, live")
    )
    expect(refusal(Requests.ResolveChargeback, { outcome: "won" })).toEqual(
      one("invalid_field", "outcome", "outcome must be one of: accepted, rejected")
    )
    expect(refusal(Requests.SetWebhook, { url: "https://x.example" })).toEqual(
      one("invalid_field", "secret", "secret must be a string")
    )
    expect(refusal(Requests.RotateSigningKey, { overlapSeconds: "1" })).toEqual(
      one("invalid_overlap", "overlapSeconds", "overlapSeconds must be a number of seconds")
    )
    expect(decode(Requests.RotateSigningKey, { overlapSeconds: null })).toEqual(Either.right({}))
    // Every amount problem of a top-up is invalid_amount, the maximum included.
    expect(refusal(Requests.TopUp, { amount: 1000000.01 })).toEqual(
      one("invalid_amount", "amount", "amount exceeds the maximum of 1000000.00")
    )
    expect(refusal(Requests.OpenChargeback, { amount: null })).toEqual(
      one("invalid_amount", "amount", "amount must be a positive number")
    )
    expect(decode(Requests.OpenChargeback, {})).toEqual(Either.right({}))
    expect(
      decode(Requests.DeliveriesQuery, { mode: "", status: "failed", limit: "5", eventId: "evt_1" })
    ).toEqual(Either.right({ status: "failed", limit: 5, eventId: "evt_1" }))
    expect(refusal(Requests.DeliveriesQuery, { mode: "x", limit: "-1" })).toEqual(
      one("invalid_field", "mode", "mode must be one of: test, live")
    )
    expect(refusal(Requests.DeliveriesQuery, { offset: "1e3" })).toEqual(
      one("invalid_field", "offset", "offset must be a non-negative integer")
    )
  })
})

describe("Requests: schemas for an HttpApi", () => {
  it("encode a typed input back to the JSON a client sends", () => {
    expect(
      Schema.encodeSync(Requests.CreateCharge)({ amount: Money.reais(10.5), clientDocument: "52998224725" })
    ).toEqual({ amount: 10.5, clientDoc: "52998224725" })
    expect(
      Schema.encodeSync(Requests.CreatePayout)(
        Requests.CreatePayout.make({ amount: Money.Cents(1), pixKey: { type: "evp", value: "k" } })
      )
    ).toEqual({ amount: 0.01, pixKey: "k" })
  })

  it("have a JSON Schema of the request body", () => {
    const schema = JSONSchema.make(Requests.CreatePayout) as {
      $defs: Record<string, { required: Array<string>; properties: Record<string, unknown> }>
    }
    expect(schema.$defs.PayoutRequest?.required).toEqual(["amount", "pixKey"])
    expect(Object.keys(schema.$defs.PayoutRequest?.properties ?? {})).toEqual([
      "amount",
      "pixKey",
      "clientName",
      "clientDoc",
      "description"
    ])
  })
})

describe("Requests: decoding never throws", () => {
  const schemas = [
    Requests.CreateCharge,
    Requests.CreatePayout,
    Requests.CreateMerchant,
    Requests.FeePlanInput,
    Requests.SetWebhook,
    Requests.RotateSigningKey,
    Requests.TopUp,
    Requests.OpenChargeback,
    Requests.ResolveChargeback
  ] as const

  it.prop(
    "on any JSON value, every schema answers a value or a 400/422 with details",
    [FastCheck.jsonValue()],
    ([json]) => {
      for (const schema of schemas) {
        const result = decode(schema as Schema.Schema<unknown, unknown>, json)
        if (Either.isLeft(result)) {
          const status = Status.statusOf(result.left)
          expect([400, 422]).toContain(status)
          if (status === 422) expect(Errors.body(result.left).details?.length).toBeGreaterThan(0)
        }
      }
    }
  )

  it.prop(
    "on objects with the fields' names and any values, the first detail is the answer",
    [
      FastCheck.record(
        {
          amount: FastCheck.jsonValue(),
          pixKey: FastCheck.jsonValue(),
          clientName: FastCheck.jsonValue(),
          clientDoc: FastCheck.jsonValue(),
          description: FastCheck.jsonValue(),
          expiresIn: FastCheck.jsonValue()
        },
        { requiredKeys: [] }
      )
    ],
    ([body]) => {
      for (const schema of [Requests.CreateCharge, Requests.CreatePayout] as const) {
        const result = decode(schema as Schema.Schema<unknown, unknown>, body)
        if (Either.isLeft(result)) {
          const answer = Errors.body(result.left)
          expect(answer.details?.[0]?.message).toBe(answer.error)
          expect(answer.code).not.toBe("invalid_field")
        }
      }
    }
  )

  it.prop(
    "an amount of whole centavos decodes to exactly Money.fromReais's centavos",
    [FastCheck.integer({ min: 1, max: 100_000_000 })],
    ([cents]) => {
      const reais = cents / 100
      expect(decode(Requests.TopUp, { amount: reais })).toEqual(Either.right({ amount: cents }))
    }
  )
})

describe("Requests: embedding callers", () => {
  it("an undefined field is an absent one", () => {
    expect(
      decode(Requests.CreateCharge, {
        amount: 1,
        clientName: undefined,
        clientDoc: undefined,
        description: undefined,
        expiresIn: undefined
      })
    ).toEqual(Either.right({ amount: 100 }))
    expect(decode(Requests.CreatePayout, { amount: 1, pixKey: "a@b.co", description: undefined })).toEqual(
      Either.right({ amount: 100, pixKey: { type: "email", value: "a@b.co" } })
    )
  })
})

describe("Requests: panel invitations", () => {
  it("the address must be a string (the engine checks its form)", () => {
    for (const body of [{}, { email: 5 }, { email: null }]) {
      expect(refusal(Requests.InvitePanelUser, body)).toEqual(
        one("invalid_email", "email", "email must be a valid e-mail address")
      )
    }
    expect(decode(Requests.InvitePanelUser, { email: "a@b.co" })).toEqual(Either.right({ email: "a@b.co" }))
  })
})
