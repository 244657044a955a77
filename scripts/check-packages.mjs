// Checks that the packages install, compile and run outside this repository the way the README
// says: `release:pack` (scripts/release-pack.mjs, the code path a user runs) packs the public
// packages into one folder, then two fresh projects install from it with the README's exact
// lines (run as written, with PIXGATE_RELEASE set to the folder):
//   - npm, the server on SQLite (better-sqlite3 built), plus @pixgate/client (its README's line);
//   - pnpm, the server on Postgres only: no SQLite store, no better-sqlite3, and no "Ignored build
//     scripts" box (the line names which dependencies may build).
// In each, TypeScript compiles the examples and a file using the public types against the
// installed declarations, `strict` with `skipLibCheck: false`, without the optional peers
// (@pixgate/panel, @pixgate/gateway-apipix, @pixgate/gateway-asaas), and checks `pixgate.panel` is not `any`; the npm
// project also bundles @pixgate/client for the browser (scripts/browser-bundle.mjs). Then each
// runs: the in-memory example, the installed `pixgate` command (help, `merchant create`), a server
// (the node:http example on SQLite; `pixgate serve` on Postgres) and a charge over fetch (and with
// the installed @pixgate/client). The Postgres project also checks that choosing SQLite there
// fails with a clear message.
// Usage: node scripts/check-packages.mjs [--only npm|pnpm]. Needs the npm registry for the
// third-party dependencies and Postgres (PIXGATE_TEST_PG_URL, default
// postgres://postgres@127.0.0.1:5432) for the pnpm project. Everything is written under one
// temporary directory (and one database), removed at the end.
import { execFileSync, spawn } from "node:child_process"
import { once } from "node:events"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { browserBundle } from "./browser-bundle.mjs"
import { installLine, publicPackages, releasePack, root, setups } from "./release-pack.mjs"

const only = process.argv.includes("--only") ? process.argv[process.argv.indexOf("--only") + 1] : undefined
const requireRoot = createRequire(join(root, "package.json"))

const log = (line) => console.log(`check-packages: ${line}`)
const run = (command, args, cwd, extraEnv = {}) =>
  execFileSync(command, args, {
    cwd,
    env: { ...process.env, ...extraEnv },
    stdio: ["ignore", "pipe", "pipe"],
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024
  })

/** Runs the lines of an install section as written (sh, stopping at the first failure); answers their output. */
const runLines = (lines, cwd, release) => {
  try {
    return execFileSync("sh", ["-ec", lines], {
      cwd,
      env: { ...process.env, PIXGATE_RELEASE: release, CI: "true" },
      stdio: ["ignore", "pipe", "pipe"],
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024
    })
  } catch (error) {
    throw new Error(`${lines}\nfailed:\n${error.stdout ?? ""}${error.stderr ?? ""}`)
  }
}

/** The line as a README shows it (the check fails when the README says something else). */
const fromReadme = (readme, lines) => {
  const text = readFileSync(join(root, readme), "utf8")
  if (!text.includes(lines))
    throw new Error(`${readme} does not show:\n${lines}\n(node scripts/release-pack.mjs --readmes)`)
  return lines
}

/** The repository's own versions of the TypeScript tools, for the outside projects' devDependencies. */
const toolVersions = () => ({
  typescript: requireRoot("typescript/package.json").version,
  "@types/node": requireRoot("@types/node/package.json").version
})

/** Strict TypeScript as an outside project would have it, library declarations checked too. */
const tsconfig = {
  compilerOptions: {
    strict: true,
    skipLibCheck: false,
    target: "ES2022",
    module: "NodeNext",
    moduleResolution: "NodeNext",
    lib: ["ES2022", "DOM"],
    types: ["node"],
    noEmit: true
  },
  include: ["*.ts"]
}

