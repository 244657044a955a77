// Runs the `pixgate` command (`pnpm start` is `pixgate serve`) the way it is deployed: the
// TypeScript sources bundled by esbuild into one ES module (native modules and pdfkit left
// outside), then run by plain node. The bundle is built once per version of the sources, into
// node_modules/.cache/pixgate/<hash>/ where the hash covers every workspace package's sources
// and manifest (size and modification time of each): the first call after a clone or a change
// builds it (2-3 s on a quiet 2-core machine, docs/performance.md) and says so on stderr, every
// other call only imports. The esbuild service is stopped once the build is done: no esbuild
// process outlives it.
import { execFileSync } from "node:child_process"
import { createHash, randomBytes } from "node:crypto"
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs"
import module, { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")

/** Where bundles live: inside node_modules, so their external imports resolve from the root. */
const cacheDir = join(root, "node_modules", ".cache", "pixgate")

const walk = (dir, out) => {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) walk(path, out)
    else if (entry.isFile()) out.push(path)
  }
  return out
}

/** A hash of what the bundle is made of: every package's src/ and package.json, the lockfile, this file (their sizes and times). */
export const sourceHash = () => {
  const hash = createHash("sha256")
  const packages = join(root, "packages")
  const files = [fileURLToPath(import.meta.url), join(root, "pnpm-lock.yaml")]
  for (const name of readdirSync(packages).sort()) {
    const dir = join(packages, name)
    if (!statSync(dir).isDirectory()) continue
    files.push(join(dir, "package.json"))
    if (existsSync(join(dir, "src"))) files.push(...walk(join(dir, "src"), []).sort())
  }
  // Each file's size and modification time, not its bytes: reading every source on each call cost
  // more than the command itself. An edit changes the time (nanoseconds), a checkout rewrites it.
  for (const file of files) {
    if (!existsSync(file)) continue
    const { size, mtimeNs } = statSync(file, { bigint: true })
    hash.update(`${file.slice(root.length)}\0${size}\0${mtimeNs}\0`)
  }
  return hash.digest("hex").slice(0, 16)
}

/**
 * Bundles packages/server/src/bin.ts (with its chunks: help loads no engine) into a directory named
 * by the sources' hash, with `help.json` (every command's help, rendered), unless it exists;
 * answers the entry file's path.
 */
export const bundle = async (say = () => {}) => {
  const hash = sourceHash()
  const dir = join(cacheDir, hash)
  const entry = join(dir, "bin.mjs")
  if (existsSync(entry)) return entry
  const started = Date.now()
  say(
    existsSync(cacheDir)
      ? "pixgate: the sources changed; rebuilding the command (a few seconds)...\n"
      : "pixgate: building the command from the sources, once after a clone (a few seconds)...\n"
  )
  mkdirSync(cacheDir, { recursive: true })
  // Loaded only to build: a cached run never pays for esbuild. Its service process is stopped
  // right after the build (buildSync too would keep one alive until the process exits).
  const esbuild = createRequire(import.meta.url)("esbuild")
  const temporary = join(cacheDir, `.${hash}.${process.pid}.${randomBytes(4).toString("hex")}`)
  await esbuild.build({
    // Commands is an entry too: the build imports it to render every command's help (below).
    entryPoints: {
      bin: join(root, "packages/server/src/bin.ts"),
      commands: join(root, "packages/server/src/Commands.ts")
    },
    outdir: temporary,
    outExtension: { ".js": ".mjs" },
    chunkNames: "chunk-[hash]",
    splitting: true,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    conditions: ["@pixgate/source"],
    // Left to node, resolved from the root's node_modules: native modules, and pdfkit, which loads
    // its fonts with `createRequire(import.meta.url)("#standard-fonts/...")` (its own package.json's
    // imports), which a bundled copy would look for beside the bundle (docs/decisions.md).
    external: ["better-sqlite3", "pg-native", "pdfkit"],
    // Bundled CommonJS packages call require(); give each module one.
    banner: {
      js: "import { createRequire as __pixgateRequire } from 'node:module'; const require = __pixgateRequire(import.meta.url);"
    },
    logLevel: "warning"
  })
  await esbuild.stop()
  say(`pixgate: bundled in ${((Date.now() - started) / 1000).toFixed(1)} s; rendering the help...\n`)
  // The help of every command, rendered now: `--help` then reads it and loads nothing else.
  // Rendered by another process: this one must not load the engine from the temporary folder
  // before it runs the bundle from its final place (two copies of every module).
  const commands = pathToFileURL(join(temporary, "commands.mjs")).href
  const table = execFileSync(
    process.execPath,
    [
      "--input-type=module",
      "-e",
      `const { helpTable } = await import(${JSON.stringify(commands)}); process.stdout.write(JSON.stringify(helpTable()))`
    ],
    { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }
  )
  writeFileSync(join(temporary, "help.json"), `${table}\n`)
  // Commands started together may both build: one rename wins, the other's copy is dropped.
  try {
    renameSync(temporary, dir)
  } catch (error) {
    if (!existsSync(entry)) throw error
    rmSync(temporary, { recursive: true, force: true })
  }
  // Only the current sources' bundle is kept (and V8's cache of compiled code).
  for (const name of readdirSync(cacheDir)) {
    if (name !== hash && name !== "v8" && !name.startsWith("."))
      rmSync(join(cacheDir, name), { recursive: true, force: true })
  }
  say(`pixgate: built in ${((Date.now() - started) / 1000).toFixed(1)} s (node_modules/.cache/pixgate)\n`)
  return entry
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  // Node 22.1 and later keep V8's compiled code of the bundle between runs (Node 20 has no such
  // cache; there the bundle is compiled on each run, see docs/performance.md).
  module.enableCompileCache?.(join(cacheDir, "v8"))
  await import(pathToFileURL(await bundle((line) => process.stderr.write(line))).href)
}
