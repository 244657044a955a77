#!/usr/bin/env node
// Installed entry point of the `pixgate` command: runs the compiled CLI.
await import("../dist/bin.js")
