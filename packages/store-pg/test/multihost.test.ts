/**
 * libpq's multi-host connection strings (`h1:5432,h2:5433` with `target_session_attrs`): how
 * they are read, and on the test server (a primary) that each new connection skips a host that
 * does not answer or does not suit, and that a connection whose server refuses a write as
 * read-only (SQLSTATE 25006, a demoted primary) is dropped rather than handed out again.
 * The whole failover, with a real standby promoted, is packages/server/test/failover.test.ts.
 */
import { createServer } from "node:net"
import { SqlClient } from "@effect/sql"
import { PgStore } from "@pixgate/store-pg"
import { testKeys } from "@pixgate/testkit/dataKeys"
import { describePostgres, serverUrl, useFreshDatabase } from "@pixgate/testkit/postgres"
import { Cause, Effect, Exit, Layer } from "effect"
import { describe, expect, it } from "vitest"
import * as MultiHost from "../src/internal/multiHost.js"

/** A port nothing listens on (taken from the system, then freed). */
const closedPort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      server.close(() => resolve(port))
    })
  })

describe("MultiHost.parse", () => {
  it("leaves a plain URL to node-postgres", () => {
    expect(MultiHost.parse("postgres://u:p@h:5432/db")).toBeUndefined()
    expect(MultiHost.parse("postgresql://h/db?target_session_attrs=any&sslmode=disable")).toBeUndefined()
  })

  it("reads the hosts, the session attributes and the rest of the URL", () => {
    const url = MultiHost.parse(
      "postgres://app:s%40cret@127.0.0.1:6002,db2,[::1]:6003/pixgate?target_session_attrs=read-write&sslmode=disable&application_name=x"
    )
    expect(url?.hosts).toEqual([
      { host: "127.0.0.1", port: 6002 },
      { host: "db2", port: 5432 },
      { host: "::1", port: 6003 }
    ])
    expect(url?.attrs).toBe("read-write")
    expect(url?.config).toMatchObject({
      user: "app",
      password: "s@cret",
      database: "pixgate",
      ssl: false,
      application_name: "x"
    })
    expect(MultiHost.parse("postgres://h:1/db?target_session_attrs=primary")?.attrs).toBe("primary")
    expect(MultiHost.describeHosts(url?.hosts ?? [])).toBe("127.0.0.1:6002,db2:5432,[::1]:6003")
  })

  it("names what is wrong, never the password", () => {
    const attempt = (url: string) => {
      try {
        MultiHost.parse(url)
        return "parsed"
      } catch (error) {
        return error instanceof Error ? error.message : String(error)
      }
    }
    expect(attempt("postgres://u:secret@h1,h2/db?target_session_attrs=write")).toMatch(
      /^Invalid target_session_attrs "write" .*read-write/
    )
    expect(attempt("postgres://u:secret@h1:99999,h2/db")).toBe(
      'Invalid host "h1:99999" in the Postgres URL (expected host or host:port)'
    )
    expect(attempt("postgres://u:secret@h1,,h2/db")).toMatch(/^Invalid host ""/)
    expect(attempt("mysql://h1,h2/db")).toMatch(/postgres:\/\//)
  })
})

describePostgres("Multi-host URLs on the test server", () => {
  const database = useFreshDatabase()
  const multiHostUrl = async (attrs: string) => {
    const url = new URL(database.url())
    return `postgres://${url.username === "" ? "" : `${url.username}@`}127.0.0.1:${await closedPort()},${url.host}${url.pathname}?target_session_attrs=${attrs}`
  }
  const serverPort = Number(new URL(serverUrl).port || 5432)
  const withStore = <A>(url: string, work: Effect.Effect<A, unknown, SqlClient.SqlClient>) =>
    Effect.runPromiseExit(
      Effect.provide(
        work,
        PgStore.layer({ keys: testKeys, url, maxConnections: 1, connectTimeout: "10 seconds" })
      )
    )
  const port = Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ port: number }>`SELECT inet_server_port() AS port`
  )

  it("read-write, primary and prefer-standby skip a host that does not answer and land on the primary", async () => {
    for (const attrs of ["read-write", "primary", "prefer-standby", "any"]) {
      const exit = await withStore(await multiHostUrl(attrs), port)
      expect(exit, attrs).toEqual(Exit.succeed([{ port: serverPort }]))
    }
  })

  it("no host suits: the store does not open and says why, host by host", async () => {
    const exit = await withStore(await multiHostUrl("standby"), port)
    expect(Exit.isFailure(exit)).toBe(true)
    const message = Exit.isFailure(exit) ? JSON.stringify(exit.cause) : ""
    expect(message).toMatch(/No standby Postgres server among 127\.0\.0\.1:\d+,/)
    expect(message).toMatch(/ECONNREFUSED/)
    expect(message).toMatch(/not standby/)
  })

  it("a connection refused a write as read-only (25006) is dropped; the next one is fresh and writable", async () => {
    const url = await multiHostUrl("read-write")
    const exit = await withStore(
      url,
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const pid = sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`
        const [before] = yield* pid
        // What a demoted primary's sessions become: read-only (here one session only).
        yield* sql`SET default_transaction_read_only = on`
        const refused = yield* Effect.either(sql`CREATE TABLE multihost_refused (id int)`)
        const [after] = yield* pid
        yield* sql`CREATE TABLE multihost_kept (id int)`
        return {
          code: refused._tag === "Left" ? (refused.left.cause as { code?: string }).code : "none",
          same: before?.pid === after?.pid
        }
      })
    )
    expect(exit).toEqual(Exit.succeed({ code: "25006", same: false }))
  })
})

describe("PgStore.layer with a bad multi-host URL", () => {
  it("fails to open with the reason", async () => {
    const exit = await Effect.runPromiseExit(
      Layer.launch(
        PgStore.layer({ keys: testKeys, url: "postgres://h1,h2/db?target_session_attrs=sometimes" })
      )
    )
    const error = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
    expect(error instanceof Error ? error.message : "").toMatch(
      /^Cannot open the Postgres database: Invalid Postgres URL \(Invalid target_session_attrs "sometimes"/
    )
  })
})
