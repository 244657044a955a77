// Checks that the packages install and run outside this repository, as a user's project gets
// them: packs every public package with `pnpm pack` (dist/ from `pnpm build`), installs the
// tarballs into a fresh temporary project with plain npm and again with pnpm (which builds
// better-sqlite3 only when allowed: `onlyBuiltDependencies`), then, in each project, runs the
// in-memory engine example and the node:http example compiled from examples/ against the
// installed dist/, creates a merchant with the installed `pixgate` command and takes a charge
// (over fetch, and with the promise client of the installed @pixgate/client).
// Usage: node scripts/check-packages.mjs [--only npm|pnpm|postgres-only]. Needs the npm registry for the
// third-party dependencies. Everything is written under one temporary directory, removed at
// the end.
import { execFileSync, spawn } from "node:child_process"
import { once } from "node:events"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const only = process.argv.includes("--only") ? process.argv[process.argv.indexOf("--only") + 1] : undefined
const managers = ["npm", "pnpm"].filter((m) => only === undefined || m === only)

const log = (line) => console.log(`check-packages: ${line}`)
const run = (command, args, cwd, extraEnv = {}) =>
  execFileSync(command, args, {
    cwd,
    env: { ...process.env, ...extraEnv },
    stdio: ["ignore", "pipe", "inherit"],
    encoding: "utf8"
  })

const packages = readdirSync(join(root, "packages"))
  .map((dir) => ({
    dir: join(root, "packages", dir),
    manifest: readJson(join(root, "packages", dir, "package.json"))
  }))
  .filter((p) => p.manifest.private !== true)

function readJson(path) {
  return JSON.parse(readFileSync(path, "utf8"))
}

const work = mkdtempSync(join(tmpdir(), "pixgate-packages-"))
const cleanUp = () => rmSync(work, { recursive: true, force: true })
process.once("SIGINT", () => {
  cleanUp()
  process.exit(130)
})

