// `pnpm release:pack`: builds the public packages (every packages/* whose package.json is not
// `"private": true`) and packs each with `pnpm pack` (which writes the real versions in place of
// `workspace:` ranges) into one folder, `release/` by default, with an index: `index.json` (each
// tarball's package, version, file, size and sha512 integrity, what it needs of the others, the
// third-party peers, and the install lines) and `INSTALL.md` (the same lines, for a person).
// Nothing private (the store conformance suite, the examples) is packed.
//
// Usage: node scripts/release-pack.mjs [--out DIR] [--no-build]
//        node scripts/release-pack.mjs --readmes   (rewrites the install sections of the READMEs)
//   --out DIR    the folder to write (default release/; replaced if it holds a previous release)
//   --no-build   pack the dist/ folders as they are (after `pnpm build`); fails if one is missing
//
// The install lines name the tarballs as "$PIXGATE_RELEASE/<file>": set PIXGATE_RELEASE to the
// folder (absolute, or relative to the project) and run the line in your project. The README and
// each public package's README show the same lines (a test compares them); once the packages are
// on a registry, the same names install from it (`npm install @pixgate/server ...`).
import { execFileSync } from "node:child_process"
import { createHash } from "node:crypto"
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

export const root = join(dirname(fileURLToPath(import.meta.url)), "..")

const readJson = (path) => JSON.parse(readFileSync(path, "utf8"))

/** Every workspace package under packages/: its directory and manifest. */
export const workspacePackages = () =>
  readdirSync(join(root, "packages"))
    .filter((dir) => existsSync(join(root, "packages", dir, "package.json")))
    .sort()
    .map((dir) => ({
      dir: join(root, "packages", dir),
      manifest: readJson(join(root, "packages", dir, "package.json"))
    }))

/** The packages a release contains: those not marked `"private": true`. */
export const publicPackages = () => workspacePackages().filter((p) => p.manifest.private !== true)

/** The tarball `pnpm pack` writes for a manifest: `@pixgate/core` 0.1.0 -> pixgate-core-0.1.0.tgz. */
export const tarballName = (manifest) =>
  `${manifest.name.replace(/^@/, "").replace("/", "-")}-${manifest.version}.tgz`

/** `names` and every @pixgate package they depend on (dependencies and required peers), in workspace order. */
export const closure = (names, packages = publicPackages()) => {
  const byName = new Map(packages.map((p) => [p.manifest.name, p.manifest]))
  const seen = new Set()
  const visit = (name) => {
    const manifest = byName.get(name)
    if (manifest === undefined) throw new Error(`${name} is not a public package`)
    if (seen.has(name)) return
    seen.add(name)
    for (const dep of Object.keys(requiredOf(manifest))) if (dep.startsWith("@pixgate/")) visit(dep)
  }
  for (const name of names) visit(name)
  return packages.map((p) => p.manifest).filter((m) => seen.has(m.name))
}

/** A manifest's dependencies plus its peers that are not optional (what an install must bring). */
const requiredOf = (manifest) => {
  const optional = manifest.peerDependenciesMeta ?? {}
  const peers = Object.fromEntries(
    Object.entries(manifest.peerDependencies ?? {}).filter(([name]) => optional[name]?.optional !== true)
  )
  return { ...(manifest.dependencies ?? {}), ...peers }
}

/** The third-party peers of a set of packages (not optional ones), each at the version they pin. */
export const peersOf = (manifests) => {
  const peers = {}
  for (const manifest of manifests) {
    const optional = manifest.peerDependenciesMeta ?? {}
    for (const [name, range] of Object.entries(manifest.peerDependencies ?? {}))
      if (!name.startsWith("@pixgate/") && optional[name]?.optional !== true) peers[name] = range
  }
  return Object.fromEntries(Object.entries(peers).sort(([a], [b]) => a.localeCompare(b)))
}

/**
 * Dependencies with install scripts an install may bring: better-sqlite3 must build (its native
 * binding); @parcel/watcher and msgpackr-extract ship prebuilt binaries (optional dependencies)
 * and fall back without them, so their scripts stay off.
 */
export const builds = (manifests) => ({
  only: manifests.some((m) => "better-sqlite3" in (m.dependencies ?? {})) ? ["better-sqlite3"] : [],
  ignored: ["@parcel/watcher", "msgpackr-extract"]
})

/**
 * The commands that install `names` (and the @pixgate packages they need) from the release
 * folder, with their third-party peers. npm: one line (it satisfies the tarballs' `^0.1.0` ranges
 * with the tarballs it installs). pnpm looks ranges up in the registry, so two lines first point
 * the packages the others depend on at their tarballs (`pnpm.overrides`) and name which
 * dependencies may run build scripts (no "Ignored build scripts" box), then one line installs.
 */
