/**
 * `@pixgate/core`: every module by name (`import { Engine, Money } from "@pixgate/core"`), in the
 * order of the folders they live in (packages/core/README.md, "Layout"). Node-only adapters are
 * in `@pixgate/core/node`.
 */
// Adapters: the ports in process (the memory store, the sandbox bank).
/** The storage port in memory, for tests and experiments. */

/**
 * The audit log of a merchant's panel: who (user id and e-mail, or "operator"), when, what (an action and
 * the object's id) and from where (address and browser) for every sensitive action: sign-in success and
 * failure, second-factor enrolment and removal, payouts, refunds, API keys, webhook changes, role
 * changes, session revocation, password resets.
 */
export * as Audit from "./access/Audit.js"
/** The e-mails the panel sends, in pt-BR, text and HTML with the brand. */
export * as MailBodies from "./access/MailBodies.js"
/** The notifications a panel user opts into, and the `notify` hook that e-mails them. */
export * as Notifications from "./access/Notifications.js"
/**
 * Access to the merchant panel: one-time invites that let a person set the password of a panel user of
 * one merchant.
 */
export * as PanelAccess from "./access/PanelAccess.js"
/**
 * Setting a panel user's password: through an invite link, the operator's reset link, or by the user;
 * every new password judged first.
 */
export * as PanelPasswords from "./access/PanelPasswords.js"
/**
 * The second factor as the panel's users meet it: the second step at sign-in, enrolment, turning it off,
 * and the check of a code.
 */
export * as PanelSecondFactor from "./access/PanelSecondFactor.js"
/**
 * Sessions of the panel's own users: sign-in, the session a cookie opens, sign-out, the list of sessions,
 * and the check of who is at the keyboard before a secret is shown again.
 */
export * as PanelSessions from "./access/PanelSessions.js"
/**
 * Panel passwords: the rule a new password must meet (length, and hard to guess by a strength estimator)
 * and the port through which the host hashes, checks and judges them.
 */
export * as Passwords from "./access/Passwords.js"
/**
 * Sign-in throttling shared by every instance through the store's counters (fixed windows of `windowMs`).
 */
export * as SignInThrottle from "./access/SignInThrottle.js"
/** The team managed from the panel: invitations by e-mail, roles, removal, forgotten passwords. */
export * as Team from "./access/Team.js"
/**
 * TOTP second factor of panel users (RFC 6238: SHA-1, 6 digits, 30-second steps, as every authenticator
 * app reads an `otpauth://` URI), with `otplib` doing the arithmetic.
 */
export * as TwoFactor from "./access/TwoFactor.js"
export * as MemoryStore from "./adapters/MemoryStore.js"
/**
 * The sandbox bank: test keys' charges are paid and payouts settle 2-3 s later, on the Effect clock
 * (deterministic under TestClock: the delay is derived from the transaction id).
 */
export * as Sandbox from "./adapters/Sandbox.js"
// Contract: errors, JSON views, request schemas and webhook events, as the transports show them.
/** The JSON of the admin tokens and of the admin audit log. */
export * as AdminTokenViews from "./contract/AdminTokenViews.js"
/**
 * The JSON of the admin operations (core `Admin`, the admin HTTP API and the CLI's `--json`), as
 * `effect/Schema` schemas with their descriptions and examples: merchants and fee plans, API keys,
 * webhook endpoints, their status and deliveries, balances, panel invites, sandbox chargebacks.
 */
export * as AdminViews from "./contract/AdminViews.js"
/**
 * Due-date charges (the API Pix `cobv`) as the engine shows them: what one asks for on a day
 * (`DueAmount`) and the fields it adds to charges, transactions and events (listed by `Views`).
 */
export * as DueDateViews from "./contract/DueDateViews.js"
/** The events of a merchant's webhook endpoint: disabled by the engine, enabled by hand. */
export * as EndpointEvents from "./contract/EndpointEvents.js"
/** Every error the engine reports to a merchant, one tagged class per case. */
export * as Errors from "./contract/Errors.js"
/** Event records and their payloads. */
export * as Events from "./contract/Events.js"
/** MED infractions as the admin API and the CLI show them, and their requests. */
export * as InfractionViews from "./contract/InfractionViews.js"
/**
 * Every request body and query of the public API and the admin API as an `effect/Schema`: the Encoded
 * side is the JSON (or query string) the client sends, the Type side the typed input the engine's
 * services take.
 */