try {
  // 1. dist/ of every public package.
  if (packages.some((p) => !existsSync(join(p.dir, "dist", "index.js")))) {
    log("building (pnpm build)")
    run("pnpm", ["build"], root)
  }

  // 2. One tarball per public package.
  const tarballs = join(work, "tarballs")
  mkdirSync(tarballs)
  const tarballOf = {}
  for (const p of packages) {
    run("pnpm", ["pack", "--pack-destination", tarballs], p.dir)
    const base = `${p.manifest.name.replace("@", "").replace("/", "-")}-${p.manifest.version}.tgz`
    if (!existsSync(join(tarballs, base))) throw new Error(`pnpm pack did not write ${base}`)
    tarballOf[p.manifest.name] = join(tarballs, base)
  }
  log(`packed ${Object.keys(tarballOf).join(", ")}`)

  // 3. The examples, compiled to plain JavaScript (type annotations removed; imports unchanged).
  const { transformSync } = createRequire(import.meta.url)("esbuild")
  const compile = (file) =>
    transformSync(readFileSync(join(root, "examples", file), "utf8"), { loader: "ts", format: "esm" }).code

  const serverManifest = packages.find((p) => p.manifest.name === "@pixgate/server").manifest
  const thirdParty = Object.fromEntries(
    Object.entries(serverManifest.peerDependencies).filter(([name]) => !name.startsWith("@pixgate/"))
  )

  for (const manager of managers) {
    const project = join(work, `project-${manager}`)
    mkdirSync(project)
    const local = Object.fromEntries(Object.entries(tarballOf).map(([name, path]) => [name, `file:${path}`]))
    writeFileSync(
      join(project, "package.json"),
      JSON.stringify(
        {
          name: `pixgate-outside-${manager}`,
          private: true,
          type: "module",
          dependencies: { ...local, ...thirdParty },
          // The tarballs name each other by version (^0.1.0): point those at the tarballs too.
          overrides: local,
          pnpm: { overrides: local, onlyBuiltDependencies: ["better-sqlite3"] }
        },
        null,
        2
      )
    )
    writeFileSync(join(project, "embed-memory.mjs"), compile("embed-memory.ts"))
    writeFileSync(join(project, "node-http.mjs"), compile("node-http.ts"))

    log(`${manager} install in ${project}`)
    if (manager === "npm") run("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error"], project)
    else
      run("pnpm", ["install", "--config.node-linker=isolated", "--reporter=silent"], project, { CI: "true" })

    // Installed from the tarballs: no source condition, so dist/ is what runs.
    const resolved = run(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        "for (const m of ['@pixgate/http', '@pixgate/http/node', '@pixgate/server']) console.log(import.meta.resolve(m))"
      ],
      project
    ).trim()
    if (resolved.split("\n").some((line) => !line.includes("/dist/")))
      throw new Error(`the packages resolved to ${resolved}, not dist/`)

    log(`${manager}: the in-memory engine example`)
    // Its log lines come first; the page it prints last starts on a line of its own.
    const printed = run(process.execPath, ["embed-memory.mjs"], project)
    const page = JSON.parse(printed.slice(printed.search(/^\{/m)))
    if (page.data?.[0]?.status !== "completed") throw new Error(`embed-memory: ${JSON.stringify(page)}`)

    log(`${manager}: the installed pixgate command and the node:http example`)
    const env = { PIXGATE_DATABASE: "sqlite:./data/pixgate.db" }
    const merchant = JSON.parse(
      run(
        join(project, "node_modules", ".bin", "pixgate"),
        ["merchant", "create", "--name", "Outside", "--json"],
        project,
        env
      )
    )
    const server = spawn(process.execPath, ["node-http.mjs"], {
      cwd: project,
      env: { ...process.env, ...env, PORT: "0" },
      stdio: ["ignore", "pipe", "inherit"]
    })
    try {
      let out = ""
      const url = await new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`node-http printed no URL: ${out}`)), 60_000)
        server.stdout.on("data", (chunk) => {
          out += chunk
          const match = /Pixgate API on (http:\/\/\S+)\/api\/v1/.exec(out)
          if (match) {
            clearTimeout(timer)
            resolve(match[1])
          }
        })
        server.once("exit", (code) => reject(new Error(`node-http exited with ${code}: ${out}`)))
      })
      const health = await fetch(`${url}/api/health`)
      if (health.status !== 200) throw new Error(`health answered ${health.status}`)
      const charge = await fetch(`${url}/api/v1/charges`, {
        method: "POST",
        headers: { "x-api-key": merchant.testKey, "content-type": "application/json" },
        body: JSON.stringify({ amount: 12.34 })
      })
      const body = await charge.json()
      if (charge.status !== 201 || body.amount !== 12.34)
        throw new Error(`charge: ${charge.status} ${JSON.stringify(body)}`)
      // The installed @pixgate/client (its dist/, with the HttpApi definition it is made from).
      const viaClient = JSON.parse(
        run(
          process.execPath,
          [
            "--input-type=module",
            "-e",
            `import { Pixgate } from "@pixgate/client"
if (!import.meta.resolve("@pixgate/client").includes("/dist/")) throw new Error("@pixgate/client is not dist/")
const pixgate = new Pixgate({ apiKey: ${JSON.stringify(merchant.testKey)}, baseUrl: ${JSON.stringify(url)} })
console.log(JSON.stringify(await pixgate.charges.create({ amount: 5.67 })))`
          ],
          project
        )
      )
      if (viaClient.amount !== 5.67 || typeof viaClient.qrCode !== "string")
        throw new Error(`@pixgate/client charge: ${JSON.stringify(viaClient)}`)
    } finally {
      server.kill("SIGTERM")
      await once(server, "exit").catch(() => {})
    }
    log(`${manager}: ok`)
  }
  // 4. A Postgres-only project: @pixgate/server without the SQLite store compiles nothing, and
  //    choosing SQLite there fails with a clear message.
  if (only === undefined || only === "postgres-only") {
    const project = join(work, "project-postgres-only")
    mkdirSync(project)
    const names = [
      "@pixgate/core",
      "@pixgate/store-sql",
      "@pixgate/store-pg",
      "@pixgate/http",
      "@pixgate/server"
    ]
    const local = Object.fromEntries(names.map((name) => [name, `file:${tarballOf[name]}`]))
    writeFileSync(
      join(project, "package.json"),
      JSON.stringify({
        name: "pixgate-outside-postgres-only",
        private: true,
        type: "module",
        dependencies: { ...local, ...thirdParty },
        pnpm: { overrides: local }
      })
    )
    log("pnpm install of a Postgres-only project")
    run("pnpm", ["install", "--reporter=silent"], project, { CI: "true" })
    if (
      existsSync(join(project, "node_modules", ".pnpm")) &&
      readdirSync(join(project, "node_modules", ".pnpm")).some((d) => d.startsWith("better-sqlite3@"))
    )
      throw new Error("a Postgres-only project installed better-sqlite3")
    const answer = run(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `import { Pixgate } from "@pixgate/server"
try { await Pixgate.make({ database: "sqlite::memory:", log: { level: "none" } }); console.log("started") }
catch (error) { console.log(error.message) }`
      ],
      project
    ).trim()
    if (!answer.includes("@pixgate/store-sqlite is not installed"))
      throw new Error(`choosing SQLite without its store answered: ${answer}`)
    log("postgres-only: ok (no better-sqlite3; SQLite refused with a clear message)")
  }
  log("every package installs and runs outside the repository")
} finally {
  cleanUp()
}
