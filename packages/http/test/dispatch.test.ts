/**
 * How the dispatcher uses the runtime: plain routes (the health check) never enter it, other
 * routes run as one fiber each; fallthrough passes exactly what the table does not know; a
 * client that goes away interrupts a GET, never a POST.
 */
import { createServer } from "node:http"
import { describe, expect, it } from "@effect/vitest"
import { MemoryStore } from "@pixgate/core"
import { listen } from "@pixgate/testkit/harness"
import { Effect, Layer, ManagedRuntime, Supervisor } from "effect"
import { Api, Handler, Log, Pixgate, Route, Router } from "../src/node.js"

/** Counts the fibers started on a runtime. */
class Forks extends Supervisor.AbstractSupervisor<number> {
  count = 0
  value = Effect.sync(() => this.count)
  override onStart() {
    this.count++
  }
}

describe("the runtime", () => {
  it("is not entered by the health check; an Effect route runs as one fiber", async () => {
    const forks = new Forks()
    const log = Log.writer({ level: "none" })
    const runtime = ManagedRuntime.make(
      Layer.merge(
        Pixgate.layer({ store: MemoryStore.layer, engine: { worker: false } }, log),
        Supervisor.addSupervisor(forks)
      )
    )
    const router = Router.make(Api.routes(""), { removed: Api.removed })
    const handler = Handler.web(await runtime.runtime(), router, { maxBodySize: 1024, log })
    const before = forks.count
    for (const path of ["/api/health", "/api/openapi.json", "/api/docs", "/nothing", "/v1/balance"])
      expect((await handler(new Request(`http://x${path}`))).status).toBeLessThan(500)
    expect(forks.count).toBe(before)
    expect((await handler(new Request("http://x/api/v1/transactions"))).status).toBe(401)
    expect(forks.count).toBe(before + 1)
    await runtime.dispose()
  })
})

describe("fallthrough", () => {
  it("passes to the host exactly the requests the table would answer 404", async () => {
    const log = Log.writer({ level: "none" })
    const runtime = ManagedRuntime.make(
      Pixgate.layer({ store: MemoryStore.layer, engine: { worker: false } }, log)
    )
    const router = Router.make(Api.routes(""), { removed: Api.removed })
    const handler = Handler.node(await runtime.runtime(), router, {
      maxBodySize: 1024,
      log,
      fallthrough: true
    })
    const server = createServer((req, res) => handler(req, res, () => res.writeHead(299).end()))
    const base = await listen(server)
    const status = async (path: string) => (await fetch(`${base}${path}`)).status
    for (const path of ["/api/%68ealth", "/api/health;v=1", "/api//health/"])
      expect(await status(path), path).toBe(200)
    for (const path of ["/API/health", "/api/health%ZZ", `/v1/charges/${"t".repeat(2049)}`])
      expect(await status(path), path).toBe(299)
    server.close()
    await runtime.dispose()
  })
})

describe("a client that goes away", () => {
  // The handler marks when it has started, and the client aborts only then: an abort that
  // raced ahead of the request's arrival would test nothing (and on a loaded machine the
  // request can take longer than any fixed pause to reach the handler). Outcomes are polled,
  // not awaited for a fixed time.
  it("interrupts a GET (logged as 499) but never a POST", async () => {
    const events: Array<string> = []
    const slow = (method: Route.Method) =>
      Route.make(method, "/slow", { body: false }, Route.open, () =>
        Effect.sync(() => events.push(`${method} started`)).pipe(
          Effect.zipRight(Effect.sleep("2 seconds")),
          Effect.tap(() => Effect.sync(() => events.push(`${method} finished`))),
          Effect.onInterrupt(() => Effect.sync(() => events.push(`${method} interrupted`))),
          Effect.as({ status: 200, body: {} })
        )
      )
    const lines: Array<string> = []
    const log = Log.writer({ write: (line) => lines.push(line) })
    const runtime = ManagedRuntime.make(Log.layer(log))
    const router = Router.make([slow("GET"), slow("POST")])
    const server = createServer(Handler.node(await runtime.runtime(), router, { maxBodySize: 1024, log }))
    const base = await listen(server)
    try {
      for (const method of ["GET", "POST"]) {
        const aborted = new AbortController()
        const sent = fetch(`${base}/slow`, { method, signal: aborted.signal }).catch((error) => error)
        await expect.poll(() => events).toContain(`${method} started`)
        aborted.abort()
        expect(await sent).toBeInstanceOf(Error)
      }
      await expect
        .poll(() => events.filter((e) => !e.endsWith("started")).sort())
        .toEqual(["GET interrupted", "POST finished"])
      await expect
        .poll(() => lines.map((l) => JSON.parse(l)).map((l) => [l.method, l.status]))
        .toContainEqual(["GET", 499])
    } finally {
      server.close()
      await runtime.dispose()
    }
  })
})
