/**
 * The panel's catalogue of the engine's messages in Brazilian Portuguese and English: every
 * error `code` the public and admin APIs answer (and the panel's own), the fields a validation
 * failure names, the transaction types and statuses with their grammatical gender ("Cobrança
 * paga", "Saque concluído"), failure reasons and the labels of every field the panel shows. The
 * engine's own English `message` is never shown: a code without an entry gets the generic text
 * of its kind, in the page's language (a test fails for any code the APIs list without one).
 */
import type { Errors } from "@pixgate/core"
import { type Lang, money } from "./I18n.js"

/** What some messages say beside the code: the engine's numbers, read from its error. */
export interface MessageParams {
  /** Centavos: the largest amount, or what is left to refund. */
  readonly cents?: number
  /** The gateway operation that failed. */
  readonly operation?: "charge" | "payout" | "refund"
  /** What was not found. */
  readonly resource?: string
}

type Text = string | ((p: MessageParams, lang: Lang) => string)

/** One message in both languages. */
export interface Entry {
  readonly "pt-BR": Text
  readonly en: Text
}

const e = (pt: Text, en: Text): Entry => ({ "pt-BR": pt, en })

const brl = (p: MessageParams, lang: Lang) => (p.cents === undefined ? "" : ` (${money(lang, p.cents)})`)

const resources: Readonly<Record<string, Entry>> = {
  Transaction: e("Transação", "Transaction"),
  Merchant: e("Conta", "Account"),
  Event: e("Evento", "Event"),
  "API key": e("Chave de API", "API key"),
  "Webhook endpoint": e("Endpoint de webhook", "Webhook endpoint"),
  Chargeback: e("Contestação", "Chargeback"),
  Refund: e("Devolução", "Refund")
}

