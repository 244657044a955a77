/**
 * Every command's `--help` (each command, each group, the root): each flag has its own
 * description, none of @effect/cli's generic lines, and no flag is called both required and
 * optional.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Cli from "../src/Cli.js"
import { commandNames } from "../src/Commands.js"

const help = async (words: ReadonlyArray<string>) => {
  let stdout = ""
  let stderr = ""
  const code = await Cli.run([...words, "--help"], {
    env: {},
    cwd: "/",
    stdout: (t) => {
      stdout += t
    },
    stderr: (t) => {
      stderr += t
    }
  })
  return { code, stdout, stderr }
}

const filler = ["A user-defined piece of text", "A true or false value", "An integer"]

describe("pixgate --help", () => {
  it("walks every command and group: real flag descriptions, one wording for required/optional", async () => {
    const names = commandNames()
    const groups = [
      ...new Set(
        names.flatMap((n) =>
          n
            .split(" ")
            .slice(0, -1)
            .map((_, i, w) => w.slice(0, i + 1).join(" "))
        )
      )
    ]
    expect(names.length).toBeGreaterThan(10)
    for (const words of [[], ...groups.map((g) => g.split(" ")), ...names.map((n) => n.split(" "))]) {
      const { code, stdout, stderr } = await help(words)
      const label = `pixgate ${words.join(" ")} --help`
      expect({ code, stderr }, label).toEqual({ code: 0, stderr: "" })
      for (const f of filler) expect(stdout, label).not.toContain(f)
      // A flag's block: from its `--name` line to the next one.
      for (const block of stdout.split(/\n(?=--)/)) {
        if (block.includes("(required")) expect(block, label).not.toMatch(/optional/i)
      }
      if (names.includes(words.join(" ")) && words[0] !== "serve") {
        const flagBlocks = stdout.split(/\n(?=--)/).slice(1)
        for (const block of flagBlocks) expect(block, label).toMatch(/\((required|optional)/)
      }
    }
  })
})
