/**
 * The notifications a panel user opts into on their account page, sent by e-mail through the
 * outbox: a PIX received of at least an amount they choose, a payout completed or failed, the
 * webhook endpoint failing, and (once MED exists) an infraction opened with its deadline.
 *
 * `notify` is the one hook: whoever sees such a fact calls it with the merchant and the fact,
 * and every user of the merchant who chose it gets one message. Nothing is sent without a
 * `Mailer` (no SMTP configured) or for users removed since. The infraction hook
 * (`{ kind: "infraction.opened", ... }`) is ready for the MED feature to call.
 */
import { Effect, Layer, Option } from "effect"
import type { MerchantId } from "../domain/Domain.js"
import { Mailer, type Fact as MailFact, Notifier } from "../ports/Mail.js"
import { MailStore, type NotificationPrefs } from "../ports/MailStore.js"
import { PanelStore, type StoreError } from "../ports/Store.js"
import * as MailBodies from "./MailBodies.js"
import { enqueue, mailer, mailReady } from "./Team.js"

/** A fact a user may be told of (`Mail.Fact`). */
export type Fact = MailFact

/** No notification chosen. */
export const none = (userId: string, merchantId: MerchantId): NotificationPrefs => ({
  userId,
  merchantId,
  pixReceivedMin: null,
  payouts: false,
  webhookFailing: false,
  infractions: false,
  updatedAt: 0
})

/** A user's choices (none when never chosen). */
export const prefsOf = (
  userId: string,
  merchantId: MerchantId
): Effect.Effect<NotificationPrefs, StoreError, MailStore> =>
  Effect.map(
    Effect.flatMap(MailStore, (s) => s.getNotificationPrefs(userId)),
    Option.getOrElse(() => none(userId, merchantId))
  )

/** Stores a user's choices. */
export const choose = (
  prefs: Omit<NotificationPrefs, "updatedAt">
): Effect.Effect<void, StoreError, MailStore> =>
  Effect.flatMap(MailStore, (s) =>
    Effect.flatMap(
      Effect.clockWith((c) => c.currentTimeMillis),
      (at) => s.setNotificationPrefs({ ...prefs, updatedAt: at })
    )
  )

/** Whether `prefs` ask for `fact`. */
export const wants = (prefs: NotificationPrefs, fact: Fact): boolean => {
  switch (fact.kind) {
    case "pix.received":
      return prefs.pixReceivedMin !== null && fact.amount >= prefs.pixReceivedMin
    case "payout.completed":
    case "payout.failed":
      return prefs.payouts
    case "webhook.failing":
      return prefs.webhookFailing
    case "infraction.opened":
      return prefs.infractions
  }
}

const brl = (cents: number) =>
  new Intl.NumberFormat("pt-BR", { style: "currency", currency: "BRL" })
    .format(cents / 100)
    .replace(/\u00a0/g, " ")

const dateTime = (ms: number) =>
  new Intl.DateTimeFormat("pt-BR", {
    dateStyle: "short",
    timeStyle: "short",
    timeZone: "America/Sao_Paulo"
  }).format(ms)

/** The subject, lines and panel path of a fact's message. */
export const describe = (fact: Fact): { subject: string; lines: ReadonlyArray<string>; path: string } => {
  const d = describeFact(fact)
  return fact.mode === "test" ? { ...d, subject: `${d.subject} (modo de teste)` } : d
}

