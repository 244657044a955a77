/**
 * The standalone Pixgate server (what `pixgate serve` runs) and the `pixgate` command, with
 * everything of @pixgate/http re-exported: one import for a node host.
 */
export * from "@pixgate/http"
export * as Server from "./Server.js"
