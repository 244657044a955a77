/**
 * The `asaas` gateway plugin: Asaas's own REST API v3 (charges, transfers to Pix keys, refunds,
 * webhooks) over Node's HTTP client. Its settings are the variables under the server's prefix
 * (`PIXGATE_LIVE_` when it is the default gateway, `PIXGATE_ASAAS_` when `PIXGATE_GATEWAYS`
 * names it beside another): `BASE_URL`, `API_KEY`, `CUSTOMER_ID`, `WEBHOOK_TOKEN`, ... the
 * suffixes of `Settings.envNames`, decoded by the same `AsaasSettings` schema and checked at start
 * by `Check.check`. The callback is registered with `POST /webhooks` (`Asaas.registerWebhook`).
 */
import { GatewayPlugin } from "@pixgate/core"
import { Effect, Option, ParseResult, Redacted, Schema, SchemaAST } from "effect"
import * as Asaas from "./Asaas.js"
import * as Check from "./Check.js"
import { capabilities } from "./Gateway.js"
import { AsaasSettings, envNames } from "./Settings.js"

/** A setting's variable suffix (`PIXGATE_ASAAS_API_KEY` → `API_KEY`). */
const suffixOf = (field: keyof typeof envNames) => envNames[field].slice("PIXGATE_ASAAS_".length)

const description = (field: keyof typeof AsaasSettings.fields): string => {
  const ast = AsaasSettings.ast
  const signature = SchemaAST.isTypeLiteral(ast)
    ? ast.propertySignatures.find((p) => p.name === field)
    : undefined
  const type = signature === undefined ? undefined : signature.type
  const of = (ast: SchemaAST.AST | undefined): string | undefined =>
    ast === undefined
      ? undefined
      : (Option.getOrUndefined(SchemaAST.getDescriptionAnnotation(ast)) ??
        (SchemaAST.isUnion(ast) ? ast.types.map(of).find((d) => d !== undefined) : undefined))
  return of(type) ?? ""
}

const fieldNames = Object.keys(envNames) as ReadonlyArray<keyof typeof envNames>
const requiredFields: ReadonlySet<string> = new Set(["baseUrl", "apiKey", "customerId"])
const numeric: ReadonlySet<string> = new Set([
  "timeoutMs",
  "connectTimeoutMs",
  "pollDelayMs",
  "sendBudgetMs",
  "reconcileIntervalMs",
  "reconcileWindowMs",
  "unknownChargeWindowMs"
])

/** The variables under `prefix`, each a string named by its suffix. */
const fields = (prefix: string) =>
  Schema.Struct(
    Object.fromEntries(
      fieldNames.map((field) => {
        const text = Schema.String.annotations({
          description: field === "ca" ? "A file of CAs (PEM) of the API's certificate" : description(field)
        })
        return [
          suffixOf(field),
          requiredFields.has(field)
            ? Schema.propertySignature(text).annotations({
                missingMessage: () => `${prefix}${suffixOf(field)} is required`
              })
            : Schema.optional(text)
        ]
      })
    ) as Record<string, Schema.Schema<string> | Schema.optional<typeof Schema.String>>
  )

/** The plugin's settings schema over the variables under `prefix`. */
const settings = (
  prefix: string
): Schema.Schema<AsaasSettings, GatewayPlugin.Variables, GatewayPlugin.SettingsFiles> =>
  GatewayPlugin.fromVariables(
    prefix,
    Schema.transformOrFail(fields(prefix), Schema.typeSchema(AsaasSettings), {
      strict: false,
      decode: (given, _, ast) =>
        Effect.gen(function* () {
          const raw: Record<string, unknown> = {}
          for (const field of fieldNames) {
            const value = (given as Record<string, string | undefined>)[suffixOf(field)]
            if (value === undefined) continue
            const name = `${prefix}${suffixOf(field)}`
            if (field === "ca") {
              const read = yield* Effect.either(
                Effect.flatMap(GatewayPlugin.SettingsFiles, (files) => files.read(value))
              )
              if (read._tag === "Left")
                return yield* Effect.fail(
                  new ParseResult.Type(
                    ast,
                    value,
                    `${name}: cannot read ${value}${read.left.code === undefined ? "" : ` (${read.left.code})`}`
                  )
                )
              raw.ca = new TextDecoder().decode(read.right)
            } else if (numeric.has(field)) {
              if (!/^\d+$/.test(value))
                return yield* Effect.fail(
                  new ParseResult.Type(ast, value, `${name} must be a whole number of milliseconds`)
                )
              raw[field] = Number(value)
            } else raw[field] = value
          }
          return yield* Schema.decodeUnknown(AsaasSettings)(raw).pipe(
            Effect.mapError((error) => {
              const [issue] = ParseResult.ArrayFormatter.formatErrorSync(error)
              const field = String(issue?.path[0] ?? "")
              const name = field in envNames ? `${prefix}${suffixOf(field as keyof typeof envNames)}` : prefix
              return new ParseResult.Type(ast, given, `${name}: ${issue?.message ?? "invalid"}`)
            })
          )
        }),
      encode: (s) =>
        ParseResult.succeed(
          Object.fromEntries(
            fieldNames.flatMap((field) => {
              const value = (s as Record<string, unknown>)[field]
              if (value === undefined || field === "ca") return []
              return [[suffixOf(field), Redacted.isRedacted(value) ? Redacted.value(value) : String(value)]]
            })
          )
        )
    })
  )

/** The plugin (`PIXGATE_LIVE_GATEWAY=asaas`, or `PIXGATE_GATEWAYS=asaas` beside another). */
export const plugin: GatewayPlugin.GatewayPlugin<AsaasSettings> = GatewayPlugin.make({
  name: "asaas",
  description:
    "Asaas: its own REST API v3 for Pix charges, transfers to Pix keys, refunds, webhooks and reconciliation (no due-date charges)",
  capabilities,
  settings,
  check: (given, prefix) =>
    Effect.suspend(() => Check.check(given, "field")).pipe(
      Effect.mapError((error) => ({
        message:
          prefix === undefined || !(error.setting in envNames)
            ? error.message
            : error.message.replace(
                /^[A-Za-z]+:/,
                `${prefix}${suffixOf(error.setting as keyof typeof envNames)}:`
              )
      }))
    ),
  layer: (given) => Asaas.layerNode(given),
  summary: (given) => given.baseUrl,
  registerCallback: (given, url) =>
    Asaas.registerWebhook(given, url).pipe(
      Effect.as({ url, events: "payments, transfers" }),
      Effect.provide(Asaas.httpClientNode(given))
    )
})
