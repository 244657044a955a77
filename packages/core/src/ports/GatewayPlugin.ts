/**
 * The gateway plugin contract: one bank's live gateway as a value. The standalone server picks a
 * plugin by name (`PIXGATE_LIVE_GATEWAY`) and loads it without importing its package; an embedder
 * configures one (`configure`) and passes it to `Engine.layer` or `Pixgate.make`. A plugin says
 * what it can do (`Capabilities`), which settings it reads (an `effect/Schema` over the
 * environment's variables: the CLI, the start-up checks and the docs all read this one schema),
 * how it checks them at start, and builds its gateway as a layer. Its variables sit under a
 * prefix (`PIXGATE_LIVE_` by default), so several plugins can be configured in one process.
 */
import { Context, Data, Effect, Layer, Option, ParseResult, Schema, SchemaAST } from "effect"
import { type Capabilities, type GatewayFailure, LiveGateway } from "./BankGateway.js"

/** Where the server's variables for its live gateway start: `PIXGATE_LIVE_BASE_URL` for `BASE_URL`. */
export const defaultPrefix = "PIXGATE_LIVE_"

/** The environment's variables as a plugin reads them: name to value, unset and empty ones left out. */
export type Variables = { readonly [name: string]: string }

/** A file a setting names could not be read (`code`: the system's, e.g. `ENOENT`). */
export class FileUnreadable extends Data.TaggedError("FileUnreadable")<{
  readonly path: string
  readonly code?: string
}> {}

/**
 * Reads the files settings name (a certificate, a key), for a plugin's settings schema: the
 * server reads them relative to its working directory.
 */
export class SettingsFiles extends Context.Tag("@pixgate/core/SettingsFiles")<
  SettingsFiles,
  { readonly read: (path: string) => Effect.Effect<Uint8Array, FileUnreadable> }
>() {}

/** A setting a plugin cannot work with: `message` is one line naming it. */
export interface SettingsProblem {
  readonly message: string
}

/** A gateway's settings cannot work: one line naming the variable (or the field given in code). */
export class SettingsError extends Data.TaggedError("GatewaySettingsError")<{
  readonly gateway: string
  readonly message: string
  readonly cause?: unknown
}> {}

/** One bank's gateway as a plugin, over its settings `S` (build it with `make`). */
export interface GatewayPlugin<S> {
  readonly _tag: "GatewayPlugin"
  /** The name `PIXGATE_LIVE_GATEWAY` picks it by: lowercase letters, digits and dashes. */
  readonly name: string
  /** One line: which bank, through which APIs. */
  readonly description: string
  /** What its gateway can do; the engine reads them from the gateway it holds. */
  readonly capabilities: Capabilities
  /**
   * Its settings read from the variables under `prefix`: a schema from the variables to `S`, made
   * with `fromVariables` over a Struct whose fields are the variables' names without the prefix,
   * each annotated with a `description`. Decoding checks each value's form, names the variable
   * in its message, and reads the files a variable names through `SettingsFiles`.
   */
  readonly settings: (prefix: string) => Schema.Schema<S, Variables, SettingsFiles>
  /**
   * The start-up check of settings, for what decoding cannot see (a certificate and a key that
   * do not belong together): naming variables under `prefix` when given, else fields in code.
   */
  readonly check: (settings: S, prefix?: string) => Effect.Effect<S, SettingsProblem>
  /** The gateway over these settings, as `Engine.layer` picks it up for live keys. */
  readonly layer: (settings: S) => Layer.Layer<LiveGateway, SettingsProblem>
  /** What the server's start-up line shows of the settings (never a secret), e.g. the bank's URL. */
  readonly summary?: (settings: S) => string
  /**
   * Registers the engine's callback URL with the bank, for a bank that takes it by API
   * (`pixgate gateway webhook register`); answers what the bank registered, as printable fields.
   */
  readonly registerCallback?: (
    settings: S,
    url: string
  ) => Effect.Effect<Readonly<Record<string, string>>, GatewayFailure>
}

