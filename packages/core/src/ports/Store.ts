/**
 * The storage port. Every operation is one atomic unit, named by what it guarantees ("insert
 * only if the balance covers it", "advance only if still pending", "claim due jobs"), so the
 * in-memory, SQLite and Postgres stores can each honour it exactly. One conformance suite
 * (`@pixgate/store-conformance`) pins the contract for all of them.
 *
 * Read one concern at a time: `MerchantStore`, `LedgerStore` (the units that move money),
 * `ReadStore`, `IdempotencyStore`, `JobStore`, `DeliveryStore`, `PanelStore`,
 * `PersonalDataStore`. An adapter
 * implements them all as one `StoreShape` and provides every tag with `layer(impl)`. A feature
 * brings its own port beside these (`RefundStore`, `InfractionStore`, `PaymentLinkStore`, ...),
 * which a store implements over the same units.
 */
import { Context, Data, Effect, type Either, Layer, type Option, type Scope } from "effect"
import type {
  Account,
  ApiKey,
  ApiKeyId,
  AuditEntry,
  Balance,
  Chargeback,
  ChargebackId,
  ChargebackStatus,
  DeliveryAttempt,
  DeliveryId,
  DeliveryStatus,
  EndpointHealth,
  Event,
  EventId,
  Job,
  JobId,
  JobKind,
  JobLane,
  JournalEntry,
  Merchant,
  MerchantId,
  Mode,
  NewWebhookEndpoint,
  PanelRole,
  PanelSession,
  PanelTotp,
  PanelUser,
  Transaction,
  TransactionId,
  TransactionStatus,
  TransactionType,
  WebhookDelivery,
  WebhookEndpoint
} from "../domain/Domain.js"
import { laneOf } from "../domain/Domain.js"
import type { FeePlan } from "../domain/Fees.js"
import type { Cents } from "../domain/Money.js"

/** The database failed (connection lost, constraint bug): a server-side error, never bad input. */
export class StoreError extends Data.TaggedError("StoreError")<{
  readonly message: string
  readonly cause?: unknown
  /**
   * `"unknown"` when the change may have been kept: the connection was lost at or after COMMIT,
   * so the database may have committed it. Never treat such an error as a failure (no refund,
   * no released Idempotency-Key): find out first. Absent, nothing of the operation was kept.
   */
  readonly outcome?: "unknown" | undefined
}> {}

/** Whether the operation that failed with `error` may have been kept (its outcome is unknown). */
export const isUnknownOutcome = (error: StoreError): boolean => error.outcome === "unknown"

/**
 * What a change causes besides itself, written in the same unit: events (each also becomes a
 * pending webhook delivery, with its first attempt job due at the event's time, when the
 * merchant has an endpoint for the event's mode) and durable timers.
 */
export interface Effects {
  readonly events: ReadonlyArray<Event>
  readonly jobs: ReadonlyArray<Job>
  /**
   * Jobs the change completes (the timer that caused it), deleted in its unit: a timer whose
   * change committed never runs again, even after a crash. When the change is not applied
   * (nothing to do), the job stays; its runner finishes it.
   */
  readonly completes?: ReadonlyArray<JobId>
}

/** No events, no jobs. */
export const noEffects: Effects = { events: [], jobs: [] }

/** "Debit only if covered": the account must hold at least `covers` before the entry posts. */
export interface Guard {
  readonly account: Account
  readonly covers: Cents
}

/**
 * How a request under a key ended, as its record keeps it: `answered` (the body is its answer)
 * or `refused` (the body is the encoded refusal). A transport renders each as it speaks (HTTP:
 * the operation's success status, or the refusal's).
 */
export type IdempotentOutcome = "answered" | "refused"

/**
 * The answer an idempotent request stores with its change, in the same unit, so a committed
 * change always has its replay (a crash between the two cannot strand the key).
 */
export interface IdempotentResult {
  readonly scope: IdempotencyScope
  readonly outcome: "answered"
  readonly body: string
}

/** New transactions with their money movement and what they cause. */
export interface NewTransactions {
  readonly transactions: ReadonlyArray<Transaction>
  readonly entry: JournalEntry | null
  readonly guard: Guard | null
  readonly effects: Effects
  /**
   * Finishes this started idempotency key in the same unit. When the key is no longer started
   * (another request took it over after its lock lapsed, and finished it), nothing is written
   * and the answer is "conflict".
   */
  readonly idempotency?: IdempotentResult
}

/** Moves a transaction from `from` to `to`, only if it is still in `from` (and of `type`, if given). */
export interface Advance {
  readonly id: TransactionId
  readonly type?: TransactionType
  readonly from: TransactionStatus
  readonly to: TransactionStatus
  readonly at: number
  readonly endToEndId?: string
  readonly paidAt?: number
  readonly failureReason?: string
  /** What the bank reported as received (a charge's PIX). */
  readonly receivedAmount?: Cents
  /**
   * The merchant's credit, when it is not the one set at creation: a due-date charge is paid
   * what its terms ask for on the day (`DueDate.amountDue`), less the fee quoted at creation.
   */
  readonly netAmount?: Cents
  /**
   * Only if the transaction has no `paidAt` yet: a PIX is recorded once, so a callback that
   * arrives twice (or late, after another one recorded it) changes nothing.
   */
  readonly unpaid?: boolean
  readonly entry: JournalEntry | null
  /** What the transition causes; as a function, of the transaction as it is after it. */
  readonly effects: Effects | ((updated: Transaction) => Effects)
}

