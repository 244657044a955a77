/**
 * The `mail.send` job: sends one message of the outbox through the `Mailer`. Sent: the message is
 * marked so (its bodies cleared) and the job ends. A failure the server may get over (connection
 * refused, time-out, an SMTP 4xx) is tried again with a growing wait (30 s, 1 min, 2 min, ... up
 * to 6 h; 10 attempts, about 9 hours); a refusal for good (an SMTP 5xx) or the last attempt gives
 * up on it, logged at error. Without a `Mailer` in this process the message stays queued and is
 * looked at again in an hour (see docs/operations.md, "E-mail").
 *
 * Delivery is at least once: when the connection drops after the server took the message and
 * before it said so, the message goes again; it keeps its `Message-ID`, so mail clients show one.
 */
import { Duration, Effect, Option } from "effect"
import { Mailer } from "../ports/Mail.js"
import { MailStore } from "../ports/MailStore.js"
import { type ClaimedJob, JobStore, type StoreError } from "../ports/Store.js"

/** Attempts before a message is given up on. */
export const maxAttempts = 10

/** How long one attempt may take. */
export const attemptTimeout = Duration.seconds(60)

/** The wait before attempt `n + 1` after `n` failed attempts: 30 s doubling, at most 6 h. */
export const backoffMs = (failed: number): number =>
  Math.min(6 * 3_600_000, 30_000 * 2 ** Math.max(0, failed - 1))

/** Without a mailer, a queued message is looked at again after this long. */
export const unconfiguredRetryMs = 3_600_000

/** The job's runner over the outbox and the mailer in context (either may be absent). */
export const make: Effect.Effect<(job: ClaimedJob) => Effect.Effect<void, StoreError>, never, JobStore> =
  Effect.gen(function* () {
    const jobs = yield* JobStore
    const outbox = yield* Effect.serviceOption(MailStore)
    const mailer = yield* Effect.serviceOption(Mailer)
    return (job: ClaimedJob) =>
      Effect.gen(function* () {
        const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
        if (Option.isNone(outbox)) {
          yield* Effect.logWarning("A mail job but no outbox in this store; it runs again later")
          return yield* jobs.retryJob(job.id, now + unconfiguredRetryMs)
        }
        const store = outbox.value
        const found = yield* store.getMail(job.ref)
        if (Option.isNone(found) || found.value.status !== "queued") return yield* jobs.finishJob(job.id)
        const mail = found.value
        const fields = { mailId: mail.id, mailKind: mail.kind, attempt: mail.attempts + 1 }
        if (Option.isNone(mailer)) {
          yield* Effect.logWarning(
            "No SMTP configured (PIXGATE_SMTP_URL): the message stays in the outbox"
          ).pipe(Effect.annotateLogs(fields))
          return yield* jobs.retryJob(job.id, now + unconfiguredRetryMs)
        }
        const sent = yield* mailer.value
          .send({ id: mail.id, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html })
          .pipe(
            Effect.timeoutFail({
              duration: attemptTimeout,
              onTimeout: () => ({ _tag: "MailError" as const, message: "timed out", permanent: false })
            }),
            Effect.either
          )
        const at = yield* Effect.clockWith((c) => c.currentTimeMillis)
        if (sent._tag === "Right") {
          yield* store.markMailSent(mail.id, at)
          yield* Effect.logInfo("Mail sent").pipe(Effect.annotateLogs(fields))
          return yield* jobs.finishJob(job.id)
        }
        const error = sent.left
        const final = error.permanent || mail.attempts + 1 >= maxAttempts
        yield* store.markMailFailed(mail.id, at, error.message, final)
        if (final) {
          yield* Effect.logError("Mail given up on", error.message).pipe(Effect.annotateLogs(fields))
          return yield* jobs.finishJob(job.id)
        }
        const next = at + backoffMs(mail.attempts + 1)
        yield* Effect.logWarning("Mail not sent; it is tried again", error.message).pipe(
          Effect.annotateLogs({ ...fields, nextAttemptAt: new Date(next).toISOString() })
        )
        return yield* jobs.retryJob(job.id, next)
      })
  })
