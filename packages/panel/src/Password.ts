/**
 * The panel's side of core's `Passwords` port. Hashing is scrypt (node:crypto), a memory-hard
 * function: N = 2^15, r = 8, p = 1 (32 MiB per hash), a 16-byte random salt and a 32-byte key,
 * stored as `scrypt$N$r$p$salt$key` (base64url) so the cost can rise later without breaking old
 * hashes. Strength is judged by zxcvbn-ts with the Brazilian Portuguese dictionaries, imported
 * on first use (`PasswordStrength`); its warnings and suggestions are translated to pt-BR and
 * English for the page.
 */
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto"
import { Passwords } from "@pixgate/core"
import { Effect } from "effect"
import type { Lang } from "./I18n.js"
import * as PasswordStrength from "./PasswordStrength.js"

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

/**
 * The estimator's warning or suggestion key in `lang` (the key itself when it has no text). An
 * effect: the texts come with the estimator, imported on first use.
 */
export const feedbackText = (
  lang: Lang,
  kind: "warnings" | "suggestions",
  key: string
): Effect.Effect<string> => Effect.promise(() => PasswordStrength.feedbackText(lang, kind, key))

/**
 * Core's `Passwords` port over scrypt and zxcvbn-ts. The estimator, with its dictionaries
 * (about 0.4 s and some megabytes), is imported and made on the first password judged, not when
 * the panel starts.
 */
export const make = (): Passwords.PasswordsShape => ({
  hash: (password) => Effect.promise(() => hash(password)),
  verify: (password, stored) =>
    Effect.promise(async () => (await verify(password, stored ?? decoy)) && stored !== null),
  strength: (password, context) => Effect.promise(() => PasswordStrength.strength(password, context))
})
