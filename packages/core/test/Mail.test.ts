/**
 * E-mail through the job worker, on the memory store under the TestClock, with a recording
 * `Mailer`: a message goes out once; a passing failure is tried again with a growing wait and
 * keeps its id; a refusal for good is given up on at once; without a mailer the message stays
 * queued. Notifications reach only the users who chose them (a PIX from the amount chosen).
 */
import { describe, expect, it } from "@effect/vitest"
import { merchant, testEngine } from "@pixgate/testkit/engineFixture"
import { Duration, Effect, Layer, Option, TestClock } from "effect"
import * as Notifications from "../src/access/Notifications.js"
import * as Team from "../src/access/Team.js"
import * as Requests from "../src/contract/Requests.js"
import type { MerchantId } from "../src/domain/Domain.js"
import { Engine } from "../src/Engine.js"
import * as MailJob from "../src/jobs/MailJob.js"
import { defaultBrand, MailError, Mailer, type MailMessage } from "../src/ports/Mail.js"
import { MailStore } from "../src/ports/MailStore.js"
import { PanelStore } from "../src/ports/Store.js"

/** A mailer that records each attempt and fails the first `failures` ones. */
const recording = (failures = 0, permanent = false) => {
  const attempts: Array<MailMessage> = []
  const layer = Layer.succeed(Mailer, {
    send: (m) =>
      Effect.suspend(() => {
        attempts.push(m)
        return attempts.length <= failures
          ? Effect.fail(
              new MailError({ message: permanent ? "550 no such user" : "ECONNREFUSED", permanent })
            )
          : Effect.void
      }),
    from: "Loja <no-reply@loja.example>",
    panelUrl: "https://pay.loja.example/panel",
    brand: defaultBrand
  })
  return { attempts, layer }
}

const rendered = { subject: "Assunto", text: "texto", html: "<p>html</p>" }

/** Moves the clock on in small steps until `done` holds (the worker runs in between). */
const until = <E, R>(done: Effect.Effect<boolean, E, R>, step = Duration.seconds(1), max = 200) =>
  Effect.gen(function* () {
    for (let i = 0; i < max; i++) {
      if (yield* done) return
      yield* TestClock.adjust(step)
      yield* Effect.yieldNow()
    }
    expect(yield* done).toBe(true)
  })

const statusOf = (id: string) =>
  Effect.flatMap(MailStore, (s) => Effect.map(s.getMail(id), Option.getOrThrow))

describe("Mail", () => {
  it("backs off 30 s doubling up to 6 h", () => {
    expect([1, 2, 3, 4].map(MailJob.backoffMs)).toEqual([30_000, 60_000, 120_000, 240_000])
    expect(MailJob.backoffMs(20)).toBe(6 * 3_600_000)
  })

  it.scoped("a passing failure is tried again with a wait, then sent once with the same id", () => {
    const mailer = recording(2)
    return Effect.gen(function* () {
      const id = yield* Team.enqueue({ merchantId: null, kind: "test", to: "ana@example.com", rendered })
      yield* until(
        Effect.map(statusOf(id), (m) => m.status === "sent"),
        Duration.seconds(15)
      )
      const sent = yield* statusOf(id)
      expect([sent.attempts, sent.lastError, sent.text, sent.html]).toEqual([2, "ECONNREFUSED", "", ""])
      expect(mailer.attempts.map((a) => a.id)).toEqual([id, id, id])
      expect(mailer.attempts[0]?.to).toBe("ana@example.com")
    }).pipe(Effect.provide(testEngine().pipe(Layer.provide(mailer.layer))))
  })

  it.scoped("a refusal for good is given up on at once", () => {
    const mailer = recording(5, true)
    return Effect.gen(function* () {
      const id = yield* Team.enqueue({ merchantId: null, kind: "test", to: "nobody@example.com", rendered })
      yield* until(Effect.map(statusOf(id), (m) => m.status === "failed"))
      yield* TestClock.adjust(Duration.hours(24))
      expect(mailer.attempts).toHaveLength(1)
      expect((yield* statusOf(id)).lastError).toBe("550 no such user")
      // A day on the TestClock: the subscriptions' tick (no subscriptions here) runs hourly, not
      // 86,400 times.
    }).pipe(
      Effect.provide(
        testEngine({ subscriptionTickInterval: Duration.hours(1) }).pipe(Layer.provide(mailer.layer))
      )
    )
  })

  it.scoped("without a mailer the message stays queued", () =>
    Effect.gen(function* () {
      const id = yield* Team.enqueue({ merchantId: null, kind: "test", to: "ana@example.com", rendered })
      yield* TestClock.adjust(Duration.minutes(5))
      const kept = yield* statusOf(id)
      expect([kept.status, kept.attempts, kept.text]).toEqual(["queued", 0, "texto"])
    }).pipe(Effect.provide(testEngine()))
  )

  it.scoped("a PIX received is told to the users who chose its amount, once each", () => {
    const mailer = recording()
    return Effect.gen(function* () {
      const engine = yield* Engine
      const m = yield* merchant("Loja Aurora")
      const merchantId = m.merchantId as MerchantId
      const panel = yield* PanelStore
      const at = Date.now()
      const [big, all, none] = ["big@loja.example", "all@loja.example", "none@loja.example"].map(
        (email, i) => ({
          id: `usr_notify${i}`,
          merchantId,
          email,
          passwordHash: "scrypt$set",
          role: "owner" as const,
          createdAt: at,
          updatedAt: at
        })
      )
      if (big === undefined || all === undefined || none === undefined) return expect.unreachable()
      for (const u of [big, all, none])
        yield* panel.invitePanelUser(u, { tokenHash: `h-${u.id}`, expiresAt: at + 1, createdAt: at })
      yield* Notifications.choose({ ...Notifications.none(big.id, merchantId), pixReceivedMin: 10_000 })
      yield* Notifications.choose({
        ...Notifications.none(all.id, merchantId),
        pixReceivedMin: 1,
        payouts: true
      })
      const pay = (reais: number) =>
        Effect.gen(function* () {
          const c = yield* engine.charges.create(
            m.test,
            yield* Requests.decode(Requests.CreateCharge, engine.config)({ amount: reais })
          )
          yield* engine.admin.sandboxPayCharge(c.transactionId)
        })
      yield* pay(50)
      yield* pay(150)
      yield* until(Effect.sync(() => mailer.attempts.length >= 3))
      yield* TestClock.adjust(Duration.minutes(1))
      const got = mailer.attempts.map((a) => `${a.to} ${a.subject}`).sort()
      expect(got).toEqual([
        "all@loja.example PIX recebido: R$ 150,00 (modo de teste) · Pixgate",
        "all@loja.example PIX recebido: R$ 50,00 (modo de teste) · Pixgate",
        "big@loja.example PIX recebido: R$ 150,00 (modo de teste) · Pixgate"
      ])
      expect(mailer.attempts[0]?.text).toContain("https://pay.loja.example/panel/transactions/")
    }).pipe(Effect.provide(testEngine().pipe(Layer.provide(mailer.layer))))
  })
})
