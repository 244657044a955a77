/**
 * A route of the simulated Asaas API, and the error answers Asaas documents
 * (`{ errors: [{ code, description }] }`, the same shape for every status).
 */
import type { Reply } from "../Reply.js"
import { type Account, AccountError } from "./Account.js"

/** The simulated Asaas routes, by name: what a fault targets. */
export const asaasRouteNames = [
  "customers.create",
  "customers.list",
  "customers.get",
  "payments.create",
  "payments.list",
  "payments.get",
  "payments.delete",
  "payments.pixQrCode",
  "payments.refund",
  "pix.transaction",
  "transfers.create",
  "transfers.list",
  "transfers.get",
  "webhooks.create",
  "webhooks.list"
] as const

/** A route's name. */
export type AsaasRouteName = (typeof asaasRouteNames)[number]

/** What a handler sees of a request. */
export interface AsaasRequest {
  readonly params: Readonly<Record<string, string>>
  readonly query: URLSearchParams
  /** The parsed JSON body; `undefined` when empty or not JSON. */
  readonly body: unknown
  readonly account: Account
}

/** One route: name, method, path with `:name` parameters, handler. */
export interface AsaasRoute {
  readonly name: AsaasRouteName
  readonly method: "GET" | "POST" | "DELETE"
  readonly path: string
  readonly handle: (request: AsaasRequest) => Reply
}

/** An error answer in Asaas's shape. */
export const errors = (status: number, code: string, description: string): Reply => ({
  status,
  body: { errors: [{ code, description }] }
})

/** The handler with `AccountError`s answered in Asaas's shape. */
export const guarded =
  (handle: (request: AsaasRequest) => Reply) =>
  (request: AsaasRequest): Reply => {
    try {
      return handle(request)
    } catch (error) {
      if (error instanceof AccountError) return errors(error.status, error.code, error.message)
      throw error
    }
  }

/** A string of 1 to `max` characters, or undefined. */
export const text = (value: unknown, max: number): string | undefined =>
  typeof value === "string" && value.length > 0 && value.length <= max ? value : undefined

/** A `YYYY-MM-DD` that is a real day, or undefined. */
export const isoDay = (value: unknown): string | undefined =>
  typeof value === "string" &&
  /^\d{4}-\d{2}-\d{2}$/.test(value) &&
  new Date(`${value}T00:00:00Z`).toISOString().startsWith(value)
    ? value
    : undefined
