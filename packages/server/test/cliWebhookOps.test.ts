/** `pixgate webhook resend`, `webhook health` and `webhook enable` on SQLite, in-process. */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { testDataKey } from "@pixgate/testkit/dataKeys"
import * as Cli from "../src/Cli.js"

const dir = mkdtempSync(join(tmpdir(), "pixgate-cli-webhook-ops-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const cli = async (...argv: Array<string>) => {
  let stdout = ""
  let stderr = ""
  const code = await Cli.run(argv, {
    env: { PIXGATE_DATABASE: `sqlite:${join(dir, "ops.db")}`, PIXGATE_DATA_KEY: testDataKey },
    cwd: dir,
    stdout: (t) => {
      stdout += t
    },
    stderr: (t) => {
      stderr += t
    }
  })
  return { code, stdout, stderr }
}

describe("webhook operations commands", () => {
  it("resend (and the same range again), health, enable; a bad --since is a usage error", async () => {
    const created = await cli("merchant", "create", "--name", "Loja CLI Ops", "--json")
    const { merchantId } = JSON.parse(created.stdout) as { merchantId: string }
    const set = await cli(
      "webhook",
      "set",
      "--merchant",
      merchantId,
      "--mode",
      "test",
      "--url",
      "http://127.0.0.1:9/hook",
      "--secret",
      "s3cret-webhook-secret"
    )
    expect(set.code, set.stderr).toBe(0)
    const since = "2026-01-01T00:00:00Z"
    const first = await cli("webhook", "resend", "--merchant", merchantId, "--since", since, "--json")
    expect(first.code, first.stderr).toBe(0)
    const resend = JSON.parse(first.stdout)
    expect(resend).toMatchObject({ merchantId, scope: "all", queued: 0, repeated: false })
    const again = await cli("webhook", "resend", "--merchant", merchantId, "--since", since)
    expect(again.code).toBe(0)
    expect(again.stdout).toContain("the same range was resent before")

    const health = await cli("webhook", "health", "--merchant", merchantId)
    expect(health.code, health.stderr).toBe(0)
    expect(health.stdout).toMatch(/MODE\s+STATE\s+SUCCESS/)
    expect(health.stdout).toContain("healthy")

    const enable = await cli("webhook", "enable", "--merchant", merchantId, "--mode", "test")
    expect(enable.code, enable.stderr).toBe(0)
    expect(enable.stdout).toContain("was not disabled")

    const bad = await cli("webhook", "resend", "--merchant", merchantId, "--since", "yesterday")
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain("--since must be an ISO 8601 date-time")
  }, 60_000)
})