/**
 * What became of one transition of `advanceEach`: the transaction as it left (`Some`), `None`
 * when it was no longer in `from` (nothing written), or the failure of its own unit (an
 * `outcome: "unknown"` one may have been kept).
 */
export type AdvanceOutcome = Either.Either<Option.Option<Transaction>, StoreError>

/** The effects of a transition, given the transaction after it. */
export const advanceEffects = (input: Advance, updated: Transaction): Effects =>
  typeof input.effects === "function" ? input.effects(updated) : input.effects

/** A resolved chargeback, with its money movement; `refund` also marks the deposit `refunded`. */
export interface ResolveChargeback {
  readonly id: ChargebackId
  readonly status: Exclude<ChargebackStatus, "open">
  readonly at: number
  readonly refund: boolean
  readonly entry: JournalEntry
  readonly effects: Effects
}

/** Filter and page of the transaction list; `from` inclusive, `to` exclusive (epoch ms). */
export interface TransactionQuery {
  readonly merchantId: MerchantId
  readonly mode: Mode
  readonly type?: TransactionType
  readonly status?: TransactionStatus
  readonly from?: number
  readonly to?: number
  /** Only transactions of exactly this amount (the panel's search; migration 0015 indexes it). */
  readonly amount?: Cents
  /** Only the transaction with this end-to-end id (the panel's search). */
  readonly endToEndId?: string
  /**
   * Only transactions whose `clientDocument` is this CPF or CNPJ, normalised (the panel's search
   * by payer; the SQL stores compare a keyed hash, as the document itself is sealed).
   */
  readonly document?: string
  readonly offset: number
  readonly limit: number
  /**
   * Keyset paging: only rows after this one in the list's order (older, or as old with a
   * smaller id), so a long read (an export) costs the same per page however far it is.
   */
  readonly before?: { readonly createdAt: number; readonly id: string }
  /** `false` skips counting the filtered rows (`total` is then 0): a page read by an export. */
  readonly countTotal?: boolean
}

/** A page of transactions, newest first (`createdAt` desc, `id` desc), and the filtered count. */
export interface TransactionPage {
  readonly rows: ReadonlyArray<Transaction>
  readonly total: number
}

/** Ledger invariants, checked from the postings themselves. */
export interface LedgerCheck {
  /** Entries whose postings do not sum to zero (must be empty). */
  readonly unbalancedEntries: ReadonlyArray<EntryIdLike>
  /** Cached balances that differ from the sum of their postings (must be empty). */
  readonly balanceMismatches: ReadonlyArray<{
    readonly mode: Mode
    readonly account: Account
    readonly cached: Cents
    readonly posted: Cents
  }>
  /** Sum of every posting of the mode (must be zero). */
  readonly total: Cents
  readonly entries: number
}
type EntryIdLike = string

/** Outcome of starting an idempotent request. */
export type IdempotencyBegin =
  /**
   * The request runs. `held` is what an earlier attempt under the key kept for its retry
   * (`holdIdempotent`) when it took over that attempt's unfinished record.
   */
  | { readonly _tag: "Started"; readonly held?: string }
  | { readonly _tag: "InFlight" }
  | { readonly _tag: "Mismatch" }
  | { readonly _tag: "Replay"; readonly outcome: IdempotentOutcome; readonly body: string }

/** Identifies an idempotency key: per merchant and mode. */
export interface IdempotencyScope {
  readonly merchantId: MerchantId
  readonly mode: Mode
  readonly key: string
}

/** A claimed job; the claim holds until `leaseUntil`, then another worker may take it. */
export interface ClaimedJob extends Job {
  readonly leaseUntil: number
}

/**
 * What a webhook attempt needs: the delivery, its event, and the merchant's endpoint for the
 * mode as it is now (URL, secret and signing keys; null when there is none), with its health.
 * Every attempt, retries included, goes to the current URL with the current secret and keys.
 */
export interface DeliveryContext {
  readonly delivery: WebhookDelivery
  readonly event: Event
  readonly endpoint: WebhookEndpoint | null
  readonly health: EndpointHealth
}

/**
 * Per-endpoint shares of the webhook lane (`claimDueJobs`): at most `perEndpoint` attempts of
 * one endpoint leased at once, `failingPerEndpoint` while the endpoint is failing.
 */
export interface JobFairness {
  readonly perEndpoint: number
  readonly failingPerEndpoint: number
}

/** What an attempt's outcome changed in its endpoint's health. */
export type HealthChange = "failing" | "recovered" | "unchanged"

/** An endpoint's backlog: deliveries waiting for an attempt, and attempts leased now. */
export interface EndpointBacklog {
  readonly health: EndpointHealth
  readonly pending: number
  readonly inFlight: number
}

/** The result of one attempt: the row for the log, the delivery's new state and the next run. */
export interface AttemptRecord {
  readonly jobId: JobId
  readonly attempt: DeliveryAttempt
  readonly status: DeliveryStatus
  /** When to try again; only with status `pending`. */
  readonly retryAt: number | null
  /** The URL the attempt went to (the endpoint's current one); the delivery's `url` becomes it. */
  readonly url?: string
}

