/**
 * The route table's matching rules, on the table alone: static paths and `:param` patterns,
 * the path rules of the router it replaced (slashes, escapes, absolute-form, `;`), 405 and
 * HEAD, removed paths, base paths.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Route, Router } from "../src/node.js"

const route = (method: Route.Method, path: `/${string}`) =>
  Route.make(method, path, { body: false }, Route.open, () => Effect.succeed({ status: 200, body: {} }))

const table = Router.make(
  [
    route("GET", "/api/health"),
    route("POST", "/api/v1/charges"),
    route("GET", "/merchants/:merchantId"),
    route("GET", "/merchants/:merchantId/keys"),
    route("POST", "/merchants/:merchantId/keys"),
    route("GET", "/a/:x"),
    route("GET", "/a/b"),
    route("POST", "/c/d"),
    route("GET", "/c/:x")
  ],
  { removed: ["/v1/balance", "/v1/charges/:txid"] }
)

/** What a request resolves to: the route's method and path with its params, or a status. */
const find = (method: string, url: string, router: Router.Router<unknown> = table) => {
  const match = router.find(method, url)
  if (match._tag === "Route") return [`${match.route.method} ${match.route.path}`, match.params]
  if (match._tag === "Refused") return [match.answer.status, match.answer.headers.allow]
  return [404]
}

describe("Router.find", () => {
  it("matches static paths, case-sensitively, tolerating trailing and doubled slashes", () => {
    for (const url of [
      "/api/health",
      "/api/health/",
      "//api//health",
      "/api/health?x=1",
      "/api/health;jsessionid=1"
    ])
      expect(find("GET", url), url).toEqual(["GET /api/health", {}])
    for (const url of ["/API/health", "/api/healthz", "/api", "/", "", "*"])
      expect(find("GET", url), url).toEqual([404])
  })

  it("reads an absolute-form target by its path", () => {
    expect(find("GET", "http://example.com/api/health")).toEqual(["GET /api/health", {}])
    expect(find("GET", "https://example.com//api/health/")).toEqual(["GET /api/health", {}])
  })

  it("decodes escapes, except reserved characters in the path; a malformed escape matches nothing", () => {
    expect(find("GET", "/api/%68ealth")).toEqual(["GET /api/health", {}])
    expect(find("GET", "/api%2Fhealth")).toEqual([404])
    expect(find("GET", "/api/health%ZZ")).toEqual([404])
    expect(find("GET", "/api/v1/%E0%A4%A")).toEqual([404])
  })

  it("decodes parameters once, reserved escapes included", () => {
    expect(find("GET", "/merchants/m%201")).toEqual(["GET /merchants/:merchantId", { merchantId: "m 1" }])
    expect(find("GET", "/merchants/a%2Fb/keys")).toEqual([
      "GET /merchants/:merchantId/keys",
      { merchantId: "a/b" }
    ])
    expect(find("GET", "/merchants/a%25b")).toEqual(["GET /merchants/:merchantId", { merchantId: "a%b" }])
    expect(find("GET", "/merchants/a%2525b")).toEqual(["GET /merchants/:merchantId", { merchantId: "a%25b" }])
    expect(find("GET", "/merchants/%00")).toEqual(["GET /merchants/:merchantId", { merchantId: "\u0000" }])
  })

  it("matches nothing with a parameter over 2048 characters", () => {
    expect(find("GET", `/merchants/${"m".repeat(2048)}`)[0]).toBe("GET /merchants/:merchantId")
    expect(find("GET", `/merchants/${"m".repeat(2049)}`)).toEqual([404])
    expect(find("GET", `/v1/charges/${"t".repeat(2049)}`)).toEqual([404])
  })

  it("prefers a static segment to a parameter, per method", () => {
    expect(find("GET", "/a/b")).toEqual(["GET /a/b", {}])
    expect(find("GET", "/a/z")).toEqual(["GET /a/:x", { x: "z" }])
    expect(find("GET", "/c/d")).toEqual(["GET /c/:x", { x: "d" }])
    expect(find("POST", "/c/d")).toEqual(["POST /c/d", {}])
  })

  it("answers HEAD with the GET route, 405 with Allow for other known methods, 404 for unknown ones", () => {
    expect(find("HEAD", "/api/health")).toEqual(["GET /api/health", {}])
    expect(find("PUT", "/merchants/m1/keys")).toEqual([405, "GET, HEAD, POST"])
    expect(find("HEAD", "/api/v1/charges")).toEqual([405, "POST"])
    expect(find("PROPFIND", "/api/health")).toEqual([405, "GET, HEAD"])
    expect(find("QUERY", "/api/health")).toEqual([404])
  })

  it("refuses removed paths with 410 for every known method", () => {
    for (const method of ["GET", "HEAD", "POST", "DELETE", "PROPFIND"]) {
      expect(find(method, "/v1/balance/")).toEqual([410, undefined])
      expect(find(method, "/v1/charges/tx_1?x=1")).toEqual([410, undefined])
    }
    expect(find("QUERY", "/v1/balance")).toEqual([404])
  })

  it("serves under a base path only", () => {
    const mounted = Router.make([route("GET", "/api/health")], { basePath: "/payments/" })
    expect(find("GET", "/payments/api/health", mounted)).toEqual(["GET /api/health", {}])
    expect(find("GET", "/payments//api/health", mounted)).toEqual(["GET /api/health", {}])
    for (const url of ["/api/health", "/paymentsx/api/health", "/payments", "/payments?x=1"])
      expect(find("GET", url, mounted), url).toEqual([404])
  })
})
