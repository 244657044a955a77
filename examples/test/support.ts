/** What every example test checks over its real socket: the API works through the host. */
import { expect } from "@effect/vitest"
import { Engine } from "@pixgate/core"
import type { Pixgate } from "@pixgate/http"
import * as Contract from "@pixgate/testkit/contract"
import { Effect } from "effect"

/** One request, its status, headers and JSON body (undefined when not JSON). */
export const send = async (
  url: string,
  method: string,
  init: { key?: string; body?: string; type?: string } = {}
) => {
  const headers: Record<string, string> = {}
  if (init.key) headers["x-api-key"] = init.key
  if (init.body !== undefined) headers["content-type"] = init.type ?? "application/json"
  const response = await fetch(url, {
    method,
    headers,
    ...(init.body === undefined ? {} : { body: init.body })
  })
  const text = await response.text()
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {}
  await Contract.check(url, method, { status: response.status, headers: response.headers, text })
  // biome-ignore lint/suspicious/noExplicitAny: bodies are read dynamically
  return { status: response.status, headers: response.headers, text, body: body as any }
}

/** A merchant made through the embedded engine. */
export const merchant = (pixgate: Pick<Pixgate.Pixgate, "runtime">) =>
  pixgate.runtime.runPromise(
    Effect.flatMap(Engine.Engine, (e) => e.admin.createMerchant({ name: "Example Shop" }))
  )

/** The public API through the host, under `api` (e.g. `http://host:port/payments/api`). */
export const exercise = async (api: string, key: string) => {
  expect((await send(`${api}/health`, "GET")).body.status).toBe("ok")
  const charge = await send(`${api}/v1/charges`, "POST", { key, body: JSON.stringify({ amount: 42.5 }) })
  expect(charge.status).toBe(201)
  expect(charge.body).toMatchObject({ amount: 42.5, txid: expect.any(String), qrCode: expect.any(String) })
  const page = await send(`${api}/v1/transactions`, "GET", { key })
  expect(page.body).toMatchObject({ total: 1, data: [{ id: charge.body.transactionId, status: "pending" }] })
  expect((await send(`${api}/v1/charges`, "POST", { key, body: "{oops" })).body).toEqual({
    error: "Invalid JSON body",
    code: "invalid_json"
  })
  expect((await send(`${api}/v1/payouts`, "POST", { body: "{}" })).status).toBe(401)
  expect(
    (await send(`${api}/v1/payouts`, "POST", { key, body: JSON.stringify({ amount: 1 }) })).body.error
  ).toBe("pixKey is required")
  const big = await send(`${api}/v1/charges`, "POST", {
    key,
    body: JSON.stringify({ amount: 1, pad: "x".repeat(70_000) })
  })
  expect(big.status).toBe(413)
  const wrong = await send(`${api}/v1/charges`, "GET", { key })
  expect([wrong.status, wrong.headers.get("allow")]).toEqual([405, "POST"])
  expect((await send(`${api}/v1/nothing`, "GET")).body).toEqual({ error: "Not found", code: "not_found" })
}
