/**
 * The merchant panel's operations (the spec moved balance, keys and webhooks there): merchants,
 * API keys (shown once, stored hashed, revocable), the webhook endpoint of each mode, balances,
 * fee plans, the webhook log and redelivery, sandbox top-ups and sandbox actions. Used by the
 * CLI and the optional admin HTTP router; never exposed through the public API.
 */
import { Context, Effect, Layer, Option, Schema } from "effect"
import * as Audit from "../access/Audit.js"
import * as PanelAccess from "../access/PanelAccess.js"
import type * as AdminViews from "../contract/AdminViews.js"
import * as Errors from "../contract/Errors.js"
import * as Events from "../contract/Events.js"
import * as Requests from "../contract/Requests.js"
import * as Views from "../contract/Views.js"
import {
  ApiKeyId,
  ChargebackId,
  EventId,
  findById,
  type Merchant,
  MerchantId,
  type Mode,
  TransactionId
} from "../domain/Domain.js"
import * as Fees from "../domain/Fees.js"
import * as Ids from "../domain/Ids.js"
import * as Ledger from "../domain/Ledger.js"
import * as Money from "../domain/Money.js"
import {
  DeliveryStore,
  type LedgerCheck,
  LedgerStore,
  MerchantStore,
  type PanelStore,
  ReadStore,
  StoreError
} from "../ports/Store.js"
import { EngineConfig } from "../runtime/Config.js"
import * as Metrics from "../runtime/Metrics.js"
import * as SigningKeys from "../webhooks/SigningKeys.js"
import { Webhooks } from "../webhooks/Webhooks.js"
import * as BankEvents from "./BankEvents.js"
import * as Chargebacks from "./Chargebacks.js"
import * as Payouts from "./Payouts.js"
import * as Refunds from "./Refunds.js"

/** A new merchant and its first keys (the only time the keys are shown). */
export interface CreatedMerchant {
  readonly merchantId: MerchantId
  readonly testKey: string
  readonly liveKey: string
}

/** Balance as the panel shows it. */
export interface BalanceJson {
  readonly merchantId: MerchantId
  readonly mode: Mode
  readonly available: number
  readonly held: number
}

const hasNul = (text: string) => text.includes("\u0000")

const badRequest = (code: Errors.ValidationCode, path: string, message: string) =>
  Errors.validation(code, path, message)

const refusal = (reason: Chargebacks.ChargebackRefusal): Errors.NotFound | Errors.Refused =>
  reason === "not_found"
    ? Errors.notFound("Transaction or chargeback")
    : new Errors.Refused({
        code: `chargeback_${reason}`,
        message: `Chargeback refused: ${reason.replaceAll("_", " ")}`
      })

/** A fee plan as sent, checked (`Fees.validatePlan`) and read into centavos. */
const checkedPlan = (plan: Requests.FeePlanInput, maxAmount: Money.Cents) => {
  const problem = Fees.validatePlan(plan, maxAmount)
  if (problem !== undefined) return Effect.fail(badRequest("invalid_fee_plan", "feePlan", problem))
  const rule = (r: Requests.FeePlanInput["charge"]): Fees.FeeRule => ({
    gatewayRate: r.gatewayRate,
    marginRate: r.marginRate,
    gatewayFixed: Money.Cents(r.gatewayFixed),
    marginFixed: Money.Cents(r.marginFixed)
  })
  return Effect.succeed<Fees.FeePlan>({ charge: rule(plan.charge), payout: rule(plan.payout) })
}

/** A view of the panel's vocabulary (`AdminViews`), as the operations return it. */
type View<S extends { readonly Type: unknown }> = S["Type"]

/**
 * The admin service: what the CLI, the admin HTTP router and the panel call. Each operation's
 * error type lists only the `PixgateError` members it can fail with (storage failures become
 * `StorageUnavailable`).
 */