/** Uses of the public types: `pixgate.panel` and the server's live options typed, not `any`. */
const typesFile = (store) => `import { Pixgate, Server } from "@pixgate/server"
import { Engine, MemoryStore } from "@pixgate/core"
${store === "sqlite" ? 'import { SqliteStore } from "@pixgate/store-sqlite"' : 'import { PgStore } from "@pixgate/store-pg"'}

type IsAny<T> = 0 extends 1 & T ? true : false
type Running = Awaited<ReturnType<typeof Pixgate.make>>
export const panelIsTyped: IsAny<Running["panel"]> = false
export const liveIsTyped: IsAny<NonNullable<Server.ServerOptions["live"]>> = false
export const panelOptionsAreTyped: IsAny<NonNullable<Pixgate.PixgateOptions["panel"]>> = false
export const store = ${store === "sqlite" ? 'SqliteStore.layer({ filename: ":memory:" })' : 'PgStore.layer({ url: "postgres://localhost/x" })'}
export const engine = Engine.layer().pipe
export const memory = MemoryStore.layer
export const matches = async (path: string): Promise<boolean> => {
  const pixgate = await Pixgate.make({ database: "sqlite::memory:" })
  const answer = pixgate.panel?.matches(path) ?? false
  await pixgate.dispose()
  return answer
}
`

/** The promise and the Effect client, the Effect client's Idempotency-Key left out. */
const clientFile = `import { Pixgate, PixgateClient } from "@pixgate/client"
import { Money, Requests } from "@pixgate/core"
import { Effect } from "effect"

export const viaPromise = (apiKey: string, baseUrl: string) => new Pixgate({ apiKey, baseUrl }).charges.create({ amount: 5.67 })
export const viaEffect = Effect.gen(function* () {
  const pixgate = yield* PixgateClient.PixgateClient
  return yield* pixgate.charges.create({ payload: Requests.CreateCharge.make({ amount: Money.Cents(100) }) })
})
`

/** The examples as TypeScript (for tsc) and as plain JavaScript (type annotations removed, to run). */
const writeExamples = (project) => {
  const { transformSync } = requireRoot("esbuild")
  for (const name of ["embed-memory", "node-http"]) {
    const source = readFileSync(join(root, "examples", `${name}.ts`), "utf8")
    writeFileSync(join(project, `${name}.ts`), source)
    writeFileSync(join(project, `${name}.mjs`), transformSync(source, { loader: "ts", format: "esm" }).code)
  }
}

/** Waits for a line of a child's output that matches; answers the match. */
const waitFor = (child, pattern, what) =>
  new Promise((resolve, reject) => {
    let out = ""
    const timer = setTimeout(() => reject(new Error(`${what} printed no ${pattern}: ${out}`)), 120_000)
    const onData = (chunk) => {
      out += chunk
      const match = pattern.exec(out)
      if (match) {
        clearTimeout(timer)
        child.stdout.off("data", onData)
        resolve(match)
      }
    }
    child.stdout.on("data", onData)
    child.once("exit", (code) => reject(new Error(`${what} exited with ${code}: ${out}`)))
  })

/** A charge over fetch, then (when the client is installed) one with the promise client. */
const charge = async (project, url, key, withClient) => {
  const health = await fetch(`${url}/api/health`)
  if (health.status !== 200) throw new Error(`health answered ${health.status}`)
  const answer = await fetch(`${url}/api/v1/charges`, {
    method: "POST",
    headers: { "x-api-key": key, "content-type": "application/json" },
    body: JSON.stringify({ amount: 12.34 })
  })
  const body = await answer.json()
  if (answer.status !== 201 || body.amount !== 12.34)
    throw new Error(`charge: ${answer.status} ${JSON.stringify(body)}`)
  if (!withClient) return
  const viaClient = JSON.parse(
    run(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `import { Pixgate } from "@pixgate/client"
if (!import.meta.resolve("@pixgate/client").includes("/dist/")) throw new Error("@pixgate/client is not dist/")
const pixgate = new Pixgate({ apiKey: ${JSON.stringify(key)}, baseUrl: ${JSON.stringify(url)} })
console.log(JSON.stringify(await pixgate.charges.create({ amount: 5.67 })))`
      ],
      project
    )
  )
  if (viaClient.amount !== 5.67 || typeof viaClient.qrCode !== "string")
    throw new Error(`@pixgate/client charge: ${JSON.stringify(viaClient)}`)
}

