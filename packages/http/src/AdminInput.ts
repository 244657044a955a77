/**
 * Reading the admin router's bodies and query strings into the engine admin API's arguments.
 * Wrong types are 422 with `details`, like the public API's validation failures.
 */
import { Domain, Errors, type Fees } from "@pixgate/core"
import { Effect } from "effect"

const invalid = (path: string, message: string) => Errors.validation("invalid_field", path, message)

/** A required string field. */
export const string = (body: Record<string, unknown>, field: string) => {
  const value = body[field]
  return typeof value === "string"
    ? Effect.succeed(value)
    : Effect.fail(invalid(field, `${field} must be a string`))
}

/** An optional string field. */
export const optionalString = (body: Record<string, unknown>, field: string) =>
  body[field] === undefined || body[field] === null ? Effect.succeed(undefined) : string(body, field)

/** One of `allowed`, from a body field, path or query parameter. */
export const oneOf = <A extends string>(value: unknown, field: string, allowed: ReadonlyArray<A>) =>
  typeof value === "string" && (allowed as ReadonlyArray<string>).includes(value)
    ? Effect.succeed(value as A)
    : Effect.fail(invalid(field, `${field} must be one of: ${allowed.join(", ")}`))

/** `test` or `live`. */
export const mode = (value: unknown, field = "mode") => oneOf(value, field, Domain.modes)

/** An optional non-negative integer query parameter. */
export const optionalCount = (value: string | null, field: string) => {
  if (value === null || value === "") return Effect.succeed(undefined)
  return /^\d{1,9}$/.test(value)
    ? Effect.succeed(Number(value))
    : Effect.fail(invalid(field, `${field} must be a non-negative integer`))
}

const ruleFields = ["gatewayRate", "marginRate", "gatewayFixed", "marginFixed"] as const

const rule = (value: unknown, path: string): Effect.Effect<Fees.FeeRule, Errors.PixgateError> => {
  if (typeof value !== "object" || value === null)
    return Effect.fail(invalid(path, `${path} must be an object`))
  const fields = value as Record<string, unknown>
  for (const name of ruleFields) {
    if (typeof fields[name] !== "number") {
      return Effect.fail(
        invalid(`${path}.${name}`, `${path}.${name} must be a number (ppm for rates, centavos for fixed)`)
      )
    }
  }
  return Effect.succeed({
    gatewayRate: fields.gatewayRate,
    marginRate: fields.marginRate,
    gatewayFixed: fields.gatewayFixed,
    marginFixed: fields.marginFixed
  } as Fees.FeeRule)
}

/** A fee plan `{ charge, payout }` (the engine checks the values). */
export const feePlan = (
  value: unknown,
  path = "feePlan"
): Effect.Effect<Fees.FeePlan, Errors.PixgateError> =>
  typeof value === "object" && value !== null
    ? Effect.all({
        charge: rule((value as Record<string, unknown>).charge, `${path}.charge`),
        payout: rule((value as Record<string, unknown>).payout, `${path}.payout`)
      })
    : Effect.fail(invalid(path, `${path} must be an object with charge and payout rules`))

/** The JSON schema of a fee plan, for the admin document. */
export const feePlanSchema = {
  type: "object",
  properties: Object.fromEntries(
    ["charge", "payout"].map((k) => [
      k,
      {
        type: "object",
        properties: Object.fromEntries(ruleFields.map((f) => [f, { type: "integer", minimum: 0 }])),
        required: [...ruleFields]
      }
    ])
  ),
  required: ["charge", "payout"]
}