/** A plugin as its author writes it. */
export type Definition<S> = Omit<GatewayPlugin<S>, "_tag">

const namePattern = /^[a-z][a-z0-9-]{0,39}$/

/** A plugin from its definition; throws when its name is not lowercase letters, digits and dashes. */
export const make = <S>(definition: Definition<S>): GatewayPlugin<S> => {
  if (!namePattern.test(definition.name))
    throw new TypeError(
      `A gateway plugin's name is lowercase letters, digits and dashes, not "${definition.name}"`
    )
  return { _tag: "GatewayPlugin", ...definition }
}

const capabilityNames: ReadonlyArray<keyof Capabilities> = [
  "charges",
  "dueDateCharges",
  "sends",
  "refunds",
  "reconciliation",
  "recurring",
  "infractions"
]

/** Whether a value (a module's export) is a plugin: its tag, name, capabilities and functions. */
export const isPlugin = (value: unknown): value is GatewayPlugin<unknown> => {
  if (typeof value !== "object" || value === null) return false
  const v = value as Record<string, unknown>
  const capabilities = v.capabilities
  return (
    v._tag === "GatewayPlugin" &&
    typeof v.name === "string" &&
    namePattern.test(v.name) &&
    typeof v.description === "string" &&
    typeof v.settings === "function" &&
    typeof v.check === "function" &&
    typeof v.layer === "function" &&
    typeof capabilities === "object" &&
    capabilities !== null &&
    capabilityNames.every((name) => typeof (capabilities as Record<string, unknown>)[name] === "boolean")
  )
}

const VariablesSchema = Schema.Record({ key: Schema.String, value: Schema.String })

/**
 * A plugin's settings schema from `fields`, a schema (a Struct, or one built on it) whose fields
 * are the variables' names without `prefix`: decoding takes the variables under `prefix`.
 */
export const fromVariables = <A, I, R>(
  prefix: string,
  fields: Schema.Schema<A, I, R>
): Schema.Schema<A, Variables, R> =>
  Schema.transform(VariablesSchema, fields, {
    strict: false,
    decode: (variables) =>
      Object.fromEntries(
        Object.entries(variables).flatMap(([name, value]) =>
          name.startsWith(prefix) ? [[name.slice(prefix.length), value]] : []
        )
      ),
    encode: (given) =>
      Object.fromEntries(
        Object.entries(given as Record<string, unknown>).flatMap(([name, value]) =>
          typeof value === "string" ? [[`${prefix}${name}`, value]] : []
        )
      )
  })

/** One variable a plugin reads, as the CLI and the docs list it. */
export interface Variable {
  readonly name: string
  readonly description: string
  readonly required: boolean
}

const descriptionOf = (ast: SchemaAST.AST): Option.Option<string> =>
  Option.orElse(SchemaAST.getDescriptionAnnotation(ast), () =>
    SchemaAST.isUnion(ast)
      ? Option.firstSomeOf(ast.types.filter((t) => !SchemaAST.isUndefinedKeyword(t)).map(descriptionOf))
      : Option.none()
  )

/** The property signatures of the fields' schema, through its refinements and transformations. */
const fieldsOf = (ast: SchemaAST.AST): ReadonlyArray<SchemaAST.PropertySignature> => {
  if (SchemaAST.isTypeLiteral(ast)) return ast.propertySignatures
  if (SchemaAST.isRefinement(ast)) return fieldsOf(ast.from)
  if (SchemaAST.isTransformation(ast)) {
    const from = fieldsOf(ast.from)
    return from.length > 0 ? from : fieldsOf(ast.to)
  }
  return []
}

