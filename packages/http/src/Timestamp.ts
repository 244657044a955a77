/**
 * ISO 8601 UTC timestamps of epoch milliseconds, formatted at most once per millisecond: under
 * load many requests (their health answers, their access lines) share one.
 */
let formattedAt = Number.NaN
let formatted = ""

/** `2026-11-22T16:00:00.000Z` for `ms`. */
export const iso = (ms: number): string => {
  if (ms !== formattedAt) {
    formatted = new Date(ms).toISOString()
    formattedAt = ms
  }
  return formatted
}
