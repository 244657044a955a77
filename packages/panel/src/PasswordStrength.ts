/**
 * The password strength estimator, zxcvbn-ts (`@zxcvbn-ts/core`) with its common password list,
 * keyboard patterns and the Brazilian Portuguese dictionaries (words, names, Wikipedia), and its
 * warnings and suggestions in pt-BR and English. Its code and word lists (a few megabytes of
 * memory once loaded) are imported on the first password judged or explained, not when the panel
 * starts: a server whose panel sets no password never loads them (docs/decisions.md, "Memory at
 * rest"). One import per process, cached; the estimator itself is made once too.
 */
import type { Passwords } from "@pixgate/core"
import type { Lang } from "./I18n.js"

/** The loaded estimator: its judgement and the text of its keys. */
interface Estimator {
  readonly check: (password: string, context: ReadonlyArray<string>) => Passwords.Strength
  readonly text: (lang: Lang, kind: "warnings" | "suggestions", key: string) => string
}

let loading: Promise<Estimator> | undefined

const make = async (): Promise<Estimator> => {
  const [core, common, english, portuguese] = await Promise.all([
    import("@zxcvbn-ts/core"),
    import("@zxcvbn-ts/language-common"),
    import("@zxcvbn-ts/language-en"),
    import("@zxcvbn-ts/language-pt-br")
  ])
  const estimator = new core.ZxcvbnFactory({
    dictionary: { ...common.dictionary, ...portuguese.dictionary },
    graphs: common.adjacencyGraphs
  })
  const translations = { "pt-BR": portuguese.translations, en: english.translations } as const
  return {
    check: (password, context) => {
      const result = estimator.check(password, [...context])
      return {
        score: result.score,
        warning: result.feedback.warning,
        suggestions: result.feedback.suggestions
      }
    },
    text: (lang, kind, key) => {
      const table: Readonly<Record<string, string>> = translations[lang][kind]
      return table[key] ?? key
    }
  }
}

/** The estimator, imported and made on the first call (a failed import is tried again next time). */
export const load = (): Promise<Estimator> => {
  loading ??= make().catch((error: unknown) => {
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