export * as Requests from "./contract/Requests.js"
/** The events of subscriptions (Pix Automático): `subscription.updated`, `subscription.cycle.updated`. */
export * as SubscriptionEvents from "./contract/SubscriptionEvents.js"
/** What the API shows of a subscription (an API Pix recurrence) and its cycles (cycle charges). */
export * as SubscriptionViews from "./contract/SubscriptionViews.js"
/**
 * The public JSON of the spec's resources, as `effect/Schema` schemas: reais as JSON numbers, ISO 8601
 * UTC times, lowercase status and type.
 */
export * as Views from "./contract/Views.js"
// Domain: money, ids, PIX keys, documents, fees, due dates and ledger entries (pure values).
/** Named admin tokens with scopes (read-only, operator, full, metrics) and the admin audit log's entries. */
export * as AdminAccess from "./domain/AdminAccess.js"
/**
 * Brazilian taxpayer documents: CPF (people) and CNPJ (companies), including the alphanumeric CNPJ issued
 * from July 2026.
 */
export * as Document from "./domain/Document.js"
/** The records the engine keeps, named with the spec's words. */
export * as Domain from "./domain/Domain.js"
/** Due-date charges (the Central Bank's API Pix `cobv`): what the payer owes on a given day. */
export * as DueDate from "./domain/DueDate.js"
/** Fee plans and the spec's Fees object. */
export * as Fees from "./domain/Fees.js"
/** Identifiers: internal ids, PIX txids and end-to-end ids, API keys and their hashes. */
export * as Ids from "./domain/Ids.js"
/** MED infractions and their devoluções (values and rules). */
export * as MedInfractions from "./domain/Infractions.js"
/** The journal entries of every money movement (pure). */
export * as Ledger from "./domain/Ledger.js"
/** Money is an integer count of centavos. */
export * as Money from "./domain/Money.js"
/**
 * What each role of a merchant's panel user may do: one pure table, read by the panel's server side
 * before every action (a forbidden action answers 403, whatever the page showed) and by its navigation (a
 * link the role cannot use is not shown).
 */
export * as PanelRoles from "./domain/PanelRoles.js"
/** Payment links: fixed or open amounts, expiry, usage limit (issue 38). */
export * as PaymentLink from "./domain/PaymentLink.js"
/**
 * A payout as the merchant orders it, decoded once at the edge (`Requests.CreatePayout`): centavos, the
 * parsed PIX key.
 */
export * as PayoutOrder from "./domain/PayoutOrder.js"
/** Personal data on transactions: the erasure marker and what erasure replaces. */
export * as PersonalData from "./domain/PersonalData.js"
/**
 * PIX keys (chaves PIX): classify what a merchant typed and normalise it to the form the DICT (the
 * central key directory) stores, so one key always has one spelling.
 */
export * as PixKey from "./domain/PixKey.js"
/** Pix Automático's rules and records: recurrences (subscriptions), cycles, calendar, retries. */
export * as Recurrence from "./domain/Recurrence.js"
/** What logs and spans may say: Pixgate-shaped secrets masked, URLs by their origin. */
export * as Redaction from "./domain/Redaction.js"
/**
 * SHA-256 and HMAC-SHA256, synchronous, on any runtime: a thin adapter over `@noble/hashes` (audited, no
 * dependencies, no `node:` imports).
 */
export * as Sha256 from "./domain/Sha256.js"
// The engine: every service wired over a store and the bank gateways.
/**
 * The engine: the embedder's one object over the engine's services, each its own tag and layer
 * (`Charges.Charges`, `Payouts.Payouts`, ... `Admin.Admin`), wired over a `Store` and the bank gateways,
 * plus the job worker that runs timers (webhook attempts, expiry, the gateways' own jobs).
 */
export * as Engine from "./Engine.js"
// Jobs: durable timers and the worker that runs them.
/**
 * The one durable timer mechanism: every time-based behaviour is a row of the jobs table (webhook
 * attempts, charge expiry, sandbox settlement).
 */
export * as Jobs from "./jobs/Jobs.js"
/** The `mail.send` job: one message of the outbox through the `Mailer`, retried with backoff. */
export * as MailJob from "./jobs/MailJob.js"
/**
 * The job worker: one loop per lane (webhook attempts, timers), each claiming due jobs of its lane up to
 * its own concurrency and running them through the `JobRunner`, so receivers that hang cannot hold back
 * settlements and expiries.
 */