export interface AdminShape {
  /** A new merchant with its first test and live keys (shown only now). */
  readonly createMerchant: (
    input: Requests.CreateMerchant
  ) => Effect.Effect<CreatedMerchant, Errors.ValidationError | Errors.StorageUnavailable>
  readonly getMerchant: (id: string) => Effect.Effect<Merchant, Errors.NotFound | Errors.StorageUnavailable>
  readonly listMerchants: () => Effect.Effect<ReadonlyArray<Merchant>, Errors.StorageUnavailable>
  /** A new API key of a mode (shown only now). */
  readonly createKey: (
    merchantId: string,
    mode: Mode
  ) => Effect.Effect<View<typeof AdminViews.CreatedKey>, Errors.NotFound | Errors.StorageUnavailable>
  readonly revokeKey: (
    keyId: string
  ) => Effect.Effect<View<typeof AdminViews.RevokedKey>, Errors.NotFound | Errors.StorageUnavailable>
  readonly listKeys: (
    merchantId: string
  ) => Effect.Effect<
    ReadonlyArray<View<typeof AdminViews.ApiKey>>,
    Errors.NotFound | Errors.StorageUnavailable
  >
  /**
   * Sets a mode's webhook endpoint; its signing key is shown the first time only. `secretHeader`
   * false: deliveries leave the secret out of `X-<Service>-Signature`.
   */
  readonly setWebhook: (input: {
    merchantId: string
    mode: Mode
    url: string
    secret: string
    secretHeader?: boolean | undefined
  }) => Effect.Effect<
    View<typeof AdminViews.WebhookEndpoint>,
    Errors.ValidationError | Errors.NotFound | Errors.StorageUnavailable
  >
  /** A new signing key; the previous one still signs for `overlapSeconds`. */
  readonly rotateSigningKey: (input: {
    merchantId: string
    mode: Mode
    overlapSeconds?: number
  }) => Effect.Effect<
    View<typeof AdminViews.RotatedSigningKey>,
    Errors.ValidationError | Errors.NotFound | Errors.StorageUnavailable
  >
  readonly webhookStatus: (
    merchantId: string
  ) => Effect.Effect<View<typeof AdminViews.WebhookStatus>, Errors.NotFound | Errors.StorageUnavailable>
  readonly balance: (
    merchantId: string,
    mode: Mode
  ) => Effect.Effect<BalanceJson, Errors.NotFound | Errors.StorageUnavailable>
  readonly setFeePlan: (
    merchantId: string,
    input: Requests.FeePlanInput
  ) => Effect.Effect<
    { readonly merchantId: string; readonly feePlan: Fees.FeePlan },
    Errors.ValidationError | Errors.NotFound | Errors.StorageUnavailable
  >
  /** Adds sandbox money to a merchant's test balance. */
  readonly topUp: (
    merchantId: string,
    input: Requests.TopUp
  ) => Effect.Effect<
    BalanceJson & { readonly mode: "test" },
    Errors.ValidationError | Errors.NotFound | Errors.StorageUnavailable
  >
  readonly webhookLog: (
    query: { readonly merchantId: string } & Requests.DeliveriesQuery
  ) => Effect.Effect<
    ReadonlyArray<View<typeof AdminViews.Delivery>>,
    Errors.NotFound | Errors.StorageUnavailable
  >
  readonly redeliver: (
    eventId: string
  ) => Effect.Effect<View<typeof AdminViews.Redelivery>, Errors.NotFound | Errors.StorageUnavailable>
  /** Sends a `webhook.test` event to the merchant's endpoint of a mode (404 without one). */
  readonly sendTestEvent: (
    merchantId: string,
    mode: Mode
  ) => Effect.Effect<View<typeof AdminViews.TestEventSent>, Errors.NotFound | Errors.StorageUnavailable>
  /** Invites a panel user: a one-time sign-in link. */
  readonly inviteUser: (
    merchantId: string,
    input: Requests.InvitePanelUser
  ) => Effect.Effect<
    View<typeof AdminViews.PanelInvite>,
    Errors.ValidationError | Errors.NotFound | Errors.Refused | Errors.StorageUnavailable
  >
  /** A one-time password reset link for a panel user (optionally removing the second factor). */
  readonly resetLink: (
    merchantId: string,
    input: Requests.PanelResetLink
  ) => Effect.Effect<
    View<typeof AdminViews.PanelResetLink>,
    Errors.ValidationError | Errors.NotFound | Errors.StorageUnavailable
  >
  /** A page of a merchant's audit log, newest first. */
  readonly auditLog: (
    merchantId: string,
    query: Requests.AuditQuery
  ) => Effect.Effect<View<typeof AdminViews.AuditLog>, Errors.NotFound | Errors.StorageUnavailable>
  /** Checks the ledger's sums against the balances of a mode. */
  readonly checkLedger: (mode: Mode) => Effect.Effect<LedgerCheck, Errors.StorageUnavailable>
  /** Sandbox: the payer pays a test charge now. */
  readonly sandboxPayCharge: (
    transactionId: string,
    input?: Requests.SandboxPay
  ) => Effect.Effect<
    Views.TransactionJson,
    Errors.ValidationError | Errors.NotFound | Errors.Refused | Errors.StorageUnavailable
  >
  /** Sandbox: a test payout settles now. */
  readonly sandboxSettlePayout: (
    transactionId: string
  ) => Effect.Effect<Views.TransactionJson, Errors.NotFound | Errors.Refused | Errors.StorageUnavailable>
  /** Sandbox: a test payout fails now (`bank_rejected`). */
  readonly sandboxFailPayout: (
    transactionId: string
  ) => Effect.Effect<Views.TransactionJson, Errors.NotFound | Errors.Refused | Errors.StorageUnavailable>
  /** Sandbox: an infraction (MED) is opened over a completed test charge. */
  readonly sandboxOpenChargeback: (
    transactionId: string,
    input?: Requests.OpenChargeback
  ) => Effect.Effect<
    View<typeof AdminViews.Chargeback>,
    Errors.ValidationError | Errors.NotFound | Errors.Refused | Errors.StorageUnavailable
  >
  /** Sandbox: an open infraction is resolved for the payer (`accepted`) or the merchant. */
  readonly sandboxResolveChargeback: (
    chargebackId: string,
    outcome: "accepted" | "rejected"
  ) => Effect.Effect<
    View<typeof AdminViews.Chargeback>,
    Errors.NotFound | Errors.Refused | Errors.StorageUnavailable
  >
  /** A refund (devolução) of a merchant's completed charge. */
  readonly createRefund: (
    merchantId: string,
    transactionId: string,
    input: Requests.CreateRefund,
    idempotencyKey: string
  ) => Effect.Effect<
    View<typeof AdminViews.Refund>,
    | Errors.ValidationError
    | Errors.NotFound
    | Errors.InsufficientBalance
    | Errors.IdempotencyMismatch
    | Errors.Refused
    | Errors.GatewayUnavailable
    | Errors.StorageUnavailable
  >
  /** A charge's refunds and what is left to refund. */
  readonly listRefunds: (
    merchantId: string,
    transactionId: string
  ) => Effect.Effect<View<typeof AdminViews.RefundList>, Errors.NotFound | Errors.StorageUnavailable>
}

