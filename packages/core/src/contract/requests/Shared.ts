/**
 * The field schemas both APIs share: amounts in reais read into centavos, free text, the CPF or
 * CNPJ, a charge's `expiresIn`, a PIX key, optional nullable fields and calendar days. Each check
 * carries its `Problem` (requests/Problems.ts).
 */
import { Effect, Either, Option, ParseResult, Schema } from "effect"
import * as Document from "../../domain/Document.js"
import * as Money from "../../domain/Money.js"
import * as PixKey from "../../domain/PixKey.js"
import { type ValidationCode, type ValidationError, validation } from "../Errors.js"
import { fail, MaxAmount, type Problem, ProblemId, problem } from "./Problems.js"

/** An amount of centavos (the Type side of every amount). */
export const Cents = Schema.Number.pipe(Schema.fromBrand(Money.Cents))

/**
 * At least one centavo: the Type side of an order's amount (`PayoutOrder`), so an order built
 * without decoding (`make`) is held to it too; a decoded amount always is.
 */
export const PositiveCents = Schema.typeSchema(Cents).pipe(
  Schema.greaterThanOrEqualTo(1, problem("invalid_amount", "amount must be a positive number"))
)

/**
 * An `amount` in reais (a JSON number) read into centavos exactly as `Money.fromReais` does: from
 * the decimal the JSON text denotes (a `Money.JsonDecimal` when a double cannot hold it, else the
 * number's shortest decimal form), no float rounding; at least 0.01, at most 2 decimals, at
 * most `MaxAmount`. The maximum is configuration, so it is read from the context (`MaxAmount`)
 * while decoding: the schema stays static and the errors keep their order.
 * `aboveMaximumCode` is the code of an amount above the maximum (admin top-ups say
 * `invalid_amount`); `cents` the Type side (an order's is `PositiveCents`).
 */
export const amount = (
  aboveMaximumCode: ValidationCode = "amount_above_maximum",
  cents: Schema.Schema<Money.Cents> = Schema.typeSchema(Cents)
) => {
  const notPositive = problem("invalid_amount", "amount must be a positive number")
  const notANumber: Problem = {
    ...notPositive[ProblemId],
    hint: (actual) => (typeof actual === "string" ? "amount must be a JSON number, not a string" : undefined)
  }
  const number = Schema.Union(
    Schema.Number.annotations({ [ProblemId]: notANumber }),
    Schema.instanceOf(Money.JsonDecimal).annotations({ [ProblemId]: notANumber })
  ).annotations({ [ProblemId]: notANumber, jsonSchema: { type: "number" } })
  return Schema.transformOrFail(number, cents, {
    strict: true,
    decode: (value) =>
      Effect.flatMap(MaxAmount, (maximum) =>
        Either.match(Money.fromReais(value, maximum), {
          onLeft: (e) =>
            fail(e._tag === "AboveMaximum" ? aboveMaximumCode : "invalid_amount", e.message, value),
          onRight: ParseResult.succeed
        })
      ),
    encode: (cents) => ParseResult.succeed(Money.toReais(cents))
  }).annotations({
    ...notPositive,
    description:
      "Reais, at most 2 decimal places, at least 0.01, at most the engine's maximum (default 1000000.00)",
    examples: [Money.Cents(15050)],
    jsonSchema: {
      type: "number",
      minimum: 0.01,
      description:
        "Reais, at most 2 decimal places, at least 0.01, at most the engine's maximum (default 1000000.00)",
      examples: [150.5]
    }
  })
}

/**
 * The amount checks for a typed input built without decoding (an embedding caller): at least one
 * centavo, at most `maximum`, with the decoder's codes and messages.
 */
export const checkAmount = (
  cents: Money.Cents,
  maximum: Money.Cents
): Effect.Effect<void, ValidationError> =>
  cents < 1
    ? Effect.fail(validation("invalid_amount", "amount", "amount must be a positive number"))
    : cents > maximum
      ? Effect.fail(
          validation(
            "amount_above_maximum",
            "amount",
            `amount exceeds the maximum of ${Money.formatReais(maximum)}`
          )
        )
      : Effect.void

/** Longest free text (names, descriptions). */
export const maxText = 140

/**
 * An optional field whose JSON may also be null: absent, null, undefined (from an embedding
 * caller) or what `keep` refuses (e.g. a blank text) decode to an absent key, so the typed input
 * has no nulls.
 */
