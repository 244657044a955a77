/**
 * SIGTERM under load, on a real `pixgate serve` process starved of CPU: 40 keep-alive clients
 * keep POSTing payouts (each with its own Idempotency-Key, short pauses now and then) while the
 * server runs at the lowest priority next to two CPU burners and is stopped and continued in
 * pulses (SIGSTOP/SIGCONT: its requests pile up unread in the kernel, as on an overloaded
 * machine), and SIGTERM arrives mid-pulse. The burners and pulses run only from just before the
 * SIGTERM until the server exits; loops are bounded in count and time. No request
 * a client sent in full sees a reset or a hang-up; requests after the listener closed are refused
 * at connect; every payout answered 201 is in the database after a restart, and no other; the
 * ledger check holds. On SQLite and Postgres.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { Agent, request } from "node:http"
import { Engine } from "@pixgate/core"
import { testDataKey, testDataKeys } from "@pixgate/testkit/dataKeys"
import { send } from "@pixgate/testkit/harness"
import { liveStores } from "@pixgate/testkit/live"
import { report } from "@pixgate/testkit/output"
import { testWait } from "@pixgate/testkit/wait"
import { Effect } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import * as Cli from "../src/Cli.js"
import { Server } from "../src/index.js"
import * as ServeProcess from "./support/serveProcess.js"

const burning: Array<ChildProcess> = []
afterEach(() => {
  ServeProcess.killAll()
  for (const burner of burning.splice(0)) burner.kill("SIGKILL")
})

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A `pixgate` command in this process against `database`: its parsed JSON output. */
const pixgate = async (database: string, args: ReadonlyArray<string>) => {
  let out = ""
  const code = await Cli.run([...args, "--json"], {
    env: { PIXGATE_DATABASE: database, PIXGATE_DATA_KEY: testDataKey },
    cwd: process.cwd(),
    stdout: (text) => {
      out += text
    },
    stderr: (text) => {
      out += text
    }
  })
  expect(code, out).toBe(0)
  return JSON.parse(out) as Record<string, unknown>
}

/** What one request came to: an answer, or a socket error and whether the request was all sent. */
type Outcome =
  | {
      readonly key: string
      readonly status: number
      readonly id: string | undefined
      readonly code: string | undefined
      readonly retryAfter: string | undefined
    }
  | { readonly key: string; readonly error: string; readonly sent: boolean }

const payout = (agent: Agent, url: URL, apiKey: string, key: string) =>
  new Promise<Outcome>((resolve) => {
    const body = JSON.stringify({ amount: 1, pixKey: "recebedor@pixgate.example" })
    let sent = false
    const req = request(
      url,
      {
        agent,
        method: "POST",
        headers: {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
          "x-api-key": apiKey,
          "idempotency-key": key
        }
      },
      (res) => {
        let text = ""
        res.on("data", (chunk) => {
          text += chunk
        })
        res.on("end", () => {
          const json = JSON.parse(text) as { transactionId?: string; code?: string }
          resolve({
            key,
            status: res.statusCode ?? 0,
            id: res.statusCode === 201 ? json.transactionId : undefined,
            code: json.code,
            retryAfter: res.headers["retry-after"]
          })
        })
        res.on("error", (error: NodeJS.ErrnoException) =>
          resolve({ key, error: error.code ?? error.message, sent: true })
        )
      }
    )
    req.on("finish", () => {
      sent = true
    })
    req.on("error", (error: NodeJS.ErrnoException) =>
      resolve({ key, error: error.code ?? error.message, sent })
    )
    req.end(body)
  })

/** The ids of every payout of the merchant, page by page. */
const storedPayouts = async (url: string, key: string) => {
  const ids: Array<string> = []
  for (let page = 1; ; page++) {
    const answer = await send(url, "GET", `/api/v1/transactions?type=withdrawal&limit=100&page=${page}`, {
      key
    })
    expect(answer.status).toBe(200)
    const data = answer.body.data as ReadonlyArray<{ id: string }>
    ids.push(...data.map((t) => t.id))
    if (data.length < 100) return ids
  }
}

