/**
 * The spec's resource tables as assertions: every field present with its type, no field missing,
 * none added. Written from the spec, not from the implementation.
 */
import { expect } from "@effect/vitest"
import type { Answer } from "@pixgate/testkit/harness"

type Kind = "string" | "number" | "integer" | "nullable string" | "iso" | "object" | "array"

const isIso = (v: unknown) =>
  typeof v === "string" &&
  /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/.test(v) &&
  !Number.isNaN(Date.parse(v))

const check = (value: unknown, kind: Kind): boolean => {
  switch (kind) {
    case "string":
      return typeof value === "string"
    case "number":
      return typeof value === "number" && Number.isFinite(value)
    case "integer":
      return Number.isInteger(value)
    case "nullable string":
      return value === null || typeof value === "string"
    case "iso":
      return isIso(value)
    case "object":
      return typeof value === "object" && value !== null && !Array.isArray(value)
    case "array":
      return Array.isArray(value)
  }
}

/** Asserts `value` has exactly these fields with these kinds. */
export const expectShape = (value: unknown, fields: Record<string, Kind>) => {
  expect(typeof value === "object" && value !== null).toBe(true)
  expect(Object.keys(value as object).sort()).toEqual(Object.keys(fields).sort())
  for (const [field, kind] of Object.entries(fields)) {
    expect(check((value as Record<string, unknown>)[field], kind), `${field} should be ${kind}`).toBe(true)
  }
}

/** Fees object. */
export const expectFees = (fees: unknown) =>
  expectShape(fees, {
    feeAmount: "number",
    gatewayFeeAmount: "number",
    adminMargin: "number",
    netAmount: "number"
  })

/** Transaction (element of `data`). */
export const expectTransaction = (tx: unknown) => {
  expectShape(tx, {
    id: "string",
    type: "string",
    status: "string",
    amount: "number",
    clientName: "nullable string",
    clientDocument: "nullable string",
    pixKey: "nullable string",
    txid: "nullable string",
    endToEndId: "nullable string",
    feeAmount: "number",
    gatewayFeeAmount: "number",
    netAmount: "number",
    createdAt: "iso",
    updatedAt: "iso"
  })
  const t = tx as { type: string; status: string }
  expect(["deposit", "withdrawal", "payment"]).toContain(t.type)
  expect(["pending", "completed", "failed", "refunded"]).toContain(t.status)
}

/** Charge creation result. */
export const expectCharge = (body: unknown) => {
  expectShape(body, {
    transactionId: "string",
    txid: "string",
    status: "string",
    qrCode: "string",
    qrCodeBase64: "string",
    expiresAt: "iso",
    amount: "number",
    fees: "object"
  })
  expect((body as { status: string }).status).toBe("pending")
  expectFees((body as { fees: unknown }).fees)
}

/** Payout creation result. */
export const expectPayout = (body: unknown) => {
  expectShape(body, {
    transactionId: "string",
    endToEndId: "string",
    status: "string",
    amount: "number",
    fees: "object"
  })
  expect((body as { status: string }).status).toBe("pending")
  expectFees((body as { fees: unknown }).fees)
}

/** Pagination envelope with Transaction elements. */
export const expectPage = (body: unknown) => {
  expectShape(body, { data: "array", total: "integer", page: "integer", limit: "integer", pages: "integer" })
  for (const tx of (body as { data: Array<unknown> }).data) expectTransaction(tx)
}

/** Health result. */
export const expectHealth = (body: unknown) => {
  expectShape(body, { status: "string", timestamp: "iso" })
  expect((body as { status: string }).status).toBe("ok")
}

/** An error answer: status, the docs/decisions.md body, the message (and code) given. */
export const expectError = (answer: Answer, status: number, message: string, code?: string) => {
  expect(answer.status, answer.text).toBe(status)
  expect(answer.headers.get("content-type")).toMatch(/^application\/json/)
  const fields = Object.keys(answer.body).sort()
  expect(fields.filter((f) => f !== "details")).toEqual(["code", "error"])
  expect(answer.body.error).toBe(message)
  expect(answer.body.code).toMatch(/^[a-z][a-z0-9_]*$/)
  if (code !== undefined) expect(answer.body.code).toBe(code)
  if (answer.body.details !== undefined) {
    expect(Array.isArray(answer.body.details)).toBe(true)
    for (const d of answer.body.details) expectShape(d, { path: "string", message: "string" })
  }
}
