// Runs the `pixgate` command (`pnpm start` is `pixgate serve`) the way it is deployed: the
// TypeScript sources bundled by esbuild into one ES module (native modules left outside), then
// run by plain node. A bundle starts in a fraction of a second and rests at a third of the
// memory of running the sources through tsx. It is rebuilt on every run (well under a second),
// into a temporary file renamed into place, so commands started together cannot clash.
import { randomBytes } from "node:crypto"
import { mkdirSync, renameSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { build } from "esbuild"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")

/** Where the bundle lives: inside node_modules, so its external imports resolve from the root. */
const bundlePath = join(root, "node_modules", ".cache", "pixgate", "pixgate.mjs")

/** Bundles packages/http/src/bin.ts into `bundlePath`. */
export const bundle = async () => {
  mkdirSync(dirname(bundlePath), { recursive: true })
  const temporary = `${bundlePath}.${process.pid}.${randomBytes(4).toString("hex")}`
  await build({
    entryPoints: [join(root, "packages/http/src/bin.ts")],
    outfile: temporary,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    conditions: ["@pixgate/source"],
    external: ["better-sqlite3", "pg-native"],
    // Bundled CommonJS packages call require(); give the module one.
    banner: {
      js: "import { createRequire as __pixgateRequire } from 'node:module'; const require = __pixgateRequire(import.meta.url);"
    },
    logLevel: "warning"
  })
  renameSync(temporary, bundlePath)
  return bundlePath
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  await import(pathToFileURL(await bundle()).href)
}
