/**
 * `@pixgate/gateway-apipix`: the live bank gateway over the Central Bank's API Pix standard
 * (`standard/`), with PSP profiles on top (Efí's: `efi/`, also the `@pixgate/gateway-apipix/efi`
 * entry the server loads as its `efi` gateway plugin).
 */
export * as ApiPix from "./ApiPix.js"
export * as Check from "./Check.js"
export * as Efi from "./efi/Efi.js"
export * as EfiPlugin from "./efi/Plugin.js"
export * as Gateway from "./Gateway.js"
export * as Profile from "./Profile.js"
export * as Settings from "./Settings.js"
export * as Client from "./standard/Client.js"
export * as Problem from "./standard/Problem.js"
