/** `@pixgate/gateway-asaas`: the live bank gateway over Asaas's own REST API v3. */
export * as Asaas from "./Asaas.js"
export * as Check from "./Check.js"
export * as Client from "./Client.js"
export * as Gateway from "./Gateway.js"
export * as Settings from "./Settings.js"
export * as Wire from "./Wire.js"