/** Filter of the webhook log. */
export interface DeliveryQuery {
  readonly merchantId: MerchantId
  readonly mode?: Mode
  readonly status?: DeliveryStatus
  readonly eventId?: EventId
  readonly limit: number
  readonly offset: number
}

/** A delivery with its attempts, oldest attempt first. */
export interface DeliveryLogEntry {
  readonly delivery: WebhookDelivery
  readonly event: Event
  readonly attempts: ReadonlyArray<DeliveryAttempt>
  /**
   * When the next attempt is scheduled (its job's run time) while the delivery is pending; null
   * once it is delivered or failed.
   */
  readonly nextAttemptAt: number | null
}

/** A one-time link to set a panel user's password: only its token's SHA-256 is stored. */
export interface PanelInvite {
  readonly tokenHash: string
  readonly expiresAt: number
  readonly createdAt: number
}

/** A stored invite as `findPanelInvite` reads it: whether it was used, and when. */
export interface PanelInviteState extends PanelInvite {
  readonly userId: string
  readonly usedAt: number | null
}

/**
 * Merchants, their API keys (by hash) and their webhook endpoints: the configuration every request
 * reads first. Inserts of an existing id fail; reads never see a half-written record.
 *
 * Every operation is one atomic unit: it is kept whole or not at all. A failure is a
 * `StoreError`; one with `outcome: "unknown"` (the connection was lost at or after COMMIT) may
 * have been kept, and callers never treat it as a failure (no refund, no released key).
 */
export interface MerchantStoreShape {
  /** Inserts a merchant. */
  readonly createMerchant: (merchant: Merchant) => Effect.Effect<void, StoreError>
  /** Reads a merchant. */
  readonly getMerchant: (id: MerchantId) => Effect.Effect<Option.Option<Merchant>, StoreError>
  /** Every merchant, newest first (the operator's `pixgate merchant list`). */
  readonly listMerchants: () => Effect.Effect<ReadonlyArray<Merchant>, StoreError>
  /** Replaces a merchant's fee plan; false when the merchant does not exist. */
  readonly setFeePlan: (id: MerchantId, plan: FeePlan) => Effect.Effect<boolean, StoreError>
  /** Stores a new API key (its hash only). */
  readonly insertApiKey: (key: ApiKey) => Effect.Effect<void, StoreError>
  /**
   * Finds a key by the SHA-256 of its text (revoked keys included; the caller checks) with the
   * merchant that owns it, in one read (what every request needs).
   */
  readonly findKeyOwner: (
    hash: string
  ) => Effect.Effect<Option.Option<{ readonly key: ApiKey; readonly merchant: Merchant }>, StoreError>
  /**
   * The store-wide version of the credentials: it changes whenever a change to an API key or a
   * merchant commits (a key created, revoked or deleted; a merchant created or changed; not a
   * key's last use), whichever process made it. Each call reads it afresh, never older than the
   * call, so a cache of `findKeyOwner` answers that compares it before serving sees a revocation
   * on the very next request (Auth).
   */
  readonly credentialsVersion: () => Effect.Effect<number, StoreError>
  /** Marks a key revoked; false when it does not exist or was already revoked. */
  readonly revokeApiKey: (id: ApiKeyId, at: number) => Effect.Effect<boolean, StoreError>
  /** A merchant's keys, newest first. */
  readonly listApiKeys: (merchantId: MerchantId) => Effect.Effect<ReadonlyArray<ApiKey>, StoreError>
  /**
   * Sets the merchant's endpoint for one mode. A new endpoint takes `signingKey`; an existing
   * one gets the new URL, secret and `secretHeader` and keeps its signing keys (`signingKey` is
   * ignored). Answers the endpoint as stored.
   */
  readonly setWebhookEndpoint: (endpoint: NewWebhookEndpoint) => Effect.Effect<WebhookEndpoint, StoreError>
  /**
   * Replaces the endpoint's signing key with `signingKey`; the key it replaces keeps signing
   * until `previousUntil` (none when null). None when the endpoint does not exist.
   */
  readonly rotateSigningKey: (input: {
    readonly merchantId: MerchantId
    readonly mode: Mode
    readonly signingKey: string
    readonly previousUntil: number | null
    readonly at: number
  }) => Effect.Effect<Option.Option<WebhookEndpoint>, StoreError>
  /** The merchant's endpoint for one mode. */
  readonly getWebhookEndpoint: (
    merchantId: MerchantId,
    mode: Mode
  ) => Effect.Effect<Option.Option<WebhookEndpoint>, StoreError>
  /** Records that a key authenticated a request at `at`, when its last use is older than `at - withinMs`. */
  readonly touchApiKey: (id: ApiKeyId, at: number, withinMs: number) => Effect.Effect<void, StoreError>
}

