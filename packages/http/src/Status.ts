/**
 * The HTTP status of every engine error (core's errors carry none), read from the definition:
 * each error `PixgateApi` lists, with the status it is listed with (`addError(..., { status })`,
 * or a middleware failure's status annotation). The router, the merchant panel and the CLI read
 * this one table; building it fails if the definition gives an error two statuses or leaves one
 * out.
 */
import { HttpApi } from "@effect/platform"
import { Errors } from "@pixgate/core"
import { Option, SchemaAST } from "effect"
import { errorTagOf } from "./ApiErrors.js"
import { PixgateApi } from "./PixgateApi.js"

type Tag = Errors.PixgateError["_tag"]

/** The members of an error schema (a status listing several errors is their union). */
const members = (ast: SchemaAST.AST): ReadonlyArray<SchemaAST.AST> =>
  SchemaAST.isUnion(ast) ? ast.types.flatMap(members) : [ast]

const read = (): ReadonlyMap<string, number> => {
  const statuses = new Map<string, number>()
  HttpApi.reflect(PixgateApi, {
    onGroup: () => undefined,
    onEndpoint: ({ endpoint, errors }) => {
      for (const [status, { ast }] of errors) {
        for (const member of Option.match(ast, { onNone: () => [], onSome: members })) {
          const tag = errorTagOf(member)
          if (tag === undefined) continue
          const known = statuses.get(tag)
          if (known !== undefined && known !== status)
            throw new Error(`PixgateApi lists ${tag} with statuses ${known} and ${status} (${endpoint.name})`)
          statuses.set(tag, status)
        }
      }
    }
  })
  for (const member of Errors.PixgateError.members)
    if (!statuses.has(member._tag)) throw new Error(`PixgateApi lists no status for ${member._tag}`)
  return statuses
}

const statuses = read()

/** Every error's status, as the definition lists it. */
export const all: ReadonlyMap<string, number> = statuses

/** The HTTP status of an error. */
export const statusOf = (error: Errors.PixgateError): number => statuses.get(error._tag satisfies Tag) ?? 500
