#!/usr/bin/env node
// Installed entry point of the `pixgate` command: runs the compiled CLI. Node 22.1 and later keep
// V8's compiled code between runs (module.enableCompileCache); `--help` loads only dist/bin.js,
// dist/HelpText.js and dist/help.json.
import module from "node:module"

module.enableCompileCache?.()
await import("../dist/bin.js")