/**
 * The units that move money: each writes its transactions, their balanced journal entry, the
 * events they cause (the outbox: each event becomes a pending webhook delivery with its first
 * attempt job when the merchant has an endpoint for the mode), the jobs they schedule and the
 * jobs they complete, all in one atomic unit; and the ledger's reads. Guards ("only if the
 * balance covers it", "only if still pending") are checked inside the unit, so concurrent callers
 * never both pass: of 1,000 concurrent payouts against a balance covering 100, exactly 100 are kept.
 *
 * Every operation is one atomic unit: it is kept whole or not at all. A failure is a
 * `StoreError`; one with `outcome: "unknown"` (the connection was lost at or after COMMIT) may
 * have been kept, and callers never treat it as a failure (no refund, no released key).
 */
export interface LedgerStoreShape {
  /**
   * Inserts new transactions, their journal entry, events and jobs in one unit. With a guard,
   * writes nothing and answers "insufficient" unless the guarded account covers the amount;
   * with `idempotency`, writes nothing and answers "conflict" unless the key is still started.
   */
  readonly insertTransactions: (
    input: NewTransactions
  ) => Effect.Effect<"created" | "insufficient" | "conflict", StoreError>
  /** Applies a status transition if the transaction is still in `from`; None otherwise. */
  readonly advance: (input: Advance) => Effect.Effect<Option.Option<Transaction>, StoreError>
  /**
   * Many transitions in one operation (a worker's claim of settlements): each is its own unit,
   * exactly as `advance` would apply it, and answers its own outcome, in input order. One that
   * is no longer in `from` writes nothing; one that fails fails alone, the others kept or not
   * on their own. Transitions of one transaction apply in input order (the second sees the
   * first). A store may write them in one database transaction (SQL: one write batch, the same
   * multi-row statements); the operation itself never fails.
   */
  readonly advanceEach: (inputs: ReadonlyArray<Advance>) => Effect.Effect<ReadonlyArray<AdvanceOutcome>>
  /** Posts a plain journal entry (sandbox top-up). */
  readonly postEntry: (entry: JournalEntry) => Effect.Effect<void, StoreError>
  /** Opens a chargeback with its hold; false when the deposit already has an open one. */
  readonly openChargeback: (
    chargeback: Chargeback,
    entry: JournalEntry,
    effects: Effects
  ) => Effect.Effect<boolean, StoreError>
  /** Resolves an open chargeback; None when it is not open. */
  readonly resolveChargeback: (
    input: ResolveChargeback
  ) => Effect.Effect<Option.Option<Chargeback>, StoreError>
  /** A merchant's available and held balances in one mode. */
  readonly balance: (merchantId: MerchantId, mode: Mode) => Effect.Effect<Balance, StoreError>
  /** Balance of any account, from its postings. */
  readonly accountBalance: (mode: Mode, account: Account) => Effect.Effect<Cents, StoreError>
  /** Checks the ledger's invariants for one mode. */
  readonly checkLedger: (mode: Mode) => Effect.Effect<LedgerCheck, StoreError>
  /**
   * A page of one account's postings in journal order (entry id, then the posting's place in
   * its entry), each with its entry and the entry's transaction: a statement's movements. The
   * page starts after `after` (keyset paging: stable while new entries arrive).
   */
  readonly listAccountMovements: (
    query: AccountMovementQuery
  ) => Effect.Effect<ReadonlyArray<AccountMovement>, StoreError>
  /** An account's balance from its postings of entries created before `before` (epoch ms). */
  readonly accountBalanceBefore: (
    mode: Mode,
    account: Account,
    before: number
  ) => Effect.Effect<Cents, StoreError>
}

/** Where a page of an account's movements starts and what it covers (`from` inclusive, `to` exclusive). */
export interface AccountMovementQuery {
  readonly mode: Mode
  readonly account: Account
  readonly from?: number
  readonly to?: number
  /** The last movement of the previous page; none for the first page. */
  readonly after?: MovementCursor
  readonly limit: number
}

/** A movement's place in journal order. */
export interface MovementCursor {
  readonly entryId: string
  readonly seq: number
}

/** One posting on an account, with its entry and the entry's transaction, if it has one. */
export interface AccountMovement extends MovementCursor {
  /** The entry's kind: `charge.completed`, `payout.created`, `sandbox.topup`, ... */
  readonly kind: string
  /** Signed: positive adds to the account. */
  readonly amount: Cents
  readonly createdAt: number
  readonly transaction: Transaction | null
}

/**
 * Reads of transactions, chargebacks and events: point reads and a merchant's filtered list with
 * its total. They never write, and see only committed units.
 */
export interface ReadStoreShape {
  /** One transaction by id. */
  readonly getTransaction: (id: TransactionId) => Effect.Effect<Option.Option<Transaction>, StoreError>
  /** One charge by its PIX txid. */
  readonly findByTxid: (txid: string) => Effect.Effect<Option.Option<Transaction>, StoreError>
  /** A filtered page of a merchant's transactions and the filtered count. */
  readonly listTransactions: (query: TransactionQuery) => Effect.Effect<TransactionPage, StoreError>
  /** One chargeback. */
  readonly getChargeback: (id: ChargebackId) => Effect.Effect<Option.Option<Chargeback>, StoreError>
  /** Chargebacks of a deposit, oldest first. */
  readonly listChargebacks: (
    transactionId: TransactionId
  ) => Effect.Effect<ReadonlyArray<Chargeback>, StoreError>
  /**
   * Events of one merchant and mode, oldest first (`createdAt`, then id); with `since` (epoch
   * ms), only those created at or after it (the event feed's polls read a recent window).
   */
  readonly listEvents: (
    merchantId: MerchantId,
    mode: Mode,
    since?: number
  ) => Effect.Effect<ReadonlyArray<Event>, StoreError>
  /** One event. */
  readonly getEvent: (id: EventId) => Effect.Effect<Option.Option<Event>, StoreError>
  /**
   * Whether the database answers right now: one trivial round trip (`SELECT 1`), outside any
   * batching, for readiness probes. Fails with a `StoreError` when it cannot be reached; the
   * caller bounds how long it waits.
   */
  readonly ping: Effect.Effect<void, StoreError>
}

