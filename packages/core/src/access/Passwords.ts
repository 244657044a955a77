/**
 * Panel passwords: the rule a new password must meet (10 to 200 characters, and judged hard to
 * guess by a strength estimator: score 3 of 4 or more, the point where zxcvbn says an offline
 * attack on a slow hash would take years), and the port through which the host hashes, checks
 * and judges them. Core has no hash function of its own here and no word lists: the panel gives
 * scrypt (node:crypto) and zxcvbn-ts with the Portuguese and English dictionaries.
 */
import { Context, Effect } from "effect"

/** What a strength estimator says of a password. */
export interface Strength {
  /** 0 (guessed at once) to 4 (very hard to guess), zxcvbn's scale. */
  readonly score: 0 | 1 | 2 | 3 | 4
  /** The estimator's key of what makes it weak (`topTen`, `simpleRepeat`, ...), if any. */
  readonly warning: string | null
  /** The estimator's keys of what would make it stronger. */
  readonly suggestions: ReadonlyArray<string>
}

/** How the host hashes, checks and judges passwords. */
export interface PasswordsShape {
  /** The stored form of a new password. */
  readonly hash: (password: string) => Effect.Effect<string>
  /**
   * Whether `password` matches `stored`; with `stored` null (no such account, or no password
   * yet) the same work is done against a decoy and the answer is false.
   */
  readonly verify: (password: string, stored: string | null) => Effect.Effect<boolean>
  /** The estimator's judgement; `context` holds words of the account (e-mail, merchant). */
  readonly strength: (password: string, context: ReadonlyArray<string>) => Effect.Effect<Strength>
}

/** The passwords port's tag (`@pixgate/panel` provides it). */
export class Passwords extends Context.Tag("@pixgate/core/Passwords")<Passwords, PasswordsShape>() {}

/** Shortest and longest accepted password. */
export const limits = { min: 10, max: 200 } as const

/** The lowest estimator score a new password may have. */
export const minScore = 3

/** Why a new password is refused. */
export type Weakness =
  | { readonly _tag: "Length" }
  | {
      readonly _tag: "Guessable"
      readonly warning: string | null
      readonly suggestions: ReadonlyArray<string>
    }

/**
 * Judges a new password: undefined when it may be used, else why not. `context` names the
 * account (its e-mail, the merchant's name): a password made of them is guessable.
 */
export const judge = (
  password: string,
  context: ReadonlyArray<string>
): Effect.Effect<Weakness | undefined, never, Passwords> => {
  if (password.length < limits.min || password.length > limits.max)
    return Effect.succeed({ _tag: "Length" } as const)
  return Effect.flatMap(Passwords, (p) => p.strength(password, context)).pipe(
    Effect.map((s): Weakness | undefined =>
      s.score >= minScore ? undefined : { _tag: "Guessable", warning: s.warning, suggestions: s.suggestions }
    )
  )
}

/** The words of an account a password should not be made of: the e-mail and its parts. */
export const accountWords = (email: string, ...more: ReadonlyArray<string>): ReadonlyArray<string> => {
  const [local = "", domain = ""] = email.split("@")
  return [email, local, ...domain.split("."), ...more, "pixgate"].filter((w) => w.length > 2)
}
