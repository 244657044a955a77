/**
 * Webhook operations end to end, on SQLite and Postgres: a real node:http receiver that fails,
 * then recovers; the engine's worker with four attempts per delivery (closer together than the
 * spec's schedule, on the real clock; core's `WebhookOps.disable.test.ts` runs the spec's
 * schedule and the 5-day period under the TestClock). An endpoint failing for `webhookDisableAfter` is disabled at its next failure, its deliveries are
 * held (not attempted, not lost), enabling it resends them, and a resend since a time sends each
 * failed event once, a second resend of the same range nothing. The disabling records one
 * `webhook_endpoint.disabled` event, never delivered (not even by the enabling's resend);
 * enabling records `webhook_endpoint.enabled`, delivered like every event.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Domain, Engine, Store, WebhookOpsStore } from "@pixgate/core"
import { NodeWebhookTransport } from "@pixgate/core/node"
import { PgStore } from "@pixgate/store-pg"
import { SqliteStore } from "@pixgate/store-sqlite"
import { testKeys } from "@pixgate/testkit/dataKeys"
import { describePostgres, useFreshDatabase } from "@pixgate/testkit/postgres"
import { Duration, Effect, Layer } from "effect"
import { afterAll } from "vitest"

const dir = mkdtempSync(join(tmpdir(), "pixgate-webhook-ops-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** A receiver on 127.0.0.1 answering `status()`; it records each webhook-id with the status sent. */
const receiver = Effect.acquireRelease(
  Effect.async<{
    url: string
    calls: Array<[string, number]>
    answer: { status: number }
    close: () => void
  }>((resume) => {
    const calls: Array<[string, number]> = []
    const answer = { status: 503 }
    const server = createServer((req, res) => {
      req.resume()
      req.on("end", () => {
        calls.push([String(req.headers["webhook-id"]), answer.status])
        res.writeHead(answer.status).end()
      })
    })
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      resume(
        Effect.succeed({
          url: `http://127.0.0.1:${port}/hook`,
          calls,
          answer,
          close: () => {
            server.closeAllConnections()
            server.close()
          }
        })
      )
    })
  }),
  (r) => Effect.sync(r.close)
)

/** Real time passes (the receiver's I/O), whatever the TestClock says. */
const real = (ms: number) => Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, ms)))

/**
 * Polls `done` every 20 ms until it holds, for up to a minute of real time (a loaded machine's
 * Postgres once took longer than 30 s); fails naming `what`.
 */
const until = <R>(what: string, done: Effect.Effect<boolean, unknown, R>) =>
  Effect.gen(function* () {
    const deadline = Date.now() + 60_000
    while (Date.now() < deadline) {
      if (yield* done) return
      yield* real(20)
    }
    throw new Error(`condition not reached: ${what}`)
  })

/** How long the endpoint may fail before it is disabled, in this test. */
const disableAfterMs = 6_000

