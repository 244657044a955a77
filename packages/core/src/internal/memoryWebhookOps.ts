/**
 * Webhook operations in memory (MemoryStore), over the store's own operations: its deliveries,
 * endpoints and health. Each operation's reads and writes are synchronous calls of the memory
 * store, so nothing interleaves with them in a single JS thread.
 */
import { Effect, Option } from "effect"
import type { Event, Mode } from "../domain/Domain.js"
import type { StoreError, StoreShape } from "../ports/Store.js"
import {
  type DisabledEndpoint,
  heldError,
  type Resend,
  type WebhookOpsStoreShape
} from "../ports/WebhookOpsStore.js"

const modes: ReadonlyArray<Mode> = ["test", "live"]

/**
 * The memory store's event-only write (an event with no delivery), under this key of its
 * `StoreShape`; a store without it records the event through `insertEvent`.
 */
export const recordEventKey: unique symbol = Symbol("pixgate.memory.recordEvent")

type EventOnly = { readonly [recordEventKey]?: (event: Event) => Effect.Effect<void, StoreError> }
const everything = 1_000_000

/** What the webhook operations share: the store, the disabled endpoints and the resends. */
const webhookOpsTables = (store: StoreShape) => {
  const disabled = new Map<string, DisabledEndpoint>()
  const resends = new Map<string, Resend>()
  const key = (merchantId: string, mode: Mode) => `${merchantId} ${mode}`
  const allOf = (merchantId: DisabledEndpoint["merchantId"], mode?: Mode) =>
    store.listDeliveries({
      merchantId,
      ...(mode === undefined ? {} : { mode }),
      limit: everything,
      offset: 0
    })
  return { store, disabled, resends, key, allOf }
}

type WebhookOpsTables = ReturnType<typeof webhookOpsTables>

/** Endpoints disabled and enabled, and their recent attempts and last delivery. */
const endpointStates = ({ store, disabled, key, allOf }: WebhookOpsTables) =>
  ({
    disableEndpoint: (endpoint, event) =>
      Effect.suspend(() => {
        const k = key(endpoint.merchantId, endpoint.mode)
        if (disabled.has(k)) return Effect.succeed(false)
        disabled.set(k, { ...endpoint })
        if (event === undefined) return Effect.succeed(true)
        const only = (store as StoreShape & EventOnly)[recordEventKey]
        return Effect.as(only === undefined ? store.insertEvent(event) : only(event), true)
      }),
    enableEndpoint: (merchantId, mode) =>
      Effect.suspend(() => {
        const k = key(merchantId, mode)
        const was = disabled.get(k)
        if (was === undefined) return Effect.succeed(Option.none())
        disabled.delete(k)
        return Effect.as(
          store.recordEndpointHealth({ merchantId, mode, ok: true, at: was.disabledAt, failingAfter: 1 }),
          Option.some(was)
        )
      }),
    disabledEndpoints: (merchantId) =>
      Effect.sync(() => [...disabled.values()].filter((d) => d.merchantId === merchantId)),
    recentAttempts: (merchantId, mode, since, limit) =>
      Effect.map(allOf(merchantId, mode), (entries) =>
        entries
          .flatMap((e) =>
            e.attempts
              .filter((a) => a.at >= since && a.error !== heldError)
              .map((a) => ({
                deliveryId: a.deliveryId,
                eventId: e.delivery.eventId,
                at: a.at,
                statusCode: a.statusCode,
                durationMs: a.durationMs
              }))
          )
          .sort((a, b) => b.at - a.at)
          .slice(0, limit)
      ),
    lastDeliveredAt: (merchantId, mode) =>
      Effect.map(
        store.listDeliveries({ merchantId, mode, status: "delivered", limit: 1, offset: 0 }),
        (entries) => entries[0]?.delivery.updatedAt ?? null
      )
  }) satisfies Partial<WebhookOpsStoreShape>

/** Failed deliveries resent, and how many endpoints are in each state. */
const resendOps = ({ store, disabled, resends, key, allOf }: WebhookOpsTables) =>
  ({
    resendFailed: (input) =>
      Effect.gen(function* () {
        const k = JSON.stringify([input.merchantId, input.scope, input.since])
        const before = resends.get(k)
        if (before !== undefined) return { ...before, queued: 0, repeated: true }
        const entries = yield* allOf(input.merchantId)
        const settled = new Set(
          entries.filter((e) => e.delivery.status !== "failed").map((e) => e.delivery.eventId)
        )
        const queued = new Set<string>()
        const picked = entries
          .filter(
            (e) =>
              e.delivery.status === "failed" &&
              input.modes.includes(e.delivery.mode) &&
              e.delivery.createdAt >= input.since &&
              e.delivery.createdAt <= input.at &&
              !settled.has(e.delivery.eventId)
          )
          .sort(
            (a, b) => a.delivery.createdAt - b.delivery.createdAt || (a.delivery.id < b.delivery.id ? -1 : 1)
          )
          .filter((e) => {
            if (queued.has(e.delivery.eventId)) return false
            queued.add(e.delivery.eventId)
            return true
          })
          .slice(0, input.limit)
        let n = 0
        for (const e of picked) {
          const made = yield* store.redeliver(e.delivery.eventId, input.at + n * input.intervalMs)
          if (Option.isSome(made)) n++
        }
        const resend: Resend = {
          id: input.id,
          merchantId: input.merchantId,
          scope: input.scope,
          since: input.since,
          until: input.at,
          createdAt: input.at,
          queued: n,
          queuedFirst: n,
          lastDueAt: n === 0 ? null : input.at + (n - 1) * input.intervalMs,
          repeated: false
        }
        resends.set(k, resend)
        return resend
      }),
    endpointStateCounts: () =>
      Effect.gen(function* () {
        const counts = new Map(modes.map((mode) => [mode, { mode, healthy: 0, failing: 0, disabled: 0 }]))
        for (const merchant of yield* store.listMerchants()) {
          for (const mode of modes) {
            if (Option.isNone(yield* store.getWebhookEndpoint(merchant.id, mode))) continue
            const c = counts.get(mode)
            if (c === undefined) continue
            if (disabled.has(key(merchant.id, mode))) c.disabled++
            else if ((yield* store.endpointBacklog(merchant.id, mode, 0)).health.failingSince !== null)
              c.failing++
            else c.healthy++
          }
        }
        return [...counts.values()]
      })
  }) satisfies Partial<WebhookOpsStoreShape>

/** The operations over a memory store. */
export const webhookOpsOver = (store: StoreShape): WebhookOpsStoreShape => {
  const c = webhookOpsTables(store)
  return {
    ...endpointStates(c),
    ...resendOps(c)
  }
}
