/**
 * Customers, Pix charges (`/v3/payments` with `billingType: PIX`), their QR codes, removal and
 * refunds, and the Pix transactions that paid them, as Asaas's API v3 documents them.
 */
import { json } from "../Reply.js"
import { asObject } from "../Route.js"
import { centsOf, customerJson, moment, page, paymentJson, pixTransactionJson, statusAt } from "./Model.js"
import { type AsaasRequest, type AsaasRoute, errors, guarded, isoDay, text } from "./Route.js"

/** A 1x1 PNG: the simulator does not draw QR codes (the `payload` is the BR Code). */
const placeholderPng =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="

const createCustomer = ({ body, account }: AsaasRequest) => {
  const input = asObject(body)
  const name = text(input?.name, 200)
  const cpfCnpj = typeof input?.cpfCnpj === "string" ? input.cpfCnpj.replace(/\D/g, "") : ""
  if (name === undefined) return errors(400, "invalid_name", "O campo name deve ser informado.")
  if (cpfCnpj.length !== 11 && cpfCnpj.length !== 14)
    return errors(400, "invalid_cpfCnpj", "O CPF/CNPJ informado é inválido.")
  const externalReference = text(input?.externalReference, 100)
  const customer = account.createCustomer({
    name,
    cpfCnpj,
    notificationDisabled: input?.notificationDisabled === true,
    ...(externalReference === undefined ? {} : { externalReference })
  })
  return json(200, customerJson(customer))
}

const createPayment = ({ body, account }: AsaasRequest) => {
  const input = asObject(body)
  const customer = text(input?.customer, 100)
  if (customer === undefined) return errors(400, "invalid_customer", "O campo customer deve ser informado.")
  if (input?.billingType !== "PIX")
    return errors(400, "invalid_billingType", "O simulador só emite cobranças com billingType PIX.")
  const value = centsOf(input?.value)
  if (value === undefined) return errors(400, "invalid_value", "O campo value deve ser informado.")
  const dueDate = isoDay(input?.dueDate)
  if (dueDate === undefined) return errors(400, "invalid_dueDate", "O campo dueDate deve ser informado.")
  const description = text(input?.description, 500)
  const externalReference = text(input?.externalReference, 100)
  const payment = account.createPayment({
    customer,
    value,
    dueDate,
    ...(description === undefined ? {} : { description }),
    ...(externalReference === undefined ? {} : { externalReference })
  })
  return json(200, paymentJson(payment, account.settings.now()))
}

const listPayments = ({ query, account }: AsaasRequest) => {
  const now = account.settings.now()
  const paidFrom = query.get("paymentDate[ge]")
  const paidTo = query.get("paymentDate[le]")
  const matching = [...account.state.payments.values()].filter(
    (p) =>
      !p.deleted &&
      (query.get("externalReference") === null || p.externalReference === query.get("externalReference")) &&
      (query.get("status") === null || statusAt(p, now) === query.get("status")) &&
      (query.get("customer") === null || p.customer === query.get("customer")) &&
      (paidFrom === null || (p.paymentDate !== undefined && p.paymentDate >= paidFrom)) &&
      (paidTo === null || (p.paymentDate !== undefined && p.paymentDate <= paidTo))
  )
  return json(
    200,
    page(
      matching.reverse().map((p) => paymentJson(p, now)),
      query
    )
  )
}

const refund = ({ params, body, account }: AsaasRequest) => {
  const input = asObject(body) ?? {}
  const value = input.value === undefined || input.value === null ? undefined : centsOf(input.value)
  if (input.value !== undefined && input.value !== null && value === undefined)
    return errors(400, "invalid_value", "O valor do estorno é inválido.")
  const description = text(input.description, 500)
  const payment = account.refund(params.id, {
    ...(value === undefined ? {} : { value }),
    ...(description === undefined ? {} : { description })
  })
  return json(200, paymentJson(payment, account.settings.now()))
}

/** The customer, payment and Pix transaction routes. */
export const paymentRoutes: ReadonlyArray<AsaasRoute> = [
  { name: "customers.create", method: "POST", path: "/v3/customers", handle: guarded(createCustomer) },
  {
    name: "customers.list",
    method: "GET",
    path: "/v3/customers",
    handle: ({ query, account }) => {
      const cpfCnpj = query.get("cpfCnpj")
      const found = [...account.state.customers.values()].filter(
        (c) => cpfCnpj === null || c.cpfCnpj === cpfCnpj
      )
      return json(200, page(found.map(customerJson), query))
    }
  },
  {
    name: "customers.get",
    method: "GET",
    path: "/v3/customers/:id",
    handle: ({ params, account }) => {
      const customer = account.state.customers.get(params.id)
      return customer === undefined
        ? errors(404, "not_found", "Cliente não encontrado.")
        : json(200, customerJson(customer))
    }
  },
  { name: "payments.create", method: "POST", path: "/v3/payments", handle: guarded(createPayment) },
  { name: "payments.list", method: "GET", path: "/v3/payments", handle: listPayments },
  {
    name: "payments.get",
    method: "GET",
    path: "/v3/payments/:id",
    handle: guarded(({ params, account }) =>
      json(200, paymentJson(account.payment(params.id), account.settings.now()))
    )
  },
  {
    name: "payments.delete",
    method: "DELETE",
    path: "/v3/payments/:id",
    handle: guarded(({ params, account }) => {
      account.deletePayment(params.id)
      return json(200, { deleted: true, id: params.id })
    })
  },
  {
    name: "payments.pixQrCode",
    method: "GET",
    path: "/v3/payments/:id/pixQrCode",
    handle: guarded(({ params, account }) => {
      const payment = account.payment(params.id)
      if (payment.deleted || payment.status !== "PENDING")
        return errors(400, "invalid_action", "Esta cobrança não pode mais ser paga.")
      const expires = new Date(`${payment.dueDate}T23:59:59-03:00`)
      expires.setUTCFullYear(expires.getUTCFullYear() + 1)
      return json(200, {
        encodedImage: placeholderPng,
        payload: payment.payload,
        expirationDate: moment(expires)
      })
    })
  },
  { name: "payments.refund", method: "POST", path: "/v3/payments/:id/refund", handle: guarded(refund) },
  {
    name: "pix.transaction",
    method: "GET",
    path: "/v3/pix/transactions/:id",
    handle: ({ params, account }) => {
      const pix = account.state.pixTransactions.get(params.id)
      return pix === undefined
        ? errors(404, "not_found", "Transação não encontrada.")
        : json(200, pixTransactionJson(pix))
    }
  }
]