/**
 * Idempotency keys per merchant and mode: the first request under a key runs, a retry with the
 * same fingerprint gets the stored answer, a concurrent one is told it is in flight. A key whose
 * request may have been kept (an unknown outcome) is never released; it waits for its lock.
 */
export interface IdempotencyStoreShape {
  /**
   * Starts a request under an idempotency key, locked until `lockedUntil`: Started (first, the
   * old record expired, or an unfinished record with the same fingerprint whose lock lapsed:
   * its request died, so this one takes over), InFlight (unfinished and still locked), Replay
   * (same fingerprint, finished), Mismatch (another fingerprint, not expired).
   */
  readonly beginIdempotent: (
    scope: IdempotencyScope,
    fingerprint: string,
    now: number,
    expiresAt: number,
    lockedUntil: number
  ) => Effect.Effect<IdempotencyBegin, StoreError>
  /** Stores the result a replay returns; a key that already has one keeps it. */
  readonly finishIdempotent: (
    scope: IdempotencyScope,
    outcome: IdempotentOutcome,
    body: string
  ) => Effect.Effect<void, StoreError>
  /**
   * Forgets a started key whose request definitely failed (nothing kept), so a retry runs it
   * again. Never called on an unknown outcome: that key stays until its lock lapses.
   */
  readonly releaseIdempotent: (scope: IdempotencyScope) => Effect.Effect<void, StoreError>
  /**
   * Keeps `held` on a started key whose request ended with an unknown outcome it can resume
   * (e.g. the charge it asked the bank for), and moves its lock to `lockedUntil`: the retry that
   * takes the record over gets `held` back in `Started`. A finished or missing key is left as is.
   */
  readonly holdIdempotent: (
    scope: IdempotencyScope,
    held: string,
    lockedUntil: number
  ) => Effect.Effect<void, StoreError>
}

/**
 * Durable timers: claimed with a lease (concurrent claimers never get the same job; a job whose
 * lease ended is claimable again, so a crashed worker's jobs run elsewhere), then finished or
 * rescheduled. A job is stored in the same unit as the change that schedules it (`LedgerStore`),
 * and deleted in the unit of the change that completes it. Each operation is atomic; on an
 * unknown outcome the job is simply claimed again when its lease ends.
 */
export interface JobStoreShape {
  /**
   * Leases up to `limit` jobs of `lane` due at `now` (run_at <= now, not leased or lease
   * expired) to the caller until `leaseUntil`, earliest first. Concurrent claimers never get
   * the same job. With `fairness` (webhook lane), an endpoint's attempts are leased only up to
   * its share minus its attempts already leased (by any claimer), earliest first within it.
   */
  readonly claimDueJobs: (
    now: number,
    limit: number,
    leaseUntil: number,
    lane: JobLane,
    fairness?: JobFairness
  ) => Effect.Effect<ReadonlyArray<ClaimedJob>, StoreError>
  /**
   * Leases up to `limit` due attempts of one webhook endpoint (`Domain.fairnessKey`) to the
   * caller until `leaseUntil`, earliest first, while the endpoint's attempts leased (by any
   * claimer) stay within its share (`fairness`: `perEndpoint`, or `failingPerEndpoint` while it is
   * failing). Concurrent claimers never get the same job. The worker calls it when an attempt
   * of the endpoint ends, so its next due attempt starts at once (one index range read).
   */
  readonly claimEndpointJobs: (
    now: number,
    endpoint: string,
    limit: number,
    leaseUntil: number,
    fairness: JobFairness
  ) => Effect.Effect<ReadonlyArray<ClaimedJob>, StoreError>
  /** The earliest time a job of `lane` becomes claimable (run time or lease end), if any exists. */
  readonly nextJobAt: (lane: JobLane) => Effect.Effect<Option.Option<number>, StoreError>
  /**
   * Calls `listener` after each unit of this store instance that stores or reschedules jobs
   * commits, with the earliest run time per lane, until the scope closes: the worker of this
   * instance starts due work at once. Jobs other instances store are found by polling.
   */
  readonly watchJobs: (
    listener: (lane: JobLane, at: number) => void
  ) => Effect.Effect<void, never, Scope.Scope>
  /** Deletes a finished job. */
  readonly finishJob: (id: JobId) => Effect.Effect<void, StoreError>
  /** Releases a job's lease and sets its next run time. */
  readonly retryJob: (id: JobId, runAt: number) => Effect.Effect<void, StoreError>
}