/** The catalogue, keyed by the engine's `code`. */
export const codes: Readonly<Record<string, Entry>> = {
  // Transport and authentication
  invalid_json: e("O corpo da requisição não é um JSON válido.", "The request body is not valid JSON."),
  bad_request: e("Requisição inválida.", "Bad request."),
  unauthorized: e("Acesso não autorizado: entre de novo.", "Not authorized: please sign in again."),
  not_found: e(
    (p) => {
      const r = p.resource === undefined ? undefined : resources[p.resource]
      return r === undefined ? "Não encontrado." : `${text(r, "pt-BR", p)} não encontrada.`
    },
    (p) => {
      const r = p.resource === undefined ? undefined : resources[p.resource]
      return r === undefined ? "Not found." : `${text(r, "en", p)} not found.`
    }
  ),
  method_not_allowed: e("Método não permitido neste endereço.", "Method not allowed on this address."),
  request_timeout: e("A requisição demorou demais. Tente de novo.", "The request took too long. Try again."),
  idempotency_in_flight: e(
    "Este pedido ainda está sendo processado. Aguarde um instante e recarregue a página.",
    "This request is still being processed. Wait a moment and reload the page."
  ),
  endpoint_removed: e(
    "Este endereço foi removido na versão 2.0.0.",
    "This endpoint was removed in version 2.0.0."
  ),
  payload_too_large: e("O formulário é grande demais.", "The form is too large."),
  too_large: e("O formulário é grande demais.", "The form is too large."),
  headers_too_large: e(
    "Os cabeçalhos da requisição são grandes demais.",
    "The request headers are too large."
  ),
  invalid_text: e(
    "Um texto contém caracteres não permitidos.",
    "A text contains characters that are not allowed."
  ),
  invalid_idempotency_key: e(
    "A chave de idempotência é inválida: ela tem de 1 a 255 caracteres imprimíveis.",
    "The idempotency key is invalid: it has 1 to 255 printable characters."
  ),
  idempotency_mismatch: e(
    "Este formulário já foi enviado com outros dados. Revise e envie de novo.",
    "This form was already sent with other data. Review it and send it again."
  ),
  rate_limited: e(
    "Muitas requisições. Tente de novo em alguns segundos.",
    "Too many requests. Try again in a few seconds."
  ),
  internal_error: e(
    "Erro interno. Nada foi alterado; tente de novo.",
    "Internal error. Nothing was changed; try again."
  ),
  service_unavailable: e(
    "Serviço temporariamente indisponível. Tente de novo em alguns segundos.",
    "Service temporarily unavailable. Try again in a few seconds."
  ),
  // Amounts and fields
  invalid_amount: e(
    "Informe um valor positivo em reais, com no máximo duas casas decimais (por exemplo 12,34).",
    "Enter a positive amount in reais with at most two decimal places (e.g. 12.34)."
  ),
  amount_above_maximum: e(
    (p, l) => `O valor passa do máximo permitido${brl(p, l)}.`,
    (p, l) => `The amount is above the maximum allowed${brl(p, l)}.`
  ),
  amount_below_fee: e(
    "O valor precisa ser maior que a tarifa da cobrança.",
    "The amount must be greater than the charge fee."
  ),
  invalid_client_name: e(
    "O nome precisa ter no máximo 140 caracteres.",
    "The name must have at most 140 characters."
  ),
  invalid_client_doc: e("Informe um CPF ou CNPJ válido.", "Enter a valid CPF or CNPJ."),
  invalid_description: e(
    "A descrição precisa ter no máximo 140 caracteres.",
    "The description must have at most 140 characters."
  ),
  invalid_expires_in: e(
    "A validade precisa ser de 60 segundos a 7 dias.",
    "The expiry must be between 60 seconds and 7 days."
  ),
  invalid_due_date: e("Informe um vencimento válido (AAAA-MM-DD).", "Enter a valid due date (YYYY-MM-DD)."),
  due_date_in_past: e("O vencimento não pode estar no passado.", "The due date cannot be in the past."),
  due_date_required: e(
    "Multa, juros, desconto e abatimento pedem um vencimento.",
    "Fine, interest, discount and abatement need a due date."
  ),
  expires_in_with_due_date: e(
    "Uma cobrança com vencimento não tem validade em segundos.",
    "A due-date charge has no expiry in seconds."
  ),
  client_name_required: e(
    "Uma cobrança com vencimento pede o nome do pagador.",
    "A due-date charge needs the payer's name."
  ),
  client_doc_required: e(
    "Uma cobrança com vencimento pede o CPF ou CNPJ do pagador.",
    "A due-date charge needs the payer's CPF or CNPJ."
  ),
  invalid_days_after_due: e(
    "Os dias de pagamento após o vencimento vão de 0 a 365.",
    "The days payable after the due date go from 0 to 365."
  ),
  invalid_fine: e("A multa é inválida.", "The fine is invalid."),
  invalid_interest: e("Os juros são inválidos.", "The interest is invalid."),
  invalid_discount: e("O desconto é inválido.", "The discount is invalid."),
  invalid_abatement: e("O abatimento é inválido.", "The abatement is invalid."),
  abatement_too_large: e(
    "O abatimento precisa ser menor que o valor da cobrança.",
    "The abatement must be less than the charge amount."
  ),
  discount_too_large: e(
    "O desconto precisa ser menor que o valor da cobrança.",
    "The discount must be less than the charge amount."
  ),
  pix_key_required: e("Informe a chave PIX de destino.", "Enter the destination PIX key."),
  invalid_pix_key: e(
    "Chave PIX inválida: use um e-mail, CPF, CNPJ, telefone com +55 ou chave aleatória.",
    "Invalid PIX key: use an e-mail, CPF, CNPJ, phone with +55 or random key."
  ),
  insufficient_balance: e(
    "Saldo insuficiente: o saldo disponível não cobre o valor mais a tarifa.",
    "Insufficient balance: the available balance does not cover the amount plus the fee."
  ),
  invalid_query: e("Filtro inválido.", "Invalid filter."),
  invalid_recurrence: e("Dados da assinatura inválidos.", "Invalid subscription data."),
  invalid_retry_date: e("Data de nova tentativa inválida.", "Invalid retry date."),
  // The bank
  gateway_error: e(
    (p) =>
      p.operation === "charge"
        ? "Não foi possível criar a cobrança no banco. Nada foi cobrado; tente de novo."
        : p.operation === "refund"
          ? "Não foi possível processar a devolução no banco. Tente de novo."
          : "Não foi possível processar o saque no banco. Tente de novo.",
    (p) =>
      p.operation === "charge"
        ? "The bank could not create the charge. Nothing was charged; try again."
        : p.operation === "refund"
          ? "The bank could not process the refund. Try again."
          : "The bank could not process the payout. Try again."
  ),
  gateway_not_configured: e(
    "O modo de produção ainda não está habilitado para esta conta: nenhum banco está configurado. Fale com o suporte da plataforma.",
    "Live mode is not enabled for this account yet: no bank is configured. Contact the platform's support."
  ),
  bank_rejected: e("O banco recusou a operação.", "The bank rejected the operation."),
  invalid_location: e(
    "O banco respondeu com um endereço de cobrança inválido. Tente de novo.",
    "The bank answered with an invalid charge location. Try again."
  ),
  // The admin API's own
  invalid_field: e("Campo inválido.", "Invalid field."),
  invalid_name: e("O nome precisa ter de 1 a 140 caracteres.", "The name must be 1 to 140 characters."),
  invalid_fee_plan: e("Plano de tarifas inválido.", "Invalid fee plan."),
  invalid_secret: e(
    "O segredo precisa ter de 8 a 256 caracteres ASCII imprimíveis, sem espaço no início ou no fim.",
    "The secret must be 8 to 256 printable ASCII characters, with no space at its start or end."
  ),
  invalid_overlap: e(
    "A sobreposição das chaves vai de 0 a 7 dias.",
    "The key overlap goes from 0 to 7 days."
  ),
  invalid_webhook_url: e(
    "URL de webhook inválida: use um endereço público https (http só no modo de teste).",
    "Invalid webhook URL: use a public https address (http in test mode only)."
  ),
  invalid_email: e("Informe um e-mail válido.", "Enter a valid e-mail address."),
  email_taken: e(
    "Este e-mail já entra no painel de outra conta.",
    "This e-mail already signs in to another account's panel."
  ),
  invalid_recipient: e("O destinatário precisa ser outra conta.", "The recipient must be another account."),
  charge_not_pending: e(
    "Esta cobrança não pode ser paga agora: ela já foi paga, expirou ou passou do último dia de pagamento.",
    "This charge cannot be paid now: it was already paid, expired or is past its last payable day."
  ),
  payout_not_pending: e("Este saque não está mais pendente.", "This payout is no longer pending."),
  sandbox_only: e(
    "Ações de sandbox existem apenas no modo de teste.",
    "Sandbox actions exist in test mode only."
  ),
  chargeback_not_completed: e(
    "Só uma cobrança paga pode ser contestada.",
    "Only a paid charge can be disputed."
  ),
  chargeback_already_open: e(
    "Esta cobrança já tem uma contestação aberta.",
    "This charge already has an open chargeback."
  ),
  chargeback_invalid_amount: e("O valor contestado é inválido.", "The disputed amount is invalid."),
  chargeback_not_open: e("Esta contestação não está aberta.", "This chargeback is not open."),
  infraction_not_answerable: e(
    "Esta infração já foi respondida ou concluída.",
    "This infraction was already answered or concluded."
  ),
  infraction_deadline_passed: e(
    "O prazo para responder a esta infração terminou.",
    "The deadline to answer this infraction has passed."
  ),
  infraction_bank_refused: e(
    "O banco recusou a resposta a esta infração.",
    "The bank refused the answer to this infraction."
  ),
  infraction_answer_unknown: e(
    "Não sabemos ainda se o banco recebeu a resposta; nada foi registrado. Enviar a mesma resposta de novo é seguro.",
    "We do not know yet whether the bank received the answer; nothing was recorded. Sending the same answer again is safe."
  ),
  refund_not_refundable: e(
    "Esta cobrança não pode ser devolvida: ela não está paga ou já foi devolvida.",
    "This charge cannot be refunded: it is not paid or was already refunded."
  ),
  refund_window_closed: e(
    "Uma cobrança pode ser devolvida em até 90 dias após o pagamento.",
    "A charge can be refunded within 90 days of its payment."
  ),
  refund_exceeds_received: e(
    (p, l) => `O valor passa do que falta devolver desta cobrança${brl(p, l)}.`,
    (p, l) => `The amount exceeds what is left to refund of this charge${brl(p, l)}.`
  ),
  // Admin tokens (the admin API and the CLI)
  forbidden: e(
    "O escopo deste token de administração não permite esta operação.",
    "This admin token's scope does not allow this operation."
  ),
  invalid_scope: e(
    "O escopo precisa ser read-only, operator, full ou metrics.",
    "The scope must be read-only, operator, full or metrics."
  ),
  admin_token_name_taken: e(
    "Já existe um token de administração ativo com este nome.",
    "A live admin token already has this name."
  ),
  admin_tokens_unsupported: e(
    "Este armazenamento não guarda tokens de administração.",
    "This store keeps no admin tokens."
  ),
  subscription_not_cancellable: e("Esta assinatura já terminou.", "This subscription has already ended."),
  subscription_not_pending: e(
    "Esta assinatura já foi respondida.",
    "This subscription was already answered."
  ),
  retry_not_allowed: e(
    "A política de retentativas não permite esta nova tentativa.",
    "The retry policy does not allow this retry."
  ),
  recurring_unsupported: e("O banco não oferece Pix Automático.", "The bank does not offer Pix Automático."),
  cycle_not_cancellable: e(
    "Esta cobrança não pode mais ser cancelada.",
    "This cycle charge can no longer be cancelled."
  ),
  // A gateway per merchant
  capability_unavailable: e(
    "O banco desta conta não oferece esta operação (por exemplo, cobranças com vencimento).",
    "This account's bank does not offer this operation (e.g. charges with a due date)."
  ),
  invalid_gateway: e(
    "Este banco não está configurado nesta instalação.",
    "This bank is not configured on this installation."
  ),
  merchant_gateways_unsupported: e(
    "Este armazenamento não guarda um banco por conta.",
    "This store keeps no bank per account."
  ),
  gateway_change_pending: e(
    "Já há uma troca de banco agendada; aguarde ela valer.",
    "A change of bank is already scheduled; wait for it to take effect."
  ),
  webhook_endpoint_disabled: e(
    "O endpoint de webhook está desativado: reative-o, e o que ficou retido é reenviado.",
    "The webhook endpoint is disabled: enable it, and what it held is resent."
  ),
  // The panel's own
  invalid_form_token: e(
    "Este formulário não vale mais: revise e confirme de novo.",
    "This form is no longer valid: review and confirm again."
  ),
  no_endpoint: e(
    "Configure o endereço do webhook antes de enviar um evento de teste.",
    "Set the webhook address before sending a test event."
  )
}

