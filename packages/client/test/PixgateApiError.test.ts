/**
 * The client's code union is the contract's: `PixgateApiError.code` is typed by the HTTP
 * package's error declarations, the OpenAPI documents list no code the client does not know,
 * and a code outside the contract (a newer server) arrives as `unexpected_response`.
 */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { OpenApi } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import type { Errors } from "@pixgate/core"
import { AdminApi, ApiErrors, PublicApi } from "@pixgate/http/api"
import { type Code, Pixgate, PixgateApiError } from "../src/index.js"

/** True when `A` and `B` are the same union. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false

const codeEnum = (doc: unknown): ReadonlyArray<string> => {
  const schemas = (
    doc as { components: { schemas: Record<string, { properties: { code: { enum: string[] } } }> } }
  ).components.schemas
  return schemas.Error?.properties.code.enum ?? []
}

describe("PixgateApiError.code", () => {
  it("is the union of the contract's codes (types)", () => {
    const same: Same<PixgateApiError["code"], Code> = true
    const contract: Same<Code, ApiErrors.Code | "unexpected_response"> = true
    // A code of core's errors is one of the client's.
    const refused: Same<Extract<Errors.RefusedCode, Code>, Errors.RefusedCode> = true
    const invalid: Same<Extract<Errors.ValidationCode, Code>, Errors.ValidationCode> = true
    expect([same, contract, refused, invalid]).toEqual([true, true, true, true])
  })

  it("knows every code the OpenAPI documents list", () => {
    const listed = [...codeEnum(OpenApi.fromApi(PublicApi)), ...codeEnum(OpenApi.fromApi(AdminApi))]
    expect(listed).toContain("invalid_amount")
    expect(listed.filter((code) => !ApiErrors.isCode(code))).toEqual([])
    expect(new Set(listed)).toEqual(new Set([...ApiErrors.errorCodes, ...ApiErrors.adminErrorCodes]))
  })

  it("a code outside the contract arrives as unexpected_response, with the server's message", async () => {
    const newer = createServer((_req, res) => {
      res
        .writeHead(422, { "content-type": "application/json" })
        .end(JSON.stringify({ error: "Something new", code: "something_new" }))
    })
    await new Promise<void>((resolve) => newer.listen(0, "127.0.0.1", resolve))
    try {
      const { port } = newer.address() as AddressInfo
      const client = new Pixgate({ apiKey: "sk_test_x", baseUrl: `http://127.0.0.1:${port}` })
      const error = await client.charges.create({ amount: 1 }).then(
        () => undefined,
        (e: unknown) => e
      )
      expect(error).toBeInstanceOf(PixgateApiError)
      const apiError = error as PixgateApiError
      expect([apiError.status, apiError.code, apiError.message]).toEqual([
        422,
        "unexpected_response",
        "Something new"
      ])
    } finally {
      newer.closeAllConnections()
      await new Promise((resolve) => newer.close(resolve))
    }
  })
})