const describeFact = (fact: Fact): { subject: string; lines: ReadonlyArray<string>; path: string } => {
  switch (fact.kind) {
    case "pix.received":
      return {
        subject: `PIX recebido: ${brl(fact.amount)}`,
        lines: [`Um PIX de ${brl(fact.amount)} foi recebido.`],
        path: `/transactions/${fact.transactionId}`
      }
    case "payout.completed":
      return {
        subject: `Saque concluído: ${brl(fact.amount)}`,
        lines: [`O saque de ${brl(fact.amount)} foi concluído.`],
        path: `/transactions/${fact.transactionId}`
      }
    case "payout.failed":
      return {
        subject: `Saque falhou: ${brl(fact.amount)}`,
        lines: [
          `O saque de ${brl(fact.amount)} falhou e o valor voltou ao saldo.`,
          ...(fact.reason === undefined ? [] : [`Motivo: ${fact.reason}`])
        ],
        path: `/transactions/${fact.transactionId}`
      }
    case "webhook.failing":
      return fact.disabled === true
        ? {
            subject: "Seu endpoint de webhooks foi desativado",
            lines: [
              `As entregas para ${fact.url} falharam ${fact.failures} vezes seguidas e o endpoint foi desativado.`,
              "Os eventos continuam guardados; reative o endpoint no painel para reenviá-los."
            ],
            path: "/webhooks"
          }
        : {
            subject: "Seu endpoint de webhooks está falhando",
            lines: [
              `As entregas para ${fact.url} falharam ${fact.failures} vezes seguidas.`,
              "Os eventos continuam guardados e são reenviados; veja o registro de entregas."
            ],
            path: "/webhooks"
          }
    case "infraction.opened":
      return {
        subject: `Infração aberta (MED): ${brl(fact.amount)}`,
        lines: [
          `Uma notificação de infração foi aberta sobre um PIX de ${brl(fact.amount)}.`,
          `Prazo para responder: ${dateTime(fact.deadline)}.`
        ],
        path: `/transactions/${fact.transactionId}`
      }
  }
}

/**
 * Tells every user of `merchantId` who chose it of `fact`, one message each through the outbox;
 * the number of messages queued (0 without SMTP).
 */
export const notify = (
  merchantId: MerchantId,
  fact: Fact
): Effect.Effect<number, StoreError, MailStore | PanelStore> =>
  Effect.gen(function* () {
    const mail = yield* mailer
    if (Option.isNone(mail) || !(yield* mailReady)) return 0
    const chosen = (yield* Effect.flatMap(MailStore, (s) => s.listNotificationPrefs(merchantId))).filter(
      (p) => wants(p, fact)
    )
    if (chosen.length === 0) return 0
    const users = new Map(
      (yield* Effect.flatMap(PanelStore, (s) => s.listPanelUsers(merchantId)))
        .filter((u) => u.passwordHash !== null)
        .map((u) => [u.id, u])
    )
    const text = describe(fact)
    let queued = 0
    for (const prefs of chosen) {
      const user = users.get(prefs.userId)
      if (user === undefined) continue
      yield* enqueue({
        merchantId,
        kind: `notify.${fact.kind}`,
        to: user.email,
        rendered: MailBodies.notification(mail.value.brand, {
          subject: text.subject,
          lines: text.lines,
          url: `${mail.value.panelUrl}${text.path}`
        })
      })
      queued++
    }
    return queued
  })

/**
 * The engine's `Notifier`: `notify` over the store's outbox and panel users when the store has
 * an outbox, nothing otherwise; a failure to queue is logged, never the caller's.
 */
export const layer: Layer.Layer<Notifier, never, PanelStore> = Layer.effect(
  Notifier,
  Effect.gen(function* () {
    const panel = yield* PanelStore
    const outbox = yield* Effect.serviceOption(MailStore)
    const sender = yield* Effect.serviceOption(Mailer)
    return {
      notify: (merchantId, fact) =>
        Option.isNone(outbox) || Option.isNone(sender)
          ? Effect.void
          : notify(merchantId, fact).pipe(
              Effect.provideService(MailStore, outbox.value),
              Effect.provideService(Mailer, sender.value),
              Effect.provideService(PanelStore, panel),
              Effect.asVoid,
              Effect.catchAllCause((cause) =>
                Effect.logWarning("A notification could not be queued", cause).pipe(
                  Effect.annotateLogs({ merchantId, notification: fact.kind })
                )
              )
            )
    }
  })
)
