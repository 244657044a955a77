/**
 * The HTTP status of a page that shows an error: the contract's status for the error's class.
 *
 * The statuses are declared once, by the HTTP package (`@pixgate/http` `ApiErrors`, read as
 * `Status.all`). That package embeds this one (an optional peer), so importing it from here would
 * make a package cycle; and a contract module of its own would be a copy. So the embedder hands
 * the table over: `Panel.make(runtime, options, statuses)` keeps it here (`@pixgate/http/node`
 * passes `Status.all`), and `statusOf` reads it. One table serves every panel of a process: the
 * statuses are the contract's, not a panel's. A test in the HTTP package checks that the panel
 * answers each error with the contract's status.
 */
import { Errors } from "@pixgate/core"
import { Schema } from "effect"

/** The contract's statuses, by error `_tag`, as the embedder handed them over. */
export type Statuses = ReadonlyMap<string, number>

let statuses: Statuses = new Map()

/** Keeps the contract's statuses (called by `Panel.make`). */
export const use = (table: Statuses): void => {
  statuses = table
}

/** A form body above the panel's limit (the contract's `PayloadTooLarge`, the panel's own code). */
export class PayloadTooLarge extends Schema.TaggedError<PayloadTooLarge>()("PayloadTooLarge", {
  code: Schema.optionalWith(Schema.Literal("too_large"), { default: () => "too_large" as const })
}) {
  override get message() {
    return "Request body too large"
  }
}

/** An error the panel answers as such, its message shown: the engine's, or a body too large. */
export const isAnswered = (error: unknown): error is Errors.PixgateError | PayloadTooLarge =>
  Errors.isPixgateError(error) || error instanceof PayloadTooLarge

/** The HTTP status of an error of the contract (its tagged class's); 500 for anything else. */
export const statusOf = (error: unknown): number =>
  error instanceof Error && "_tag" in error && typeof error._tag === "string"
    ? (statuses.get(error._tag) ?? 500)
    : 500
