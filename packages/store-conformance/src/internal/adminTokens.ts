/** The admin tokens and the admin audit log (migration 0016). */
import { describe, expect } from "@effect/vitest"
import { AdminAccess, AdminTokenStore, Ids } from "@pixgate/core"
import { Effect, Option } from "effect"
import { baseTime } from "../fixtures.js"
import type { Suite } from "./helpers.js"

const store = AdminTokenStore.AdminTokenStore

/** A new token record with a fresh name and hash. */
const token = (overrides: Partial<AdminAccess.AdminToken> = {}, at = baseTime): AdminAccess.AdminToken => {
  const raw = AdminAccess.newAdminToken()
  return {
    id: Ids.newId("atk", at),
    name: `t-${Ids.randomBase62(12)}`,
    scope: "read-only",
    hash: AdminAccess.hashAdminToken(raw),
    hint: AdminAccess.hintOf(raw),
    createdAt: at,
    revokedAt: null,
    lastUsedAt: null,
    ...overrides
  }
}

const entry = (at: number, operation = "createMerchant"): AdminAccess.AdminAuditEntry => ({
  id: Ids.newId("aad", at),
  at,
  actor: "deploy",
  tokenId: null,
  operation,
  method: "POST",
  path: "/admin/merchants",
  status: 201,
  objectId: null
})

/** Storing, listing and revoking tokens, and whether any is live. */
const storingAndRevoking = (it: Suite<AdminTokenStore.AdminTokenStore>) => {
  it.effect("stores a token by its hash, lists it, and keeps one live token per name", () =>
    Effect.gen(function* () {
      const s = yield* store
      const first = token({ scope: "operator" })
      expect(yield* s.insertAdminToken(first)).toBe("created")
      expect(yield* s.findAdminToken(first.hash)).toEqual(Option.some(first))
      expect(yield* s.findAdminToken(AdminAccess.hashAdminToken("pxa_unknown"))).toEqual(Option.none())
      expect(yield* s.insertAdminToken(token({ name: first.name }))).toBe("name_taken")
      const listed = yield* s.listAdminTokens()
      expect(listed.filter((t) => t.name === first.name)).toEqual([first])
      // Revoked, its name is free again; both stay listed, oldest first.
      const revoked = yield* s.revokeAdminToken(first.name, baseTime + 5)
      expect(revoked).toEqual(Option.some({ ...first, revokedAt: baseTime + 5 }))
      const second = token({ name: first.name }, baseTime + 10)
      expect(yield* s.insertAdminToken(second)).toBe("created")
      const again = (yield* s.listAdminTokens()).filter((t) => t.name === first.name)
      expect(again.map((t) => [t.id, t.revokedAt])).toEqual([
        [first.id, baseTime + 5],
        [second.id, null]
      ])
    })
  )

  it.effect("revokes by id (once: the first time stays) or by a live token's name", () =>
    Effect.gen(function* () {
      const s = yield* store
      const byId = token()
      const byName = token()
      yield* s.insertAdminToken(byId)
      yield* s.insertAdminToken(byName)
      expect(Option.map(yield* s.revokeAdminToken(byId.id, baseTime + 1), (t) => t.revokedAt)).toEqual(
        Option.some(baseTime + 1)
      )
      expect(Option.map(yield* s.revokeAdminToken(byId.id, baseTime + 2), (t) => t.revokedAt)).toEqual(
        Option.some(baseTime + 1)
      )
      expect(Option.map(yield* s.revokeAdminToken(byName.name, baseTime + 3), (t) => t.id)).toEqual(
        Option.some(byName.id)
      )
      // Its name now names no live token.
      expect(yield* s.revokeAdminToken(byName.name, baseTime + 4)).toEqual(Option.none())
      expect(yield* s.revokeAdminToken("atk_nobody", baseTime)).toEqual(Option.none())
      expect(Option.map(yield* s.findAdminToken(byName.hash), (t) => t.revokedAt)).toEqual(
        Option.some(baseTime + 3)
      )
    })
  )

  it.effect("says whether any token is live", () =>
    Effect.gen(function* () {
      const s = yield* store
      for (const t of yield* s.listAdminTokens())
        if (t.revokedAt === null) yield* s.revokeAdminToken(t.id, baseTime)
      expect(yield* s.hasLiveAdminTokens()).toBe(false)
      const live = token()
      yield* s.insertAdminToken(live)
      expect(yield* s.hasLiveAdminTokens()).toBe(true)
      yield* s.revokeAdminToken(live.id, baseTime)
      expect(yield* s.hasLiveAdminTokens()).toBe(false)
    })
  )
}

/** Last uses, racing tokens of one name, and the audit log. */
const usesRacesAndAudit = (it: Suite<AdminTokenStore.AdminTokenStore>) => {
  it.effect("moves a token's last use at most once per window", () =>
    Effect.gen(function* () {
      const s = yield* store
      const t = token()
      yield* s.insertAdminToken(t)
      const lastUse = Effect.map(
        s.findAdminToken(t.hash),
        Option.map((x) => x.lastUsedAt)
      )
      yield* s.touchAdminToken(t.id, baseTime + 1_000, 60_000)
      expect(yield* lastUse).toEqual(Option.some(baseTime + 1_000))
      yield* s.touchAdminToken(t.id, baseTime + 30_000, 60_000)
      expect(yield* lastUse).toEqual(Option.some(baseTime + 1_000))
      yield* s.touchAdminToken(t.id, baseTime + 61_000, 60_000)
      expect(yield* lastUse).toEqual(Option.some(baseTime + 61_000))
    })
  )

  it.effect("gives one of two racing tokens of one name, never both", () =>
    Effect.gen(function* () {
      const s = yield* store
      const name = `race-${Ids.randomBase62(10)}`
      const outcomes = yield* Effect.all(
        Array.from({ length: 8 }, () => s.insertAdminToken(token({ name }))),
        { concurrency: "unbounded" }
      )
      expect(outcomes.filter((o) => o === "created").length).toBe(1)
      expect((yield* s.listAdminTokens()).filter((t) => t.name === name && t.revokedAt === null).length).toBe(
        1
      )
    })
  )

  it.effect("keeps the audit log newest first, a page at a time", () =>
    Effect.gen(function* () {
      const s = yield* store
      // Later than anything the suite (or an earlier run of it on the same store) wrote.
      const start = Date.UTC(2100, 0, 1) + Date.now()
      const entries = Array.from({ length: 5 }, (_, i) => entry(start + i, `op-${i}`))
      for (const e of entries) yield* s.appendAdminAudit(e)
      const firstPage = yield* s.listAdminAudit({ limit: 2 })
      expect(firstPage).toEqual([entries[4], entries[3]])
      const next = yield* s.listAdminAudit({ before: entries[3].id, limit: 2 })
      expect(next).toEqual([entries[2], entries[1]])
      expect(yield* s.listAdminAudit({ before: entries[1].id, limit: 10 })).toContainEqual(entries[0])
    })
  )
}

/** Registers the admin token tests. */
export const adminTokens = (it: Suite<AdminTokenStore.AdminTokenStore>) =>
  describe("admin tokens", () => {
    storingAndRevoking(it)
    usesRacesAndAudit(it)
  })
