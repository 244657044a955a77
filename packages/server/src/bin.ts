/**
 * Entry point of the `pixgate` command. Help is answered from the command table alone; only
 * other commands load the engine, the stores and the server (in the bundle, separate chunks).
 */
import { helpRequest, renderHelp } from "./Commands.js"

const argv = process.argv.slice(2)
const helped = helpRequest(argv)
if (helped !== undefined) {
  if (helped.stdout !== undefined)
    (helped.code === 0 ? process.stdout : process.stderr).write(
      renderHelp(helped.stdout, (helped.code === 0 ? process.stdout : process.stderr).isTTY === true)
    )
  if (helped.stderr !== undefined) process.stderr.write(`pixgate: ${helped.stderr}\n`)
  process.exitCode = helped.code
} else {
  const Cli = await import("./Cli.js")
  // Run through a pnpm script (`pnpm pixgate ...`, `pnpm start`), this process starts in the
  // script's package; relative paths (the default sqlite:./data/pixgate.db) mean where pnpm was called.
  const event = process.env.npm_lifecycle_event
  const viaScript = (event === "pixgate" || event === "start") && process.env.INIT_CWD
  process.exitCode = await Cli.run(argv, {
    env: process.env,
    cwd: viaScript ? (process.env.INIT_CWD as string) : process.cwd(),
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    color: process.stdout.isTTY === true,
    stdin: {
      isTTY: process.stdin.isTTY === true,
      read: async () => {
        const chunks: Array<Buffer> = []
        for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
        return Buffer.concat(chunks).toString("utf8")
      }
    }
  })
}
