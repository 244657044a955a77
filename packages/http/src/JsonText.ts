/**
 * JSON text to a value, keeping what a double cannot hold: `JSON.parse` reads
 * `1.0000000000000001` as 1, after which no one can tell the client wrote 16 decimals. Every
 * number whose double is not the decimal its text denotes is handed over as a
 * `Money.JsonDecimal` of its text instead, so amounts are judged on what was written
 * (docs/decisions.md "Amounts"). Numbers a double holds exactly (`1.10`, `1e-2`, `0.1`) stay
 * numbers, so nothing changes for them.
 */
import { Money } from "@pixgate/core"

type Step = string | number

interface Frame {
  readonly array: boolean
  key: Step
  expectingKey: boolean
  /** The object's keys so far: only a repeated key has earlier findings to forget. */
  readonly keys: Set<string>
}

interface Inexact {
  readonly path: ReadonlyArray<Step>
  readonly value: Money.JsonDecimal
}

const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y

const startsWith = (path: ReadonlyArray<Step>, prefix: ReadonlyArray<Step>): boolean =>
  prefix.length <= path.length && prefix.every((step, i) => path[i] === step)

/**
 * The numbers of valid JSON `text` that a double cannot hold, with where they are. A key seen
 * again in the same object forgets what its earlier value held (`JSON.parse` keeps the last).
 */
const inexactNumbers = (text: string): Array<Inexact> => {
  let found: Array<Inexact> = []
  const stack: Array<Frame> = []
  const path = (): Array<Step> => stack.map((f) => f.key)
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    const top = stack[stack.length - 1]
    if (c === "{" || c === "[")
      stack.push({ array: c === "[", key: 0, expectingKey: c === "{", keys: new Set() })
    else if (c === "}" || c === "]") stack.pop()
    else if (c === ",") {
      if (top === undefined) continue
      if (top.array) top.key = Number(top.key) + 1
      else top.expectingKey = true
    } else if (c === '"') {
      let end = i + 1
      while (text[end] !== '"') end += text[end] === "\\" ? 2 : 1
      if (top?.expectingKey) {
        const key = JSON.parse(text.slice(i, end + 1)) as string
        top.key = key
        top.expectingKey = false
        if (top.keys.has(key)) {
          const at = path()
          found = found.filter((f) => !startsWith(f.path, at))
        } else top.keys.add(key)
      }
      i = end
    } else if (c === "-" || (c >= "0" && c <= "9")) {
      NUMBER.lastIndex = i
      const token = NUMBER.exec(text)?.[0] ?? c
      const value = Money.fromJsonText(token)
      if (value instanceof Money.JsonDecimal) found.push({ path: path(), value })
      i += token.length - 1
    }
  }
  return found
}

const isContainer = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null

/** Puts `value` at `path` in `root` where `JSON.parse` left a number. */
const replace = (root: unknown, { path, value }: Inexact): unknown => {
  if (path.length === 0) return value
  let parent = root
  for (const step of path.slice(0, -1)) {
    if (!isContainer(parent) || !Object.hasOwn(parent, step)) return root
    parent = parent[step]
  }
  const last = path[path.length - 1]
  if (isContainer(parent) && Object.hasOwn(parent, last) && typeof parent[last] === "number") {
    parent[last] = value
  }
  return root
}

/** `JSON.parse`, with `Money.JsonDecimal` for the numbers a double cannot hold; throws as it does. */
export const parse = (text: string): unknown => {
  let value: unknown = JSON.parse(text)
  for (const inexact of inexactNumbers(text)) value = replace(value, inexact)
  return value
}
