/**
 * Transfers to Pix keys (`/v3/transfers`) and webhook configurations (`/v3/webhooks`), as
 * Asaas's API v3 documents them.
 */
import { json } from "../Reply.js"
import { asObject } from "../Route.js"
import { centsOf, day, newId, page, transferJson, type WebhookConfig, webhookJson } from "./Model.js"
import { type AsaasRequest, type AsaasRoute, errors, guarded, text } from "./Route.js"

/** The key types Asaas takes, and what each looks like (phone: area code and number). */
const keyPatterns: Readonly<Record<string, RegExp>> = {
  CPF: /^\d{11}$/,
  CNPJ: /^\d{14}$/,
  EMAIL: /^[^@\s]+@[^@\s]+\.[^@\s]+$/,
  PHONE: /^\d{10,11}$/,
  EVP: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
}

const createTransfer = ({ body, account }: AsaasRequest) => {
  const input = asObject(body)
  const value = centsOf(input?.value)
  if (value === undefined) return errors(400, "invalid_value", "O campo value deve ser informado.")
  const type = typeof input?.pixAddressKeyType === "string" ? input.pixAddressKeyType : ""
  const key = text(input?.pixAddressKey, 77)
  const pattern = keyPatterns[type]
  if (pattern === undefined)
    return errors(
      400,
      "invalid_pixAddressKeyType",
      "Informe pixAddressKeyType: CPF, CNPJ, EMAIL, PHONE ou EVP."
    )
  if (key === undefined || !pattern.test(key))
    return errors(400, "invalid_pixAddressKey", "A chave Pix informada é inválida para o tipo.")
  if (input?.operationType !== undefined && input.operationType !== "PIX")
    return errors(400, "invalid_operationType", "Transferências para chave Pix são PIX.")
  const description = text(input?.description, 140)
  const externalReference = text(input?.externalReference, 100)
  const transfer = account.createTransfer({
    value,
    pixAddressKey: key,
    pixAddressKeyType: type,
    ...(description === undefined ? {} : { description }),
    ...(externalReference === undefined ? {} : { externalReference })
  })
  return json(200, transferJson(transfer))
}

const listTransfers = ({ query, account }: AsaasRequest) => {
  const from = query.get("dateCreated[ge]")
  const to = query.get("dateCreated[le]")
  const matching = [...account.state.transfers.values()].filter(
    (t) => (from === null || day(t.dateCreated) >= from) && (to === null || day(t.dateCreated) <= to)
  )
  return json(200, page(matching.reverse().map(transferJson), query))
}

const createWebhook = ({ body, account }: AsaasRequest) => {
  const input = asObject(body)
  const url = text(input?.url, 500)
  if (url === undefined || !URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol))
    return errors(400, "invalid_url", "Informe uma URL http ou https.")
  const events = Array.isArray(input?.events)
    ? input.events.filter((e): e is string => typeof e === "string")
    : []
  if (events.length === 0) return errors(400, "invalid_events", "Informe ao menos um evento.")
  if (account.state.webhooks.size >= 10)
    return errors(400, "invalid_action", "Limite de 10 webhooks atingido.")
  const authToken = text(input?.authToken, 255)
  const email = text(input?.email, 200)
  const webhook: WebhookConfig = {
    id: newId("wh"),
    name: text(input?.name, 100) ?? "webhook",
    url,
    events,
    sendType: input?.sendType === "NON_SEQUENTIALLY" ? "NON_SEQUENTIALLY" : "SEQUENTIALLY",
    enabled: input?.enabled !== false,
    interrupted: input?.interrupted === true,
    failures: 0,
    ...(authToken === undefined ? {} : { authToken }),
    ...(email === undefined ? {} : { email })
  }
  account.state.webhooks.set(webhook.id, webhook)
  return json(200, webhookJson(webhook))
}

/** The transfer and webhook routes. */
export const transferRoutes: ReadonlyArray<AsaasRoute> = [
  { name: "transfers.create", method: "POST", path: "/v3/transfers", handle: guarded(createTransfer) },
  { name: "transfers.list", method: "GET", path: "/v3/transfers", handle: listTransfers },
  {
    name: "transfers.get",
    method: "GET",
    path: "/v3/transfers/:id",
    handle: guarded(({ params, account }) => json(200, transferJson(account.transfer(params.id))))
  },
  { name: "webhooks.create", method: "POST", path: "/v3/webhooks", handle: createWebhook },
  {
    name: "webhooks.list",
    method: "GET",
    path: "/v3/webhooks",
    handle: ({ query, account }) =>
      json(200, page([...account.state.webhooks.values()].map(webhookJson), query))
  }
]