/** The catalogue's entry of a code it is known to hold (a missing one is a defect, caught by the tests). */
const entry = (code: string): Entry => {
  const found = codes[code]
  if (found === undefined) throw new Error(`No message for ${code}`)
  return found
}

/** Generic texts of each kind of error, for a code the catalogue does not know. */
const byTag: Readonly<Record<Errors.PixgateError["_tag"], Entry>> = {
  ValidationError: e("Há um campo inválido.", "A field is invalid."),
  InvalidJson: entry("invalid_json"),
  Unauthorized: entry("unauthorized"),
  Forbidden: entry("forbidden"),
  NotFound: entry("not_found"),
  InsufficientBalance: entry("insufficient_balance"),
  Conflict: entry("idempotency_in_flight"),
  IdempotencyMismatch: entry("idempotency_mismatch"),
  Refused: e("Não é possível no estado atual.", "Not possible in the current state."),
  GatewayUnavailable: entry("gateway_error"),
  StorageUnavailable: entry("service_unavailable"),
  Internal: entry("internal_error")
}

const text = (entry: Entry, lang: Lang, p: MessageParams = {}): string => {
  const t = entry[lang]
  return typeof t === "function" ? t(p, lang) : t
}

/** The catalogue's text of `code` in `lang`, or undefined when it has none. */
export const forCode = (lang: Lang, code: string, params: MessageParams = {}): string | undefined => {
  const entry = codes[code]
  return entry === undefined ? undefined : text(entry, lang, params)
}

