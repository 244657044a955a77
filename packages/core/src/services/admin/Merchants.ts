/**
 * The admin service's merchants and keys: merchants, their API keys (shown once, stored hashed,
 * revocable), balances, fee plans and the ledger check.
 */
import { Effect, Option, Schema } from "effect"
import type * as AdminViews from "../../contract/AdminViews.js"
import * as Errors from "../../contract/Errors.js"
import type * as Requests from "../../contract/Requests.js"
import * as Views from "../../contract/Views.js"
import { ApiKeyId, type Merchant, MerchantId, type Mode } from "../../domain/Domain.js"
import * as Fees from "../../domain/Fees.js"
import * as Ids from "../../domain/Ids.js"
import * as Money from "../../domain/Money.js"
import { type LedgerCheck, LedgerStore, MerchantStore, type MerchantStoreShape } from "../../ports/Store.js"
import { EngineConfig } from "../../runtime/Config.js"
import * as Metrics from "../../runtime/Metrics.js"
import {
  type BalanceJson,
  badRequest,
  type CreatedMerchant,
  merchantOf,
  now,
  storeSafe,
  type View
} from "./Support.js"

/** Merchants, keys, balances, fee plans and the ledger check. */
export interface MerchantsAdmin {
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
  /** Checks the ledger's sums against the balances of a mode. */
  readonly checkLedger: (mode: Mode) => Effect.Effect<LedgerCheck, Errors.StorageUnavailable>
}

const hasNul = (text: string) => text.includes("\u0000")

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

const newKeyOf = (store: MerchantStoreShape) => (merchantId: MerchantId, mode: Mode) =>
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

/** What the operations use. */
const dependencies = Effect.gen(function* () {
  const store = yield* MerchantStore
  return {
    store,
    ledger: yield* LedgerStore,
    config: yield* EngineConfig,
    merchant: merchantOf(store),
    newKey: newKeyOf(store)
  }
})
type Deps = Effect.Effect.Success<typeof dependencies>

/** Creates a merchant with one test and one live key. */
const createMerchant =
  ({ store, config, newKey }: Deps) =>
  (input: Requests.CreateMerchant) =>
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
    })

/** Reads a merchant. */
const getMerchant = ({ merchant }: Deps) => merchant

/** Every merchant, newest first. */
const listMerchants =
  ({ store }: Deps) =>
  () =>
    store.listMerchants()

/** Creates another API key for a mode (shown once). */
const createKey =
  ({ merchant, newKey }: Deps) =>
  (merchantId: string, mode: Mode) =>
    Effect.flatMap(merchant(merchantId), (m) => newKey(m.id, mode))

/** Revokes a key by its id; its requests get 401 from then on. */
const revokeKey =
  ({ store }: Deps) =>
  (keyId: string) =>
    Effect.gen(function* () {
      const revoked = yield* Option.match(Schema.decodeUnknownOption(ApiKeyId)(keyId), {
        onNone: () => Effect.succeed(false),
        onSome: (id) => Effect.flatMap(now, (at) => store.revokeApiKey(id, at))
      })
      if (!revoked) return yield* Effect.fail(Errors.notFound("Active API key"))
      return { keyId, revoked: true as const }
    })

/** A merchant's keys (ids, modes, hints; never the keys). */
const listKeys =
  ({ store, merchant }: Deps) =>
  (merchantId: string) =>
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
    )

/** Available and held balance of one mode. */
const balance =
  ({ ledger, merchant }: Deps) =>
  (merchantId: string, mode: Mode) =>
    Effect.gen(function* () {
      const m = yield* merchant(merchantId)
      const b = yield* ledger.balance(m.id, mode)
      return {
        merchantId: m.id,
        mode,
        available: Money.toReais(b.available),
        held: Money.toReais(b.held)
      } satisfies BalanceJson
    })

/** Replaces a merchant's fee plan (applies to new transactions). */
const setFeePlan =
  ({ store, config }: Deps) =>
  (merchantId: string, input: Requests.FeePlanInput) =>
    Effect.gen(function* () {
      const plan = yield* checkedPlan(input, config.maxAmount)
      const ok = yield* Option.match(Schema.decodeUnknownOption(MerchantId)(merchantId), {
        onNone: () => Effect.succeed(false),
        onSome: (id) => store.setFeePlan(id, plan)
      })
      if (!ok) return yield* Effect.fail(Errors.notFound("Merchant"))
      return { merchantId, feePlan: plan }
    })

/** Ledger invariants of a mode. */
const checkLedger =
  ({ ledger }: Deps) =>
  (mode: Mode): Effect.Effect<LedgerCheck, Errors.StorageUnavailable> =>
    ledger.checkLedger(mode).pipe(
      Effect.tap((check) => Metrics.ledgerChecked(mode, check)),
      Effect.catchTag("StoreError", (e) => Effect.fail(Errors.unavailable(e)))
    )

/** The merchants' operations over their stores. */
export const make: Effect.Effect<MerchantsAdmin, never, MerchantStore | LedgerStore | EngineConfig> =
  Effect.map(dependencies, (d) => ({
    createMerchant: storeSafe(createMerchant(d)),
    getMerchant: storeSafe(getMerchant(d)),
    listMerchants: storeSafe(listMerchants(d)),
    createKey: storeSafe(createKey(d)),
    revokeKey: storeSafe(revokeKey(d)),
    listKeys: storeSafe(listKeys(d)),
    balance: storeSafe(balance(d)),
    setFeePlan: storeSafe(setFeePlan(d)),
    checkLedger: storeSafe(checkLedger(d))
  }))
