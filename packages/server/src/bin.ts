/**
 * Entry point of the `pixgate` command. Help comes from `help.json` next to this file (rendered
 * when the command was built, see `HelpText`): `--help` loads nothing else. Without the table
 * (running from the TypeScript sources), or for help on words that name no command, the command
 * table renders it. Only other commands load the engine, the stores and the server (in the
 * bundle, separate chunks). `pixgate serve` alone skips the command line's parser too (Serve.ts):
 * the serving process never loads it.
 */
import * as HelpText from "./HelpText.js"
import type { Io } from "./Io.js"

const argv = process.argv.slice(2)
const streamOf = (code: number) => (code === 0 ? process.stdout : process.stderr)
const table = HelpText.read(new URL("./help.json", import.meta.url))
const quick = table === undefined ? undefined : HelpText.request(argv, (topic) => HelpText.has(table, topic))

// Run through a pnpm script (`pnpm pixgate ...`, `pnpm start`), this process starts in the
// script's package; relative paths (the default sqlite:./data/pixgate.db) mean where pnpm was called.
const event = process.env.npm_lifecycle_event
const viaScript = (event === "pixgate" || event === "start") && process.env.INIT_CWD
const io: Io = {
  env: process.env,
  cwd: viaScript ? (process.env.INIT_CWD as string) : process.cwd(),
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  color: process.stdout.isTTY === true,
  // Questions go to stderr: stdout stays the command's output (`--json` included).
  ...(process.stdin.isTTY === true
    ? {
        ask: async (question: string) => {
          const { createInterface } = await import("node:readline/promises")
          const terminal = createInterface({ input: process.stdin, output: process.stderr })
          try {
            return await terminal.question(question)
          } finally {
            terminal.close()
          }
        }
      }
    : {}),
  stdin: {
    isTTY: process.stdin.isTTY === true,
    read: async () => {
      const chunks: Array<Buffer> = []
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
      return Buffer.concat(chunks).toString("utf8")
    }
  }
}

if (table !== undefined && quick?._tag === "Topic") {
  const stream = streamOf(quick.code)
  stream.write(HelpText.render(table.topics[quick.topic] ?? "", stream.isTTY === true))
  process.exitCode = quick.code
} else if (argv.length === 1 && argv[0] === "serve") {
  process.exitCode = await (await import("./Serve.js")).run(io)
} else {
  const { helpRequest, renderHelp } = await import("./Commands.js")
  const helped = helpRequest(argv)
  if (helped !== undefined) {
    if (helped.stdout !== undefined)
      streamOf(helped.code).write(renderHelp(helped.stdout, streamOf(helped.code).isTTY === true))
    if (helped.stderr !== undefined) process.stderr.write(`pixgate: ${helped.stderr}\n`)
    process.exitCode = helped.code
  } else {
    const Cli = await import("./Cli.js")
    process.exitCode = await Cli.run(argv, io)
  }
}
