/**
 * A test's "this must be here": the value, narrowed, or an assertion error that names what was
 * missing (in place of a non-null `!`, which fails later with an unrelated `TypeError`).
 */
import { AssertionError } from "node:assert"

/** `value` when it is neither `undefined` nor `null`; otherwise fails, naming `what`. */
export const must = <T>(value: T, what: string): NonNullable<T> => {
  if (value === undefined || value === null) {
    throw new AssertionError({
      message: `expected ${what} to be present, got ${String(value)}`,
      actual: value
    })
  }
  return value
}
