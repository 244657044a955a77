/**
 * Flag values read as the API reads its input: amounts as numbers for core's decoder (which
 * judges them with the API's messages), request schemas decoded with the engine's maximum
 * amount, JSON-object flags checked before anything runs.
 */
import { Engine, type Errors, Requests } from "@pixgate/core"
import { Effect, type Schema } from "effect"
import type { Flag } from "./Command.js"

/** A number when the text is one (the engine's decoder then judges it), else the text itself. */
export const amountOf = (text: string | undefined): unknown =>
  text !== undefined && /^-?\d+(\.\d+)?$/.test(text.trim()) ? Number(text) : text

/** Decodes with the engine's maximum amount, as the API does. */
export const decode =
  <A, I>(schema: Schema.Schema<A, I>) =>
  (input: unknown): Effect.Effect<A, Errors.ValidationError | Errors.InvalidJson, Engine.Engine> =>
    Effect.flatMap(Engine.Engine, (engine) => Requests.decode(schema, engine.config)(input))

/** A flag whose value is a JSON object (the API's field of the same name; its decoder judges the rest). */
export const jsonObject = (name: string): Pick<Flag, "test" | "message"> => ({
  test: (v) => {
    try {
      const value = JSON.parse(v)
      return typeof value === "object" && value !== null && !Array.isArray(value)
    } catch {
      return false
    }
  },
  message: `--${name} must be a JSON object`
})

/** `{ [key]: value }`, or nothing when the flag was left out. */
export const optional = (key: string, value: string | undefined): Record<string, string> =>
  value === undefined ? {} : { [key]: value }
