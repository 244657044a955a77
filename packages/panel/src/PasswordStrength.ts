/**
 * The password strength estimator (zxcvbn-ts with the Brazilian Portuguese dictionaries, see
 * `PasswordEstimator`), imported and made on the first password judged or explained, not when
 * the panel starts: a server whose panel sets no password never loads its code and word lists
 * (a few megabytes of memory; docs/decisions.md, "Memory at rest"). One import per process.
 * A separate module imported by `import()`, not the packages themselves: the bundle of `pixgate`
 * (scripts/pixgate.mjs) then keeps its usual interop with these CommonJS packages.
 */
import type { Passwords } from "@pixgate/core"
import type { Lang } from "./I18n.js"
import type { Estimator } from "./PasswordEstimator.js"

let loading: Promise<Estimator> | undefined

/** The estimator, imported and made on the first call (a failed import is tried again next time). */
export const load = (): Promise<Estimator> => {
  loading ??= import("./PasswordEstimator.js")
    .then((m) => m.make())
    .catch((error: unknown) => {
      loading = undefined
      throw error
    })
  return loading
}

/** The estimator's judgement of `password`; `context` holds words of the account. */
export const strength = async (
  password: string,
  context: ReadonlyArray<string>
): Promise<Passwords.Strength> => (await load()).check(password, context)

/** The estimator's warning or suggestion key in `lang` (the key itself when it has no text). */
export const feedbackText = async (
  lang: Lang,
  kind: "warnings" | "suggestions",
  key: string
): Promise<string> => (await load()).text(lang, kind, key)