/** Reais in an engine message (`1000000.00`) as centavos. */
const centsIn = (message: string): number | undefined => {
  const m = /(\d+)\.(\d{2})\)?$/.exec(message)
  return m === null ? undefined : Number(m[1]) * 100 + Number(m[2])
}

const paramsOf = (error: Errors.PixgateError): MessageParams => {
  switch (error._tag) {
    case "GatewayUnavailable":
      return { operation: error.operation }
    case "NotFound":
      return error.resource === undefined ? {} : { resource: error.resource }
    case "ValidationError": {
      const cents = centsIn(error.message)
      return cents === undefined ? {} : { cents }
    }
    default:
      return {}
  }
}

/** An engine error in `lang`: the catalogue's text of its code, or its kind's. Never the English message. */
export const errorMessage = (lang: Lang, error: Errors.PixgateError): string =>
  forCode(lang, error.code, paramsOf(error)) ?? text(byTag[error._tag], lang)

// ---- Fields ----

/** Labels of every field the panel shows or a validation failure names (`path`). */
export const fields: Readonly<Record<string, Entry>> = {
  id: e("ID", "ID"),
  type: e("Tipo", "Type"),
  status: e("Status", "Status"),
  mode: e("Modo", "Mode"),
  amount: e("Valor", "Amount"),
  fee: e("Tarifa", "Fee"),
  feeAmount: e("Tarifa", "Fee"),
  netAmount: e("Valor líquido", "Net amount"),
  description: e("Descrição", "Description"),
  clientName: e("Nome do pagador ou recebedor", "Payer or recipient name"),
  clientDoc: e("CPF ou CNPJ", "CPF or CNPJ"),
  clientDocument: e("CPF ou CNPJ", "CPF or CNPJ"),
  pixKey: e("Chave PIX", "PIX key"),
  txid: e("Identificador da cobrança (txid)", "Charge identifier (txid)"),
  endToEndId: e("ID fim a fim (E2E)", "End-to-end ID (E2E)"),
  failureReason: e("Motivo da falha", "Failure reason"),
  expiresIn: e("Validade", "Expiry"),
  expiresAt: e("Expira em", "Expires"),
  createdAt: e("Criada em", "Created"),
  updatedAt: e("Atualizada em", "Updated"),
  paidAt: e("Paga em", "Paid"),
  dueDate: e("Vencimento", "Due date"),
  daysAfterDue: e("Dias após o vencimento", "Days after the due date"),
  fine: e("Multa", "Fine"),
  interest: e("Juros", "Interest"),
  discount: e("Desconto", "Discount"),
  abatement: e("Abatimento", "Abatement"),
  startDate: e("Data inicial", "Start date"),
  endDate: e("Data final", "End date"),
  from: e("Data inicial", "Start date"),
  to: e("Data final", "End date"),
  page: e("Página", "Page"),
  limit: e("Itens por página", "Items per page"),
  "Idempotency-Key": e("Chave de idempotência", "Idempotency key"),
  url: e("URL", "URL"),
  secret: e("Segredo", "Secret"),
  overlapSeconds: e("Sobreposição das chaves", "Key overlap"),
  email: e("E-mail", "E-mail"),
  name: e("Nome", "Name"),
  token: e("Formulário", "Form"),
  receivedAmount: e("Valor recebido", "Amount received"),
  counterpartyId: e("Outra conta", "Other account")
}

