/**
 * docs/going-live.md's table of the `efi` gateway's settings is its settings schema's: the same
 * variables in the same order, each with its description and whether it is required, as
 * `GatewayPlugin.variables` lists them (what the server reads and checks at start).
 */
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { GatewayPlugin } from "@pixgate/core"
import { describe, expect, it } from "vitest"
import { EfiPlugin } from "../src/index.js"

const guide = readFileSync(fileURLToPath(new URL("../../../docs/going-live.md", import.meta.url)), "utf8")

/** The rows between `<!-- efi-settings:start -->` and its end, past the header and its rule. */
const rows = () =>
  guide
    .split("<!-- efi-settings:start -->")[1]
    .split("<!-- efi-settings:end -->")[0]
    .trim()
    .split("\n")
    .slice(2)
    .map((line) =>
      line
        .split("|")
        .slice(1, -1)
        .map((cell) => cell.trim())
    )

describe("docs/going-live.md, the efi gateway's settings", () => {
  it("are its settings schema's variables, descriptions and required ones", () => {
    expect(rows()).toEqual(
      GatewayPlugin.variables(EfiPlugin.plugin).map((v) => [
        `\`${v.name}\``,
        v.required ? "yes" : "",
        v.description
      ])
    )
  })
})
