/**
 * The outbox of e-mail and the users' notification choices (migration 0021). A message is stored
 * with its `mail.send` job in one unit, so a message that was accepted is sent (or given up on,
 * logged) even when the process stops in between; its bodies are cleared once it was sent or
 * given up on, since they may hold a one-time link.
 */
import { Context, type Effect, type Option } from "effect"
import type { Job, MerchantId } from "../domain/Domain.js"
import type { StoreError } from "./Store.js"

/** Where a message is. */
export type MailStatus = "queued" | "sent" | "failed"

/** One message of the outbox. */
export interface OutboxMail {
  readonly id: string
  readonly merchantId: MerchantId | null
  /** What it is, e.g. `team.invite`, `password.reset`, `notify.payout` (logs and metrics). */
  readonly kind: string
  readonly to: string
  readonly subject: string
  /** The bodies; "" once the message was sent or given up on. */
  readonly text: string
  readonly html: string
  readonly status: MailStatus
  readonly attempts: number
  readonly lastError: string | null
  readonly createdAt: number
  readonly updatedAt: number
  readonly sentAt: number | null
}

/** The notifications a panel user chose to get by e-mail. */
export interface NotificationPrefs {
  readonly userId: string
  readonly merchantId: MerchantId
  /** A PIX received of at least this many centavos; null: none. */
  readonly pixReceivedMin: number | null
  /** A payout completed or failed. */
  readonly payouts: boolean
  /** The webhook endpoint started failing. */
  readonly webhookFailing: boolean
  /** An infraction (MED) was opened, with its deadline (kept for when MED exists). */
  readonly infractions: boolean
  readonly updatedAt: number
}

/** The outbox's and the notification choices' operations, each one atomic unit. */
export interface MailStoreShape {
  /** Stores a new `queued` message and the job that sends it (`job.ref` is its id), in one unit. */
  readonly enqueueMail: (mail: OutboxMail, job: Job) => Effect.Effect<void, StoreError>
  /** A message by id. */
  readonly getMail: (id: string) => Effect.Effect<Option.Option<OutboxMail>, StoreError>
  /** Marks a queued message sent at `at` (its bodies cleared); false when it was not queued. */
  readonly markMailSent: (id: string, at: number) => Effect.Effect<boolean, StoreError>
  /**
   * Counts a failed attempt of a queued message with its error; `final` gives up on it
   * (`failed`, bodies cleared). False when it was not queued.
   */
  readonly markMailFailed: (
    id: string,
    at: number,
    error: string,
    final: boolean
  ) => Effect.Effect<boolean, StoreError>
  /** The newest messages first, at most `limit`; of one merchant when given. */
  readonly listMail: (
    limit: number,
    merchantId?: MerchantId
  ) => Effect.Effect<ReadonlyArray<OutboxMail>, StoreError>
  /** A user's choices (none stored: none chosen). */
  readonly getNotificationPrefs: (
    userId: string
  ) => Effect.Effect<Option.Option<NotificationPrefs>, StoreError>
  /** Stores a user's choices in place of the earlier ones. */
  readonly setNotificationPrefs: (prefs: NotificationPrefs) => Effect.Effect<void, StoreError>
  /** The choices of every user of a merchant. */
  readonly listNotificationPrefs: (
    merchantId: MerchantId
  ) => Effect.Effect<ReadonlyArray<NotificationPrefs>, StoreError>
}

/** The outbox and the notification choices (`MailStoreShape`). */
export class MailStore extends Context.Tag("@pixgate/core/Store/MailStore")<MailStore, MailStoreShape>() {}