/** The label of a field (`fine.value` is labelled as `fine`); the path itself when unknown. */
export const fieldLabel = (lang: Lang, path: string): string => {
  const entry = fields[path] ?? fields[path.split(".")[0] ?? path]
  return entry === undefined ? path : text(entry, lang)
}

/**
 * What is wrong with one field of a validation failure, from the engine's detail (its path and
 * English message, read for which rule failed; the English is never shown).
 */
const rules: ReadonlyArray<readonly [RegExp, Entry]> = [
  [/must not be after/, e("não pode ser posterior à data final", "must not be after the end date")],
  [
    /must not be before/,
    e("não pode ser anterior à criação da cobrança", "must not be before the charge was created")
  ],
  [/valid date|date YYYY-MM-DD|YYYY-MM-DD/, e("precisa ser uma data válida", "must be a valid date")],
  [/exceeds the maximum/, e("passa do máximo permitido", "is above the maximum allowed")],
  [/exceeds what is left/, e("passa do que falta devolver", "exceeds what is left to refund")],
  [/greater than the charge fee/, e("precisa ser maior que a tarifa", "must be greater than the fee")],
  [/positive/, e("precisa ser um valor positivo", "must be a positive amount")],
  [/JSON number|number/, e("precisa ser um número", "must be a number")],
  [/NUL/, e("contém caracteres não permitidos", "contains characters that are not allowed")],
  [/at most \d+ characters|characters/, e("é longo demais", "is too long")],
  [/CPF or CNPJ/, e("precisa ser um CPF ou CNPJ válido", "must be a valid CPF or CNPJ")],
  [/is required/, e("é obrigatório", "is required")],
  [/not a valid PIX key/, e("não é uma chave PIX válida", "is not a valid PIX key")],
  [/must be one of/, e("tem um valor não aceito", "has a value that is not accepted")],
  [
    /integer/,
    e("precisa ser um número inteiro no intervalo permitido", "must be a whole number in the allowed range")
  ],
  [/e-mail/, e("precisa ser um e-mail válido", "must be a valid e-mail address")]
]

