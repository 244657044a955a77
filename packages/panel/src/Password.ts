/**
 * Password hashing with scrypt (node:crypto), a memory-hard function: N = 2^15, r = 8, p = 1
 * (32 MiB per hash), a 16-byte random salt and a 32-byte key, stored as
 * `scrypt$N$r$p$salt$key` (base64url) so the cost can rise later without breaking old hashes.
 */
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto"

const cost = { N: 32768, r: 8, p: 1 } as const
const keyLength = 32

const derive = (password: string, salt: Buffer, N: number, r: number, p: number) =>
  new Promise<Buffer>((resolve, reject) =>
    scrypt(password.normalize("NFKC"), salt, keyLength, { N, r, p, maxmem: 128 * N * r * 2 }, (error, key) =>
      error ? reject(error) : resolve(key)
    )
  )

/** Shortest and longest accepted password. */
export const limits = { min: 10, max: 200 } as const

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
