/**
 * Where a `pixgate` run reads and writes: the process's (bin.ts), or a test's own. Apart from
 * Cli.ts so that `serve` (Serve.ts) can run without loading the command line's parser.
 */

/** Where a CLI run reads and writes (the process's by default; tests pass their own). */
export interface Io {
  readonly env: Readonly<Record<string, string | undefined>>
  readonly cwd: string
  readonly stdout: (text: string) => void
  readonly stderr: (text: string) => void
  /** Resolves when `serve` should stop (default: SIGTERM or SIGINT). */
  readonly stopSignal?: Promise<unknown>
  /** Standard input, for secrets (`--secret -`); without it, secrets come from flags or the environment. */
  readonly stdin?: Stdin
  /** Help in colour (ANSI styles), for a terminal; default plain text. */
  readonly color?: boolean
  /** Asks the person at the terminal and resolves to the line typed; absent when nobody can answer. */
  readonly ask?: (question: string) => Promise<string>
}

/** Standard input as the CLI reads secrets from it. */
export interface Stdin {
  /** A terminal (nothing is read from it unless asked with `-`). */
  readonly isTTY: boolean
  /** Everything until end of input. */
  readonly read: () => Promise<string>
}
