/**
 * The panel's access operations in core, on the memory store with a stand-in `Passwords` (hashes
 * are the password reversed; strength 0 for a repeated character, else 4): sign-in, sessions and
 * sign-out; a stranger failing 50 times from one address is refused there while the owner signs
 * in from another; the check before a secret is shown again; invite and reset links judged by
 * the strength rule and used once; a password change keeps only the current session.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import * as Audit from "../src/access/Audit.js"
import * as PanelAccess from "../src/access/PanelAccess.js"
import * as PanelPasswords from "../src/access/PanelPasswords.js"
import * as PanelSessions from "../src/access/PanelSessions.js"
import * as Passwords from "../src/access/Passwords.js"
import * as SignInThrottle from "../src/access/SignInThrottle.js"
import * as MemoryStore from "../src/adapters/MemoryStore.js"
import * as Fees from "../src/domain/Fees.js"
import * as Ids from "../src/domain/Ids.js"
import { MerchantStore } from "../src/ports/Store.js"

const reversed = (p: string) => `h:${[...p].reverse().join("")}`

/** A stand-in for the host's hashing and estimator. */
const passwords = Layer.succeed(Passwords.Passwords, {
  hash: (p) => Effect.succeed(reversed(p)),
  verify: (p, stored) => Effect.succeed(stored !== null && stored === reversed(p)),
  strength: (p, context) =>
    Effect.succeed(
      /^(.)\1+$/.test(p) || context.some((w) => p.includes(w))
        ? { score: 0 as const, warning: "simpleRepeat", suggestions: ["anotherWord"] }
        : { score: 4 as const, warning: null, suggestions: [] }
    )
})

const layer = Layer.merge(MemoryStore.layer, passwords)

/** No waits between attempts: the counts, not the clock, are under test. */
const limits: SignInThrottle.Limits = { ...SignInThrottle.defaults, maxDelayMs: 0 }

const from = (address: string): Audit.Client => ({ address, userAgent: "test" })

/** A merchant with a panel user whose password is set through the invite link; answers its e-mail. */
const owner = (password: string) =>
  Effect.gen(function* () {
    const id = Ids.merchantId(Date.now())
    yield* Effect.flatMap(MerchantStore, (s) =>
      s.createMerchant({ id, name: "Loja", city: "SAO PAULO", feePlan: Fees.defaultPlan, createdAt: 0 })
    )
    const email = `ana-${Ids.randomBase62(6).toLowerCase()}@loja.example`
    const invite = yield* PanelAccess.invite(id, email)
    const used = yield* PanelPasswords.useLink({
      token: invite.token,
      password,
      client: from("192.0.2.1"),
      kind: "invite",
      maxMs: 3_600_000
    })
    expect(used._tag).toBe("Set")
    return { merchantId: id, email, invite }
  })

const signIn = (email: string, password: string, address: string) =>
  PanelSessions.signIn({ email, password, client: from(address), limits, maxMs: 3_600_000 })

