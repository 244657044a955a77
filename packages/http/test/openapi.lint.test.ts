/**
 * Redocly CLI lints the OpenAPI documents a real server serves (the public API's, and the admin
 * API's) with the committed ruleset `packages/http/redocly.yaml`: no error and no warning.
 */
import { execFile } from "node:child_process"
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { createServer } from "node:http"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { MemoryStore } from "@pixgate/core"
import { type Harness, listen, send, start } from "@pixgate/testkit/harness"
import { must } from "@pixgate/testkit/must"
import { Pixgate } from "../src/node.js"

const cli = join(dirname(createRequire(import.meta.url).resolve("@redocly/cli/package.json")), "bin/cli.js")
const config = fileURLToPath(new URL("../redocly.yaml", import.meta.url))

interface Problem {
  readonly ruleId: string
  readonly severity: string
  readonly message: string
  readonly location: ReadonlyArray<{ readonly pointer: string }>
}

let dir: string

/** Lints `doc` with the CLI; the problems, one line each (`rule severity pointer: message`). */
const lint = async (name: string, doc: unknown): Promise<Array<string>> => {
  const file = join(dir, `${name}.json`)
  await writeFile(file, JSON.stringify(doc))
  const run = await promisify(execFile)(
    process.execPath,
    [cli, "lint", file, "--config", config, "--format", "json"],
    {
      // No usage report and no update check: the suite runs offline.
      env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
      maxBuffer: 16 * 1024 * 1024
    }
  ).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? "" }))
  const report = JSON.parse(run.stdout) as { readonly problems: ReadonlyArray<Problem> }
  return report.problems.map((p) => `${p.ruleId} ${p.severity} ${p.location[0]?.pointer ?? ""}: ${p.message}`)
}

let h: Harness

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "pixgate-lint-"))
  h = await start()
})
afterAll(async () => {
  await h?.close()
  if (dir !== undefined) await rm(dir, { recursive: true, force: true })
})

describe("redocly lint", () => {
  it("the public API's document lints clean", async () => {
    const doc = (await h.request("GET", "/api/openapi.json")).body
    expect(await lint("public", doc)).toEqual([])
  })

  it("under a mount path too", async () => {
    const mounted = await Pixgate.make({
      store: MemoryStore.layer,
      log: { level: "none" },
      mountPath: "/payments"
    })
    try {
      const response = await mounted.webHandler(new Request("http://x/api/openapi.json"))
      const doc = await response.json()
      expect(doc.servers).toEqual([{ url: "/payments" }])
      expect(await lint("mounted", doc)).toEqual([])
    } finally {
      await mounted.dispose()
    }
  })

  it("the admin API's document lints clean", async () => {
    const token = "admin-token-0123456789abcdef"
    const withAdmin = await Pixgate.make({
      store: MemoryStore.layer,
      log: { level: "none" },
      admin: { token }
    })
    const server = createServer((req, res) => must(withAdmin.admin, "withAdmin.admin").nodeHandler(req, res))
    try {
      const base = await listen(server)
      const answer = await send(base, "GET", "/openapi.json", {
        headers: { authorization: `Bearer ${token}` }
      })
      expect(answer.status).toBe(200)
      expect(await lint("admin", answer.body)).toEqual([])
    } finally {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
      await withAdmin.dispose()
    }
  })

  it("reports what it finds (the ruleset is live)", async () => {
    const doc = (await h.request("GET", "/api/openapi.json")).body
    const broken = structuredClone(doc)
    delete broken.paths["/api/health"].get.responses["200"]
    broken.paths["/api/v1/charges"].post.security = undefined
    const problems = await lint("broken", broken)
    expect(problems.join("\n")).toMatch(
      /rule\/operation-2xx-response-unless-removed error #\/paths\/~1api~1health\/get/
    )
    expect(problems.length).toBeGreaterThan(0)
  })
})
