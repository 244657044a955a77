/**
 * Admin tokens from the command line: `admin-token create` prints a token once, `list` never
 * shows one, `revoke` takes an id or a live name, `admin-audit list` reads the admin audit log.
 * Then two `pixgate serve` processes on one Postgres: a token made by the CLI works on both at
 * once, a write through one is in the audit log read through the other, and a revoked token is
 * refused by both on their very next request (nothing is cached in either process). A server
 * started with no token at all has no admin API (404) until the CLI creates one.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { testDataKey, testDataKeys } from "@pixgate/testkit/dataKeys"
import { send } from "@pixgate/testkit/harness"
import { describePostgres, useFreshDatabase } from "@pixgate/testkit/postgres"
import { testWait } from "@pixgate/testkit/wait"
import * as Server from "../src/Server.js"
import { cliOn } from "./support/cli.js"
import { killAll, type ServeProcess, start } from "./support/serveProcess.js"

const dir = mkdtempSync(join(tmpdir(), "pixgate-admin-tokens-"))
afterAll(() => {
  killAll()
  rmSync(dir, { recursive: true, force: true })
})

describe("admin-token and admin-audit commands", () => {
  const cli = cliOn(`sqlite:${join(dir, "tokens.db")}`, dir)

  it("creates a token shown once, lists tokens without it, revokes by name or id", async () => {
    const created = await cli("admin-token", "create", "--name", "deploy", "--scope", "operator", "--json")
    expect(created.code).toBe(0)
    expect(created.json).toMatchObject({
      id: expect.stringMatching(/^atk_/),
      name: "deploy",
      scope: "operator",
      token: expect.stringMatching(/^pxa_[0-9A-Za-z]{43}$/),
      revokedAt: null,
      lastUsedAt: null
    })
    const readable = await cli("admin-token", "create", "--name", "grafana", "--scope", "metrics")
    expect(readable.code).toBe(0)
    expect(readable.stdout).toMatch(/^token: +pxa_/m)
    expect(readable.stdout).toContain("shown only now")

    const listed = await cli("admin-token", "list", "--json")
    expect(listed.json.data.map((t: { name: string }) => t.name)).toEqual(["deploy", "grafana"])
    expect(listed.stdout).not.toContain(created.json.token)
    expect(listed.json.data[0]).toEqual({
      id: created.json.id,
      name: "deploy",
      scope: "operator",
      hint: created.json.token.slice(-4),
      createdAt: created.json.createdAt,
      revokedAt: null,
      lastUsedAt: null
    })
    const table = await cli("admin-token", "list")
    expect(table.stdout).toMatch(/^ID +NAME +SCOPE +HINT/)
    expect(table.stdout).not.toContain(created.json.token)

    const byName = await cli("admin-token", "revoke", "deploy", "--json")
    expect(byName.code).toBe(0)
    expect(byName.json).toMatchObject({ id: created.json.id, revokedAt: expect.any(String) })
    const byId = await cli(
      "admin-token",
      "revoke",
      readable.stdout.match(/atk_[0-9A-Z]{26}/)?.[0] ?? "",
      "--json"
    )
    expect(byId.json).toMatchObject({ name: "grafana", revokedAt: expect.any(String) })
    const again = await cli("admin-token", "revoke", "deploy")
    expect([again.code, again.stderr]).toEqual([1, "pixgate: Admin token not found (not_found)\n"])
  })

  it("refuses a bad scope, a reserved or taken name", async () => {
    const scope = await cli("admin-token", "create", "--name", "x", "--scope", "admin")
    expect(scope.code).toBe(2)
    expect(scope.stderr).toContain("--scope must be read-only, operator, full or metrics")
    const reserved = await cli("admin-token", "create", "--name", "env", "--scope", "full")
    expect([reserved.code, reserved.stderr]).toEqual([
      1,
      "pixgate: name env is reserved for PIXGATE_ADMIN_TOKEN (invalid_name)\n"
    ])
    expect((await cli("admin-token", "create", "--name", "twice", "--scope", "full")).code).toBe(0)
    const taken = await cli("admin-token", "create", "--name", "twice", "--scope", "full")
    expect([taken.code, taken.stderr]).toEqual([
      1,
      "pixgate: A live admin token is already named twice (admin_token_name_taken)\n"
    ])
  })

  it("prints the admin audit log, newest first, a page at a time", async () => {
    const page = await cli("admin-audit", "list", "--limit", "2", "--json")
    expect(page.code).toBe(0)
    expect(page.json.data).toEqual([
      expect.objectContaining({ actor: "cli", operation: "admin-token.create", method: null, status: null }),
      expect.objectContaining({ actor: "cli", operation: "admin-token.revoke" })
    ])
    const rest = await cli("admin-audit", "list", "--before", page.json.next, "--json")
    expect(rest.json.data.length).toBeGreaterThanOrEqual(3)
  })
})

describe("a server started without any admin token", () => {
  it("answers every /admin path 404, then takes a token the CLI creates, without a restart", async () => {
    const database = `sqlite:${join(dir, "late.db")}`
    const server = await Server.start({ port: 0, database, dataKeys: testDataKeys, log: { level: "none" } })
    try {
      for (const [method, path] of [
        ["GET", "/admin/merchants"],
        ["POST", "/admin/merchants"],
        ["GET", "/admin/audit-log"],
        ["GET", "/admin/nowhere"]
      ] as const)
        expect(
          (await send(server.url, method, path, { headers: { authorization: "Bearer x" } })).status
        ).toBe(404)
      const created = (
        await cliOn(database, dir)(
          "admin-token",
          "create",
          "--name",
          "late",
          "--scope",
          "read-only",
          "--json"
        )
      ).json
      const auth = { headers: { authorization: `Bearer ${created.token}` } }
      expect((await send(server.url, "GET", "/admin/audit-log", auth)).status).toBe(200)
      expect((await send(server.url, "GET", "/admin/audit-log")).status).toBe(401)
      expect(
        (await send(server.url, "POST", "/admin/merchants", { ...auth, body: { name: "No" } })).status
      ).toBe(403)
    } finally {
      await server.close()
    }
  })
})

describePostgres("two servers on one Postgres", () => {
  const database = useFreshDatabase()
  const servers: Array<ServeProcess> = []
  afterAll(async () => {
    for (const server of servers) {
      server.child.kill("SIGTERM")
      await server.exited
    }
  })

  const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } })

  it(
    "accept a token made by the CLI at once, share its audit log and refuse it on both once revoked",
    async () => {
      const cli = cliOn(database.url(), dir)
      const deploy = (await cli("admin-token", "create", "--name", "deploy", "--scope", "full", "--json"))
        .json
      const scraper = (
        await cli("admin-token", "create", "--name", "scraper", "--scope", "metrics", "--json")
      ).json
      // Metrics on the main port with no PIXGATE_ADMIN_TOKEN: the stored tokens guard them.
      const env = {
        PIXGATE_DATABASE: database.url(),
        PIXGATE_DATA_KEY: testDataKey,
        PIXGATE_ADMIN_TOKEN: "",
        PIXGATE_METRICS: "1"
      }
      servers.push(await start(env), await start(env))
      const [a, b] = servers.map((s) => s.url)

      const created = await send(a, "POST", "/admin/merchants", {
        ...bearer(deploy.token),
        body: { name: "Dois" }
      })
      expect(created.status).toBe(201)
      const log = await send(b, "GET", "/admin/audit-log?limit=1", bearer(deploy.token))
      expect(log.body.data[0]).toMatchObject({ actor: "deploy", operation: "createMerchant", status: 201 })
      for (const url of [a, b]) {
        expect((await send(url, "GET", "/metrics", bearer(scraper.token))).status).toBe(200)
        expect((await send(url, "GET", "/admin/audit-log", bearer(scraper.token))).status).toBe(403)
      }

      expect((await cli("admin-token", "revoke", "deploy")).code).toBe(0)
      // The very next request on each server, with no wait: refused.
      for (const url of [a, b]) {
        expect((await send(url, "GET", "/admin/audit-log", bearer(deploy.token))).status).toBe(401)
        expect(
          (await send(url, "GET", `/admin/merchants/${created.body.merchantId}`, bearer(deploy.token))).status
        ).toBe(401)
      }
      expect((await cli("admin-token", "revoke", scraper.id)).code).toBe(0)
      for (const url of [a, b])
        expect((await send(url, "GET", "/metrics", bearer(scraper.token))).status).toBe(401)
    },
    testWait(2)
  )
})
