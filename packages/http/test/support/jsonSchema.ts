/**
 * A small JSON Schema checker for the keywords Pixgate's OpenAPI document uses ($ref, type,
 * properties, required, additionalProperties, items, enum, const, minimum, maximum, minLength,
 * maxLength, pattern), so tests can hold real responses against the served document.
 */
type Schema = { readonly [k: string]: unknown }

const typeOf = (v: unknown): string =>
  v === null ? "null" : Array.isArray(v) ? "array" : Number.isInteger(v) ? "integer" : typeof v

/** Problems of `value` against `schema` (empty when valid). */
export const validate = (
  value: unknown,
  schema: Schema,
  components: Readonly<Record<string, Schema>>,
  path = "$"
): Array<string> => {
  if (typeof schema.$ref === "string") {
    const target = components[schema.$ref.replace("#/components/schemas/", "")]
    return target === undefined
      ? [`${path}: unknown ${schema.$ref}`]
      : validate(value, target, components, path)
  }
  const problems: Array<string> = []
  if (schema.type !== undefined) {
    const types = (Array.isArray(schema.type) ? schema.type : [schema.type]) as Array<string>
    const actual = typeOf(value)
    if (!types.some((t) => t === actual || (t === "number" && actual === "integer"))) {
      return [`${path}: ${actual} is not ${types.join("|")}`]
    }
  }
  if (schema.const !== undefined && value !== schema.const)
    problems.push(`${path}: not ${String(schema.const)}`)
  if (Array.isArray(schema.enum) && !schema.enum.includes(value))
    problems.push(`${path}: ${String(value)} not in enum`)
  if (typeof value === "number") {
    if (typeof schema.minimum === "number" && value < schema.minimum) problems.push(`${path}: below minimum`)
    if (typeof schema.maximum === "number" && value > schema.maximum) problems.push(`${path}: above maximum`)
  }
  if (typeof value === "string") {
    if (typeof schema.maxLength === "number" && value.length > schema.maxLength)
      problems.push(`${path}: too long`)
    if (typeof schema.minLength === "number" && value.length < schema.minLength)
      problems.push(`${path}: too short`)
    if (typeof schema.pattern === "string" && !new RegExp(schema.pattern).test(value))
      problems.push(`${path}: pattern`)
  }
  if (Array.isArray(value) && schema.items !== undefined) {
    for (const [i, item] of value.entries()) {
      problems.push(...validate(item, schema.items as Schema, components, `${path}[${i}]`))
    }
  }
  if (typeOf(value) === "object") {
    const record = value as Record<string, unknown>
    const properties = (schema.properties ?? {}) as Record<string, Schema>
    for (const name of (schema.required ?? []) as Array<string>) {
      if (!(name in record)) problems.push(`${path}.${name}: missing`)
    }
    for (const [name, v] of Object.entries(record)) {
      const property = properties[name]
      if (property !== undefined) problems.push(...validate(v, property, components, `${path}.${name}`))
      else if (schema.additionalProperties === false) problems.push(`${path}.${name}: not allowed`)
    }
  }
  return problems
}
