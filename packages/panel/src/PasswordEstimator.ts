/**
 * zxcvbn-ts (`@zxcvbn-ts/core`) with its common password list, keyboard patterns and the
 * Brazilian Portuguese dictionaries (words, names, Wikipedia), and its warnings and suggestions
 * in pt-BR and English. Only `PasswordStrength` imports this module, on first use: its imports
 * are a few megabytes of code and word lists a panel that judges no password never loads.
 */
import type { Passwords } from "@pixgate/core"
import { ZxcvbnFactory } from "@zxcvbn-ts/core"
import * as common from "@zxcvbn-ts/language-common"
import * as english from "@zxcvbn-ts/language-en"
import * as portuguese from "@zxcvbn-ts/language-pt-br"
import type { Lang } from "./I18n.js"

/** The estimator: its judgement and the text of its keys. */
export interface Estimator {
  readonly check: (password: string, context: ReadonlyArray<string>) => Passwords.Strength
  readonly text: (lang: Lang, kind: "warnings" | "suggestions", key: string) => string
}

/** Makes the estimator (its dictionaries ranked: about 0.4 s). */
export const make = (): Estimator => {
  const estimator = new ZxcvbnFactory({
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