/**
 * Webhook deliveries: what an attempt needs, its log, the endpoint's health, redelivery. An
 * attempt's record, its delivery's new state and its job's next run (or its deletion) are
 * written in one atomic unit, so a crash never logs an attempt without moving its job on.
 */
export interface DeliveryStoreShape {
  /** A delivery, its event and the merchant's current endpoint for the mode, with its health. */
  readonly getDelivery: (id: DeliveryId) => Effect.Effect<Option.Option<DeliveryContext>, StoreError>
  /** Logs an attempt, updates the delivery, and reschedules or deletes its job, in one unit. */
  readonly recordAttempt: (record: AttemptRecord) => Effect.Effect<void, StoreError>
  /**
   * A new delivery of an existing event to the merchant's current endpoint, due at `now`;
   * None when the event does not exist or the merchant has no endpoint for its mode.
   */
  readonly redeliver: (
    eventId: EventId,
    now: number
  ) => Effect.Effect<Option.Option<WebhookDelivery>, StoreError>
  /**
   * Counts an attempt's outcome in its endpoint's health: a failure adds one to the failures in
   * a row (failing from the `failingAfter`th), a success resets them. Answers the change, which
   * exactly one caller sees when several attempts end at once.
   */
  readonly recordEndpointHealth: (input: {
    readonly merchantId: MerchantId
    readonly mode: Mode
    readonly ok: boolean
    readonly at: number
    readonly failingAfter: number
  }) => Effect.Effect<HealthChange, StoreError>
  /** An endpoint's health, pending deliveries and attempts leased at `now`. */
  readonly endpointBacklog: (
    merchantId: MerchantId,
    mode: Mode,
    now: number
  ) => Effect.Effect<EndpointBacklog, StoreError>
  /**
   * Records an event that moves no money (`webhook.test`) with its pending delivery and first
   * attempt job due at the event's time, in one unit, when the merchant has an endpoint for the
   * event's mode; None, and nothing written, when it has none.
   */
  readonly insertEvent: (event: Event) => Effect.Effect<Option.Option<WebhookDelivery>, StoreError>
  /** The webhook log: deliveries newest first, with their attempts and next attempt time. */
  readonly listDeliveries: (
    query: DeliveryQuery
  ) => Effect.Effect<ReadonlyArray<DeliveryLogEntry>, StoreError>
}

/**
 * The panel's users, invites and sessions (migration 0007). Sessions and invites are stored by
 * the SHA-256 of their secret only; using an invite or changing a password revokes sessions in
 * the same atomic unit, and an invite is used at most once.
 */
export interface PanelStoreShape {
  /**
   * Stores an invite for `user.email`: creates the user (without a password) when the e-mail is
   * new, or reuses the user when it belongs to the same merchant. "taken" when the e-mail belongs
   * to another merchant's user.
   */
  readonly invitePanelUser: (
    user: PanelUser,
    invite: PanelInvite
  ) => Effect.Effect<
    { readonly _tag: "Invited"; readonly user: PanelUser } | { readonly _tag: "Taken" },
    StoreError
  >
  /** A panel user by (lower-cased) e-mail. */
  readonly findPanelUser: (email: string) => Effect.Effect<Option.Option<PanelUser>, StoreError>
  /** A panel user by id. */
  readonly getPanelUser: (id: string) => Effect.Effect<Option.Option<PanelUser>, StoreError>
  /**
   * Uses an invite once: when it exists, is unused and not expired at `at`, marks it used, sets
   * its user's password and revokes the user's sessions (a new invite resets a password), in one
   * unit. None otherwise.
   */
  readonly usePanelInvite: (
    tokenHash: string,
    passwordHash: string,
    at: number
  ) => Effect.Effect<Option.Option<PanelUser>, StoreError>
  /**
   * An invite by its token's hash, used or not, expired or not, without using it (the invite
   * page tells a valid link from a used or expired one before showing any form).
   */
  readonly findPanelInvite: (tokenHash: string) => Effect.Effect<Option.Option<PanelInviteState>, StoreError>
  /** Replaces a user's password and revokes every session of the user but `keep`, in one unit. */
  readonly setPanelPassword: (
    userId: string,
    passwordHash: string,
    at: number,
    keep: string | null
  ) => Effect.Effect<void, StoreError>
  /** Stores a new session. */
  readonly createPanelSession: (session: PanelSession) => Effect.Effect<void, StoreError>
  /**
   * The live session with this hash at `now` (not revoked, not past its absolute expiry, seen
   * within `idleMs`), its `lastSeenAt` moved to `now` when it is older than `touchAfterMs`.
   */
  readonly touchPanelSession: (
    idHash: string,
    now: number,
    idleMs: number,
    touchAfterMs: number
  ) => Effect.Effect<Option.Option<PanelSession>, StoreError>
  /** Revokes a session (sign-out); false when it was not live. */
  readonly revokePanelSession: (idHash: string, at: number) => Effect.Effect<boolean, StoreError>

  // Migration 0014: roles, sessions list, TOTP, recovery codes, audit log, sign-in throttle.

