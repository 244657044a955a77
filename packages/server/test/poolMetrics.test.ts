/**
 * The Postgres pool's use in `/metrics`: the standalone server on a fresh database, requests
 * running, and `pixgate_db_pool_connections` by state from the pool the store made.
 */
import { readFileSync } from "node:fs"
import { afterAll, beforeAll, expect, it } from "@effect/vitest"
import { testDataKeys } from "@pixgate/testkit/dataKeys"
import { send } from "@pixgate/testkit/harness"
import { until } from "@pixgate/testkit/live"
import {
  createDatabase,
  databaseUrl,
  describePostgres,
  dropDatabase,
  postgresAvailable
} from "@pixgate/testkit/postgres"
import { Server } from "../src/index.js"
import { parse, value } from "./support/prometheus.js"

const token = "pool-metrics-admin-token-012345"
let name: string
let server: Server.RunningServer

beforeAll(async () => {
  if (!postgresAvailable) return
  name = await createDatabase()
  server = await Server.start({
    port: 0,
    database: databaseUrl(name),
    dataKeys: testDataKeys,
    adminToken: token,
    log: { level: "none" },
    rateLimit: false,
    telemetry: { metrics: "admin" }
  })
})

afterAll(async () => {
  await server?.close()
  if (name !== undefined) await dropDatabase(name)
})

describePostgres("pixgate_db_pool_connections", () => {
  it("samples the pool: its maximum, open and idle connections, and its waiters", async () => {
    const auth = { authorization: `Bearer ${token}` }
    const merchant = (
      await send(server.url, "POST", "/admin/merchants", { headers: auth, body: { name: "Pool" } })
    ).body
    await Promise.all(
      Array.from({ length: 20 }, () =>
        send(server.url, "POST", "/api/v1/charges", { key: merchant.testKey, body: { amount: 3 } })
      )
    )
    const scrape = async () => parse((await send(server.url, "GET", "/metrics", { headers: auth })).text)
    await until(
      "a sample of the pool",
      async () => value(await scrape(), "pixgate_db_pool_connections", { state: "max" }) === 10
    )
    const samples = await scrape()
    const total = value(samples, "pixgate_db_pool_connections", { state: "total" })
    expect(total).toBeGreaterThanOrEqual(1)
    expect(total).toBeLessThanOrEqual(10)
    expect(value(samples, "pixgate_db_pool_connections", { state: "idle" })).toBeLessThanOrEqual(total)
    expect(value(samples, "pixgate_db_pool_connections", { state: "waiting" })).toBeGreaterThanOrEqual(0)
    const dashboard = readFileSync(
      new URL("../../../docs/grafana/pixgate-dashboard.json", import.meta.url),
      "utf8"
    )
    expect(dashboard).toContain("pixgate_db_pool_connections")
  })
})
