/** What the web-entry test's bundle exports (its types, for the object read back from the V8 context). */
export { Engine, MemoryStore } from "@pixgate/core"
export { Effect } from "effect"
export { Pixgate } from "../src/index.js"
