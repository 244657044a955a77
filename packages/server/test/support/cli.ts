/** Runs `pixgate` in-process on one database; answers its exit code, output and parsed JSON. */

import { testDataKey } from "@pixgate/testkit/dataKeys"
import * as Cli from "../../src/Cli.js"

export interface Run {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
  // biome-ignore lint/suspicious/noExplicitAny: CLI output is read dynamically
  readonly json: any
}

/** A `pixgate` bound to `database` (a `sqlite:` or `postgres:` URL), run in `cwd`. */
export const cliOn =
  (database: string, cwd: string) =>
  async (...argv: Array<string>): Promise<Run> => {
    let stdout = ""
    let stderr = ""
    const code = await Cli.run(argv, {
      env: { PIXGATE_DATABASE: database, PIXGATE_DATA_KEY: testDataKey },
      cwd,
      stdout: (t) => {
        stdout += t
      },
      stderr: (t) => {
        stderr += t
      }
    })
    let json: unknown
    try {
      json = JSON.parse(stdout)
    } catch {
      json = undefined
    }
    return { code, stdout, stderr, json }
  }
