/**
 * Losing the database server: the engine (embedded with `Pixgate.make`) runs on a throwaway
 * pg_auto_failover formation (scripts/pg-failover.sh: a monitor, a primary, a standby, on free
 * ports of this machine) through its multi-host URL. Under payout load with Idempotency-Keys
 * the primary is killed (SIGKILL, its keeper too); the monitor promotes the standby. Every
 * answer meanwhile is 201, 503 (storage unavailable) or 409 (that key's first request is still
 * held), never a 500 nor a wait past the client's deadline; new connections find the promoted
 * server; afterwards every key's retry answers its first 201 again (no double payout), every
 * 201 payout exists, the ledger check holds and every webhook event reached a real receiver.
 *
 * Needs `pg_autoctl` (Debian's postgresql-15-auto-failover; .ci/run installs it): skipped
 * loudly without it, except in CI, where that fails.
 */
import { type ChildProcess, execFile, spawn, spawnSync } from "node:child_process"
import { createServer, type Server as HttpServer } from "node:http"
import { createServer as createNetServer } from "node:net"
import { fileURLToPath } from "node:url"
import { Engine, Money, Store } from "@pixgate/core"
import { testDataKey } from "@pixgate/testkit/dataKeys"
import { report } from "@pixgate/testkit/output"
import { startReceiver } from "@pixgate/testkit/receiver"
import { testWait, testWaitMs } from "@pixgate/testkit/wait"
import { Duration, Effect } from "effect"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { Pixgate } from "../src/index.js"

// A formation of three Postgres servers set up, failed over and torn down: five base waits a test or hook.
vi.setConfig({ testTimeout: testWait(5), hookTimeout: testWait(5) })

const script = fileURLToPath(new URL("../../../scripts/pg-failover.sh", import.meta.url))

const haveAutoctl = spawnSync("pg_autoctl", ["--version"], { stdio: "ignore" }).status === 0
if (!haveAutoctl) {
  if (process.env.CI)
    throw new Error("pg_autoctl is required in CI (apt-get install postgresql-15-auto-failover)")
  const line = "!".repeat(78)
  console.warn(
    `\n${line}\n!! pg_autoctl is not installed: the failover test is SKIPPED.\n` +
      `!! Install Debian's postgresql-15-auto-failover to run it; in CI this fails.\n${line}\n`
  )
}

/** A port nothing listens on now (taken from the system, then freed). */
const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createNetServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      server.close(() => resolve(port))
    })
  })

/** Runs the script to its end (bounded). */
const runScript = (args: ReadonlyArray<string>, timeoutMs = testWaitMs) => {
  const result = spawnSync("bash", [script, ...args], { encoding: "utf8", timeout: timeoutMs })
  return { code: result.status, stdout: result.stdout ?? "", stderr: result.stderr ?? "" }
}

/** Runs the script without blocking the engine, which shares this process. */
const runScriptAsync = (args: ReadonlyArray<string>, timeoutMs = testWaitMs) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    execFile("bash", [script, ...args], { encoding: "utf8", timeout: timeoutMs }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr })
    )
  })

/** One answer, or the client's deadline passing. */
interface Answer {
  readonly status: number
  readonly body: Record<string, unknown> | undefined
  readonly ms: number
}

/** The client's deadline per request: an answer must come before it, whatever the database does. */
const requestDeadlineMs = 30_000
const payouts = 40
const amount = 1
const fee = 0.33

