/** The outbox and the notification choices in memory (MemoryStore), each operation atomic. */
import { Effect, Option } from "effect"
import type { MailStoreShape, NotificationPrefs, OutboxMail } from "../ports/MailStore.js"
import { type LedgerStoreShape, StoreError } from "../ports/Store.js"

const atomic = <A>(body: () => A): Effect.Effect<A, StoreError> =>
  Effect.try({
    try: body,
    catch: (cause) =>
      new StoreError({ message: cause instanceof Error ? cause.message : String(cause), cause })
  })

/** Empty tables; a message's job goes into the memory store's jobs through `ledger`. */
export const mailOps = (ledger: Pick<LedgerStoreShape, "insertTransactions">): MailStoreShape => {
  const outbox = new Map<string, OutboxMail>()
  const prefs = new Map<string, NotificationPrefs>()
  const settle = (id: string, change: (m: OutboxMail) => OutboxMail) =>
    atomic(() => {
      const mail = outbox.get(id)
      if (mail === undefined || mail.status !== "queued") return false
      outbox.set(id, Object.freeze(change(mail)))
      return true
    })
  return {
    enqueueMail: (mail, job) =>
      Effect.zipRight(
        atomic(() => {
          if (outbox.has(mail.id)) throw new Error(`duplicate mail ${mail.id}`)
          outbox.set(mail.id, Object.freeze({ ...mail }))
        }),
        // One unit in memory: nothing runs between the two writes.
        Effect.asVoid(
          ledger.insertTransactions({
            transactions: [],
            entry: null,
            guard: null,
            effects: { events: [], jobs: [job] }
          })
        )
      ),
    getMail: (id) => atomic(() => Option.fromNullable(outbox.get(id))),
    markMailSent: (id, at) =>
      settle(id, (m) => ({ ...m, status: "sent", text: "", html: "", sentAt: at, updatedAt: at })),
    markMailFailed: (id, at, error, final) =>
      settle(id, (m) => ({
        ...m,
        attempts: m.attempts + 1,
        lastError: error.slice(0, 500),
        updatedAt: at,
        ...(final ? { status: "failed" as const, text: "", html: "" } : {})
      })),
    listMail: (limit, merchantId) =>
      atomic(() =>
        [...outbox.values()]
          .filter((m) => merchantId === undefined || m.merchantId === merchantId)
          .sort((a, b) => (a.id < b.id ? 1 : -1))
          .slice(0, limit)
      ),
    getNotificationPrefs: (userId) => atomic(() => Option.fromNullable(prefs.get(userId))),
    setNotificationPrefs: (p) =>
      atomic(() => {
        prefs.set(p.userId, Object.freeze({ ...p }))
      }),
    listNotificationPrefs: (merchantId) =>
      atomic(() =>
        [...prefs.values()]
          .filter((p) => p.merchantId === merchantId)
          .sort((a, b) => (a.userId < b.userId ? -1 : 1))
      )
  }
}
