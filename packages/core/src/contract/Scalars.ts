/**
 * The scalar JSON forms every view is written with: ISO 8601 UTC times, reais as JSON numbers,
 * calendar dates. `Views` re-exports them; the views of a feature's own module (e.g.
 * `DueDateViews`) import them from here, so `Views` can list those modules without a cycle.
 */
import { Schema } from "effect"

/** ISO 8601 UTC of epoch milliseconds. */
export const iso = (ms: number): string => new Date(ms).toISOString()

/** An example time of the views. */
export const exampleTime = "2026-01-02T03:04:05.000Z"

/** An amount in reais: a JSON number with at most 2 decimal places. */
export const Reais = Schema.Number.annotations({
  description: "Reais as a JSON number (at most 2 decimal places)",
  examples: [10.5]
})

/** An ISO 8601 UTC time with milliseconds. */
export const DateTime = Schema.String.annotations({
  description: "ISO 8601 UTC time",
  examples: [exampleTime],
  jsonSchema: { format: "date-time" }
})

/** A calendar date, YYYY-MM-DD. */
export const CalendarDate = Schema.String.annotations({
  description: "A calendar date, YYYY-MM-DD (São Paulo)",
  examples: ["2027-03-10"],
  jsonSchema: { format: "date" }
})
