/**
 * Every query parameter an endpoint decodes is listed in its OpenAPI operation, on the public and
 * the admin documents: a query schema named with an `identifier` becomes a `$ref` that
 * `OpenApi.fromApi` does not expand into parameters, so a working parameter went undocumented.
 */
import { describe, expect, it } from "@effect/vitest"
import { Option, type Schema, SchemaAST } from "effect"
import * as OpenApiDocuments from "../src/OpenApiDocuments.js"
import { AdminApi, PublicApi } from "../src/PixgateApi.js"

interface Operation {
  readonly parameters?: ReadonlyArray<{ readonly name: string; readonly in: string }>
}

/** The field names of a query schema as the client sends them (its encoded side). */
const queryFields = (schema: Schema.Schema.All): Array<string> =>
  SchemaAST.getPropertySignatures(SchemaAST.encodedAST(schema.ast)).map((p) => String(p.name))

const cases = [
  { name: "public", api: PublicApi, document: OpenApiDocuments.document("/") },
  { name: "admin", api: AdminApi, document: OpenApiDocuments.admin("/admin") }
] as const

describe("OpenAPI query parameters", () => {
  for (const { name, api, document } of cases) {
    it(`the ${name} document lists every query field each endpoint decodes`, () => {
      const paths = document.paths as Record<string, Record<string, Operation>>
      const missing: Array<string> = []
      let checked = 0
      for (const group of Object.values(api.groups)) {
        for (const endpoint of Object.values(group.endpoints)) {
          if (Option.isNone(endpoint.urlParamsSchema)) continue
          const operation =
            paths[OpenApiDocuments.openApiPath(endpoint.path)]?.[endpoint.method.toLowerCase()]
          const listed = new Set(
            (operation?.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name)
          )
          for (const field of queryFields(endpoint.urlParamsSchema.value)) {
            checked++
            if (!listed.has(field)) missing.push(`${endpoint.method} ${endpoint.path}: ${field}`)
          }
        }
      }
      expect(checked).toBeGreaterThan(0)
      expect(missing).toEqual([])
    })
  }

  it("the sandbox pay control documents paidAt and amount", () => {
    const operation = (OpenApiDocuments.admin("/admin").paths as Record<string, Record<string, Operation>>)[
      "/sandbox/transactions/{transactionId}/pay"
    ]?.post
    expect(operation?.parameters?.filter((p) => p.in === "query").map((p) => p.name)).toEqual([
      "paidAt",
      "amount"
    ])
  })
})
