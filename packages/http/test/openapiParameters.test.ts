/**
 * Every query parameter an endpoint decodes is listed in its OpenAPI operation, on the public and
 * the admin documents: a query schema named with an `identifier` becomes a `$ref` that
 * `OpenApi.fromApi` does not expand into parameters, so a working parameter went undocumented.
 */

import { HttpApi, type HttpApiGroup } from "@effect/platform"
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

/** `METHOD path: field` of every query field an endpoint of `api` decodes but `document` omits. */
const unlisted = <Id extends string, Groups extends HttpApiGroup.HttpApiGroup.Any, E, R>(
  api: HttpApi.HttpApi<Id, Groups, E, R>,
  document: OpenApiDocuments.Document
) => {
  const paths = document.paths as Record<string, Record<string, Operation>>
  const missing: Array<string> = []
  let checked = 0
  HttpApi.reflect(api, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => {
      if (Option.isNone(endpoint.urlParamsSchema)) return
      const operation = paths[OpenApiDocuments.openApiPath(endpoint.path)]?.[endpoint.method.toLowerCase()]
      const listed = new Set((operation?.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name))
      for (const field of queryFields(endpoint.urlParamsSchema.value)) {
        checked++
        if (!listed.has(field)) missing.push(`${endpoint.method} ${endpoint.path}: ${field}`)
      }
    }
  })
  return { checked, missing }
}

describe("OpenAPI query parameters", () => {
  it("the public document lists every query field each endpoint decodes", () => {
    const { checked, missing } = unlisted(PublicApi, OpenApiDocuments.document("/"))
    expect(checked).toBeGreaterThan(0)
    expect(missing).toEqual([])
  })

  it("the admin document lists every query field each endpoint decodes", () => {
    const { checked, missing } = unlisted(AdminApi, OpenApiDocuments.admin("/admin"))
    expect(checked).toBeGreaterThan(0)
    expect(missing).toEqual([])
  })

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