describe("PanelSessions", () => {
  it.effect("signs in, opens the session from its token, and signs out", () =>
    Effect.gen(function* () {
      const { email, merchantId } = yield* owner("a long pass phrase")
      expect((yield* signIn(email, "not it at all", "203.0.113.1"))._tag).toBe("Wrong")
      expect((yield* signIn("nobody@loja.example", "a long pass phrase", "203.0.113.1"))._tag).toBe("Wrong")
      const done = yield* signIn(` ${email.toUpperCase()} `, "a long pass phrase", "203.0.113.1")
      if (done._tag !== "SignedIn") throw new Error(done._tag)
      expect(done.secondStep).toBe(false)
      const opened = yield* PanelSessions.open(done.token, 60_000)
      expect(Option.map(opened, (u) => [u.email, u.role, u.enrolled])).toEqual(
        Option.some([email, "owner", false])
      )
      expect(yield* PanelSessions.open("not a token!", 60_000)).toEqual(Option.none())
      const sessions = yield* PanelSessions.list(done.user.id)
      expect(sessions.map((s) => s.address)).toContain("203.0.113.1")
      yield* PanelSessions.signOut(PanelAccess.hashToken(done.token))
      expect(yield* PanelSessions.open(done.token, 60_000)).toEqual(Option.none())
      const log = yield* Audit.list(merchantId)
      expect(log.map((e) => [e.action, e.address])).toContainEqual(["signin.failure", "203.0.113.1"])
      expect(log.map((e) => e.action)).toContain("signin.success")
    }).pipe(Effect.provide(layer))
  )

  it.effect(
    "a stranger failing 50 times is refused at their address; the owner still signs in from theirs",
    () =>
      Effect.gen(function* () {
        const { email } = yield* owner("the owner's pass phrase")
        const outcomes: Array<string> = []
        for (let i = 0; i < 50; i++) outcomes.push((yield* signIn(email, `guess ${i}`, "203.0.113.66"))._tag)
        expect(outcomes.slice(0, 5)).toEqual(["Wrong", "Wrong", "Wrong", "Wrong", "Wrong"])
        expect(new Set(outcomes.slice(5))).toEqual(new Set(["Throttled"]))
        // Even the right password is refused from the stranger's address until the window ends.
        expect((yield* signIn(email, "the owner's pass phrase", "203.0.113.66"))._tag).toBe("Throttled")
        expect((yield* signIn(email, "the owner's pass phrase", "198.51.100.4"))._tag).toBe("SignedIn")
      }).pipe(Effect.provide(layer))
  )

  it.effect("asks the password, or refuses and throttles, before a secret is shown again", () =>
    Effect.gen(function* () {
      const { email } = yield* owner("reveal pass phrase")
      const done = yield* signIn(email, "reveal pass phrase", "203.0.113.2")
      if (done._tag !== "SignedIn") throw new Error(done._tag)
      const user = Option.getOrThrow(yield* PanelSessions.open(done.token, 60_000))
      const confirm = (answer: string) =>
        PanelSessions.confirmIdentity(user, answer, from("203.0.113.2"), limits)
      expect(yield* confirm("reveal pass phrase")).toBe("ok")
      for (let i = 0; i < 5; i++) expect(yield* confirm(`wrong ${i}`)).toBe("wrong")
      expect(yield* confirm("reveal pass phrase")).toBe("throttled")
    }).pipe(Effect.provide(layer))
  )
})

describe("PanelPasswords", () => {
  it.effect(
    "judges the password before using a link: a weak one leaves the link valid; a link works once",
    () =>
      Effect.gen(function* () {
        const { merchantId, email } = yield* owner("first pass phrase")
        const link = yield* PanelAccess.resetLink(merchantId, email)
        const use = (password: string) =>
          PanelPasswords.useLink({
            token: link.token,
            password,
            client: from("192.0.2.9"),
            kind: "reset",
            maxMs: 1
          })
        expect(yield* use("aaaaaaaaaa")).toEqual({
          _tag: "Weak",
          weakness: { _tag: "Guessable", warning: "simpleRepeat", suggestions: ["anotherWord"] }
        })
        expect(yield* use("short")).toEqual({ _tag: "Weak", weakness: { _tag: "Length" } })
        expect(yield* use(`${email} again`)).toMatchObject({ _tag: "Weak" })
        expect(yield* PanelPasswords.linkState(link.token)).toBe("valid")
        const set = yield* use("second pass phrase")
        expect(set).toMatchObject({ _tag: "Set", token: null })
        expect(yield* PanelPasswords.linkState(link.token)).toBe("used")
        expect(yield* use("third pass phrase")).toEqual({ _tag: "Closed", state: "used" })
        expect(yield* PanelPasswords.linkState("x".repeat(40))).toBe("unknown")
        expect((yield* signIn(email, "second pass phrase", "192.0.2.9"))._tag).toBe("SignedIn")
      }).pipe(Effect.provide(layer))
  )

  it.effect("a change needs the current password, judges the new one, and ends the other sessions only", () =>
    Effect.gen(function* () {
      const { email } = yield* owner("change pass phrase")
      const here = yield* signIn(email, "change pass phrase", "192.0.2.10")
      const there = yield* signIn(email, "change pass phrase", "192.0.2.11")
      if (here._tag !== "SignedIn" || there._tag !== "SignedIn") throw new Error("not signed in")
      const user = Option.getOrThrow(yield* PanelSessions.open(here.token, 60_000))
      const change = (current: string, next: string) =>
        PanelPasswords.change({ user, current, next, client: from("192.0.2.10") })
      expect(yield* change("not it", "a new pass phrase")).toEqual({ _tag: "WrongPassword" })
      expect((yield* change("change pass phrase", "zzzzzzzzzzzz"))._tag).toBe("Weak")
      expect(yield* change("change pass phrase", "a new pass phrase")).toEqual({ _tag: "Changed" })
      expect(Option.isSome(yield* PanelSessions.open(here.token, 60_000))).toBe(true)
      expect(yield* PanelSessions.open(there.token, 60_000)).toEqual(Option.none())
      expect((yield* signIn(email, "a new pass phrase", "192.0.2.12"))._tag).toBe("SignedIn")
    }).pipe(Effect.provide(layer))
  )
})
