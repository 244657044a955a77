import { execFileSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { program } from "../embed-memory.js"

describe("examples/embed-memory.ts", () => {
  it.live("creates a charge that the sandbox pays 2-3 s later", () =>
    Effect.gen(function* () {
      const page = yield* program
      expect(page.total).toBe(1)
      expect(page.data[0]).toMatchObject({
        type: "deposit",
        status: "completed",
        amount: 25.9,
        netAmount: 25.64
      })
    })
  )

  it("runs as a script", () => {
    const script = fileURLToPath(new URL("../embed-memory.ts", import.meta.url))
    const out = execFileSync(process.execPath, ["--import", "tsx", "--conditions=@pixgate/source", script], {
      cwd: fileURLToPath(new URL("..", import.meta.url)),
      encoding: "utf8"
    })
    expect(JSON.parse(out.slice(out.indexOf("{\n")))).toMatchObject({
      total: 1,
      data: [{ status: "completed" }]
    })
  })
})
