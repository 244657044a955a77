/**
 * The standalone server's readiness: ready once listening, and `close()` marks the instance
 * draining before anything else, so `/api/health/ready` answers 503 `instance: "draining"` to
 * probes that still reach it while the drain runs.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { send } from "@pixgate/testkit/harness"
import { Effect, Ref } from "effect"
import { Server } from "../src/index.js"

const dir = mkdtempSync(join(tmpdir(), "pixgate-ready-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe("Server readiness", () => {
  it("ready while serving; close() sets draining as its first step", async () => {
    const server = await Server.start({
      port: 0,
      database: `sqlite:${join(dir, "ready.db")}`,
      log: { level: "none" }
    })
    const ready = await send(server.url, "GET", "/api/health/ready")
    expect([ready.status, ready.body.status]).toEqual([200, "ready"])
    expect((await send(server.url, "GET", "/api/health/live")).status).toBe(200)
    const closing = server.close()
    expect(Effect.runSync(Ref.get(server.pixgate.draining))).toBe(true)
    await closing
  })
})
