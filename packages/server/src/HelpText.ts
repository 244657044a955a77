/**
 * `pixgate --help` without the engine: the help of every command is rendered once, when the
 * command is built (`help.json` next to the entry: the package's build writes `dist/help.json`,
 * scripts/pixgate.mjs writes one into its bundle), and the entry answers a request for help from
 * that table. Loading the command table itself means loading @effect/cli, Effect and the engine
 * (about 2.7 MB of JavaScript to compile), most of the time `--help` used to take. This module
 * imports nothing but `node:fs`; `Commands.ts` renders the table and decides the same requests
 * with the same function (`request`), so both ways answer alike.
 */
import { readFileSync } from "node:fs"

/** Help by topic (`""` is the usage, else a command or a group, e.g. `merchant create`), ANSI-styled. */
export interface Table {
  readonly topics: Readonly<Record<string, string>>
}

/** What a command line asks of the help, when it asks for help. */
export type Request =
  /** A topic's help; code 2 for the usage shown because no command was given. */
  | { readonly _tag: "Topic"; readonly code: 0 | 2; readonly topic: string }
  /** Help on words that name no command (the answer suggests the closest one). */
  | { readonly _tag: "Unknown"; readonly words: ReadonlyArray<string> }

/**
 * The request for help in `argv`: `--help`/`-h` anywhere (help on the command named before it),
 * `help [command]`, or no arguments at all (the usage, exit 2). Undefined when `argv` asks for
 * something else.
 */
export const request = (
  argv: ReadonlyArray<string>,
  isTopic: (name: string) => boolean
): Request | undefined => {
  if (argv.length === 0) return { _tag: "Topic", code: 2, topic: "" }
  const asksHelp = argv[0] === "help" || argv.some((a) => a === "--help" || a === "-h")
  if (!asksHelp) return undefined
  const words = (argv[0] === "help" ? argv.slice(1) : argv).filter((a) => !a.startsWith("-"))
  if (words.length === 0) return { _tag: "Topic", code: 0, topic: "" }
  for (let n = Math.min(words.length, 3); n > 0; n--) {
    const topic = words.slice(0, n).join(" ")
    if (isTopic(topic)) return { _tag: "Topic", code: 0, topic }
  }
  return { _tag: "Unknown", words }
}

const ansiStyle = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g")

/** Text without its ANSI styles. */
export const plain = (text: string): string => text.replaceAll(ansiStyle, "")

/** Help as printed: ANSI-styled for a terminal, else plain; one line break at the end. */
export const render = (ansi: string, color: boolean): string => `${(color ? ansi : plain(ansi)).trimEnd()}\n`

/** The table at `url`, or undefined when there is none (running from the TypeScript sources). */
export const read = (url: URL): Table | undefined => {
  try {
    const table = JSON.parse(readFileSync(url, "utf8")) as Table
    return typeof table?.topics === "object" && table.topics !== null ? table : undefined
  } catch {
    return undefined
  }
}

/** Whether the table has help on `topic`. */
export const has = (table: Table, topic: string): boolean => Object.hasOwn(table.topics, topic)