export * as Worker from "./jobs/Worker.js"
// PIX: the BR Code and its QR symbol.
/**
 * EMV BR Code (the PIX "copia e cola" string): encoder and decoder for the layout of the BCB's "Manual de
 * Padrões para Iniciação do Pix".
 */
export * as BrCode from "./pix/BrCode.js"
/** PNG image of a QR code (what the API returns as `qrCodeBase64`). */
export * as QrImage from "./pix/QrImage.js"
/**
 * QR code module matrix (ISO/IEC 18004), error correction level M: the symbol behind every charge's
 * `qrCodeBase64`.
 */
export * as QrMatrix from "./pix/QrMatrix.js"
// Ports: what the engine asks of storage, the bank, the webhook transport and DNS.
/** The admin tokens and the admin audit log in the store (migration 0016). */
export * as AdminTokenStore from "./ports/AdminTokenStore.js"
/** The bank-gateway port: what the engine asks of the bank that holds the settlement account. */
export * as BankGateway from "./ports/BankGateway.js"
/** AES-256-GCM and HMAC-SHA256, what the SQL stores seal personal data and secrets with. */
export * as DataCipher from "./ports/DataCipher.js"
/**
 * The gateway plugin contract: one bank's live gateway as a value the server picks by name and an
 * embedder passes in (name, capabilities, settings schema, start-up check, layer).
 */
export * as GatewayPlugin from "./ports/GatewayPlugin.js"
/**
 * Resolving webhook hosts to addresses, so live-mode URLs that reach the engine's own network can be
 * refused.
 */
export * as HostResolver from "./ports/HostResolver.js"
/** MED infractions and the devoluções the bank performs for them (migration 0022). */
export * as InfractionStore from "./ports/InfractionStore.js"
/** Sending e-mail: the `Mailer` port, its settings and brand (SMTP in `@pixgate/server`). */
export * as Mail from "./ports/Mail.js"
/** The e-mail outbox and the panel users' notification choices (migration 0021). */
export * as MailStore from "./ports/MailStore.js"
export * as MerchantGatewayStore from "./ports/MerchantGatewayStore.js"
/** Payment links and the charges they made (migration 0024). */
export * as PaymentLinkStore from "./ports/PaymentLinkStore.js"
/**
 * A per-key token bucket kept by the store, so every engine instance on one database draws from the same
 * bucket (`@pixgate/store-pg` provides one; SQLite and memory do not).
 */
export * as RateLimitStore from "./ports/RateLimitStore.js"
/** The recurring-debits port (Pix Automático): `/locrec`, `/rec`, `/solicrec`, `/cobr` at the receiver's bank. */
export * as RecurringGateway from "./ports/RecurringGateway.js"
/** Refunds (devoluções) of completed charges (migration 0012). */
export * as RefundStore from "./ports/RefundStore.js"
/** The storage port. */
export * as Store from "./ports/Store.js"
/** Subscriptions (Pix Automático recurrences) and their cycles: a focused store port. */
export * as SubscriptionStore from "./ports/SubscriptionStore.js"
/** Removing panel users and their last sign-ins (migration 0021). */
export * as TeamStore from "./ports/TeamStore.js"
/** Webhook operations in the store: disabled endpoints, attempts for health, resends (migration 0026). */
export * as WebhookOpsStore from "./ports/WebhookOpsStore.js"
/**
 * How a webhook attempt reaches the receiver: one POST, its status, and a bounded read of the answer.
 */
export * as WebhookTransport from "./ports/WebhookTransport.js"
/** Engine configuration. */
export * as Config from "./runtime/Config.js"
/** Exemplars of the latency histograms: the latest observation of each series made in a sampled span. */
export * as Exemplars from "./runtime/Exemplars.js"
/**
 * The engine's metrics, as Effect `Metric`s in the global registry: whatever exports that registry (the
 * standalone server's Prometheus `/metrics` and OTLP, through `@effect/opentelemetry`) sees them; without
 * an exporter an update is a few additions.
 */
export * as Metrics from "./runtime/Metrics.js"
/**
 * What a span may carry, whatever tracer exports it: no stack trace or file path, refusals (4xx)
 * not marked as errors, secrets masked, URLs by their origin.
 */