const scenario = (storeLayer: () => Layer.Layer<Store.Store | WebhookOpsStore.WebhookOpsStore, unknown>) =>
  Effect.gen(function* () {
    const hook = yield* receiver
    const layer = Engine.layer({
      config: {
        webhookFailingAfter: 1,
        // Four attempts, as the spec's schedule, closer together.
        webhookRetryDelays: [Duration.millis(50), Duration.millis(50), Duration.millis(50)],
        webhookDisableAfter: Duration.millis(disableAfterMs),
        webhookResendRate: 20
      }
    }).pipe(Layer.provideMerge(Layer.merge(storeLayer(), NodeWebhookTransport.layer)))
    const context = yield* Layer.build(layer)
    const engine = Engine.Engine.pipe(Effect.provide(context))
    const e = yield* engine
    const { merchantId } = yield* e.admin.createMerchant({ name: "Loja" })
    yield* e.admin.setWebhook({ merchantId, mode: "test", url: hook.url, secret: "s3cret-webhook-secret" })
    const log = e.admin.webhookLog({ merchantId, limit: 100, offset: 0 })
    const statusOf = (eventId: string) =>
      Effect.map(log, (entries) => entries.filter((d) => d.eventId === eventId).map((d) => d.status))
    const health = Effect.map(e.webhookOps.health(merchantId), (h) => h.endpoints[0])
    const store = yield* Store.Store.pipe(Effect.provide(context))
    const eventsOf = (type: Domain.EventType) =>
      Effect.map(store.listEvents(Domain.MerchantId.make(merchantId), "test"), (all) =>
        all.filter((ev) => ev.type === type)
      )

    // 1. An event whose four attempts all fail.
    const first = yield* e.admin.sendTestEvent(merchantId, "test")
    yield* until(
      "the first event failed",
      Effect.map(statusOf(first.eventId), (s) => s.includes("failed"))
    )
    expect(hook.calls.filter(([id]) => id === first.eventId)).toHaveLength(4)
    const failing = yield* health
    expect(failing).toMatchObject({ state: "failing", consecutiveFailures: 4, succeeded: 0, successRate: 0 })
    expect(failing?.p95LatencyMs).not.toBe(null)

    // 2. Failing for longer than webhookDisableAfter: the next failure disables the endpoint.
    yield* real(disableAfterMs + 100)
    const second = yield* e.admin.sendTestEvent(merchantId, "test")
    yield* until(
      "the endpoint disabled",
      Effect.map(health, (h) => h?.state === "disabled")
    )
    yield* until(
      "the second event failed",
      Effect.map(statusOf(second.eventId), (s) => s.includes("failed"))
    )
    // Its retries were held: one attempt reached the receiver.
    expect(hook.calls.filter(([id]) => id === second.eventId)).toHaveLength(1)
    expect((yield* e.webhookOps.disabled(merchantId)).map((d) => d.mode)).toEqual(["test"])
    // The disabling's event: recorded once, for the merchant and mode, with no delivery.
    const [off, ...more] = yield* eventsOf("webhook_endpoint.disabled")
    expect(more).toEqual([])
    const disabledAt = (yield* e.webhookOps.disabled(merchantId))[0]?.disabledAt
    expect(off?.data).toMatchObject({
      mode: "test",
      url: new URL(hook.url).origin,
      disabledAt: new Date(disabledAt ?? 0).toISOString(),
      consecutiveFailures: 5
    })
    expect(String(off?.data.reason)).toMatch(/^Failing since .*5 failed attempts in a row; last: HTTP 503$/)
    expect(Date.parse(String(off?.data.failingSince))).toBeLessThan(disabledAt ?? 0)

    // 3. While disabled, a new event is held, not attempted, and not lost.
    const third = yield* e.admin.sendTestEvent(merchantId, "test")
    yield* until(
      "the third event held",
      Effect.map(statusOf(third.eventId), (s) => s.includes("failed"))
    )
    expect(hook.calls.filter(([id]) => id === third.eventId)).toHaveLength(0)
    const held = (yield* log).find((d) => d.eventId === third.eventId)
    expect(held?.attempts[0]?.error).toBe(WebhookOpsStore.heldError)
    // A resend of a disabled endpoint is refused: enabling it resends.
    const refused = yield* Effect.flip(
      e.webhookOps.resend({ merchantId, since: new Date(0).toISOString(), mode: "test" })
    )
    expect(refused._tag).toBe("Refused")
    // Still one disabling event, and none of its deliveries.
    expect(yield* eventsOf("webhook_endpoint.disabled")).toHaveLength(1)
    expect((yield* log).filter((d) => d.eventId === off?.id)).toEqual([])

    // 4. The receiver recovers; enabling resends what failed from an hour before the endpoint
    // was disabled: here all three events.
    hook.answer.status = 200
    const enabled = yield* e.webhookOps.enable(merchantId, "test")
    expect(enabled).toMatchObject({ wasDisabled: true, resend: { queued: 3, repeated: false } })
    const allDelivered = (ids: ReadonlyArray<string>) =>
      Effect.map(log, (entries) =>
        ids.every((id) => entries.some((d) => d.eventId === id && d.status === "delivered"))
      )
    // `webhook_endpoint.enabled`: recorded and delivered like every event.
    const [on, ...moreOn] = yield* eventsOf("webhook_endpoint.enabled")
    expect(moreOn).toEqual([])
    expect(on?.data).toMatchObject({ mode: "test", url: new URL(hook.url).origin, resent: 3 })
    yield* until(
      "the resent events delivered",
      allDelivered([first.eventId, second.eventId, third.eventId, on?.id ?? "none"])
    )
    expect((yield* health)?.state).toBe("healthy")
    // The disabling's event reached neither the log nor the receiver.
    expect((yield* log).filter((d) => d.eventId === off?.id)).toEqual([])
    expect(hook.calls.filter(([id]) => id === off?.id)).toEqual([])

    // 5. The receiver fails again for one event; a resend since then sends it once, at the rate.
    hook.answer.status = 500
    const since = new Date().toISOString()
    const fourth = yield* e.admin.sendTestEvent(merchantId, "test")
    yield* until(
      "the fourth event failed",
      Effect.map(statusOf(fourth.eventId), (s) => s.includes("failed"))
    )
    hook.answer.status = 200
    const resend = yield* e.webhookOps.resend({ merchantId, since })
    expect(resend).toMatchObject({ scope: "all", queued: 1, repeated: false, ratePerSecond: 20 })
    yield* until("the fourth event resent and delivered", allDelivered([fourth.eventId]))
    // The same range again: recognised, nothing sent twice.
    const again = yield* e.webhookOps.resend({ merchantId, since })
    expect(again).toMatchObject({ resendId: resend.resendId, queued: 0, repeated: true })
    yield* real(500)
    for (const id of [first.eventId, second.eventId, third.eventId, fourth.eventId, on?.id])
      expect(hook.calls.filter(([seen, status]) => seen === id && status === 200)).toHaveLength(1)
    expect(hook.calls.filter(([id]) => id === off?.id)).toEqual([])
    const healthy = yield* health
    expect(healthy).toMatchObject({ state: "healthy", consecutiveFailures: 0, disabledAt: null })
    expect(healthy?.lastSuccessAt).not.toBe(null)
    // Four events and the `webhook_endpoint.enabled` event delivered.
    expect(healthy?.succeeded).toBe(5)
    expect(healthy?.successRate).toBeCloseTo(5 / (4 + 1 + 5 + 4), 5)
  })

describe("webhook operations end to end", () => {
  it.live(
    "SQLite: failing, disabled, held, enabled, resent once",
    () => Effect.scoped(scenario(() => SqliteStore.layer({ filename: join(dir, "ops.db"), keys: testKeys }))),
    180_000
  )
})

describePostgres("webhook operations end to end (Postgres)", () => {
  const database = useFreshDatabase()
  it.live(
    "Postgres: failing, disabled, held, enabled, resent once",
    () =>
      Effect.scoped(
        scenario(() => Layer.suspend(() => PgStore.layer({ keys: testKeys, url: database.url() })))
      ),
    180_000
  )
})
