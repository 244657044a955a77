export * as Domain from "./Domain.js"
export * as Fees from "./Fees.js"
export * as Money from "./Money.js"
export * as Store from "./Store.js"