/** One detail of a validation failure as `Label: what is wrong`, in `lang`. */
export const detailMessage = (lang: Lang, detail: Errors.ErrorDetail): string => {
  const rule = rules.find(([pattern]) => pattern.test(detail.message))
  return `${fieldLabel(lang, detail.path)}: ${rule === undefined ? text(invalidField, lang) : text(rule[1], lang)}`
}

const invalidField = e("valor inválido", "invalid value")

/** The details worth listing under an error's message: one line per field at fault, in `lang`. */
export const detailLines = (lang: Lang, error: Errors.PixgateError): ReadonlyArray<string> => {
  const details = "details" in error && error.details !== undefined ? error.details : []
  const seen = new Set<string>()
  const lines: Array<string> = []
  for (const d of details) {
    const line = detailMessage(lang, d)
    if (seen.has(d.path)) continue
    seen.add(d.path)
    lines.push(line)
  }
  return lines
}

// ---- Types, statuses and reasons ----

/** Transaction types: the noun and its gender. */
const types: Readonly<
  Record<string, { readonly "pt-BR": string; readonly en: string; readonly feminine: boolean }>
> = {
  deposit: { "pt-BR": "Cobrança", en: "Charge", feminine: true },
  withdrawal: { "pt-BR": "Saque", en: "Payout", feminine: false },
  payment: { "pt-BR": "Pagamento", en: "Payment", feminine: false },
  /** A charge's refund (devolução): its statuses agree with it (`Devolução concluída`). */
  refund: { "pt-BR": "Devolução", en: "Refund", feminine: true }
}

/** A transaction type in `lang` (`Cobrança`, `Saque`, `Pagamento`). */
export const typeLabel = (lang: Lang, type: string): string => types[type]?.[lang] ?? type

/** Statuses by the gender of what they qualify: [masculine, feminine]. */
const statuses: Readonly<
  Record<string, { readonly "pt-BR": readonly [string, string]; readonly en: string }>
> = {
  pending: { "pt-BR": ["Pendente", "Pendente"], en: "Pending" },
  completed: { "pt-BR": ["Concluído", "Concluída"], en: "Completed" },
  failed: { "pt-BR": ["Falhou", "Falhou"], en: "Failed" },
  refunded: { "pt-BR": ["Devolvido", "Devolvida"], en: "Refunded" }
}

/**
 * A transaction's status agreeing with its type: a charge is `Paga` when completed, a payout
 * `Concluído`; `Devolvida` / `Devolvido` when refunded.
 */
export const statusLabel = (lang: Lang, type: string, status: string): string => {
  if (lang === "pt-BR" && type === "deposit" && status === "completed") return "Paga"
  if (lang === "en" && type === "deposit" && status === "completed") return "Paid"
  const s = statuses[status]
  if (s === undefined) return status
  return lang === "en" ? s.en : s["pt-BR"][types[type]?.feminine === true ? 1 : 0]
}

/**
 * A status in the transaction list's filter: agreeing with the chosen type, or, with no type
 * chosen, every form the rows show (`Paga / Concluído`), so the filter names what the list,
 * the detail page, the receipt and the CSV write (all from this one table).
 */
export const statusFilterLabel = (lang: Lang, status: string, type?: string | null): string => {
  if (type !== undefined && type !== null && types[type] !== undefined) return statusLabel(lang, type, status)
  const forms = [...new Set(["deposit", "withdrawal"].map((t) => statusLabel(lang, t, status)))]
  return forms.join(" / ")
}

/** Why a transaction or refund failed, in `lang`. */
export const reasons: Readonly<Record<string, Entry>> = {
  expired: e("Expirou sem pagamento", "Expired unpaid"),
  bank_rejected: e("Recusado pelo banco", "Rejected by the bank"),
  amount_mismatch: e("Pago com valor diferente do cobrado", "Paid with an amount other than charged"),
  paid_after_expiry: e("Pago depois de expirar", "Paid after expiry"),
  paid_after_due: e("Pago depois do prazo", "Paid after the last payable day")
}

/** A failure reason in `lang` (the engine's word when the catalogue has none). */
export const reasonLabel = (lang: Lang, reason: string): string => {
  const entry = reasons[reason]
  return entry === undefined ? reason : text(entry, lang)
}
