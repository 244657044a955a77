/**
 * Every command's `--help` (each command, each group, the root): each flag has its own
 * description, none of @effect/cli's generic lines, and no flag is called both required and
 * optional. The built command (scripts/pixgate.mjs's bundle) answers help from its `help.json`,
 * the same text, loading none of the engine.
 */
import { spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { describe, expect, it } from "@effect/vitest"
import { bundle } from "../../../scripts/pixgate.mjs"
import * as Cli from "../src/Cli.js"
import { commandNames, helpTable } from "../src/Commands.js"

const help = async (words: ReadonlyArray<string>, argv: ReadonlyArray<string> = [...words, "--help"]) => {
  let stdout = ""
  let stderr = ""
  const code = await Cli.run(argv, {
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

  it("the built command answers help from help.json, as the command table renders it, loading no engine", async () => {
    const entry = await bundle()
    const table = JSON.parse(readFileSync(join(dirname(entry), "help.json"), "utf8"))
    expect(table).toEqual(helpTable())
    const work = mkdtempSync(join(tmpdir(), "pixgate-help-"))
    try {
      // Records every module the process loads (a module hook), into a file.
      const hook = join(work, "hook.mjs")
      const loaded = join(work, "loaded.txt")
      writeFileSync(
        hook,
        `import { register } from "node:module"
register("data:text/javascript," + encodeURIComponent(${JSON.stringify(
          `import { appendFileSync } from "node:fs"
export async function load(url, context, next) {
  if (url.startsWith("file:")) appendFileSync(${JSON.stringify(loaded)}, url + String.fromCharCode(10))
  return next(url, context)
}`
        )}))`
      )
      const cases: ReadonlyArray<ReadonlyArray<string>> = [
        ["--help"],
        ["merchant", "create", "--help"],
        ["help", "webhook"],
        ["sandbox", "-h"],
        [],
        ["merchnt", "--help"]
      ]
      for (const argv of cases) {
        rmSync(loaded, { force: true })
        const child = spawnSync(process.execPath, ["--import", pathToFileURL(hook).href, entry, ...argv], {
          encoding: "utf8",
          env: { ...process.env, NO_COLOR: "1" }
        })
        const label = `pixgate ${argv.join(" ")}`
        const inProcess = await help([], argv)
        expect({ code: child.status, stdout: child.stdout, stderr: child.stderr }, label).toEqual(inProcess)
        const files = readFileSync(loaded, "utf8")
          .trim()
          .split("\n")
          .map((url) => fileURLToPath(url))
          .filter((file) => dirname(file) === dirname(entry))
        const bytes = files.reduce((sum, file) => sum + statSync(file).size, 0)
        if (argv[0] === "merchnt") {
          // A typo: the command table finds the closest command (this loads it).
          expect(child.stderr).toContain("Did you mean merchant")
          continue
        }
        // The entry and small shared chunks; never the engine (the whole bundle is megabytes).
        expect(bytes, `${label}: ${files.join(", ")}`).toBeLessThan(100_000)
        for (const file of files)
          expect(readFileSync(file, "utf8"), `${label}: ${file}`).not.toContain("packages/core/src")
      }
    } finally {
      rmSync(work, { recursive: true, force: true })
    }
  })
})