export * as SpanHygiene from "./runtime/SpanHygiene.js"
/**
 * The engine's units as spans and counters: `Engine` wraps each service it exposes here, so the services
 * stay free of telemetry.
 */
export * as Telemetry from "./runtime/Telemetry.js"
/** Trace context from a request into the webhooks it causes. */
export * as TraceContext from "./runtime/TraceContext.js"
// Services: each engine service is its own tag and layer; `Engine` is the one object over them.
/**
 * The merchant panel's operations (the spec moved balance, keys and webhooks there): merchants, API keys
 * (shown once, stored hashed, revocable), the webhook endpoint of each mode, balances, fee plans, the
 * webhook log and redelivery, sandbox top-ups and sandbox actions.
 */
export * as Admin from "./services/Admin.js"
/** The admin API's named, scoped tokens (created, listed and revoked by the CLI) and its audit log. */
export * as AdminTokens from "./services/AdminTokens.js"
/** API-key authentication: a raw `x-api-key` becomes the merchant and mode it acts for. */
export * as Auth from "./services/Auth.js"
/**
 * What the bank tells the engine: a charge was paid, a payout settled or failed, an infraction (MED) was
 * opened or resolved.
 */
export * as BankEvents from "./services/BankEvents.js"
/** Chargebacks (MED disputes), reported by the bank gateway. */
export * as Chargebacks from "./services/Chargebacks.js"
/** Charges: a merchant asks for money, the payer pays a PIX. */
export * as Charges from "./services/Charges.js"
/**
 * Due-date charges' rules as the charges service applies them: a request's terms checked, when one
 * expires, what a PIX for one must bring on a day.
 */
export * as DueDateCharges from "./services/DueDateCharges.js"
/** Erasure of payers' personal data: on request (`erasePayer`) and past the retention period. */
export * as Erasure from "./services/Erasure.js"
/** A merchant's events of one mode as they are made, signed as deliveries are (the API's event stream). */
export * as EventFeed from "./services/EventFeed.js"
/** Readiness: whether this instance should get traffic. */
export * as Health from "./services/Health.js"
/**
 * Idempotency keys (docs/decisions.md): a retried POST with the same key and body returns the first
 * result instead of acting twice; the same key with another body is refused; a repeat while the first is
 * still running gets 409.
 */
export * as Idempotency from "./services/Idempotency.js"
/** MED infractions from the bank: blocks, the merchant's answer, devoluções booked once. */
export * as Infractions from "./services/Infractions.js"
export * as MerchantGateways from "./services/MerchantGateways.js"
/**
 * Internal payments (`type: payment`): an instant transfer between two merchants of the same engine and
 * mode, with no bank involved.
 */
export * as Payments from "./services/Payments.js"
/** A payout's send: the `payout.send` job. */
export * as PayoutSend from "./services/PayoutSend.js"
/** Payouts: the merchant sends a PIX from its available balance. */
export * as Payouts from "./services/Payouts.js"
/**
 * Refunds (devoluções) of completed charges, beyond the spec's public API (docs/decisions.md): offered to
 * the merchant panel, the admin API and CLI, and platforms that embed the engine.
 */
export * as Refunds from "./services/Refunds.js"
/** Subscriptions (Pix Automático): journeys, cycles, retries, cancellations; the sandbox's payer. */
export * as Subscriptions from "./services/Subscriptions.js"
/**
 * The merchant's transaction list: its own transactions of the key's mode only, newest first, filtered
 * and paginated exactly as docs/decisions.md says.
 */
export * as Transactions from "./services/Transactions.js"
// Webhooks: deliveries, signatures, signing keys and the URL policy.
/** Webhook signing keys and secrets. */
export * as SigningKeys from "./webhooks/SigningKeys.js"
/** Webhook operations: resend failed deliveries since a time, endpoint health, enabling a disabled endpoint. */
export * as WebhookOps from "./webhooks/WebhookOps.js"
/**
 * What a webhook request carries: the JSON body and the Standard Webhooks signature
 * (https://www.standardwebhooks.com).
 */
export * as WebhookSignature from "./webhooks/WebhookSignature.js"
/**
 * Webhook delivery: one attempt of a delivery per `webhook.attempt` job, and the URL rules of endpoints.
 */
export * as Webhooks from "./webhooks/Webhooks.js"
/** Webhook URL rules. */
export * as WebhookUrl from "./webhooks/WebhookUrl.js"