export const installLine = (manager, names, packages = publicPackages()) => {
  const manifests = closure(names, packages)
  const file = (m) => `$PIXGATE_RELEASE/${tarballName(m)}`
  const tarballs = manifests.map((m) => `"${file(m)}"`)
  const peers = Object.entries(peersOf(manifests)).map(([name, version]) => `${name}@${version}`)
  if (manager === "npm") return ["npm install", ...tarballs, ...peers].join(" ")
  const needed = manifests.filter((m) => manifests.some((o) => m.name in (o.dependencies ?? {})))
  const { only, ignored } = builds(manifests)
  const list = (items) => JSON.stringify(items)
  return [
    ...(needed.length === 0
      ? []
      : [["npm pkg set", ...needed.map((m) => `"pnpm.overrides.${m.name}=file:${file(m)}"`)].join(" ")]),
    `npm pkg set --json 'pnpm.onlyBuiltDependencies=${list(only)}' 'pnpm.ignoredBuiltDependencies=${list(ignored)}'`,
    ["pnpm add", ...tarballs, ...peers].join(" ")
  ].join("\n")
}

/** The same install from a registry, once the packages are published there. */
export const registryLine = (manager, names, packages = publicPackages()) => {
  const peers = Object.entries(peersOf(closure(names, packages))).map(
    ([name, version]) => `${name}@${version}`
  )
  return [manager === "npm" ? "npm install" : "pnpm add", ...names, ...peers].join(" ")
}

/** The setups the README shows, by name: the packages a project installs for each. */
export const setups = {
  sqlite: ["@pixgate/server", "@pixgate/store-sqlite"],
  postgres: ["@pixgate/server", "@pixgate/store-pg"]
}

/** What each package's README installs: the package itself, the server with its default store. */
export const readmeSetup = (name) => (name === "@pixgate/server" ? setups.sqlite : [name])

/** Where the install lines stand in a README (the text between is written by `--readmes`). */
export const markers = {
  begin: "<!-- install: written by `node scripts/release-pack.mjs --readmes`; edit the script, not this -->",
  end: "<!-- install: end -->"
}

/** The install section of a README: `setupNames` by setup title, each from a release folder, then from a registry. */
export const installBlock = (setupsByTitle, packages = publicPackages()) =>
  [
    markers.begin,
    "From a release folder (`pnpm release:pack` in a clone of the repository writes `release/`;",
    "set `PIXGATE_RELEASE` to its path, absolute or relative to your project):",
    "",
    ...Object.entries(setupsByTitle).flatMap(([title, names]) => [
      ...(title === "" ? [] : [`${title}:`, ""]),
      "```sh",
      "# npm",
      installLine("npm", names, packages),
      "# pnpm",
      installLine("pnpm", names, packages),
      "```",
      ""
    ]),
    "Once the packages are published, the same names install from the registry:",
    "",
    "```sh",
    ...Object.values(setupsByTitle).map((names) => registryLine("npm", names, packages)),
    "```",
    markers.end
  ].join("\n")

/** Each README with an install section: the root's (both setups) and every public package's. */
export const readmes = (packages = publicPackages()) => [
  {
    path: join(root, "README.md"),
    block: installBlock(
      {
        "The server on SQLite": setups.sqlite,
        "The server on Postgres only (nothing to compile)": setups.postgres
      },
      packages
    )
  },
  ...packages.map((p) => ({
    path: join(p.dir, "README.md"),
    block: installBlock({ "": readmeSetup(p.manifest.name) }, packages)
  }))
]

/** Rewrites the install section of each README; answers the paths whose text changed. */
export const writeReadmes = (packages = publicPackages()) =>
  readmes(packages).flatMap(({ path, block }) => {
    const text = readFileSync(path, "utf8")
    const from = text.indexOf(markers.begin)
    const to = text.indexOf(markers.end)
    if (from === -1 || to === -1) throw new Error(`${path} has no install section (${markers.begin})`)
    const next = `${text.slice(0, from)}${block}${text.slice(to + markers.end.length)}`
    if (next === text) return []
    writeFileSync(path, next)
    return [path]
  })

const sha512 = (path) => `sha512-${createHash("sha512").update(readFileSync(path)).digest("base64")}`