/** Builds the service over the money-flow services it drives. */
export const make: Effect.Effect<
  AdminShape,
  never,
  | MerchantStore
  | LedgerStore
  | ReadStore
  | DeliveryStore
  | PanelStore
  | EngineConfig
  | Webhooks
  | Payouts.Payouts
  | BankEvents.BankEvents
  | Chargebacks.Chargebacks
  | Refunds.Refunds
> = Effect.gen(function* () {
  const deps = {
    payouts: yield* Payouts.Payouts,
    bankEvents: yield* BankEvents.BankEvents,
    chargebacks: yield* Chargebacks.Chargebacks,
    refunds: yield* Refunds.Refunds
  }
  const store = yield* MerchantStore
  const ledger = yield* LedgerStore
  const reads = yield* ReadStore
  const deliveries = yield* DeliveryStore
  const panel = yield* Effect.context<MerchantStore | PanelStore>()
  const config = yield* EngineConfig
  const webhooks = yield* Webhooks
  const now = Effect.clockWith((c) => c.currentTimeMillis)

  const merchant = (id: string) =>
    Effect.flatMap(findById(MerchantId, id, store.getMerchant), (m) =>
      Option.isSome(m) ? Effect.succeed(m.value) : Effect.fail(Errors.notFound("Merchant"))
    )

  const newKey = (merchantId: MerchantId, mode: Mode) =>
    Effect.gen(function* () {
      const key = Ids.newApiKey(mode)
      const at = yield* now
      const id = Ids.apiKeyId(at)
      yield* store.insertApiKey({
        id,
        merchantId,
        mode,
        hash: Ids.hashApiKey(key),
        hint: key.slice(-4),
        createdAt: at,
        revokedAt: null
      })
      return { keyId: id, key, mode }
    })

  const transaction = (id: string) =>
    Effect.flatMap(findById(TransactionId, id, reads.getTransaction), (t) =>
      Option.isSome(t) ? Effect.succeed(t.value) : Effect.fail(Errors.notFound("Transaction"))
    )

  const ops = {
    /** Creates a merchant with one test and one live key. */
    createMerchant: (input: Requests.CreateMerchant) =>
      Effect.gen(function* () {
        const name = input.name.trim()
        if (name === "" || name.length > 140 || hasNul(name) || hasNul(input.city ?? "")) {
          return yield* Effect.fail(badRequest("invalid_name", "name", "name must be 1 to 140 characters"))
        }
        const plan = yield* checkedPlan(input.feePlan ?? config.defaultFeePlan, config.maxAmount)
        const at = yield* now
        const m: Merchant = {
          id: Ids.merchantId(at),
          name,
          city: input.city?.trim() || config.defaultCity,
          feePlan: plan,
          createdAt: at
        }
        yield* store.createMerchant(m)
        const test = yield* newKey(m.id, "test")
        const live = yield* newKey(m.id, "live")
        return { merchantId: m.id, testKey: test.key, liveKey: live.key } satisfies CreatedMerchant
      }),
    /** Reads a merchant. */
    getMerchant: merchant,
    /** Every merchant, newest first. */
    listMerchants: () => store.listMerchants(),
    /** Creates another API key for a mode (shown once). */
    createKey: (merchantId: string, mode: Mode) =>
      Effect.flatMap(merchant(merchantId), (m) => newKey(m.id, mode)),
    /** Revokes a key by its id; its requests get 401 from then on. */
    revokeKey: (keyId: string) =>
      Effect.gen(function* () {
        const revoked = yield* Option.match(Schema.decodeUnknownOption(ApiKeyId)(keyId), {
          onNone: () => Effect.succeed(false),
          onSome: (id) => Effect.flatMap(now, (at) => store.revokeApiKey(id, at))
        })
        if (!revoked) return yield* Effect.fail(Errors.notFound("Active API key"))
        return { keyId, revoked: true as const }
      }),
    /** A merchant's keys (ids, modes, hints; never the keys). */
    listKeys: (merchantId: string) =>
      Effect.flatMap(merchant(merchantId), (m) =>
        Effect.map(store.listApiKeys(m.id), (keys) =>
          keys.map((k) => ({
            keyId: k.id,
            mode: k.mode,
            hint: `sk_${k.mode}_...${k.hint}`,
            createdAt: Views.iso(k.createdAt),
            revokedAt: k.revokedAt === null ? null : Views.iso(k.revokedAt)
          }))
        )
      ),
    /**
     * Sets the webhook endpoint of one mode. The first time, the engine makes the endpoint's
     * signing key and answers it (`signingKey`), the only time it is shown; later sets change
     * URL and secret and keep the key (rotate it with `rotateSigningKey`). A set states the
     * whole endpoint: `secretHeader` false stops sending the secret in `X-<Service>-Signature`,
     * left out it is sent (the spec's scheme).
     */
    setWebhook: (input: {
      merchantId: string
      mode: Mode
      url: string
      secret: string
      secretHeader?: boolean | undefined
    }) =>
      Effect.gen(function* () {
        const m = yield* merchant(input.merchantId)
        yield* webhooks.checkUrl(input.url, input.mode)
        const problem = SigningKeys.secretProblem(input.secret)
        if (problem !== null) return yield* Effect.fail(badRequest("invalid_secret", "secret", problem))
        const at = yield* now
        const signingKey = SigningKeys.newSigningKey()
        const stored = yield* store.setWebhookEndpoint({
          merchantId: m.id,
          mode: input.mode,
          url: input.url,
          secret: input.secret,
          secretHeader: input.secretHeader ?? true,
          updatedAt: at,
          signingKey
        })
        return {
          merchantId: m.id,
          mode: input.mode,
          url: input.url,
          secretHeader: stored.secretHeader,
          updatedAt: Views.iso(at),
          ...(stored.signingKey === signingKey ? { signingKey } : {})
        }
      }),
    /**
     * Replaces the signing key of an endpoint and answers the new one (the only time it is
     * shown). For `overlapSeconds` (default 24 h, 0 to 7 days) both keys sign every attempt.
     */
    rotateSigningKey: (input: { merchantId: string; mode: Mode; overlapSeconds?: number }) =>
      Effect.gen(function* () {
        const m = yield* merchant(input.merchantId)
        const overlap = input.overlapSeconds ?? SigningKeys.defaultOverlapSeconds
        if (!Number.isSafeInteger(overlap) || overlap < 0 || overlap > SigningKeys.maxOverlapSeconds) {
          return yield* Effect.fail(
            badRequest(
              "invalid_overlap",
              "overlap",
              `overlap must be a whole number of seconds from 0 to ${SigningKeys.maxOverlapSeconds}`
            )
          )
        }
        const at = yield* now
        const signingKey = SigningKeys.newSigningKey()
        const rotated = yield* store.rotateSigningKey({
          merchantId: m.id,
          mode: input.mode,
          signingKey,
          previousUntil: overlap === 0 ? null : at + overlap * 1000,
          at
        })
        if (Option.isNone(rotated)) return yield* Effect.fail(Errors.notFound("Webhook endpoint"))
        return {
          merchantId: m.id,
          mode: input.mode,
          signingKey,
          previousKeyExpiresAt: overlap === 0 ? null : Views.iso(at + overlap * 1000)
        }
      }),
    /**
     * Each endpoint's state: `failing` after `webhookFailingAfter` failed attempts in a row
     * (its share of the worker shrinks until an attempt succeeds), deliveries pending and
     * attempts in flight.
     */
    webhookStatus: (merchantId: string) =>
      Effect.gen(function* () {
        const m = yield* merchant(merchantId)
        const at = yield* now
        const modes: ReadonlyArray<Mode> = ["test", "live"]
        const rows = yield* Effect.forEach(modes, (mode) =>
          Effect.gen(function* () {
            const endpoint = yield* store.getWebhookEndpoint(m.id, mode)
            if (Option.isNone(endpoint)) return []
            const backlog = yield* deliveries.endpointBacklog(m.id, mode, at)
            const failing = backlog.health.failingSince !== null
            return [
              {
                mode,
                url: endpoint.value.url,
                status: failing ? ("failing" as const) : ("healthy" as const),
                consecutiveFailures: backlog.health.consecutiveFailures,
                failingSince:
                  backlog.health.failingSince === null ? null : Views.iso(backlog.health.failingSince),
                concurrency: failing
                  ? config.webhookFailingEndpointConcurrency
                  : config.webhookEndpointConcurrency,
                pending: backlog.pending,
                inFlight: backlog.inFlight,
                previousKeyExpiresAt:
                  endpoint.value.previousKeyExpiresAt !== null && endpoint.value.previousKeyExpiresAt > at
                    ? Views.iso(endpoint.value.previousKeyExpiresAt)
                    : null
              }
            ]
          })
        )
        return { merchantId: m.id, endpoints: rows.flat() }
      }),
    /** Available and held balance of one mode. */
    balance: (merchantId: string, mode: Mode) =>
      Effect.gen(function* () {
        const m = yield* merchant(merchantId)
        const b = yield* ledger.balance(m.id, mode)
        return {
          merchantId: m.id,
          mode,
          available: Money.toReais(b.available),
          held: Money.toReais(b.held)
        } satisfies BalanceJson
      }),
    /** Replaces a merchant's fee plan (applies to new transactions). */
    setFeePlan: (merchantId: string, input: Requests.FeePlanInput) =>
      Effect.gen(function* () {
        const plan = yield* checkedPlan(input, config.maxAmount)
        const ok = yield* Option.match(Schema.decodeUnknownOption(MerchantId)(merchantId), {
          onNone: () => Effect.succeed(false),
          onSome: (id) => store.setFeePlan(id, plan)
        })
        if (!ok) return yield* Effect.fail(Errors.notFound("Merchant"))
        return { merchantId, feePlan: plan }
      }),
    /** Adds sandbox money to a merchant's test balance. */
    topUp: (merchantId: string, input: Requests.TopUp) =>
      Effect.gen(function* () {
        const m = yield* merchant(merchantId)
        const cents = input.amount
        yield* Effect.mapError(Requests.checkAmount(cents, config.maxAmount), (e) =>
          badRequest("invalid_amount", "amount", e.message)
        )
        yield* ledger.postEntry(Ledger.sandboxTopUp(m.id, cents, yield* now))
        const b = yield* ledger.balance(m.id, "test")
        return {
          merchantId: m.id,
          mode: "test",
          available: Money.toReais(b.available),
          held: Money.toReais(b.held)
        } satisfies BalanceJson
      }),
    /** The webhook log: deliveries with their attempts. */
    webhookLog: (query: { readonly merchantId: string } & Requests.DeliveriesQuery) =>
      Effect.gen(function* () {
        const m = yield* merchant(query.merchantId)
        // An event id of another shape matches no delivery.
        const eventId =
          query.eventId === undefined ? undefined : Schema.decodeUnknownOption(EventId)(query.eventId)
        if (eventId !== undefined && Option.isNone(eventId)) return []
        const entries = yield* deliveries.listDeliveries({
          merchantId: m.id,
          ...(query.mode === undefined ? {} : { mode: query.mode }),
          ...(query.status === undefined ? {} : { status: query.status }),
          ...(eventId === undefined ? {} : { eventId: eventId.value }),
          limit: Math.min(Math.max(query.limit ?? 50, 1), 500),
          offset: Math.max(query.offset ?? 0, 0)
        })
        return entries.map(({ delivery, event, attempts, nextAttemptAt }) => ({
          deliveryId: delivery.id,
          eventId: event.id,
          event: event.type,
          mode: delivery.mode,
          url: delivery.url,
          status: delivery.status,
          attempts: attempts.map((a) => ({
            attempt: a.attempt,
            at: Views.iso(a.at),
            statusCode: a.statusCode,
            error: a.error,
            durationMs: a.durationMs
          })),
          nextAttemptAt: nextAttemptAt === null ? null : Views.iso(nextAttemptAt),
          createdAt: Views.iso(delivery.createdAt),
          updatedAt: Views.iso(delivery.updatedAt)
        }))
      }),
    /**
     * Sends a `webhook.test` event to the merchant's endpoint of `mode`: signed, delivered,
     * retried and logged like every event, moving no money. 404 when the merchant has no
     * endpoint for the mode.
     */
    sendTestEvent: (merchantId: string, mode: Mode) =>
      Effect.gen(function* () {
        const m = yield* merchant(merchantId)
        const event = Events.webhookTest(m.id, mode, yield* now)
        const delivery = yield* deliveries.insertEvent(event)
        if (Option.isNone(delivery)) return yield* Effect.fail(Errors.notFound("Webhook endpoint"))
        return { deliveryId: delivery.value.id, eventId: event.id, status: delivery.value.status }
      }),
    /** Sends an event again (a new delivery with the same event id). */
    redeliver: (eventId: string) =>
      Effect.gen(function* () {
        const delivery = yield* findById(EventId, eventId, (id) =>
          Effect.flatMap(now, (at) => deliveries.redeliver(id, at))
        )
        if (Option.isNone(delivery)) return yield* Effect.fail(Errors.notFound("Event or webhook endpoint"))
        return { deliveryId: delivery.value.id, eventId, status: delivery.value.status }
      }),
    /**
     * Invites a person to the merchant panel of a merchant: the one-time token of the link
     * `<panel>/invite/<token>` (shown only now), valid for 7 days.
     */
    inviteUser: (merchantId: string, input: Requests.InvitePanelUser) =>
      Effect.map(
        Effect.provide(PanelAccess.invite(merchantId, input.email, input.role), panel),
        (invite) => ({
          userId: invite.userId,
          merchantId: invite.merchantId,
          email: invite.email,
          token: invite.token,
          path: PanelAccess.invitePath(invite.token),
          expiresAt: Views.iso(invite.expiresAt),
          role: invite.role
        })
      ),
    /**
     * A one-time password reset link for a panel user (1 hour): `<panel>/reset/<token>`, shown
     * only now; with `resetSecondFactor` the user's second factor is removed too.
     */
    resetLink: (merchantId: string, input: Requests.PanelResetLink) =>
      Effect.map(
        Effect.provide(
          PanelAccess.resetLink(merchantId, input.email, input.resetSecondFactor ?? false),
          panel
        ),
        (link) => ({
          userId: link.userId,
          merchantId: link.merchantId,
          email: link.email,
          token: link.token,
          path: PanelAccess.resetPath(link.token),
          expiresAt: Views.iso(link.expiresAt),
          secondFactorReset: link.secondFactorReset
        })
      ),
    /** A page of a merchant's audit log, newest first. */
    auditLog: (merchantId: string, query: Requests.AuditQuery) =>
      Effect.gen(function* () {
        const m = yield* merchant(merchantId)
        const limit = Math.max(1, Math.min(Audit.maxPage, query.limit ?? 50))
        const rows = yield* Effect.provide(Audit.list(m.id, { before: query.before, limit }), panel)
        return {
          data: rows.map((e) => ({
            id: e.id,
            at: Views.iso(e.at),
            actor: e.actor,
            userId: e.userId,
            action: e.action,
            objectId: e.objectId,
            address: e.address,
            userAgent: e.userAgent,
            detail: e.detail
          })),
          next: rows.length === limit ? (rows[rows.length - 1]?.id ?? null) : null
        }
      }),
    /** Ledger invariants of a mode. */
    checkLedger: (mode: Mode): Effect.Effect<LedgerCheck, Errors.StorageUnavailable> =>
      ledger.checkLedger(mode).pipe(
        Effect.tap((check) => Metrics.ledgerChecked(mode, check)),
        Effect.catchTag("StoreError", (e) => Effect.fail(Errors.unavailable(e)))
      ),
    /**
     * Sandbox: the payer pays a test charge now, or on `paidAt` (a due-date charge then asks
     * for what its terms give on that day); `amount` sends another amount, which is recorded
     * and returned, not credited, as a live mismatched PIX is.
     */
    sandboxPayCharge: (transactionId: string, input: Requests.SandboxPay = {}) =>
      Effect.gen(function* () {
        const tx = yield* sandboxOnly(yield* transaction(transactionId))
        const paidAt = input.paidAt === undefined ? undefined : Requests.paidAtOf(input.paidAt)
        if (input.paidAt !== undefined && paidAt === undefined) {
          return yield* Effect.fail(
            badRequest("invalid_field", "paidAt", "paidAt must be a date YYYY-MM-DD or an ISO 8601 time")
          )
        }
        if (paidAt !== undefined && paidAt < tx.createdAt) {
          return yield* Effect.fail(
            badRequest("invalid_field", "paidAt", "paidAt must not be before the charge was created")
          )
        }
        if (input.amount !== undefined) {
          yield* Effect.mapError(Requests.checkAmount(input.amount, config.maxAmount), (e) =>
            badRequest("invalid_amount", "amount", e.message)
          )
        }
        const outcome =
          tx.txid === null
            ? "ignored"
            : yield* deps.bankEvents.pixReceived({
                txid: tx.txid,
                ...(paidAt === undefined ? {} : { paidAt }),
                ...(input.amount === undefined ? {} : { amount: input.amount })
              })
        if (outcome === "ignored") {
          return yield* Effect.fail(refusalOf("charge_not_pending", "Charge is not pending"))
        }
        return Views.transaction(Option.getOrThrow(yield* reads.getTransaction(tx.id)))
      }),
    /** Sandbox: the bank confirms a test payout now. */
    sandboxSettlePayout: (transactionId: string) =>
      Effect.gen(function* () {
        const tx = yield* sandboxOnly(yield* transaction(transactionId))
        if (!(yield* deps.payouts.settle(tx.id))) {
          return yield* Effect.fail(refusalOf("payout_not_pending", "Payout is not pending"))
        }
        return Views.transaction(Option.getOrThrow(yield* reads.getTransaction(tx.id)))
      }),
    /** Sandbox: the bank rejects a test payout now (money returned, no webhook). */
    sandboxFailPayout: (transactionId: string) =>
      Effect.gen(function* () {
        const tx = yield* sandboxOnly(yield* transaction(transactionId))
        if (!(yield* deps.payouts.fail(tx.id, "bank_rejected"))) {
          return yield* Effect.fail(refusalOf("payout_not_pending", "Payout is not pending"))
        }
        return Views.transaction(Option.getOrThrow(yield* reads.getTransaction(tx.id)))
      }),
    /** Sandbox: a payer disputes a completed test deposit. */
    sandboxOpenChargeback: (transactionId: string, input: Requests.OpenChargeback = {}) =>
      Effect.gen(function* () {
        const tx = yield* sandboxOnly(yield* transaction(transactionId))
        const cents = input.amount
        if (cents !== undefined) {
          yield* Effect.mapError(Requests.checkAmount(cents, config.maxAmount), (e) =>
            badRequest("invalid_amount", "amount", e.message)
          )
        }
        const r = yield* deps.chargebacks.open(tx.id, cents === undefined ? {} : { amount: cents })
        if (!r.ok) return yield* Effect.fail(refusal(r.reason))
        return chargebackJson(r.value)
      }),
    /**
     * Refunds part or all of a merchant's completed charge (either mode), named by the
     * Idempotency-Key: the same key answers the first refund, never a second one.
     */
    createRefund: (
      merchantId: string,
      transactionId: string,
      input: Requests.CreateRefund,
      idempotencyKey: string
    ) =>
      Effect.gen(function* () {
        const m = yield* merchant(merchantId)
        return Refunds.toJson(yield* deps.refunds.create(m.id, transactionId, input, idempotencyKey))
      }),
    /** A merchant's charge's refunds, oldest first, with what is left to refund. */
    listRefunds: (merchantId: string, transactionId: string) =>
      Effect.gen(function* () {
        const m = yield* merchant(merchantId)
        return Refunds.summaryJson(yield* deps.refunds.list(m.id, transactionId))
      }),
    /** Sandbox: resolves a test dispute for the payer (`accepted`) or the merchant (`rejected`). */
    sandboxResolveChargeback: (chargebackId: string, outcome: "accepted" | "rejected") =>
      Effect.gen(function* () {
        const found = yield* findById(ChargebackId, chargebackId, reads.getChargeback)
        if (Option.isNone(found)) return yield* Effect.fail(Errors.notFound("Chargeback"))
        if (found.value.mode !== "test") return yield* Effect.fail(sandboxError())
        const r = yield* deps.chargebacks.resolve(found.value.id, outcome)
        if (!r.ok) return yield* Effect.fail(refusal(r.reason))
        return chargebackJson(r.value)
      })
  }
  // Each operation fails with its own errors only: storage failures become StorageUnavailable.
  return {
    createMerchant: storeSafe(ops.createMerchant),
    getMerchant: storeSafe(ops.getMerchant),
    listMerchants: storeSafe(ops.listMerchants),
    createKey: storeSafe(ops.createKey),
    revokeKey: storeSafe(ops.revokeKey),
    listKeys: storeSafe(ops.listKeys),
    setWebhook: storeSafe(ops.setWebhook),
    rotateSigningKey: storeSafe(ops.rotateSigningKey),
    webhookStatus: storeSafe(ops.webhookStatus),
    balance: storeSafe(ops.balance),
    setFeePlan: storeSafe(ops.setFeePlan),
    topUp: storeSafe(ops.topUp),
    webhookLog: storeSafe(ops.webhookLog),
    redeliver: storeSafe(ops.redeliver),
    sendTestEvent: storeSafe(ops.sendTestEvent),
    inviteUser: storeSafe(ops.inviteUser),
    resetLink: storeSafe(ops.resetLink),
    auditLog: storeSafe(ops.auditLog),
    checkLedger: storeSafe(ops.checkLedger),
    sandboxPayCharge: storeSafe(ops.sandboxPayCharge),
    sandboxSettlePayout: storeSafe(ops.sandboxSettlePayout),
    sandboxFailPayout: storeSafe(ops.sandboxFailPayout),
    sandboxOpenChargeback: storeSafe(ops.sandboxOpenChargeback),
    sandboxResolveChargeback: storeSafe(ops.sandboxResolveChargeback),
    createRefund: storeSafe(ops.createRefund),
    listRefunds: storeSafe(ops.listRefunds)
  }
})

