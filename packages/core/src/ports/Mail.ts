/**
 * Sending e-mail: the `Mailer` port (one message out through SMTP or any other transport) and
 * the settings the messages are written with (sender, the panel's public address for links, the
 * brand). The engine never sends from a request: messages go to the outbox (`MailStore`) and the
 * job worker sends them (`mail.send` jobs, retried with backoff). Without a `Mailer` in context
 * nothing is sent: see docs/operations.md ("E-mail").
 */
import { Context, Data, Effect, type Option } from "effect"
import type { MerchantId, Mode } from "../domain/Domain.js"

/** One message, ready to send: both bodies, in pt-BR. */
export interface MailMessage {
  /** A stable id (the outbox's): the `Message-ID`'s left part, so a resend is recognisable. */
  readonly id: string
  readonly to: string
  readonly subject: string
  readonly text: string
  readonly html: string
}

/**
 * A message that did not go out. `permanent`: the server refused it for good (an SMTP 5xx, a
 * bad address): it is not tried again. Anything else (connection refused, time-out, 4xx) is
 * tried again later.
 */
export class MailError extends Data.TaggedError("MailError")<{
  readonly message: string
  readonly permanent: boolean
}> {}

/** What the messages carry of the merchant's (or platform's) brand. */
export interface MailBrand {
  /** The product's name in subjects and headings (default "Pixgate"). */
  readonly productName: string
  /** The primary colour (buttons, heading bar), a CSS colour. */
  readonly primaryColor: string
  /** A support link shown at the foot, if any. */
  readonly supportUrl?: string | undefined
}

/** The transport and the settings every message is written with. */
export interface MailerShape {
  /** Sends one message; fails with `MailError` (a time-out is a failure that is tried again). */
  readonly send: (message: MailMessage) => Effect.Effect<void, MailError>
  /** The sender (`From`), e.g. `"Loja <no-reply@loja.com.br>"`. */
  readonly from: string
  /** The panel's public address, links are written under it, e.g. `https://pay.loja.com.br/panel`. */
  readonly panelUrl: string
  readonly brand: MailBrand
}

/** The mail transport, when e-mail is configured (`PIXGATE_SMTP_URL`). */
export class Mailer extends Context.Tag("@pixgate/core/Mailer")<Mailer, MailerShape>() {}

/** The brand of messages when none is given. */
export const defaultBrand: MailBrand = { productName: "Pixgate", primaryColor: "#0b6e4f" }

/** A fact a panel user may be told of by e-mail (`Notifications`), in the mode it happened in. */
export type Fact = { readonly mode: Mode } & (
  | { readonly kind: "pix.received"; readonly amount: number; readonly transactionId: string }
  | { readonly kind: "payout.completed"; readonly amount: number; readonly transactionId: string }
  | {
      readonly kind: "payout.failed"
      readonly amount: number
      readonly transactionId: string
      readonly reason?: string | undefined
    }
  | {
      readonly kind: "webhook.failing"
      readonly url: string
      readonly failures: number
      /** The endpoint was disabled (it failed for `webhookDisableAfter`): enable it by hand. */
      readonly disabled?: boolean | undefined
    }
  | {
      readonly kind: "infraction.opened"
      readonly transactionId: string
      readonly amount: number
      /** The deadline to answer (epoch ms). */
      readonly deadline: number
    }
)

/**
 * The notifications hook the engine calls after a change committed (a PIX received, a payout
 * completed or failed, a webhook endpoint marked failing; an infraction opened, once MED
 * exists). It never fails: a message that cannot be queued is logged. The engine provides it
 * (`Notifications.layer`); without an outbox or a `Mailer` it does nothing.
 */
export class Notifier extends Context.Tag("@pixgate/core/Notifier")<
  Notifier,
  { readonly notify: (merchantId: MerchantId, fact: Fact) => Effect.Effect<void> }
>() {}

/** Tells `notifier` of `fact` when there is one (as `Effect.serviceOption(Notifier)` gave it). */
export const tell = (
  notifier: Option.Option<Notifier["Type"]>,
  merchantId: MerchantId,
  fact: Fact
): Effect.Effect<void> => (notifier._tag === "Some" ? notifier.value.notify(merchantId, fact) : Effect.void)
