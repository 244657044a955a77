/** `@pixgate/gateway-apipix/efi`: the `efi` gateway plugin, as the server loads it by name. */
export { plugin } from "./Plugin.js"
