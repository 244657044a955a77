// Part of the package's build (after tsc): renders the help of every `pixgate` command into
// dist/help.json, from which dist/bin.js answers `--help` without loading the engine (HelpText.ts).
import { writeFileSync } from "node:fs"

const { helpTable } = await import(new URL("../dist/Commands.js", import.meta.url).href)
writeFileSync(new URL("../dist/help.json", import.meta.url), `${JSON.stringify(helpTable())}\n`)