/** The index of a release folder (`index.json`). */
const indexOf = (out, packages) => ({
  description: "Pixgate release: one tarball per public package. Install lines: INSTALL.md.",
  packages: packages.map(({ manifest }) => {
    const file = tarballName(manifest)
    return {
      name: manifest.name,
      version: manifest.version,
      description: manifest.description,
      file,
      size: statSync(join(out, file)).size,
      integrity: sha512(join(out, file)),
      needs: closure([manifest.name], packages)
        .map((m) => m.name)
        .filter((name) => name !== manifest.name)
    }
  }),
  install: Object.fromEntries(
    Object.entries(setups).map(([setup, names]) => [
      setup,
      {
        packages: names,
        npm: installLine("npm", names, packages),
        pnpm: installLine("pnpm", names, packages).split("\n"),
        registry: registryLine("npm", names, packages)
      }
    ])
  )
})

const installText = (index) =>
  [
    "# Installing this Pixgate release",
    "",
    "Set PIXGATE_RELEASE to this folder (absolute, or relative to your project), then run one line",
    "in your project. The tarballs of the packages each setup needs are listed in index.json.",
    "",
    ...Object.entries(index.install).flatMap(([setup, lines]) => [
      `## ${setup === "sqlite" ? "Server on SQLite" : "Server on Postgres only (nothing to compile)"}`,
      "",
      "```sh",
      `# npm\n${lines.npm}`,
      `# pnpm\n${lines.pnpm.join("\n")}`,
      `# once published, from the registry\n${lines.registry}`,
      "```",
      ""
    ]),
    "Any other package alone: the tarballs of the package and of the @pixgate packages it needs",
    "(index.json, `needs`), plus its peers.",
    "",
    "| Package | Tarball | Needs |",
    "| --- | --- | --- |",
    ...index.packages.map((p) => `| ${p.name} | ${p.file} | ${p.needs.join(", ") || "-"} |`),
    ""
  ].join("\n")

/** Builds (unless `build` is false) and packs the public packages into `out`; answers the index. */
export const releasePack = ({
  out = join(root, "release"),
  build = true,
  log = () => {},
  // Tests only: pack what is there even without dist/ (a clone that was never built).
  allowMissingDist = false
} = {}) => {
  const packages = publicPackages()
  const started = Date.now()
  const elapsed = () => `${Math.round((Date.now() - started) / 1000)} s`
  if (build) {
    log(
      `building ${packages.length} packages with tsc (the longest step: several minutes on a busy 2-core machine); ` +
        "pnpm prints each package as it starts and ends"
    )
    // pnpm's own lines (`packages/core build$ tsc ...`, `... Done`) are the progress.
    execFileSync(
      "pnpm",
      [
        "-r",
        "--reporter=append-only",
        ...packages.flatMap((p) => ["--filter", p.manifest.name]),
        "run",
        "build"
      ],
      { cwd: root, stdio: ["ignore", "inherit", "inherit"] }
    )
    log(`built in ${elapsed()}`)
  } else {
    const missing = packages.filter((p) => !existsSync(join(p.dir, "dist")))
    if (missing.length > 0 && !allowMissingDist)
      throw new Error(
        `--no-build: no dist/ in ${missing.map((p) => p.manifest.name).join(", ")} (run pnpm build)`
      )
  }
  // A previous release is replaced; any other non-empty folder is left alone.
  if (existsSync(out) && readdirSync(out).length > 0) {
    if (!existsSync(join(out, "index.json"))) throw new Error(`${out} is not empty and holds no release`)
    rmSync(out, { recursive: true, force: true })
  }
  mkdirSync(out, { recursive: true })
  for (const [i, p] of packages.entries()) {
    execFileSync("pnpm", ["pack", "--pack-destination", out], {
      cwd: p.dir,
      stdio: ["ignore", "ignore", "inherit"]
    })
    if (!existsSync(join(out, tarballName(p.manifest))))
      throw new Error(`pnpm pack did not write ${tarballName(p.manifest)}`)
    log(`packed ${p.manifest.name} (${i + 1} of ${packages.length}, ${elapsed()})`)
  }
  const index = indexOf(out, packages)
  writeFileSync(join(out, "index.json"), `${JSON.stringify(index, null, 2)}\n`)
  writeFileSync(join(out, "INSTALL.md"), installText(index))
  log(`packed ${packages.length} packages into ${out} in ${elapsed()}`)
  return index
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2)
  if (args.includes("--readmes")) {
    for (const path of writeReadmes()) console.log(`release:pack: rewrote ${path}`)
    process.exit(0)
  }
  const at = args.indexOf("--out")
  if (at !== -1 && args[at + 1] === undefined) throw new Error("--out needs a folder")
  releasePack({
    out: at === -1 ? join(root, "release") : resolve(args[at + 1]),
    build: !args.includes("--no-build"),
    log: (line) => console.log(`release:pack: ${line}`)
  })
}
