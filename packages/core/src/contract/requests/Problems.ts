/**
 * The problem annotation every request schema of the public API and the admin API carries: the
 * stable code and message of one failed check (docs/decisions.md "Errors"), the annotation that
 * makes a schema stop at its first problem (the admin API), and the configured maximum amount
 * the amount fields read while decoding. The helpers below the public ones serve the other
 * request modules only; `contract/Requests.ts` does not re-export them.
 */
import { Context, ParseResult, Schema, SchemaAST } from "effect"
import * as Money from "../../domain/Money.js"
import type { ValidationCode } from "../Errors.js"

/** The annotation carrying a check's code and message (and its detail path when not the field's). */
export const ProblemId: unique symbol = Symbol.for("@pixgate/core/Requests/Problem")

/**
 * A failed check: its stable code, message and, when it differs from the field, detail path;
 * `hint`, given the refused value, may add a second detail saying more precisely what is wrong
 * (the code and message stay the contract's).
 */
export interface Problem {
  readonly code: ValidationCode
  readonly message: string
  readonly path?: string
  readonly hint?: (actual: unknown) => string | undefined
}

/** Annotations for a check: our problem, and the same message for Effect's own formatters. */
export const problem = (code: ValidationCode, message: string, path?: string) => ({
  [ProblemId]: path === undefined ? { code, message } : { code, message, path },
  message: () => message
})

/** The annotation telling `decode` to stop at the first problem (the admin API's behaviour). */
export const FirstProblemOnlyId: unique symbol = Symbol.for("@pixgate/core/Requests/FirstProblemOnly")

const isProblem = (u: unknown): u is Problem =>
  typeof u === "object" && u !== null && "code" in u && "message" in u

/** The problem a schema node is annotated with, if any. */
export const problemOf = (ast: SchemaAST.Annotated | undefined): Problem | undefined => {
  const value = ast?.annotations[ProblemId]
  return isProblem(value) ? value : undefined
}

/** An AST node that only names a problem, for failures raised inside a transformation. */
export const problemAst = (p: Problem) => new SchemaAST.Literal("", { [ProblemId]: p })

/** A failed check of `actual` with `code` and `message`, inside a transformation. */
export const fail = (code: ValidationCode, message: string, actual: unknown) =>
  ParseResult.fail(new ParseResult.Type(problemAst({ code, message }), actual, message))

/** The largest amount of one charge or payout; `Engine.layer` provides the configured one. */
export class MaxAmount extends Context.Reference<MaxAmount>()("@pixgate/core/Requests/MaxAmount", {
  defaultValue: (): Money.Cents => Money.defaultMaximum
}) {}

// ---------------------------------------------------------------------------------------------
// For the request modules (not re-exported by contract/Requests.ts)
// ---------------------------------------------------------------------------------------------

// A missing field's issue keeps only the `missingMessage` annotation of its property: the
// problem is found from that function.
const missingProblems = new WeakMap<object, Problem>()

/** The problem of a missing required field, found from its property's `missingMessage` function. */
export const missingProblemOf = (missingMessage: unknown): Problem | undefined =>
  typeof missingMessage === "function" ? missingProblems.get(missingMessage) : undefined

/** A required property whose absence is problem `p`. */
export const required = <S extends Schema.Schema.Any>(schema: S, p: ReturnType<typeof problem>) => {
  const missingMessage = () => p[ProblemId].message
  missingProblems.set(missingMessage, p[ProblemId])
  return Schema.propertySignature(schema).annotations({ missingMessage })
}
