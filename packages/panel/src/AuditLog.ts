/**
 * The audit log as people read it: each action's label in pt-BR and English (never the engine's
 * code, `signin.success`, on a page), and the log's CSV in the form of the panel's other
 * exports (`Exports.ts`): by default `;`, UTF-8 with BOM, CRLF, São Paulo date and time columns,
 * Portuguese headers and labels; `international` keeps `,`, ISO-8601 UTC and the codes.
 *
 * An action this table does not know yet (one a later version records) shows its code, so a
 * new action is never hidden.
 */
import type { Domain } from "@pixgate/core"
import { csvField } from "./Exports.js"
import type { Lang } from "./I18n.js"
import { localClock, localDate } from "./I18n.js"

/** Each known action's label: [pt-BR, English]. */
export const actionLabels: Readonly<Record<string, readonly [string, string]>> = {
  "signin.success": ["Entrada no painel", "Signed in"],
  "signin.failure": ["Tentativa de entrada recusada", "Sign-in refused"],
  "signin.throttled": ["Entrada bloqueada por excesso de tentativas", "Sign-in blocked (too many attempts)"],
  "2fa.enrol": ["Verificação em duas etapas ativada", "Two-step verification turned on"],
  "2fa.disable": ["Verificação em duas etapas desativada", "Two-step verification turned off"],
  "2fa.failure": ["Código de verificação recusado", "Verification code refused"],
  "payout.create": ["Saque criado", "Payout created"],
  "refund.create": ["Devolução criada", "Refund created"],
  "infraction.answer": ["Infração MED respondida", "MED infraction answered"],
  "charge.create": ["Cobrança criada", "Charge created"],
  "key.create": ["Chave de API criada", "API key created"],
  "key.revoke": ["Chave de API revogada", "API key revoked"],
  "webhook.set": ["Webhook configurado", "Webhook set"],
  "webhook.delete": ["Webhook removido", "Webhook removed"],
  "webhook.rotate": ["Segredo do webhook trocado", "Webhook secret rotated"],
  "webhook.redeliver": ["Evento reenviado ao webhook", "Event redelivered"],
  "webhook.secret-reveal": ["Segredo do webhook exibido", "Webhook secret shown"],
  "role.change": ["Papel de usuário alterado", "User role changed"],
  "user.invite": ["Usuário convidado", "User invited"],
  "user.remove": ["Usuário removido", "User removed"],
  "session.revoke": ["Sessão encerrada", "Session ended"],
  "password.reset-link": ["Link de redefinição de senha emitido", "Password reset link issued"],
  "password.reset-request": ["Redefinição de senha pedida por e-mail", "Password reset asked by e-mail"],
  "subscription.cancel": ["Assinatura cancelada", "Subscription cancelled"],
  "subscription.retry": ["Nova tentativa de ciclo pedida", "Cycle retry ordered"],
  "password.set": ["Senha definida", "Password set"]
}

/** The label of an action in `lang`; an unknown action's code as is. */
export const actionLabel = (lang: Lang, action: string): string => {
  const pair = actionLabels[action]
  return pair === undefined ? action : pair[lang === "en" ? 1 : 0]
}

/** `br`: the panel's Brazilian export form; `international`: `,`, ISO-8601 UTC, codes. */
export type AuditCsvFormat = "br" | "international"

const headers: Readonly<Record<AuditCsvFormat, ReadonlyArray<string>>> = {
  br: [
    "ID",
    "Data",
    "Hora",
    "Quem",
    "ID do usuário",
    "Ação",
    "Código da ação",
    "Objeto",
    "Endereço",
    "Navegador",
    "Detalhe"
  ],
  international: [
    "id",
    "time_utc",
    "actor",
    "user_id",
    "action",
    "object_id",
    "address",
    "user_agent",
    "detail"
  ]
}

/** The CSV's header line (with its CRLF), after the BOM in the Brazilian form. */
export const csvHeader = (f: AuditCsvFormat): string => {
  const sep = f === "br" ? ";" : ","
  return `${f === "br" ? "\uFEFF" : ""}${headers[f].map((h) => csvField(h, sep, false)).join(sep)}\r\n`
}

/** One entry as a CSV line (with its CRLF). */
export const csvLine = (e: Domain.AuditEntry, f: AuditCsvFormat): string => {
  const values =
    f === "br"
      ? [
          e.id,
          localDate(e.at),
          localClock(e.at),
          e.actor,
          e.userId,
          actionLabel("pt-BR", e.action),
          e.action,
          e.objectId,
          e.address,
          e.userAgent,
          e.detail
        ]
      : [
          e.id,
          new Date(e.at).toISOString(),
          e.actor,
          e.userId,
          e.action,
          e.objectId,
          e.address,
          e.userAgent,
          e.detail
        ]
  const sep = f === "br" ? ";" : ","
  return `${values.map((v) => csvField(v, sep, true)).join(sep)}\r\n`
}
