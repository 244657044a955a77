/**
 * The panel's side of core's `Passwords` port. Hashing is scrypt (node:crypto), a memory-hard
 * function: N = 2^15, r = 8, p = 1 (32 MiB per hash), a 16-byte random salt and a 32-byte key,
 * stored as `scrypt$N$r$p$salt$key` (base64url) so the cost can rise later without breaking old
 * hashes. Strength is judged by zxcvbn-ts (`@zxcvbn-ts/core`) with its common password list,
 * keyboard patterns and the Brazilian Portuguese dictionaries (words, names, Wikipedia); its
 * warnings and suggestions are translated to pt-BR and English for the page.
 */
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto"
import { Passwords } from "@pixgate/core"
import { type TranslationKeys, ZxcvbnFactory } from "@zxcvbn-ts/core"
import * as common from "@zxcvbn-ts/language-common"
import * as english from "@zxcvbn-ts/language-en"
import * as portuguese from "@zxcvbn-ts/language-pt-br"
import { Effect } from "effect"
import type { Lang } from "./I18n.js"

const cost = { N: 32768, r: 8, p: 1 } as const
const keyLength = 32

const derive = (password: string, salt: Buffer, N: number, r: number, p: number) =>
  new Promise<Buffer>((resolve, reject) =>
    scrypt(password.normalize("NFKC"), salt, keyLength, { N, r, p, maxmem: 128 * N * r * 2 }, (error, key) =>
      error ? reject(error) : resolve(key)
    )
  )

/** Shortest and longest accepted password (core's rule). */
export const limits = Passwords.limits

/** The stored form of a new password. */
export const hash = async (password: string): Promise<string> => {
  const salt = randomBytes(16)
  const key = await derive(password, salt, cost.N, cost.r, cost.p)
  return `scrypt$${cost.N}$${cost.r}$${cost.p}$${salt.toString("base64url")}$${key.toString("base64url")}`
}

/** A stored hash that a wrong password is checked against when the account does not exist. */
export const decoy = "scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"

/** Whether `password` matches `stored` (constant-time comparison of the derived keys). */
export const verify = async (password: string, stored: string): Promise<boolean> => {
  const [scheme, n, r, p, salt, key] = stored.split("$")
  if (scheme !== "scrypt" || salt === undefined || key === undefined) return false
  const expected = Buffer.from(key, "base64url")
  const actual = await derive(password, Buffer.from(salt, "base64url"), Number(n), Number(r), Number(p))
  return expected.length === actual.length && timingSafeEqual(expected, actual)
}

const translations: Readonly<Record<Lang, TranslationKeys>> = {
  "pt-BR": portuguese.translations,
  en: english.translations
}

/** The estimator's warning or suggestion key in `lang` (the key itself when it has no text). */
export const feedbackText = (lang: Lang, kind: "warnings" | "suggestions", key: string): string => {
  const table: Readonly<Record<string, string>> = translations[lang][kind]
  return table[key] ?? key
}

/**
 * Core's `Passwords` port over scrypt and zxcvbn-ts. The estimator, with its dictionaries
 * (about 0.4 s and some megabytes), is made on the first password judged, not when the panel
 * starts.
 */
export const make = (): Passwords.PasswordsShape => {
  let estimator: ZxcvbnFactory | undefined
  const loaded = () => {
    estimator ??= new ZxcvbnFactory({
      dictionary: { ...common.dictionary, ...portuguese.dictionary },
      graphs: common.adjacencyGraphs
    })
    return estimator
  }
  return {
    hash: (password) => Effect.promise(() => hash(password)),
    verify: (password, stored) =>
      Effect.promise(async () => (await verify(password, stored ?? decoy)) && stored !== null),
    strength: (password, context) =>
      Effect.sync(() => {
        const result = loaded().check(password, [...context])
        return {
          score: result.score,
          warning: result.feedback.warning,
          suggestions: result.feedback.suggestions
        }
      })
  }
}
