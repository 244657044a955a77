/** Money, ids and the PIX domain (pure). */
export * as BrCode from "./BrCode.js"
export * as Document from "./Document.js"
export * as Domain from "./Domain.js"
export * as Fees from "./Fees.js"
export * as Ids from "./Ids.js"
export * as Money from "./Money.js"
export * as PixKey from "./PixKey.js"
export * as QrImage from "./QrImage.js"

/** The engine, its configuration, errors and the public JSON views. */
export * as Admin from "./Admin.js"
export * as Auth from "./Auth.js"
export * as Config from "./Config.js"
export * as Engine from "./Engine.js"
export * as Errors from "./Errors.js"
export * as Idempotency from "./Idempotency.js"
export * as Input from "./Input.js"
export * as Views from "./Views.js"

/** Ports and their in-process implementations. */
export * as BankGateway from "./BankGateway.js"
export * as HostResolver from "./HostResolver.js"
export * as Jobs from "./Jobs.js"
export * as MemoryStore from "./MemoryStore.js"
export * as Sandbox from "./Sandbox.js"
export * as Store from "./Store.js"
export * as Webhooks from "./Webhooks.js"
export * as Worker from "./Worker.js"

/** Building blocks of the engine (usable alone). */
export * as BankEvents from "./BankEvents.js"
export * as Chargebacks from "./Chargebacks.js"
export * as Charges from "./Charges.js"
export * as Events from "./Events.js"
export * as Ledger from "./Ledger.js"
export * as Payments from "./Payments.js"
export * as Payouts from "./Payouts.js"
export * as Transactions from "./Transactions.js"
