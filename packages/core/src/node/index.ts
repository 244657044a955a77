/** Node-only adapters of `@pixgate/core` (import from `@pixgate/core/node`). */

/** A `HostResolver` backed by `node:dns`. */
export * as NodeHostResolver from "./NodeHostResolver.js"