describe.each(liveStores("pixgate-shutdown"))("SIGTERM under load, on $name", (store) => {
  it("resets no request that was sent; every answered payout is committed", {
    timeout: testWait(10)
  }, async () => {
    const db = await store.open()
    try {
      const merchant = await pixgate(db.url, ["merchant", "create", "--name", "Loja Shutdown"])
      const merchantId = String(merchant.merchantId)
      const testKey = String(merchant.testKey)
      await pixgate(db.url, ["sandbox", "topup", "--merchant", merchantId, "--amount", "1000000"])
      const server = await ServeProcess.start(
        {
          PIXGATE_DATABASE: db.url,
          PIXGATE_DATA_KEY: testDataKey,
          PIXGATE_RATE_LIMIT_RPS: "0",
          PIXGATE_SHUTDOWN_TIMEOUT_MS: "600000"
        },
        19
      )
      const url = new URL("/api/v1/payouts", server.url)
      const clients = 40
      const agent = new Agent({ keepAlive: true, maxSockets: clients })
      const outcomes: Array<Outcome> = []
      let answered = 0
      let stopping = false
      const deadline = Date.now() + testWait(5)
      // Each client sends one payout after another (with short pauses) on the agent's keep-alive
      // sockets until the server is gone (an error once the SIGTERM went out); bounded in count and time.
      const client = async (n: number) => {
        for (let i = 0; i < 2_000 && Date.now() < deadline; i++) {
          const outcome = await payout(agent, url, testKey, `p${n}-${i}`)
          outcomes.push(outcome)
          if ("status" in outcome) answered++
          else if (stopping) return
          // A pause now and then: the connection is idle, and its next request may find the
          // drain under way.
          if (i % 4 === 3) await sleep(Math.random() * 200)
        }
      }
      const load = Promise.all(Array.from({ length: clients }, (_, n) => client(n)))
      while (answered < 400 && Date.now() < deadline) await sleep(20)
      // Starve the server further: stopped 700 ms (longer than the old drain's idle grace),
      // running 100 ms, the SIGTERM sent while it is stopped. Its shutdown time-out (600 s) is far above the test's: no request is cut.
      let exited = false
      let signalled = 0
      let drainedMs = 0
      void server.exited.then(() => {
        exited = true
        drainedMs = Date.now() - signalled
      })
      // Two CPU burners at normal priority: the niced server gets the cores' leftovers, so it is
      // preempted anywhere, mid-turn of its event loop too.
      const burners = [0, 1].map(() => spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" }))
      burning.push(...burners)
      // Twelve pulses (about 10 s) cover the drain's first steps, the SIGTERM at the third: the
      // accept queue and the requests read but not yet handled. Then the server runs on beside
      // the burners until it exits (bounded), which keeps the test's wall time in check.
      for (let pulse = 0; !exited && pulse < 12; pulse++) {
        server.child.kill("SIGSTOP")
        if (pulse === 2) {
          stopping = true
          server.child.kill("SIGTERM")
          signalled = Date.now()
        }
        await sleep(700)
        server.child.kill("SIGCONT")
        await sleep(100)
      }
      server.child.kill("SIGCONT")
      for (let waited = 0; !exited && waited < 240_000; waited += 100) await sleep(100)
      for (const burner of burners) burner.kill("SIGKILL")
      const exitCode = await server.exited
      await load
      agent.destroy()

      const created = outcomes.flatMap((o) => ("status" in o && o.status === 201 ? [o.id] : []))
      const failed = outcomes.filter((o): o is Extract<Outcome, { error: string }> => "error" in o)
      // Every answer was a 201, or a 503 `service_unavailable` with Retry-After: the bounded wait
      // for a database connection (5 s) of a server this starved; never another status.
      const answers = outcomes.filter((o): o is Extract<Outcome, { status: number }> => "status" in o)
      const unavailable = answers.filter((o) => o.status === 503)
      expect(answers.filter((o) => o.status !== 201 && o.status !== 503)).toEqual([])
      for (const o of unavailable)
        expect([o.code, o.retryAfter]).toEqual(["service_unavailable", expect.stringMatching(/^[1-9]\d*$/)])
      // No request sent in full saw a reset or a hang-up; the rest were refused at connect.
      expect(failed.filter((o) => o.sent)).toEqual([])
      expect(failed.map((o) => o.error)).toEqual(failed.map(() => "ECONNREFUSED"))
      expect(created.length).toBeGreaterThanOrEqual(400)
      // The drain ended in a clean exit.
      expect(exitCode, server.output().slice(-5_000)).toBe(0)
      report(
        `${store.name}: ${created.length} payouts answered, ${failed.length} refused at connect, ` +
          `SIGTERM to exit ${drainedMs} ms`
      )

      // After a restart: each 503 retried with its key makes its payout once; then exactly the
      // payouts answered 201 are stored, and the ledger balances.
      const again = await Server.start({
        port: 0,
        database: db.url,
        dataKeys: testDataKeys,
        log: { level: "none" }
      })
      try {
        const retryAgent = new Agent({ keepAlive: true })
        const retried = await Promise.all(
          unavailable.map((o) => payout(retryAgent, new URL("/api/v1/payouts", again.url), testKey, o.key))
        )
        retryAgent.destroy()
        expect(retried.map((o) => ("status" in o ? o.status : o.error))).toEqual(retried.map(() => 201))
        const ids = [...created, ...retried.flatMap((o) => ("id" in o ? [o.id] : []))]
        const stored = await storedPayouts(again.url, testKey)
        expect([...stored].sort()).toEqual([...ids].sort())
        const check = await again.pixgate.runtime.runPromise(
          Effect.flatMap(Engine.Engine, (e) => e.admin.checkLedger("test"))
        )
        expect(check.unbalancedEntries).toEqual([])
        expect(check.balanceMismatches).toEqual([])
      } finally {
        await again.close()
      }
    } finally {
      await db.drop()
    }
  })
})
