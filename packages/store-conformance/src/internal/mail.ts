/** The e-mail outbox, notification choices and the team's operations (migration 0021). */
import { describe, expect } from "@effect/vitest"
import { type Audit, type Domain, Ids, MailStore, Store, TeamStore } from "@pixgate/core"
import { Effect, Option } from "effect"
import { baseTime } from "../fixtures.js"
import { and, freshMerchant, inJobWindow, merchantStore, type Suite } from "./helpers.js"

/** The concerns this part of the suite exercises. */
const store = merchantStore.pipe(
  and(Store.PanelStore),
  and(Store.JobStore),
  and(MailStore.MailStore),
  and(TeamStore.TeamStore)
)

/** What this part needs. */
export type MailParts =
  | Store.MerchantStore
  | Store.PanelStore
  | Store.JobStore
  | MailStore.MailStore
  | TeamStore.TeamStore

const mail = (merchantId: Domain.MerchantId | null, at: number): MailStore.OutboxMail => ({
  id: Ids.newId("mail", at),
  merchantId,
  kind: "team.invite",
  to: `${Ids.randomBase62(8).toLowerCase()}@example.com`,
  subject: "Convite · Pixgate",
  text: "texto com link https://panel.example/invite/abc",
  html: "<p>html</p>",
  status: "queued",
  attempts: 0,
  lastError: null,
  createdAt: at,
  updatedAt: at,
  sentAt: null
})

const user = (merchantId: Domain.MerchantId, role: Domain.PanelRole = "viewer"): Domain.PanelUser => ({
  id: Ids.newId("usr", baseTime),
  merchantId,
  email: `${Ids.randomBase62(10).toLowerCase()}@example.com`,
  passwordHash: null,
  role,
  createdAt: baseTime,
  updatedAt: baseTime
})

/** The mail outbox: storing, claiming, sending and failing. */
const mailOutbox = (it: Suite<MailParts>) => {
  it.effect("a message is stored with its mail.send job in one unit, and claimed once", () =>
    inJobWindow((base) =>
      Effect.gen(function* () {
        const s = yield* store
        const merchant = yield* freshMerchant()
        const m = mail(merchant.id, base)
        yield* s.enqueueMail(m, { id: Ids.jobId(base), kind: "mail.send", ref: m.id, runAt: base })
        expect(Option.getOrThrow(yield* s.getMail(m.id))).toEqual(m)
        const claimed = yield* s.claimDueJobs(base, 10, base + 1000, "timers")
        expect(claimed.map((j) => [j.kind, j.ref])).toEqual([["mail.send", m.id]])
        expect(yield* s.claimDueJobs(base, 10, base + 1000, "timers")).toEqual([])
        const listed = yield* s.listMail(10, merchant.id)
        expect(listed.map((x) => x.id)).toEqual([m.id])
      })
    )
  )

  it.effect("sent clears the bodies once; failures count, the last one gives up", () =>
    Effect.gen(function* () {
      const s = yield* store
      const merchant = yield* freshMerchant()
      const a = mail(merchant.id, baseTime)
      const b = mail(merchant.id, baseTime + 1)
      for (const m of [a, b])
        yield* s.enqueueMail(m, { id: Ids.jobId(baseTime), kind: "mail.send", ref: m.id, runAt: baseTime })
      expect(yield* s.markMailSent(a.id, baseTime + 10)).toBe(true)
      expect(yield* s.markMailSent(a.id, baseTime + 11)).toBe(false)
      const sent = Option.getOrThrow(yield* s.getMail(a.id))
      expect([sent.status, sent.text, sent.html, sent.sentAt]).toEqual(["sent", "", "", baseTime + 10])
      expect(yield* s.markMailFailed(b.id, baseTime + 20, "ECONNREFUSED", false)).toBe(true)
      const once = Option.getOrThrow(yield* s.getMail(b.id))
      expect([once.status, once.attempts, once.lastError, once.text]).toEqual([
        "queued",
        1,
        "ECONNREFUSED",
        b.text
      ])
      expect(yield* s.markMailFailed(b.id, baseTime + 30, "550 no such user", true)).toBe(true)
      const gave = Option.getOrThrow(yield* s.getMail(b.id))
      expect([gave.status, gave.attempts, gave.lastError, gave.html]).toEqual([
        "failed",
        2,
        "550 no such user",
        ""
      ])
      expect(yield* s.markMailFailed(b.id, baseTime + 40, "again", true)).toBe(false)
      expect((yield* s.listMail(10, merchant.id)).map((m) => m.id)).toEqual([b.id, a.id])
    })
  )
}

