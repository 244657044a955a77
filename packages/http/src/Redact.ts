/**
 * What a log line may say about a request's path: the path with every segment that is a secret
 * replaced by `[redacted]`. Two routes carry their authentication in the path: the live bank's
 * callbacks (`/bank/callbacks/<secret>[/pix]`) and the merchant panel's invites
 * (`/invite/<token>`); a percent-encoded spelling of either is caught too. Anything shaped like a
 * Pixgate secret anywhere in it (`sk_test_...` sent where an id goes, `pxa_...`, `whsec_...`) is
 * masked too (`Redaction.mask`). The query string is never logged at all.
 */
import { Redaction } from "@pixgate/core"

/** What replaces a secret segment. */
export const placeholder = "[redacted]"

// The segment after `/bank/callbacks/` or `/invite/`, wherever the route is mounted.
const secretSegments = /(\/bank\/callbacks\/|\/invite\/)[^/?#]*/gi

const redactIn = (path: string): string => path.replace(secretSegments, `$1${placeholder}`)

const decoded = (path: string): string => {
  try {
    return decodeURIComponent(path)
  } catch {
    return path
  }
}

/** `path` (no query) as a log line may hold it. */
export const path = (raw: string): string => {
  const segments = withoutSecretSegments(raw)
  if (!segments.includes("%")) return Redaction.mask(segments)
  // A secret spelled with escapes (`/sk%5Ftest%5F...`, `/%73k_live_...`): the decoded path, masked.
  const plain = decoded(segments)
  return Redaction.looksSecret(plain) ? Redaction.mask(plain) : Redaction.mask(segments)
}

/** `raw` with its secret segments redacted. */
const withoutSecretSegments = (raw: string): string => {
  if (!raw.includes("/") || (!raw.includes("allbacks") && !raw.includes("nvite") && !raw.includes("%")))
    return raw
  const redacted = redactIn(raw)
  if (redacted !== raw) return redacted
  // Spelled with escapes (`/bank/%63allbacks/...`): the decoded path, redacted, says what it was.
  const plain = decoded(raw)
  const redactedPlain = redactIn(plain)
  return redactedPlain === plain ? raw : redactedPlain
}