/** Checks shared by both projects: dist/ resolved, strict compile, the in-memory example, the bin. */
const common = (project, manager) => {
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
  for (const optional of ["@pixgate/panel", "@pixgate/gateway-apipix", "@pixgate/gateway-asaas"])
    if (existsSync(join(project, "node_modules", optional)))
      throw new Error(`${optional} is installed: the compile would not show a missing optional peer`)

  log(`${manager}: tsc (strict, skipLibCheck: false, without the optional peers)`)
  try {
    run(process.execPath, [join(project, "node_modules", "typescript", "bin", "tsc"), "-p", project], project)
  } catch (error) {
    throw new Error(`tsc failed in the ${manager} project:\n${error.stdout ?? ""}${error.stderr ?? ""}`)
  }

  log(`${manager}: the in-memory engine example`)
  // Its log lines come first; the page it prints last starts on a line of its own.
  const printed = run(process.execPath, ["embed-memory.mjs"], project)
  const page = JSON.parse(printed.slice(printed.search(/^\{/m)))
  if (page.data?.[0]?.status !== "completed") throw new Error(`embed-memory: ${JSON.stringify(page)}`)

  const bin = join(project, "node_modules", ".bin", "pixgate")
  const help = run(bin, ["--help"], project)
  if (!help.includes("merchant create")) throw new Error(`pixgate --help: ${help}`)
  return bin
}

const work = mkdtempSync(join(tmpdir(), "pixgate-packages-"))
const pgUrl = process.env.PIXGATE_TEST_PG_URL ?? "postgres://postgres@127.0.0.1:5432"
const database = `pixgate_packages_${process.pid}`
let databaseMade = false
const dropDatabase = async () => {
  if (!databaseMade) return
  const pg = requireRoot("pg")
  const client = new pg.Client({ connectionString: `${pgUrl}/postgres` })
  await client.connect()
  await client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)
  await client.end()
}
const cleanUp = () => rmSync(work, { recursive: true, force: true })
process.once("SIGINT", () => {
  cleanUp()
  process.exit(130)
})