export const optionalField = <A, I, R>(
  schema: Schema.Schema<A, I, R>,
  keep: (value: A) => Option.Option<A> = Option.some
) =>
  Schema.optionalToOptional(Schema.NullishOr(schema), Schema.typeSchema(schema), {
    decode: (value) =>
      Option.flatMap(value, (v) => (v === null || v === undefined ? Option.none() : keep(v))),
    encode: (value) => value
  })

/**
 * Optional free text: a string of at most 140 characters without NUL, trimmed; absent, null or
 * blank is absent.
 */
export const text = (field: string, code: ValidationCode, description: string) => {
  const wrong = problem(code, `${field} must be a string of at most ${maxText} characters`)
  const checked = Schema.String.annotations(wrong).pipe(
    Schema.maxLength(maxText, wrong),
    Schema.filter(
      (s) => !s.includes("\u0000"),
      problem("invalid_text", `${field} must not contain NUL characters`)
    )
  )
  return optionalField(checked.annotations({ title: field, description }), (s) => {
    const trimmed = s.trim()
    return trimmed === "" ? Option.none() : Option.some(trimmed)
  }).annotations({ title: field, description: `${description}; at most ${maxText} characters` })
}

const clientDocProblem = problem("invalid_client_doc", "clientDoc must be a valid CPF or CNPJ")

/** A CPF or CNPJ (formatted or not, check digits verified), read into its unformatted form. */
export const ClientDocument = Schema.transformOrFail(
  Schema.String.annotations(clientDocProblem),
  Schema.String,
  {
    strict: true,
    decode: (value) =>
      Either.match(Document.parse(value), {
        onLeft: () => fail(clientDocProblem[ProblemId].code, clientDocProblem[ProblemId].message, value),
        onRight: (doc) => ParseResult.succeed(doc.value)
      }),
    encode: ParseResult.succeed
  }
).annotations({
  ...clientDocProblem,
  description:
    "A valid CPF or CNPJ (check digits verified; formatted or digits only; alphanumeric CNPJ accepted)",
  examples: ["52998224725"]
})

/** Smallest and largest `expiresIn` (seconds). */
export const expiresInRange = { min: 60, max: 604_800 } as const

const expiresInProblem = problem(
  "invalid_expires_in",
  `expiresIn must be an integer between ${expiresInRange.min} and ${expiresInRange.max}`
)

/** Seconds until a charge expires. */
export const ExpiresIn = Schema.Number.annotations(expiresInProblem).pipe(
  Schema.int(expiresInProblem),
  Schema.between(expiresInRange.min, expiresInRange.max, expiresInProblem),
  Schema.annotations({
    description: `Seconds until the charge expires (${expiresInRange.min} to ${expiresInRange.max}; default 3600)`,
    examples: [3600]
  })
)

/** The problem of a payout without `pixKey`. */
export const pixKeyRequired = problem("pix_key_required", "pixKey is required")
const pixKeyInvalid = problem("invalid_pix_key", "pixKey is not a valid PIX key")

/** A checked PIX key (the Type side of `pixKey`). */
export const PixKeyValue = Schema.Struct({
  type: Schema.Literal("email", "cpf", "cnpj", "phone", "evp"),
  value: Schema.String
})

/** A PIX key of any type (e-mail, CPF, CNPJ, +phone, random key), normalised to its DICT form. */
export const PixKeyField = Schema.transformOrFail(
  Schema.NullOr(Schema.String.annotations(pixKeyInvalid)).annotations({
    jsonSchema: { type: "string" }
  }),
  PixKeyValue,
  {
    strict: true,
    decode: (value) => {
      if (value === null || value.trim() === "")
        return fail(pixKeyRequired[ProblemId].code, pixKeyRequired[ProblemId].message, value)
      return Either.match(PixKey.parse(value), {
        onLeft: () => fail(pixKeyInvalid[ProblemId].code, pixKeyInvalid[ProblemId].message, value),
        onRight: (key) => ParseResult.succeed(key)
      })
    },
    encode: (key) => ParseResult.succeed(key.value)
  }
).annotations({
  ...pixKeyInvalid,
  description: "The recipient's PIX key: e-mail, CPF, CNPJ, +55 phone or random key (EVP)",
  examples: [{ type: "email", value: "maria@example.com" }]
})

/** Epoch ms of 00:00:00.000Z of a real calendar date in YYYY-MM-DD, or undefined. */
export const parseDay = (value: string): number | undefined => {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value)
  if (match === null) return undefined
  const [y, m, d] = [Number(match[1]), Number(match[2]), Number(match[3])]
  const ms = Date.UTC(y, m - 1, d)
  const date = new Date(ms)
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d
    ? ms
    : undefined
}
