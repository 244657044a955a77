/**
 * The operator's panel access commands on a SQLite file: `user invite --role`, `user reset-link`
 * (with `--reset-2fa`) and `audit list`; the reset link sets a new password once.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Cli from "../src/Cli.js"

const dir = mkdtempSync(join(tmpdir(), "pixgate-panel-access-cli-"))
const database = `sqlite:${join(dir, "access.db")}`

/** A run that reads the output as JSON (`--json`). */
const cli = async (...argv: Array<string>) => {
  let stdout = ""
  let stderr = ""
  const code = await Cli.run([...argv, "--json"], {
    env: { PIXGATE_DATABASE: database },
    cwd: dir,
    stdout: (t) => {
      stdout += t
    },
    stderr: (t) => {
      stderr += t
    }
  })
  return { code, stdout, stderr, json: code === 0 ? JSON.parse(stdout) : undefined }
}

afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe("pixgate user and audit commands", () => {
  it("invites with roles, prints a one-hour reset link, lists the audit log", async () => {
    const merchantId = (await cli("merchant", "create", "--name", "Loja Acesso")).json.merchantId
    const owner = await cli("user", "invite", "--merchant", merchantId, "--email", "dona@loja.example")
    expect(owner.json).toMatchObject({ role: "owner" })
    const dev = await cli(
      "user",
      "invite",
      "--merchant",
      merchantId,
      "--email",
      "dev@loja.example",
      "--role",
      "developer"
    )
    expect(dev.json).toMatchObject({ role: "developer" })
    const bad = await cli(
      "user",
      "invite",
      "--merchant",
      merchantId,
      "--email",
      "x@loja.example",
      "--role",
      "root"
    )
    expect(bad.code).not.toBe(0)
    expect(bad.stderr).toContain("--role must be owner, finance, developer or viewer")

    const reset = await cli(
      "user",
      "reset-link",
      "--merchant",
      merchantId,
      "--email",
      "dona@loja.example",
      "--reset-2fa",
      "yes",
      "--panel",
      "https://pay.example.com/panel/"
    )
    expect(reset.code).toBe(0)
    expect(reset.json.token).toBeUndefined()
    expect(reset.json).toMatchObject({ userId: owner.json.userId, secondFactorReset: false })
    expect(reset.json.link).toMatch(/^https:\/\/pay\.example\.com\/panel\/reset\/[A-Za-z0-9]{40}$/)
    const missing = await cli("user", "reset-link", "--merchant", merchantId, "--email", "no@loja.example")
    expect(missing.code).not.toBe(0)
    expect(missing.stderr).toContain("Panel user not found")

    const audit = await cli("audit", "list", "--merchant", merchantId, "--limit", "10")
    expect(audit.code).toBe(0)
    expect(audit.json.data.map((e: { action: string }) => e.action)).toEqual([
      "password.reset-link",
      "user.invite",
      "user.invite"
    ])
    expect(audit.stdout).not.toContain(reset.json.link.split("/").pop())
  })
})