try {
  // 1. The release folder, as `pnpm release:pack` writes it (built first unless every dist/ is there).
  const release = join(work, "release")
  const build = publicPackages().some((p) => !existsSync(join(p.dir, "dist", "index.js")))
  releasePack({ out: release, build, log })
  const tools = toolVersions()
  const devTools = Object.entries(tools).map(([name, version]) => `${name}@${version}`)

  // 2. npm, the server on SQLite, and the client.
  if (only === undefined || only === "npm") {
    const project = join(work, "project-npm")
    mkdirSync(project)
    writeFileSync(
      join(project, "package.json"),
      JSON.stringify({ name: "outside-npm", private: true, type: "module" })
    )
    log("npm: the README's line for the server on SQLite, and the client's README line")
    runLines(fromReadme("README.md", installLine("npm", setups.sqlite)), project, release)
    runLines(
      fromReadme("packages/client/README.md", installLine("npm", ["@pixgate/client"])),
      project,
      release
    )
    run("npm", ["install", "--save-dev", "--no-audit", "--no-fund", "--loglevel=error", ...devTools], project)
    writeFileSync(join(project, "tsconfig.json"), JSON.stringify(tsconfig, null, 2))
    writeExamples(project)
    writeFileSync(join(project, "types.ts"), typesFile("sqlite"))
    writeFileSync(join(project, "client.ts"), clientFile)
    const bin = common(project, "npm")

    log("npm: @pixgate/client bundled for the browser (esbuild): no Node modules, no QR writer")
    const bundle = await browserBundle(requireRoot("esbuild"), { resolveDir: project })
    if (bundle.problems.length > 0) throw new Error(bundle.problems.join("\n"))

    log("npm: the installed pixgate command and the node:http example")
    const env = { PIXGATE_DATABASE: "sqlite:./data/pixgate.db" }
    const merchant = JSON.parse(run(bin, ["merchant", "create", "--name", "Outside", "--json"], project, env))
    const server = spawn(process.execPath, ["node-http.mjs"], {
      cwd: project,
      env: { ...process.env, ...env, PORT: "0" },
      stdio: ["ignore", "pipe", "inherit"]
    })
    try {
      const [, url] = await waitFor(server, /Pixgate API on (http:\/\/\S+)\/api\/v1/, "node-http")
      await charge(project, url, merchant.testKey, true)
    } finally {
      server.kill("SIGTERM")
      await once(server, "exit").catch(() => {})
    }
    log("npm: ok")
  }

  // 3. pnpm, the server on Postgres only.
  if (only === undefined || only === "pnpm") {
    const project = join(work, "project-pnpm")
    mkdirSync(project)
    writeFileSync(
      join(project, "package.json"),
      JSON.stringify({ name: "outside-pnpm", private: true, type: "module" })
    )
    log("pnpm: the README's lines for the server on Postgres only")
    const output = runLines(fromReadme("README.md", installLine("pnpm", setups.postgres)), project, release)
    if (/Ignored build scripts|approve-builds/.test(output))
      throw new Error(`pnpm asked to approve builds:\n${output}`)
    run("pnpm", ["add", "--save-dev", ...devTools], project, { CI: "true" })
    if (
      existsSync(join(project, "node_modules", "@pixgate", "store-sqlite")) ||
      readdirSync(join(project, "node_modules", ".pnpm")).some((d) => d.startsWith("better-sqlite3@"))
    )
      throw new Error("a Postgres-only project installed the SQLite store or better-sqlite3")
    writeFileSync(join(project, "tsconfig.json"), JSON.stringify(tsconfig, null, 2))
    writeExamples(project)
    writeFileSync(join(project, "types.ts"), typesFile("postgres"))
    const bin = common(project, "pnpm")

    log("pnpm: the installed pixgate command and pixgate serve on Postgres")
    const pg = requireRoot("pg")
    const admin = new pg.Client({ connectionString: `${pgUrl}/postgres` })
    await admin.connect()
    await admin.query(`CREATE DATABASE ${database}`)
    await admin.end()
    databaseMade = true
    // Any key of 32 bytes: this database is made for the check.
    const env = {
      PIXGATE_DATABASE: `${pgUrl}/${database}`,
      PIXGATE_DATA_KEY: "cGl4Z2F0ZS1wYWNrYWdlLWNoZWNrLTMyLWJ5dGVzISE="
    }
    const merchant = JSON.parse(run(bin, ["merchant", "create", "--name", "Outside", "--json"], project, env))
    const server = spawn(bin, ["serve"], {
      cwd: project,
      env: { ...process.env, ...env, PORT: "0", PIXGATE_LOG_LEVEL: "info" },
      stdio: ["ignore", "pipe", "inherit"]
    })
    try {
      const [, url] = await waitFor(server, /"url":"(http:\/\/[^"]+)"/, "pixgate serve")
      await charge(project, url, merchant.testKey, false)
    } finally {
      server.kill("SIGTERM")
      await once(server, "exit").catch(() => {})
    }
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
    log("pnpm: ok (Postgres only: no better-sqlite3, SQLite refused with a clear message)")
  }
  log("the packages install with the README's lines, compile strictly and run outside the repository")
} finally {
  await dropDatabase().catch((error) => log(`could not drop ${database}: ${error.message}`))
  cleanUp()
}
