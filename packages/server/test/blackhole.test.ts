/**
 * A database that stops answering without closing anything (a silent partition): the engine's
 * connections go through a local TCP proxy that, on command, stops forwarding in both directions
 * while keeping every connection open, as a dropped route or a firewall losing its state does.
 * Requests then get a bounded 503 (the statement time-out plus its grace; a new connection's
 * connect time-out), readiness says the database does not answer, and once the proxy forwards
 * again the same process serves requests without a restart.
 */
import { connect, createServer, type Server, type Socket } from "node:net"
import { PgStore } from "@pixgate/store-pg"
import { testKeys } from "@pixgate/testkit/dataKeys"
import { start } from "@pixgate/testkit/harness"
import { until } from "@pixgate/testkit/live"
import { describePostgres, useFreshDatabase } from "@pixgate/testkit/postgres"
import { testWait } from "@pixgate/testkit/wait"
import { afterEach, expect, it } from "vitest"

/** A TCP proxy to `target` that forwards, or swallows everything while keeping connections open. */
const proxy = async (target: URL) => {
  let forwarding = true
  const sockets = new Set<Socket>()
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname)
    for (const [from, to] of [
      [client, upstream],
      [upstream, client]
    ] as const) {
      sockets.add(from)
      from.on("data", (chunk) => {
        if (forwarding) to.write(chunk)
      })
      from.on("error", () => to.destroy())
      from.on("close", () => {
        sockets.delete(from)
        to.destroy()
      })
    }
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address()
  const port = typeof address === "object" && address !== null ? address.port : 0
  return {
    port,
    silence: () => {
      forwarding = false
    },
    forward: () => {
      forwarding = true
    },
    close: async () => {
      for (const socket of sockets) socket.destroy()
      await new Promise((resolve) => server.close(resolve))
    }
  }
}

const closing: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close()
})

describePostgres("a Postgres server that goes silent", () => {
  const database = useFreshDatabase()

  it(
    "answers a bounded 503 while no packet gets through, then recovers in the same process",
    async () => {
      const target = new URL(database.url())
      const relay = await proxy(target)
      closing.push(relay.close)
      const url = new URL(database.url())
      url.host = `127.0.0.1:${relay.port}`
      const h = await start({
        store: PgStore.layer({
          url: url.toString(),
          keys: testKeys,
          statementTimeout: "1500 millis",
          connectTimeout: "1500 millis"
        }),
        engine: { worker: false }
      })
      closing.push(h.close)
      const m = await h.merchant()
      const list = () => h.request("GET", "/api/v1/transactions", { key: m.testKey })
      expect((await list()).status).toBe(200)

      relay.silence()
      // Without a bound the request would wait for TCP to give up (many minutes, or for ever
      // behind a proxy): half a base wait is far above the bound (1.5 s + 1.5 s grace).
      const signal = AbortSignal.timeout(testWait(0.5))
      const silent = await Promise.race([
        list(),
        new Promise<never>((_, reject) =>
          signal.addEventListener("abort", () => reject(new Error("no answer while the database was silent")))
        )
      ])
      expect(silent.status).toBe(503)
      expect(silent.body).toMatchObject({ code: "service_unavailable" })
      const ready = await h.request("GET", "/api/health/ready")
      expect(ready.status).toBe(503)

      relay.forward()
      await until("the API answers again", async () => (await list()).status === 200)
      const charge = await h.request("POST", "/api/v1/charges", { key: m.testKey, body: { amount: 1 } })
      expect(charge.status, charge.text).toBe(201)
    },
    testWait(3)
  )
})