  /** The panel users of a merchant, oldest first. */
  readonly listPanelUsers: (merchantId: MerchantId) => Effect.Effect<ReadonlyArray<PanelUser>, StoreError>
  /** Sets a user's role; false when there is no such user. */
  readonly setPanelUserRole: (
    userId: string,
    role: PanelRole,
    at: number
  ) => Effect.Effect<boolean, StoreError>
  /** The live sessions of a user at `now` (not revoked, not expired), newest first. */
  readonly listPanelSessions: (
    userId: string,
    now: number
  ) => Effect.Effect<ReadonlyArray<PanelSession>, StoreError>
  /** Revokes a session of `userId` only; false when it was not a live session of that user. */
  readonly revokeUserPanelSession: (
    userId: string,
    idHash: string,
    at: number
  ) => Effect.Effect<boolean, StoreError>
  /** Records that a live session passed the second factor at `at`; false when it is not live. */
  readonly markPanelSessionSecondFactor: (idHash: string, at: number) => Effect.Effect<boolean, StoreError>
  /** The user's TOTP factor, pending or confirmed. */
  readonly getPanelTotp: (userId: string) => Effect.Effect<Option.Option<PanelTotp>, StoreError>
  /**
   * Starts an enrolment: stores a pending secret, replacing a pending one; false (and nothing
   * changes) when the user already has a confirmed factor.
   */
  readonly beginPanelTotp: (userId: string, secret: string, at: number) => Effect.Effect<boolean, StoreError>
  /**
   * Confirms a pending factor with the step of a valid code, and replaces the user's recovery
   * codes by `recoveryHashes`, in one unit; false when there is no pending factor.
   */
  readonly confirmPanelTotp: (
    userId: string,
    step: number,
    recoveryHashes: ReadonlyArray<string>,
    at: number
  ) => Effect.Effect<boolean, StoreError>
  /**
   * Accepts a code's time step once: moves `lastStep` to `step` when the factor is confirmed and
   * `step` is later than `lastStep`; false otherwise (a replayed or older code).
   */
  readonly usePanelTotpStep: (userId: string, step: number) => Effect.Effect<boolean, StoreError>
  /** Uses a recovery code (by hash) once; false when unknown or already used. */
  readonly usePanelRecoveryCode: (
    userId: string,
    codeHash: string,
    at: number
  ) => Effect.Effect<boolean, StoreError>
  /** Removes the user's factor and recovery codes; false when there was none. */
  readonly removePanelTotp: (userId: string) => Effect.Effect<boolean, StoreError>
  /** Appends an audit entry. */
  readonly appendAudit: (entry: AuditEntry) => Effect.Effect<void, StoreError>
  /** A merchant's audit entries, newest first, `limit` of them with ids below `before`. */
  readonly listAudit: (
    merchantId: MerchantId,
    page: { readonly before?: string | undefined; readonly limit: number }
  ) => Effect.Effect<ReadonlyArray<AuditEntry>, StoreError>
  /**
   * Counts a hit on a throttle key in fixed windows of `windowMs`: the count of the window that
   * holds `now` after this hit (1 when the previous window has passed). Shared by every instance
   * on the store; rows whose window ended a day ago may be pruned by any call.
   */
  readonly hitThrottle: (key: string, now: number, windowMs: number) => Effect.Effect<number, StoreError>
  /** The count of a throttle key in the window holding `now` (0 when none or passed). */
  readonly peekThrottle: (key: string, now: number, windowMs: number) => Effect.Effect<number, StoreError>
  /** Forgets a throttle key (after a successful sign-in). */
  readonly clearThrottle: (key: string) => Effect.Effect<void, StoreError>
}

/**
 * Erasure of personal data (docs/operations.md, "Retention and erasure"): a payer's, on their
 * request, and everyone's past the retention period. Each replaces the name, CPF/CNPJ and PIX key
 * of the transactions it finds, and the PIX key in their events, with `PersonalData.erased`, in
 * one unit per call; amounts, ids, statuses, timestamps and the ledger stay exactly as they were,
 * so `checkLedger` and every balance read the same after it.
 */
export interface PersonalDataStoreShape {
  /**
   * Erases every transaction, of every merchant and mode, whose `clientDocument` is `document`
   * (a CPF or CNPJ, normalised) or whose PIX key is that document; answers how many still held
   * personal data. Erasing again finds nothing.
   */
  readonly erasePayer: (document: string) => Effect.Effect<number, StoreError>
  /**
   * Erases at most `limit` transactions created before `before` (epoch ms) that still hold
   * personal data, and drops idempotency records that expired before it (their stored answers
   * repeat that data); answers how many transactions it erased (fewer than `limit`: none left).
   */
  readonly erasePersonalDataBefore: (before: number, limit: number) => Effect.Effect<number, StoreError>
}

/**
 * The whole storage port, every concern in one object: what MemoryStore, @pixgate/store-sqlite
 * and @pixgate/store-pg implement, and what `layer` turns into every tag.
 */
export interface StoreShape
  extends MerchantStoreShape,
    LedgerStoreShape,
    ReadStoreShape,
    IdempotencyStoreShape,
    JobStoreShape,
    DeliveryStoreShape,
    PanelStoreShape,
    PersonalDataStoreShape {}

/**
 * The whole store's tag: the one object an adapter implements. The engine's services each yield
 * only the focused tags below; `layer` provides every tag from one implementation, and `fromFull`
 * derives the focused ones from a context that holds only this one.
 */
