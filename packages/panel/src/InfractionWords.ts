/**
 * The words of the MED infractions' pages (issue 36), kept beside them rather than in the shared
 * dictionary (`I18n.ts` holds only the navigation's label): pt-BR first, English for the panel's
 * English view.
 */
import type { Lang } from "./I18n.js"

const pt = {
  infractions: "Infrações (MED)",
  intro:
    "O banco do pagador pode abrir uma infração (MED) contra um PIX recebido. O valor pode ficar bloqueado enquanto o banco analisa; responda antes do prazo.",
  noInfractions: "Nenhuma infração neste modo.",
  infraction: "Infração",
  charge: "Cobrança",
  type: "Tipo",
  fraud: "Fraude",
  operational_failure: "Falha operacional",
  reason: "Motivo alegado",
  claimed: "Valor contestado",
  blocked: "Bloqueado",
  returned: "Devolvido",
  openedAt: "Aberta em",
  deadline: "Prazo para responder",
  bankId: "Identificador no banco",
  open: "Aberta",
  defended: "Contestada",
  accepted: "Aceita",
  rejected: "Rejeitada (a seu favor)",
  cancelled: "Cancelada",
  dueInDays: (n: number) => (n === 1 ? "vence em 1 dia" : `vence em ${n} dias`),
  dueToday: "vence em menos de 1 dia",
  deadlinePassed: "prazo encerrado",
  answerTitle: "Responder",
  answerHint:
    "Aceitar devolve o valor ao pagador. Contestar envia sua defesa ao banco, que decide. A resposta é única.",
  contest: "Contestar (enviar defesa)",
  accept: "Aceitar (devolver o valor)",
  analysis: "Sua resposta",
  justification: "Justificativa",
  justificationHint: "até 2.000 caracteres: entrega, nota fiscal, conversa com o cliente",
  send: "Enviar resposta",
  answered: "Resposta enviada.",
  yourAnswer: "Resposta enviada",
  answeredAt: "Respondida em",
  closedAnswer:
    "O prazo para responder terminou. Não é mais possível aceitar ou contestar esta infração; o banco concluirá a análise.",
  notAllowed: "Só quem tem o papel de proprietário ou financeiro pode responder a uma infração.",
  outcome: "Resultado",
  outcomeOpen: "Aguardando sua resposta.",
  outcomeDefended: "Defesa enviada: o banco está analisando.",
  outcomeAccepted: "A infração foi aceita: o valor devolvido ao pagador aparece acima.",
  outcomeRejected: "O banco decidiu a seu favor: o bloqueio foi liberado.",
  outcomeCancelled: "O banco do pagador cancelou a infração: o bloqueio foi liberado.",
  overviewNotice: (n: number) =>
    n === 1
      ? "Há 1 infração (MED) aberta aguardando resposta."
      : `Há ${n} infrações (MED) abertas aguardando resposta.`,
  overviewLink: "Ver infrações",
  returnsTitle: "Devoluções por MED",
  returnId: "Identificador da devolução",
  nature: "Natureza",
  MED_FRAUDE: "MED por fraude",
  MED_OPERACIONAL: "MED por falha operacional",
  fromBlocked: "Do valor bloqueado",
  fromAvailable: "Do saldo disponível",
  returnedAt: "Devolvida em",
  see: "Ver"
}

/** The infractions' words. */
export type InfractionWords = typeof pt

const en: InfractionWords = {
  infractions: "Infractions (MED)",
  intro:
    "The payer's bank may open an infraction (MED) against a PIX you received. The amount may be blocked while the bank analyses it; answer before the deadline.",
  noInfractions: "No infractions in this mode.",
  infraction: "Infraction",
  charge: "Charge",
  type: "Type",
  fraud: "Fraud",
  operational_failure: "Operational failure",
  reason: "Reason given",
  claimed: "Amount claimed",
  blocked: "Blocked",
  returned: "Returned",
  openedAt: "Opened at",
  deadline: "Deadline to answer",
  bankId: "Bank's id",
  open: "Open",
  defended: "Contested",
  accepted: "Accepted",
  rejected: "Rejected (in your favour)",
  cancelled: "Cancelled",
  dueInDays: (n: number) => (n === 1 ? "due in 1 day" : `due in ${n} days`),
  dueToday: "due in less than 1 day",
  deadlinePassed: "deadline passed",
  answerTitle: "Answer",
  answerHint:
    "Accepting returns the amount to the payer. Contesting sends your defence to the bank, which decides. You answer once.",
  contest: "Contest (send a defence)",
  accept: "Accept (return the amount)",
  analysis: "Your answer",
  justification: "Justification",
  justificationHint: "up to 2,000 characters: delivery, invoice, talks with the customer",
  send: "Send answer",
  answered: "Answer sent.",
  yourAnswer: "Answer sent",
  answeredAt: "Answered at",
  closedAnswer:
    "The deadline to answer has passed. This infraction can no longer be accepted or contested; the bank will conclude its analysis.",
  notAllowed: "Only owners and finance users can answer an infraction.",
  outcome: "Outcome",
  outcomeOpen: "Waiting for your answer.",
  outcomeDefended: "Defence sent: the bank is analysing it.",
  outcomeAccepted: "The infraction was accepted: the amount returned to the payer is shown above.",
  outcomeRejected: "The bank decided in your favour: the block was released.",
  outcomeCancelled: "The payer's bank cancelled the infraction: the block was released.",
  overviewNotice: (n: number) =>
    n === 1
      ? "1 MED infraction is open and waiting for your answer."
      : `${n} MED infractions are open and waiting for your answer.`,
  overviewLink: "See infractions",
  returnsTitle: "MED returns",
  returnId: "Return id",
  nature: "Nature",
  MED_FRAUDE: "MED for fraud",
  MED_OPERACIONAL: "MED for an operational failure",
  fromBlocked: "From the blocked amount",
  fromAvailable: "From the available balance",
  returnedAt: "Returned at",
  see: "See"
}

/** The infractions' words in a language. */
export const infractionWords = (lang: Lang): InfractionWords => (lang === "en" ? en : pt)