const until = async (what: string, check: () => Promise<boolean> | boolean, timeoutMs: number) => {
  const end = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`Timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 250))
  }
}

;(haveAutoctl ? describe : describe.skip)("Losing the Postgres primary (pg_auto_failover)", () => {
  let up: ChildProcess | undefined
  let dir: string | undefined
  let uri = ""
  let pixgate: Pixgate.Pixgate | undefined
  let http: HttpServer | undefined
  let base = ""
  let receiver: Awaited<ReturnType<typeof startReceiver>> | undefined

  // Should the worker exit without its afterAll (a crash), the formation still goes.
  const downOnExit = () => {
    if (dir !== undefined) runScript(["down", dir], testWaitMs)
  }
  process.once("exit", downOnExit)

  beforeAll(async () => {
    const [monitor, node1, node2] = [await freePort(), await freePort(), await freePort()]
    up = spawn("bash", [script, "up", String(monitor), String(node1), String(node2), "170"], {
      stdio: ["ignore", "pipe", "pipe"]
    })
    let out = ""
    let err = ""
    up.stderr?.on("data", (chunk) => {
      err = (err + chunk).slice(-10_000)
    })
    const code = await new Promise<number | null>((resolve) => {
      up?.stdout?.on("data", (chunk) => {
        out += chunk
        dir ??= /^dir=(.+)$/m.exec(out)?.[1]
      })
      up?.once("exit", (c) => resolve(c))
    })
    up = undefined
    expect(code, `pg-failover.sh up failed:\n${out}\n${err}`).toBe(0)
    // The formation URI names no user: the nodes' superuser, as the script reports it.
    const user = /^user=(.+)$/m.exec(out)?.[1] ?? ""
    uri = (/^uri=(.+)$/m.exec(out)?.[1] ?? "").replace(/^postgres:\/\//, `postgres://${user}@`)
    expect(uri).toMatch(
      /^postgres:\/\/[^@]+@127\.0\.0\.1:\d+,127\.0\.0\.1:\d+\/pixgate\?target_session_attrs=read-write/
    )

    receiver = await startReceiver()
    pixgate = await Pixgate.make({
      database: uri,
      dataKey: testDataKey,
      rateLimit: false,
      log: { level: "none" },
      // A job whose run was cut by the lost database runs again 5 s later, not a minute.
      engine: { config: { jobLease: Duration.seconds(5) } }
    })
    const handler = pixgate.nodeHandler
    http = createServer((req, res) => handler(req, res))
    await new Promise<void>((resolve) => http?.listen(0, "127.0.0.1", resolve))
    const address = http.address()
    base = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`
  })

  afterAll(async () => {
    up?.kill("SIGTERM")
    http?.closeAllConnections()
    await new Promise<void>((resolve) => (http === undefined ? resolve() : http.close(() => resolve())))
    await Promise.race([pixgate?.dispose(), new Promise((r) => setTimeout(r, testWait(1 / 3)))])
    await receiver?.close()
    if (dir !== undefined) {
      const down = runScript(["down", dir], testWait(1.5))
      if (down.code !== 0) console.warn(`pg-failover.sh down: ${down.stderr}`)
      dir = undefined
    }
    process.off("exit", downOnExit)
  })

  it("answers 503 while the standby takes over, then loses, doubles and breaks nothing", async () => {
    if (pixgate === undefined || dir === undefined || receiver === undefined) throw new Error("no setup")
    const engine = pixgate.runtime
    const merchant = await engine.runPromise(
      Effect.gen(function* () {
        const { admin } = yield* Engine.Engine
        const m = yield* admin.createMerchant({ name: "Loja Failover" })
        yield* admin.setWebhook({
          merchantId: m.merchantId,
          mode: "test",
          url: receiver?.url ?? "",
          secret: "whsec_failover"
        })
        yield* admin.topUp(m.merchantId, { amount: Money.reais(1000) })
        return m
      })
    )

    const post = async (key: string): Promise<Answer> => {
      const started = Date.now()
      try {
        const response = await fetch(`${base}/api/v1/payouts`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "x-api-key": merchant.testKey,
            "idempotency-key": key
          },
          body: JSON.stringify({ amount, pixKey: "destino@banco.example" }),
          signal: AbortSignal.timeout(requestDeadlineMs)
        })
        const text = await response.text()
        let body: Record<string, unknown> | undefined
        try {
          body = JSON.parse(text) as Record<string, unknown>
        } catch {
          body = { text }
        }
        return { status: response.status, body, ms: Date.now() - started }
      } catch (error) {
        // The deadline passed (or the connection broke): recorded as status 0.
        return { status: 0, body: { error: String(error) }, ms: Date.now() - started }
      }
    }

    const keys = Array.from({ length: payouts }, (_, i) => `failover-${i}`)
    const first201 = new Map<string, Record<string, unknown>>()
    const answers: Array<Answer & { readonly key: string; readonly afterKill: boolean }> = []
    let killedAt: number | undefined
    let killedPort = ""
    const queue = [...keys]
    const loadEnd = Date.now() + testWait(2.5)

    // Three clients send the payouts, each key again until it gets its 201. The primary is
    // killed once a third of them went through.
    const client = async () => {
      while (queue.length > 0 && Date.now() < loadEnd) {
        const key = queue.shift() as string
        const answer = await post(key)
        answers.push({ ...answer, key, afterKill: killedAt !== undefined })
        if (answer.status === 201 && answer.body !== undefined) {
          first201.set(key, answer.body)
        } else {
          queue.push(key)
          await new Promise((r) => setTimeout(r, 300))
        }
        if (killedAt === undefined && first201.size >= payouts / 3) {
          killedAt = Date.now()
          const killed = await runScriptAsync(["kill-primary", dir ?? ""])
          expect(killed.code, killed.stderr).toBe(0)
          killedPort = killed.stdout.trim()
        }
      }
    }
    await Promise.all([client(), client(), client()])
    const recoveredAt = Date.now()

    const statuses = new Map<number, number>()
    for (const a of answers) statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1)
    const slowest = Math.max(...answers.map((a) => a.ms))
    // The engine writes through the promoted standby as soon as Postgres promotes it; the monitor's
    // view (each node's reported state catching up with its goal) follows a few seconds later.
    // Wait for that view to settle on one primary before reading it.
    const primariesOf = (view: string) =>
      view
        .split("\n")
        .map((line) => line.split(" "))
        .filter(([, , reported, goal]) => /primary$/.test(`${reported}`) && goal === reported)
    const settledBy = Date.now() + testWait(0.5)
    let state = runScript(["state", dir]).stdout.trim()
    while (Date.now() < settledBy) {
      const settled = primariesOf(state)
      if (settled.length === 1 && settled[0]?.[1] !== killedPort) break
      await new Promise((resolve) => setTimeout(resolve, 250))
      state = (await runScriptAsync(["state", dir])).stdout.trim()
    }
    report("failover:", {
      answers: Object.fromEntries(statuses),
      codes: [...new Set(answers.filter((a) => a.status !== 201).map((a) => a.body?.code))],
      slowestMs: slowest,
      killedPort,
      unavailableMs: killedAt === undefined ? undefined : recoveredAt - killedAt,
      state
    })

    // Every key got its 201, and the promoted standby serves them: the killed node is down.
    expect(killedAt).toBeDefined()
    expect(first201.size).toBe(payouts)
    expect(answers.some((a) => a.afterKill && a.status === 201)).toBe(true)
    // The monitor's view (name, port, reported state, goal state): the other node is the primary.
    const primaries = primariesOf(state)
    expect(primaries.map(([, port]) => port)).toHaveLength(1)
    expect(primaries[0]?.[1]).not.toBe(killedPort)
    // The engine's pool is on the promoted server.
    const promoted = new pg.Client({
      connectionString: uri.replace(/@[^/]+\//, `@127.0.0.1:${primaries[0]?.[1]}/`).replace(/\?.*$/, ""),
      connectionTimeoutMillis: 10_000
    })
    await promoted.connect()
    try {
      const { rows } = await promoted.query<{ n: string }>(
        "SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = 'pixgate'"
      )
      expect(Number(rows[0]?.n)).toBeGreaterThan(0)
    } finally {
      await promoted.end()
    }
    // Never a 500 nor a hang: only 201, 503 (storage unavailable) and 409 (key still held).
    expect([...statuses.keys()].filter((s) => s !== 201 && s !== 503 && s !== 409)).toEqual([])
    for (const a of answers.filter((x) => x.status === 503))
      expect(a.body).toMatchObject({ code: "service_unavailable" })
    expect(slowest).toBeLessThan(requestDeadlineMs)

    // The same key again: the same payout, never a second one.
    const ids = new Set<string>()
    for (const key of keys) {
      const again = await post(key)
      expect(again.status, key).toBe(201)
      expect(again.body, key).toEqual(first201.get(key))
      ids.add(String(first201.get(key)?.transactionId))
    }
    expect(ids.size).toBe(payouts)

    // Every payout settles (the sandbox bank) and every event reaches the receiver.
    const settled = () =>
      engine.runPromise(
        Effect.gen(function* () {
          const e = yield* Engine.Engine
          const caller = yield* e.auth.authenticate(merchant.testKey)
          return yield* e.transactions.list(caller, { page: 1, limit: 100, type: "withdrawal" })
        })
      )
    await until(
      "every payout to settle",
      async () => (await settled()).data.every((t) => t.status === "completed"),
      testWait(1.5)
    )
    const listed = await settled()
    expect(listed.total).toBe(payouts)
    expect(listed.data.map((t) => t.id).sort()).toEqual([...ids].sort())

    const events = () =>
      engine.runPromise(Effect.flatMap(Store.Store, (s) => s.listEvents(merchant.merchantId, "test")))
    await until(
      "every webhook event to arrive",
      async () => {
        const arrived = new Set(receiver?.hits.map((h) => h.id))
        const all = await events()
        return all.length === payouts * 3 && all.every((e) => arrived.has(e.id))
      },
      testWait(1.5)
    )

    const after = await engine.runPromise(
      Effect.gen(function* () {
        const { admin } = yield* Engine.Engine
        return {
          balance: yield* admin.balance(merchant.merchantId, "test"),
          ledger: yield* admin.checkLedger("test")
        }
      })
    )
    expect(after.ledger.unbalancedEntries).toEqual([])
    expect(after.ledger.balanceMismatches).toEqual([])
    expect(after.ledger.total).toBe(0)
    expect(Math.round((after.balance.available + after.balance.held) * 100)).toBe(
      Math.round((1000 - payouts * (amount + fee)) * 100)
    )
  })
})
