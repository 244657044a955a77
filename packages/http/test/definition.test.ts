/**
 * The native routes are the definition's: every endpoint of `PixgateApi` is served (method and
 * path) by a handler bound by name, the removed ones answer 410, every success schema encodes
 * to itself (so no per-request encoding runs), every error has one status, and the contract
 * entry `@pixgate/http/api` loads without Node built-ins.
 */
import { readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { HttpApi, type HttpApiGroup, OpenApi } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Context, Option, Redacted, SchemaAST } from "effect"
import * as Admin from "../src/AdminRoutes.js"
import { errorTagOf } from "../src/ApiErrors.js"
import { encodesToItself } from "../src/Endpoints.js"
import { AdminApi, PixgateApi, PublicApi } from "../src/PixgateApi.js"
import * as Api from "../src/PublicRoutes.js"
import * as Status from "../src/Status.js"

/** `METHOD /path` of the endpoints of `api`, the removed (deprecated) ones or the others. */
const endpointsOf = <Id extends string, Groups extends HttpApiGroup.HttpApiGroup.Any, E, R>(
  api: HttpApi.HttpApi<Id, Groups, E, R>,
  removed: boolean
) => {
  const found: Array<string> = []
  HttpApi.reflect(api, {
    onGroup: () => undefined,
    onEndpoint: ({ endpoint, mergedAnnotations }) => {
      const deprecated = Option.getOrElse(
        Context.getOption(mergedAnnotations, OpenApi.Deprecated),
        () => false
      )
      if (deprecated === removed) found.push(`${endpoint.method} ${endpoint.path}`)
    }
  })
  return found.sort()
}

describe("PixgateApi drives the native routes", () => {
  it("the public routes are the definition's endpoints, the removed ones its deprecated paths", () => {
    const routes = Api.routes("").map((r) => `${r.method} ${r.path}`)
    expect(routes.sort()).toEqual(endpointsOf(PublicApi, false))
    const removed = new Set(endpointsOf(PublicApi, true).map((e) => e.split(" ")[1]))
    expect([...Api.removed].sort()).toEqual([...removed].sort())
  })

  it("the admin routes are the admin API's endpoints", () => {
    const routes = Admin.routes(Redacted.make("admin-token-0123456789abcdef")).map(
      (r) => `${r.method} ${r.path}`
    )
    expect(routes.sort()).toEqual(endpointsOf(AdminApi, false))
  })

  it("every success schema encodes to itself: no encoding work per request", () => {
    HttpApi.reflect(PixgateApi, {
      onGroup: () => undefined,
      onEndpoint: ({ endpoint }) =>
        expect(encodesToItself(endpoint.successSchema.ast), endpoint.name).toBe(true)
    })
  })

  it("the definition lists each error with its declared status, and every declared error somewhere", () => {
    const members = (ast: SchemaAST.AST): ReadonlyArray<SchemaAST.AST> =>
      SchemaAST.isUnion(ast) ? ast.types.flatMap(members) : [ast]
    const listed = new Map<string, Set<number>>()
    HttpApi.reflect(PixgateApi, {
      onGroup: () => undefined,
      onEndpoint: ({ errors }) => {
        for (const [status, { ast }] of errors)
          for (const member of Option.match(ast, { onNone: () => [], onSome: members })) {
            const tag = errorTagOf(member)
            if (tag !== undefined) listed.set(tag, (listed.get(tag) ?? new Set()).add(status))
          }
      }
    })
    expect(Object.fromEntries([...listed].map(([tag, statuses]) => [tag, [...statuses]]))).toEqual(
      Object.fromEntries([...Status.all].map(([tag, status]) => [tag, [status]]))
    )
  })

  it("reads one status per error from the declarations", () => {
    expect(Object.fromEntries(Status.all)).toEqual({
      InvalidJson: 400,
      Unauthorized: 401,
      Forbidden: 403,
      NotFound: 404,
      Conflict: 409,
      Refused: 409,
      Gone: 410,
      PayloadTooLarge: 413,
      ValidationError: 422,
      IdempotencyMismatch: 422,
      InsufficientBalance: 422,
      RateLimited: 429,
      MethodNotAllowed: 405,
      Internal: 500,
      GatewayUnavailable: 502,
      StorageUnavailable: 503
    })
  })

  it("the contract entry imports no Node built-in, store or driver", () => {
    const src = join(dirname(fileURLToPath(import.meta.url)), "..", "src")
    const seen = new Set<string>()
    const visit = (file: string) => {
      if (seen.has(file)) return
      seen.add(file)
      const text = readFileSync(join(src, file), "utf8")
      for (const [, spec] of text.matchAll(/from "([^"]+)"/g)) {
        expect(spec, `${file} imports ${spec}`).not.toMatch(
          /^node:|^@pixgate\/store|^@effect\/sql|^better-sqlite3|^pg$/
        )
        if (spec.startsWith("./")) visit(spec.slice(2).replace(/\.js$/, ".ts"))
      }
    }
    visit("contract.ts")
    expect(seen).toContain("PixgateApi.ts")
  })
})
