/**
 * `pnpm release:pack` (scripts/release-pack.mjs): one folder with a tarball per public package
 * and nothing private, an index whose sizes and integrities are the tarballs', manifests ready
 * for a registry (no `workspace:` range, repository, provenance), and the install lines the
 * READMEs show. The install lines themselves run in scripts/check-packages.mjs (CI).
 */
import { execFileSync } from "node:child_process"
import { createHash } from "node:crypto"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { must } from "@pixgate/testkit/must"
import { testWait } from "@pixgate/testkit/wait"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
// A plain ES module script; its types are scripts/release-pack.d.mts.
import * as release from "../../../scripts/release-pack.mjs"

// `pnpm pack` once per public package, in the hook, is the slow part: five base waits for it.
vi.setConfig({ testTimeout: testWait(5), hookTimeout: testWait(5) })

const work = mkdtempSync(join(tmpdir(), "pixgate-release-"))
const out = join(work, "release")
let index: release.ReleaseIndex

/** A file of a tarball, as text. */
const fileOf = (tarball: string, path: string) =>
  execFileSync("tar", ["-xzOf", tarball, `package/${path}`], { encoding: "utf8" })
const listOf = (tarball: string) =>
  execFileSync("tar", ["-tzf", tarball], { encoding: "utf8" }).trim().split("\n")

beforeAll(() => {
  // A previous release in the folder, with a tarball this one no longer makes: replaced whole.
  mkdirSync(out)
  writeFileSync(join(out, "index.json"), "{}")
  writeFileSync(join(out, "pixgate-old-0.0.1.tgz"), "old")
  index = release.releasePack({ out, build: false, allowMissingDist: true })
})
afterAll(() => rmSync(work, { recursive: true, force: true }))

describe("release:pack", () => {
  it("packs every public package and nothing private, with an index of the tarballs", () => {
    const all = release.workspacePackages().map((p) => p.manifest)
    const publicNames = all.filter((m) => m.private !== true).map((m) => m.name)
    expect(index.packages.map((p) => p.name)).toEqual(publicNames)
    expect(publicNames).toContain("@pixgate/server")
    expect(index.packages.map((p) => p.name)).not.toContain("@pixgate/store-conformance")
    expect(index.packages.map((p) => p.name)).not.toContain("@pixgate/examples")
    expect(readdirSync(out).sort()).toEqual(
      ["INSTALL.md", "index.json", ...index.packages.map((p) => p.file)].sort()
    )
    expect(JSON.parse(readFileSync(join(out, "index.json"), "utf8"))).toEqual(index)
    for (const p of index.packages) {
      const bytes = readFileSync(join(out, p.file))
      expect(p.size).toBe(bytes.length)
      expect(p.integrity).toBe(`sha512-${createHash("sha512").update(bytes).digest("base64")}`)
    }
    expect(index.packages.find((p) => p.name === "@pixgate/store-sqlite")?.needs).toEqual([
      "@pixgate/core",
      "@pixgate/store-sql"
    ])
  })

  it("writes manifests ready for a registry: real versions, repository, provenance, engines, files", () => {
    for (const p of index.packages) {
      const tarball = join(out, p.file)
      const text = fileOf(tarball, "package.json")
      expect(text, p.name).not.toContain("workspace:")
      const manifest = JSON.parse(text)
      expect(manifest.name).toBe(p.name)
      expect(manifest.license, p.name).toBe("MIT")
      expect(manifest.repository, p.name).toEqual({
        type: "git",
        url: "git+https://github.com/pixgate/pixgate.git",
        directory: `packages/${p.name.slice("@pixgate/".length)}`
      })
      expect(manifest.homepage, p.name).toMatch(/^https:\/\/github\.com\/pixgate\/pixgate\//)
      expect(manifest.bugs, p.name).toEqual({ url: "https://github.com/pixgate/pixgate/issues" })
      expect(manifest.keywords.length, p.name).toBeGreaterThan(2)
      expect(manifest.engines, p.name).toEqual({ node: ">=20" })
      expect(manifest.publishConfig, p.name).toEqual({ access: "public", provenance: true })
      expect(manifest.files, p.name).toContain("dist")
      // Only what `files` names (and the README), never tests or configuration.
      const files = listOf(tarball)
      expect(files, p.name).toContain("package/README.md")
      expect(
        files.filter((f) => /^package\/(test|node_modules)\//.test(f) || f.endsWith("tsconfig.build.json")),
        p.name
      ).toEqual([])
    }
    const server = join(
      out,
      must(
        index.packages.find((p) => p.name === "@pixgate/server"),
        'index.packages.find((p) => p.name === "@pixgate/server")'
      ).file
    )
    expect(listOf(server)).toContain("package/bin/pixgate.js")
    // A pnpm pack of the workspace writes the siblings' versions in place of `workspace:^`.
    expect(JSON.parse(fileOf(server, "package.json")).dependencies["@pixgate/core"]).toBe("^0.1.0")
  })

  it("writes the install lines into INSTALL.md, and the READMEs show the same", () => {
    const install = readFileSync(join(out, "INSTALL.md"), "utf8")
    for (const [setup, lines] of Object.entries(index.install)) {
      expect(lines.packages).toEqual(release.setups[setup as "sqlite" | "postgres"])
      expect(install).toContain(lines.npm)
      expect(install).toContain(lines.pnpm.join("\n"))
      expect(install).toContain(lines.registry)
    }
    // Every line names the tarballs by $PIXGATE_RELEASE and installs what the packages need.
    expect(index.install.postgres.npm).toContain('"$PIXGATE_RELEASE/pixgate-store-pg-0.1.0.tgz"')
    expect(index.install.postgres.npm).not.toContain("sqlite")
    expect(index.install.sqlite.npm).toContain("@effect/sql@0.52.1")
    expect(index.install.sqlite.pnpm.join("\n")).toContain('pnpm.onlyBuiltDependencies=["better-sqlite3"]')
    expect(index.install.postgres.pnpm.join("\n")).toContain("pnpm.onlyBuiltDependencies=[]")
    // The READMEs' install sections are what `--readmes` writes (run it after changing the packages).
    for (const { path, block } of release.readmes()) {
      expect(readFileSync(path, "utf8"), `${path}: run node scripts/release-pack.mjs --readmes`).toContain(
        block
      )
    }
    const readme = readFileSync(join(release.root, "README.md"), "utf8")
    expect(readme).toContain(index.install.sqlite.npm)
    expect(readme).toContain(index.install.postgres.pnpm.join("\n"))
  })

  it("refuses to write into a folder that holds something else than a release", () => {
    const other = join(work, "other")
    mkdirSync(other)
    writeFileSync(join(other, "notes.txt"), "mine")
    expect(() => release.releasePack({ out: other, build: false, allowMissingDist: true })).toThrow(
      /is not empty and holds no release/
    )
    expect(readdirSync(other)).toEqual(["notes.txt"])
    expect(existsSync(join(out, "pixgate-old-0.0.1.tgz"))).toBe(false)
  })
})