const sandboxError = () =>
  new Errors.Refused({ code: "sandbox_only", message: "Sandbox actions apply to test mode only" })

const sandboxOnly = <T extends { readonly mode: Mode }>(t: T) =>
  t.mode === "test" ? Effect.succeed(t) : Effect.fail(sandboxError())

const refusalOf = (code: Errors.RefusedCode, message: string) => new Errors.Refused({ code, message })

const chargebackJson = (cb: import("../domain/Domain.js").Chargeback) => ({
  chargebackId: cb.id,
  transactionId: cb.transactionId,
  amount: Money.toReais(cb.amount),
  status: cb.status,
  reason: cb.reason,
  createdAt: Views.iso(cb.createdAt),
  updatedAt: Views.iso(cb.updatedAt)
})

/** An operation whose storage failures become 503 (`StorageUnavailable`). */
const storeSafe =
  <Args extends ReadonlyArray<unknown>, A, E>(operation: (...args: Args) => Effect.Effect<A, E>) =>
  (...args: Args) =>
    Effect.catchIf(
      operation(...args),
      (e): e is Extract<E, StoreError> => e instanceof StoreError,
      (e) => Effect.fail(Errors.unavailable(e))
    )

/** The admin service, for the transports that serve the panel's operations. */
export class Admin extends Context.Tag("@pixgate/core/Admin")<Admin, AdminShape>() {}

/** The service over its dependencies, as its layer declares them. */
export const layer = Layer.effect(Admin, make)
