/** The Pixgate merchant panel: server-rendered pages on the engine, mountable in any host. */
export * as Panel from "./Panel.js"
export * as Password from "./Password.js"
