/**
 * The CLI's one output convention and its per-command help: every command that prints data takes
 * `--json` and prints a table or short text without it (never indented JSON); each command's
 * `--help` describes its flags for that command; a missing store package says where its tarball
 * comes from, not a registry it is not on.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { commandNames, helpTable } from "../src/Commands.js"
import { missingStore } from "../src/Database.js"
import { plain } from "../src/HelpText.js"
import { cliOn } from "./support/cli.js"

const dir = mkdtempSync(join(tmpdir(), "pixgate-cli-convention-"))
const cli = cliOn(`sqlite:${join(dir, "convention.db")}`, dir)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

// Rendering every topic takes a while: once for the file.
let table: ReturnType<typeof helpTable> | undefined
const help = (name: string): string => {
  table ??= helpTable()
  return plain(table.topics[name] ?? "")
}

/** A flag's description under OPTIONS in a command's help (the paragraph below its line). */
const flagHelp = (name: string, flag: string): string => {
  const text = help(name)
  const options = text.slice(text.indexOf("\nOPTIONS\n"))
  const at = options.indexOf(`\n--${flag} `)
  expect(at, `${name} --${flag}`).toBeGreaterThan(-1)
  const description = options.indexOf("\n\n", at) + 2
  return options.slice(description, options.indexOf("\n\n", description))
}

describe("one output convention", () => {
  it("every command but serve takes --json", () => {
    for (const name of commandNames().filter((n) => n !== "serve"))
      expect(help(name), name).toContain("--json")
  })

  it("the usage says it once: a table or short text for a person, --json for a program", () => {
    expect(help("")).toContain(
      "Each prints a table or short text for a person, or JSON for a program with --json"
    )
  })

  let merchant: string
  beforeAll(async () => {
    merchant = (await cli("merchant", "create", "--name", "Loja", "--json")).json.merchantId
    await cli("sandbox", "topup", "--merchant", merchant, "--amount", "50")
  })

  it("commands that printed indented JSON print text or a table; --json prints one line of JSON", async () => {
    const webhook = [
      "webhook",
      "set",
      "--merchant",
      merchant,
      "--mode",
      "test",
      "--url",
      "http://127.0.0.1:9/x",
      "--secret",
      "a-secret-123"
    ]
    expect((await cli(...webhook)).stdout).toMatch(/^merchant: +mer_\w+\nmode: +test\n/)
    for (const argv of [
      ["webhook", "status", "--merchant", merchant],
      ["webhook", "log", "--merchant", merchant],
      ["audit", "list", "--merchant", merchant],
      ["key", "list", "--merchant", merchant],
      ["balance", "--merchant", merchant, "--mode", "test"],
      ["sandbox", "topup", "--merchant", merchant, "--amount", "1"]
    ]) {
      const text = await cli(...argv)
      expect(text.code, argv.join(" ")).toBe(0)
      expect(text.stdout, argv.join(" ")).not.toMatch(/^[{[]/)
      const json = await cli(...argv, "--json")
      expect(json.stdout.trim().split("\n"), argv.join(" ")).toHaveLength(1)
      expect(json.json, argv.join(" ")).toBeDefined()
    }
    expect((await cli("webhook", "status", "--merchant", merchant)).stdout).toMatch(
      /^MODE +STATUS +FAILURES IN A ROW +PENDING +IN FLIGHT +URL\ntest +healthy +0 +/
    )
    expect((await cli("balance", "--merchant", merchant, "--mode", "test")).stdout).toMatch(
      /\navailable: +52\.00\nheld: +0\.00 \(frozen by open chargebacks\)\n$/
    )
  })
})

describe("each command's help is its own", () => {
  it("refund list --charge is the charge whose refunds are listed, not one to refund", () => {
    expect(flagHelp("refund list", "charge")).toContain("the charge whose refunds to list")
    expect(flagHelp("refund list", "charge")).not.toContain("to refund")
    expect(flagHelp("refund create", "charge")).toContain("the completed charge to refund")
  })

  it("--amount says what the amount is for each command", () => {
    expect(flagHelp("charge create", "amount")).toContain("what the payer pays")
    expect(flagHelp("payout create", "amount")).toContain("what the recipient receives")
    expect(flagHelp("sandbox topup", "amount")).toContain("the test money to add")
    expect(flagHelp("refund create", "amount")).toContain("what goes back to the payer")
  })

  it("--limit, --status and --mode say what they filter for each command", () => {
    expect(flagHelp("webhook log", "limit")).toContain("deliveries")
    expect(flagHelp("audit list", "limit")).toContain("entries")
    expect(flagHelp("transactions list", "limit")).toContain("transactions per page")
    expect(flagHelp("webhook log", "status")).toContain("pending, delivered or failed")
    expect(flagHelp("transactions list", "status")).toContain("pending, completed, failed or refunded")
    expect(flagHelp("charge create", "client-name")).toContain("the payer's name")
    expect(flagHelp("payout create", "client-name")).toContain("the recipient's name")
  })

  it("no flag of any command carries another command's wording", () => {
    for (const name of commandNames()) {
      const text = help(name)
      expect(text, name).not.toContain("payer's (charges) or recipient's (payouts)")
      expect(text, name).not.toContain("shown to the payer (charges), kept with the payout")
    }
  })
})

describe("a missing store package", () => {
  it("points at the release tarballs, not at a registry the packages are not on", () => {
    const message = missingStore("@pixgate/store-pg", "pg")
    expect(message).toContain("@pixgate/store-pg is not installed")
    expect(message).toContain("pnpm release:pack")
    expect(message).not.toContain("npm install")
  })
})

describe("the command files and the table", () => {
  it("no command file imports the table or the runner back (no circle)", () => {
    const dir = fileURLToPath(new URL("../src/commands/", import.meta.url))
    for (const file of readdirSync(dir)) {
      const text = readFileSync(join(dir, file), "utf8")
      expect(text, file).not.toMatch(/from "\.\.\/(Commands|Cli)\.js"/)
    }
  })
})
