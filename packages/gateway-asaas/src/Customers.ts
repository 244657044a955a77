/**
 * The Asaas customer a charge is made out to: every Asaas payment needs one. A charge with its
 * payer's name and CPF/CNPJ gets that payer's customer, found by document
 * (`GET /customers?cpfCnpj=`) or registered (`POST /customers`, with Asaas's own e-mail and SMS
 * notices off: the merchant talks to its payers, not Asaas); any other charge gets the settings'
 * `customerId`. Asaas allows duplicate customers, so a registration repeated after a lost
 * answer costs a second record, never money.
 */
import { BankGateway, type Domain } from "@pixgate/core"
import { Effect } from "effect"
import type { AsaasClient } from "./Client.js"
import type { Resolved } from "./Settings.js"
import * as Wire from "./Wire.js"

const refused = (what: string, status: number, body: unknown) =>
  new BankGateway.GatewayFailure({ message: `${what}: ${Wire.describe(status, body)}` })

/** The customer id of `charge`'s payer (found or registered), else the settings' customer. */
export const forCharge = (
  settings: Resolved,
  client: AsaasClient,
  charge: Domain.Transaction
): Effect.Effect<string, BankGateway.GatewayFailure> =>
  Effect.gen(function* () {
    if (charge.clientName === null || charge.clientDocument === null) return settings.customerId
    const cpfCnpj = charge.clientDocument.replace(/\D/g, "")
    const failed = (e: { readonly message: string }) =>
      new BankGateway.GatewayFailure({ message: `Finding the payer's customer: ${e.message}`, cause: e })
    const found = yield* Effect.mapError(
      client.call({ method: "GET", path: "/customers", query: { cpfCnpj, limit: "1" } }),
      failed
    )
    if (found.status !== 200) return yield* refused("Finding the payer's customer", found.status, found.body)
    const existing = Wire.str(Wire.record(Wire.list(found.body).data[0]).id)
    if (existing !== undefined) return existing
    const made = yield* Effect.mapError(
      client.call({
        method: "POST",
        path: "/customers",
        body: { name: charge.clientName, cpfCnpj, notificationDisabled: true }
      }),
      failed
    )
    const id = Wire.str(Wire.record(made.body).id)
    if (made.status !== 200 || id === undefined)
      return yield* refused("Registering the payer's customer", made.status, made.body)
    return id
  })