export class Store extends Context.Tag("@pixgate/core/Store")<Store, StoreShape>() {}
/** Merchants, API keys and webhook endpoints (`MerchantStoreShape`). */
export class MerchantStore extends Context.Tag("@pixgate/core/Store/MerchantStore")<
  MerchantStore,
  MerchantStoreShape
>() {}
/** The units that move money, and the ledger's reads (`LedgerStoreShape`). */
export class LedgerStore extends Context.Tag("@pixgate/core/Store/LedgerStore")<
  LedgerStore,
  LedgerStoreShape
>() {}
/** Reads of transactions, chargebacks and events (`ReadStoreShape`). */
export class ReadStore extends Context.Tag("@pixgate/core/Store/ReadStore")<ReadStore, ReadStoreShape>() {}
/** Idempotency keys (`IdempotencyStoreShape`). */
export class IdempotencyStore extends Context.Tag("@pixgate/core/Store/IdempotencyStore")<
  IdempotencyStore,
  IdempotencyStoreShape
>() {}
/** Durable jobs (`JobStoreShape`). */
export class JobStore extends Context.Tag("@pixgate/core/Store/JobStore")<JobStore, JobStoreShape>() {}
/** Webhook deliveries (`DeliveryStoreShape`). */
export class DeliveryStore extends Context.Tag("@pixgate/core/Store/DeliveryStore")<
  DeliveryStore,
  DeliveryStoreShape
>() {}
/** Panel users, invites and sessions (`PanelStoreShape`). */
export class PanelStore extends Context.Tag("@pixgate/core/Store/PanelStore")<
  PanelStore,
  PanelStoreShape
>() {}

/** Erasure of personal data (`PersonalDataStoreShape`). */
export class PersonalDataStore extends Context.Tag("@pixgate/core/Store/PersonalDataStore")<
  PersonalDataStore,
  PersonalDataStoreShape
>() {}

/** Every focused tag. */
export type FocusedStores =
  | MerchantStore
  | LedgerStore
  | ReadStore
  | IdempotencyStore
  | JobStore
  | DeliveryStore
  | PanelStore
  | PersonalDataStore

/** Every tag a store provides: the whole store and each concern. */
export type Stores = Store | FocusedStores

/** Every focused tag over the one implementation. */
const focused = (impl: StoreShape): Context.Context<FocusedStores> =>
  Context.make(MerchantStore, impl).pipe(
    Context.add(LedgerStore, impl),
    Context.add(ReadStore, impl),
    Context.add(IdempotencyStore, impl),
    Context.add(JobStore, impl),
    Context.add(DeliveryStore, impl),
    Context.add(PanelStore, impl),
    Context.add(PersonalDataStore, impl)
  )

/** Every tag over one implementation, as a context (for a layer that adds services of its own). */
export const context = (impl: StoreShape): Context.Context<Stores> => Context.add(focused(impl), Store, impl)

/** Every tag over one implementation: what a store adapter's layer provides. */
export const layer = (impl: StoreShape): Layer.Layer<Stores> => Layer.succeedContext(context(impl))

/** Every tag over the implementation `make` builds, once per build of the layer. */
export const layerEffect = <E, R>(
  make: Effect.Effect<StoreShape, E, R>
): Layer.Layer<Stores, E, Exclude<R, Scope.Scope>> => Layer.scopedContext(Effect.map(make, context))

/**
 * The focused tags read from the whole `Store` in context, for a context that holds only it (a
 * `Layer.succeed(Store, impl)` of a test or an embedder). The engine's layers provide it over the
 * `Store` they are given, so the whole store is always the one source of every tag.
 */
export const fromFull: Layer.Layer<FocusedStores, never, Store> = Layer.effectContext(
  Effect.map(Store, focused)
)

/** Listeners of one store instance's new jobs (`JobStoreShape.watchJobs`), for store implementations. */
export class JobWatchers {
  private readonly listeners = new Set<(lane: JobLane, at: number) => void>()

  /** `JobStoreShape.watchJobs`. */
  readonly watch = (listener: (lane: JobLane, at: number) => void): Effect.Effect<void, never, Scope.Scope> =>
    Effect.acquireRelease(
      Effect.sync(() => this.listeners.add(listener)),
      () => Effect.sync(() => this.listeners.delete(listener))
    )

  /** Tells every listener that jobs of `lane` may be due from `at` (after the unit committed). */
  notify(lane: JobLane, at: number): void {
    for (const listener of this.listeners) listener(lane, at)
  }

  /** Notifies the earliest run time of each lane among `jobs`. */
  notifyJobs(jobs: Iterable<{ readonly kind: JobKind; readonly runAt: number }>): void {
    // Called after every unit, most with no jobs and no listener: no allocation for those.
    if (this.listeners.size === 0) return
    let webhooks = Number.POSITIVE_INFINITY
    let timers = Number.POSITIVE_INFINITY
    for (const job of jobs) {
      if (laneOf(job.kind) === "webhooks") webhooks = Math.min(webhooks, job.runAt)
      else timers = Math.min(timers, job.runAt)
    }
    if (webhooks !== Number.POSITIVE_INFINITY) this.notify("webhooks", webhooks)
    if (timers !== Number.POSITIVE_INFINITY) this.notify("timers", timers)
  }
}