/** The variables a plugin reads under `prefix`, in the order its schema declares them. */
export const variables = <S>(
  plugin: GatewayPlugin<S>,
  prefix: string = defaultPrefix
): ReadonlyArray<Variable> => {
  const ast = plugin.settings(prefix).ast
  const fields = SchemaAST.isTransformation(ast) ? fieldsOf(ast.to) : fieldsOf(ast)
  return fields.map((field) => ({
    name: `${prefix}${String(field.name)}`,
    description: Option.getOrElse(
      Option.orElse(SchemaAST.getDescriptionAnnotation(field), () => descriptionOf(field.type)),
      () => ""
    ),
    required: !field.isOptional
  }))
}

/** The first problem of a decoding, as one line naming its variable. */
const describeIssue = (error: ParseResult.ParseError, prefix: string): string => {
  const [first] = ParseResult.ArrayFormatter.formatErrorSync(error)
  if (first === undefined) return error.message
  const variable = first.path.length === 0 ? "" : `${prefix}${String(first.path[0])}`
  if (variable === "" || first.message.startsWith(variable)) return first.message
  if (first._tag === "Missing" && first.message === "is missing") return `${variable} is required`
  return `${variable}: ${first.message}`
}

/**
 * Decodes the variables under `prefix` (empty ones count as unset) with `gateway`'s settings
 * schema; fails with the first problem, one line naming its variable.
 */
export const decode = <S, R>(
  gateway: string,
  schema: Schema.Schema<S, Variables, R>,
  env: Readonly<Record<string, string | undefined>>,
  prefix: string = defaultPrefix
): Effect.Effect<S, SettingsError, R> => {
  const given: Record<string, string> = {}
  for (const [name, value] of Object.entries(env))
    if (name.startsWith(prefix) && value !== undefined && value !== "") given[name] = value
  return Schema.decodeUnknown(schema)(given, { errors: "first" }).pipe(
    Effect.mapError(
      (error) => new SettingsError({ gateway, message: describeIssue(error, prefix), cause: error })
    )
  )
}

/** Reads a plugin's settings from the variables under `prefix`. */
export const read = <S>(
  plugin: GatewayPlugin<S>,
  env: Readonly<Record<string, string | undefined>>,
  prefix: string = defaultPrefix
): Effect.Effect<S, SettingsError, SettingsFiles> => decode(plugin.name, plugin.settings(prefix), env, prefix)

/** A plugin with its settings: what the engine, `Pixgate.make` and the server take. */
export interface Configured {
  readonly name: string
  readonly capabilities: Capabilities
  /** The start-up check alone, for a caller that wants its answer before building anything. */
  readonly check: Effect.Effect<void, SettingsError>
  /** The gateway (its settings checked first), carrying the plugin's capabilities. */
  readonly layer: Layer.Layer<LiveGateway, SettingsError>
  /** What the server's start-up line shows of the settings, when the plugin says. */
  readonly summary: string | undefined
  /** The bank's registration of the callback URL, when the plugin offers one. */
  readonly registerCallback:
    | ((url: string) => Effect.Effect<Readonly<Record<string, string>>, GatewayFailure>)
    | undefined
}

/**
 * `plugin` over `settings`. With `prefix` (the server's variables), the start-up check names the
 * variables; without (settings in code), it names the fields.
 */
export const configure = <S>(plugin: GatewayPlugin<S>, settings: S, prefix?: string): Configured => {
  const failed = (problem: SettingsProblem) =>
    new SettingsError({ gateway: plugin.name, message: problem.message, cause: problem })
  const registerCallback = plugin.registerCallback
  return {
    name: plugin.name,
    capabilities: plugin.capabilities,
    check: Effect.asVoid(Effect.mapError(plugin.check(settings, prefix), failed)),
    layer: Layer.effect(
      LiveGateway,
      Effect.map(LiveGateway, (gateway) => ({ ...gateway, capabilities: plugin.capabilities }))
    ).pipe(Layer.provide(Layer.mapError(plugin.layer(settings), failed))),
    summary: plugin.summary?.(settings),
    registerCallback: registerCallback === undefined ? undefined : (url) => registerCallback(settings, url)
  }
}
