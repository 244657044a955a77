/** `@pixgate/gateway-apipix`: the live bank gateway over the Central Bank's API Pix standard. */
export * as ApiPix from "./ApiPix.js"
export * as Check from "./Check.js"
export * as Client from "./Client.js"
export * as Gateway from "./Gateway.js"
export * as Problem from "./Problem.js"
export * as Settings from "./Settings.js"