/** Notification choices. */
const notificationChoices = (it: Suite<MailParts>) => {
  it.effect("notification choices: none until chosen, replaced, listed per merchant", () =>
    Effect.gen(function* () {
      const s = yield* store
      const merchant = yield* freshMerchant()
      const other = yield* freshMerchant()
      const u = user(merchant.id)
      const v = user(other.id)
      for (const x of [u, v])
        yield* s.invitePanelUser(x, {
          tokenHash: Ids.randomBase62(64),
          expiresAt: baseTime + 1,
          createdAt: baseTime
        })
      expect(Option.isNone(yield* s.getNotificationPrefs(u.id))).toBe(true)
      const prefs: MailStore.NotificationPrefs = {
        userId: u.id,
        merchantId: merchant.id,
        pixReceivedMin: 10_000,
        payouts: true,
        webhookFailing: false,
        infractions: true,
        updatedAt: baseTime
      }
      yield* s.setNotificationPrefs(prefs)
      yield* s.setNotificationPrefs({
        ...prefs,
        pixReceivedMin: null,
        webhookFailing: true,
        updatedAt: baseTime + 1
      })
      yield* s.setNotificationPrefs({ ...prefs, userId: v.id, merchantId: other.id })
      expect(Option.getOrThrow(yield* s.getNotificationPrefs(u.id))).toEqual({
        ...prefs,
        pixReceivedMin: null,
        webhookFailing: true,
        updatedAt: baseTime + 1
      })
      expect((yield* s.listNotificationPrefs(merchant.id)).map((p) => p.userId)).toEqual([u.id])
    })
  )
}

/** Removing a user. */
const removingUsers = (it: Suite<MailParts>) => {
  it.effect("removing a user ends their sessions and links at once; another merchant's user stays", () =>
    Effect.gen(function* () {
      const s = yield* store
      const merchant = yield* freshMerchant()
      const other = yield* freshMerchant()
      const u = user(merchant.id)
      const tokenHash = Ids.randomBase62(64)
      yield* s.invitePanelUser(u, { tokenHash, expiresAt: baseTime + 10_000, createdAt: baseTime })
      const idHash = Ids.randomBase62(64)
      yield* s.createPanelSession({
        idHash,
        userId: u.id,
        merchantId: merchant.id,
        createdAt: baseTime,
        lastSeenAt: baseTime,
        expiresAt: baseTime + 100_000,
        revokedAt: null,
        address: null,
        userAgent: null,
        secondFactorAt: null
      })
      yield* s.setNotificationPrefs({
        userId: u.id,
        merchantId: merchant.id,
        pixReceivedMin: null,
        payouts: true,
        webhookFailing: false,
        infractions: false,
        updatedAt: baseTime
      })
      expect(yield* s.removePanelUser(other.id, u.id)).toBe(false)
      expect(Option.isSome(yield* s.touchPanelSession(idHash, baseTime + 1, 60_000, 0))).toBe(true)
      expect(yield* s.removePanelUser(merchant.id, u.id)).toBe(true)
      expect(Option.isNone(yield* s.touchPanelSession(idHash, baseTime + 2, 60_000, 0))).toBe(true)
      expect(Option.isNone(yield* s.getPanelUser(u.id))).toBe(true)
      expect(Option.isNone(yield* s.findPanelUser(u.email))).toBe(true)
      expect(Option.isNone(yield* s.usePanelInvite(tokenHash, "scrypt$x", baseTime + 3))).toBe(true)
      expect(yield* s.listPanelUsers(merchant.id)).toEqual([])
      expect(yield* s.removePanelUser(merchant.id, u.id)).toBe(false)
      // The address is free again: it may be invited anew.
      const again = yield* s.invitePanelUser(
        { ...u, id: Ids.newId("usr", baseTime + 5) },
        { tokenHash: Ids.randomBase62(64), expiresAt: baseTime + 10_000, createdAt: baseTime }
      )
      expect(again._tag).toBe("Invited")
    })
  )
}

/** Last sign-ins from the audit log. */
const lastSignIns = (it: Suite<MailParts>) => {
  it.effect("last sign-ins come from the audit log, newest per user", () =>
    Effect.gen(function* () {
      const s = yield* store
      const merchant = yield* freshMerchant()
      const u = user(merchant.id)
      const v = user(merchant.id)
      const at = (n: number, userId: string | null, action: Audit.AuditAction) =>
        s.appendAudit({
          id: Ids.newId("aud", baseTime + n),
          merchantId: merchant.id,
          at: baseTime + n,
          userId,
          actor: "x@example.com",
          action,
          objectId: null,
          address: null,
          userAgent: null,
          detail: null
        })
      yield* at(1, u.id, "signin.success")
      yield* at(5, u.id, "signin.success")
      yield* at(9, u.id, "signin.failure")
      yield* at(3, v.id, "signin.success")
      yield* at(4, null, "signin.success")
      const last = yield* s.lastSignIns(merchant.id)
      expect(Object.fromEntries(last)).toEqual({ [u.id]: baseTime + 5, [v.id]: baseTime + 3 })
    })
  )
}

/** Registers the outbox and team tests. */
export const mailAndTeam = (it: Suite<MailParts>) =>
  describe("mail outbox and team", () => {
    mailOutbox(it)
    notificationChoices(it)
    removingUsers(it)
    lastSignIns(it)
  })
