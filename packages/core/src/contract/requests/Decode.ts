/**
 * Decoding a request with its schema, for the transports (HTTP, the CLI) and embedders: a failed
 * check becomes the API's `ValidationError` (the first problem's code and message, every problem
 * as a detail), anything but a JSON object `InvalidJson`.
 */
import { Effect, type Either, Option, ParseResult, type Schema, SchemaAST } from "effect"
import type * as Money from "../../domain/Money.js"
import { type ErrorDetail, InvalidJson, ValidationError } from "../Errors.js"
import { FirstProblemOnlyId, MaxAmount, missingProblemOf, type Problem, problemOf } from "./Problems.js"

interface Found {
  readonly problem: Problem
  readonly message: string
  readonly path: ReadonlyArray<PropertyKey>
  readonly hint?: string | undefined
}

// The deepest check that failed on the first failing branch of `issue` (a union lists its
// members' failures in order: the annotated member names the problem).
const find = (issue: ParseResult.ParseIssue, path: ReadonlyArray<PropertyKey>): Found | undefined => {
  switch (issue._tag) {
    case "Pointer": {
      const here = [...path, ...(Array.isArray(issue.path) ? issue.path : [issue.path])]
      return find(issue.issue, here)
    }
    case "Composite": {
      const issues = Array.isArray(issue.issues) ? issue.issues : [issue.issues]
      for (const inner of issues) {
        const found = find(inner, path)
        if (found !== undefined) return found
      }
      return own(issue, path)
    }
    case "Refinement":
    case "Transformation": {
      return find(issue.issue, path) ?? own(issue, path)
    }
    case "Missing":
    case "Unexpected":
    case "Type":
    case "Forbidden":
      return own(issue, path)
  }
}

const missingProblem = (issue: ParseResult.Missing): Problem | undefined =>
  missingProblemOf(issue.ast.annotations[SchemaAST.MissingMessageAnnotationId])

const own = (issue: ParseResult.ParseIssue, path: ReadonlyArray<PropertyKey>): Found | undefined => {
  const p =
    issue._tag === "Missing" ? missingProblem(issue) : problemOf("ast" in issue ? issue.ast : undefined)
  if (p === undefined) return undefined
  const message = issue._tag === "Type" && issue.message !== undefined ? issue.message : p.message
  const hint = issue._tag === "Type" ? p.hint?.(issue.actual) : undefined
  return { problem: p, message, path, hint }
}

// Every field's problem, in the schema's field order.
const problems = (issue: ParseResult.ParseIssue): ReadonlyArray<Found> => {
  let root = issue
  while (root._tag === "Transformation" || root._tag === "Refinement") root = root.issue
  const fields =
    root._tag === "Composite" ? (Array.isArray(root.issues) ? root.issues : [root.issues]) : [root]
  const found: Array<Found> = []
  for (const field of fields) {
    const f = find(field, [])
    if (f !== undefined) found.push(f)
  }
  if (found.length === 0) {
    // A check without its problem annotation is a bug of this module: say what Effect says.
    const message = ParseResult.TreeFormatter.formatIssueSync(issue)
    found.push({ problem: { code: "invalid_field", message }, message, path: [] })
  }
  return found
}

/** The validation error of a failed decoding: the first problem's code and message, every problem as a detail. */
export const toValidationError = (error: ParseResult.ParseError): ValidationError => {
  const found = problems(error.issue)
  const details: Array<ErrorDetail> = found.flatMap((f) => {
    const path = f.problem.path ?? f.path.map(String).join(".")
    return f.hint === undefined
      ? [{ path, message: f.message }]
      : [
          { path, message: f.message },
          { path, message: f.hint }
        ]
  })
  return new ValidationError({ code: found[0].problem.code, message: found[0].message, details })
}

/** What a decoder needs from the engine's configuration. */
export interface DecodeOptions {
  /** The largest amount (`EngineConfig.maxAmount`); without it, `MaxAmount` from the context. */
  readonly maxAmount?: Money.Cents
}

const isObject = (u: unknown): u is Record<string, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * A request decoder: anything but a JSON object is `Invalid JSON body`; a failed check is the
 * API's validation error (docs/decisions.md "Errors": the first problem in field order, every
 * problem in `details`; the admin API's schemas stop at the first). Reads `MaxAmount` from the
 * context.
 */
export const decode = <A, I, R>(
  schema: Schema.Schema<A, I, R>,
  options?: DecodeOptions
): ((input: unknown) => Effect.Effect<A, ValidationError | InvalidJson, R>) => {
  // Prepared once per decoder: transports build theirs at start-up and call them per request.
  const first =
    Option.getOrUndefined(SchemaAST.getAnnotation<boolean>(schema.ast, FirstProblemOnlyId)) === true
  const parse = ParseResult.decodeUnknown(schema, {
    errors: first ? "first" : "all",
    onExcessProperty: "ignore"
  })
  const toError = (issue: ParseResult.ParseIssue) => toValidationError(new ParseResult.ParseError({ issue }))
  const maxAmount = options?.maxAmount
  return (input) => {
    if (!isObject(input)) return Effect.fail(new InvalidJson())
    const decoded = Effect.mapError(parse(input), toError)
    return maxAmount === undefined ? decoded : Effect.provideService(decoded, MaxAmount, maxAmount)
  }
}

/** `decode` run at once, for callers outside Effect (the schemas here need no services). */
export const decodeEither =
  <A, I>(schema: Schema.Schema<A, I>, options?: DecodeOptions) =>
  (input: unknown): Either.Either<A, ValidationError | InvalidJson> =>
    Effect.runSync(Effect.either(decode(schema, options)(input)))
