/**
 * The HTTP status of every error of the contract, read from its wire declaration
 * (`ApiErrors.of(..., { status })`): one status per error, given once. The router, the admin
 * API, the merchant panel (handed this table by its embedder) and the CLI read this one table.
 * An error class without a declaration does not compile (`Undeclared` below), and the tests check
 * the table against the OpenAPI document.
 */
import * as ApiErrors from "./ApiErrors.js"
import type { ApiError } from "./TransportErrors.js"

/** The tags of the errors that have a wire declaration. */
type Declared = ApiErrors.AnyWire["tag"]

/** The errors of the contract without a wire declaration: must be none. */
type Undeclared = Exclude<ApiError["_tag"], Declared>

const everyErrorDeclared: [Undeclared] extends [never] ? true : Undeclared = true

/** Every error's status, by `_tag`. */
export const all: ReadonlyMap<string, number> = new Map(
  everyErrorDeclared ? ApiErrors.all.map((wire) => [wire.tag, wire.status] as const) : []
)

/** The HTTP status of an error of the contract. */
export const statusOf = (error: ApiError): number => all.get(error._tag) ?? 500
