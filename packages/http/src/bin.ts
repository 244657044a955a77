/** Entry point of the `pixgate` command. */
import * as Cli from "./Cli.js"

// Run through a pnpm script (`pnpm pixgate ...`, `pnpm start`), this process starts in the
// script's package; relative paths (the default sqlite:./data/pixgate.db) mean where pnpm was called.
const event = process.env.npm_lifecycle_event
const viaScript = (event === "pixgate" || event === "start") && process.env.INIT_CWD

process.exitCode = await Cli.run(process.argv.slice(2), {
  env: process.env,
  cwd: viaScript ? (process.env.INIT_CWD as string) : process.cwd(),
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text)
})
