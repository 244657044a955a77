/**
 * The docs stay true to the repository: every relative link and heading anchor of every
 * Markdown file resolves (remark-validate-links, run by unified-engine as its CLI runs it, so
 * headings in other files are checked too), and every repository path that docs/ and the READMEs
 * name exists. A link, an anchor or a path that breaks fails this test, in CI like everywhere.
 */
import { execFileSync } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { basename, dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { remark } from "remark"
import remarkValidateLinks from "remark-validate-links"
import { type Options as EngineOptions, engine } from "unified-engine"

const root = fileURLToPath(new URL("../../..", import.meta.url))

/** The repository's tracked files (what a fresh clone has). */
const tracked = (): ReadonlyArray<string> =>
  execFileSync("git", ["ls-files"], { cwd: root, encoding: "utf8" }).trim().split("\n")

const markdown = () => tracked().filter((f) => f.endsWith(".md"))

/** docs/ and every README: the files whose paths must exist (the changelog tells history). */
const described = () => markdown().filter((f) => f.startsWith("docs/") || basename(f) === "README.md")

/** What remark-validate-links reports for `files` under `cwd`: one line per broken link or anchor. */
const brokenLinks = (cwd: string, files: ReadonlyArray<string>) =>
  new Promise<ReadonlyArray<string>>((resolve, reject) =>
    engine(
      {
        processor: remark,
        cwd,
        files: [...files],
        // remark-validate-links types its attacher more narrowly than the engine's plugin list.
        plugins: [[remarkValidateLinks, { repository: false, root: cwd }]] as EngineOptions["plugins"],
        silent: true,
        quiet: true,
        detectConfig: false,
        detectIgnore: false,
        color: false
      },
      (error, _code, context) => {
        if (error) return reject(error)
        resolve(
          (context?.files ?? []).flatMap((file) =>
            file.messages.map((m) => `${file.path}:${m.line ?? "?"}: ${m.reason}`)
          )
        )
      }
    )
  )

const scratch = mkdtempSync(join(tmpdir(), "pixgate-docs-"))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

describe("links", () => {
  it("the checker is live: it reports a missing file, a missing heading and a missing heading in another file", async () => {
    writeFileSync(join(scratch, "a.md"), "# A\n\n[x](b.md) [y](#nope) [z](c.md#nope) [w](c.md#there)\n")
    writeFileSync(join(scratch, "c.md"), "# C\n\n## There\n")
    const broken = await brokenLinks(scratch, ["a.md", "c.md"])
    expect(broken.join("\n")).toMatch(/b\.md/)
    expect(broken.join("\n")).toMatch(/#nope/)
    expect(broken.join("\n")).toMatch(/c\.md#nope|c\.md/)
    expect(broken).toHaveLength(3)
  })

  it("every relative link and anchor of every Markdown file resolves", async () => {
    expect(await brokenLinks(root, markdown())).toEqual([])
  }, 120_000)
})

/** Tokens that name a file by a path: `packages/core/src/x.ts`, `core/src/x.ts`, `scripts/x.mjs`, `test/x.test.ts`. */
const pathPattern =
  /(?<![\w@/.:!-])(?:\.\.?\/)?(?:[\w.-]+\/)+[\w.-]+\.(?:ts|mts|mjs|js|json|md|sh|yaml|yml|sql)\b/g

/** Code spans that name a file alone: `Commands.ts`. */
const namePattern = /`([A-Za-z][\w.-]*\.(?:ts|mts|mjs))`/g

/** Paths a doc may name that a clone does not track: made by a build, a run, a benchmark or an install. */
const generated = /(^|\/)(node_modules|dist|release|data|\.cache|coverage|tmp|bench\/results)\//

/** Files a doc names alone that a clone does not track: the command's bundle. */
const generatedNames = new Set(["bin.mjs"])

/** A file in the reader's own directory (`./merchant.json`, written by the walk-through). */
const readersOwn = /^\.\/[\w.-]+$/

/** Where a path named in `doc` may be: from the root, under packages/, beside the doc. */
const candidates = (doc: string, path: string) => [
  join(root, path),
  join(root, "packages", path),
  join(root, dirname(doc), path)
]

/** The paths that `doc`, holding `markdown`, names and that exist nowhere. */
const missingPaths = (doc: string, markdown: string, names: ReadonlySet<string>): ReadonlyArray<string> => {
  const text = markdown
    // URLs and placeholders are not repository paths.
    .replace(/\bhttps?:\/\/\S+/g, " ")
    .replace(/\S*[<>$*{}]\S*/g, " ")
  const missing: Array<string> = []
  for (const [path] of text.matchAll(pathPattern)) {
    if (generated.test(path) || readersOwn.test(path) || path.startsWith("@")) continue
    if (!candidates(doc, path).some((c) => existsSync(c))) missing.push(`${doc}: ${path}`)
  }
  for (const [, name] of text.matchAll(namePattern)) {
    if (!names.has(name) && !generatedNames.has(name))
      missing.push(`${doc}: ${name} (no tracked file has this name)`)
  }
  return missing
}

describe("paths", () => {
  it("the check is live: a moved file is reported", () => {
    const doc = "docs/probe.md"
    const text =
      "See `core/src/Errors.ts`, packages/core/src/QrMatrix.ts, `core/src/contract/Errors.ts` and `NoSuchModule.ts`.\n"
    expect(missingPaths(doc, text, new Set(tracked().map((f) => basename(f))))).toEqual([
      `${doc}: core/src/Errors.ts`,
      `${doc}: packages/core/src/QrMatrix.ts`,
      `${doc}: NoSuchModule.ts (no tracked file has this name)`
    ])
  })

  it("every repository path named in docs/ and the READMEs exists", () => {
    const names = new Set(tracked().map((f) => basename(f)))
    expect(
      described().flatMap((doc) => missingPaths(doc, readFileSync(join(root, doc), "utf8"), names))
    ).toEqual([])
  })
})
