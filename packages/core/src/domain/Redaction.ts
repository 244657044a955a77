/**
 * What a log line or a span may say about secrets and URLs. Pixgate's own secrets have a
 * recognisable prefix: API keys (`sk_live_`, `sk_test_`), webhook signing keys (`whsec_`) and
 * admin tokens (`pxa_`); `mask` replaces whatever follows such a prefix wherever it appears
 * (a path, a header, a request id, an error message), so even a key a client sent in the wrong
 * place never reaches a log. A webhook URL is shown by its origin only: receivers often carry a
 * token in the path, the query or the user info.
 */

/** What replaces the secret part. */
export const placeholder = "[redacted]"

// A prefix, anywhere (over-masking a word that happens to end in one is harmless), then what a
// key, signing key or token is made of (base62, base64, `_`, `-`). A percent-encoded `_` (`%5F`)
// is a prefix too: a path may spell it so.
const secretPattern = /(sk(?:_|%5f)(?:live|test)(?:_|%5f)|whsec(?:_|%5f)|pxa(?:_|%5f))[A-Za-z0-9+/=_%-]+/gi

// A quick test before the replacement: most text holds no prefix at all.
const prefixPattern = /sk(?:_|%5f)(?:live|test)|whsec(?:_|%5f)|pxa(?:_|%5f)/i

/** Whether `text` holds anything shaped like a Pixgate secret. */
export const looksSecret = (text: string): boolean => prefixPattern.test(text)

/** `text` with every Pixgate-shaped secret replaced by its prefix and `[redacted]`. */
export const mask = (text: string): string =>
  prefixPattern.test(text)
    ? text.replace(secretPattern, (_, prefix: string) => `${prefix}${placeholder}`)
    : text

/** A URL as a log line may hold it: its origin only (`https://shop.example:8443`). */
export const originOf = (url: string): string => {
  try {
    const origin = new URL(url).origin
    return origin === "null" ? "(URL without an origin)" : origin
  } catch {
    return "(unparsable URL)"
  }
}

// An absolute http(s) URL inside free text (an error message naming the URL it failed on).
const urlPattern = /\bhttps?:\/\/[^\s"'<>()]+/gi

/** `text` with every http(s) URL in it cut to its origin, and secrets masked. */
export const withOrigins = (text: string): string =>
  mask(text.includes("://") ? text.replace(urlPattern, (url) => originOf(url)) : text)
