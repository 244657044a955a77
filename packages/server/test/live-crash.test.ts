/**
 * SIGKILL during a live payout's send, on SQLite (a file) and Postgres; ledger checked after:
 * - before the send reached the bank (the PSP holds the request unanswered, not carried out):
 *   a fresh process on the same database asks the bank, then sends it once, after the job's
 *   hold; the bank settles it and the payout completes;
 * - after the send reached the bank (carried out, its answer never given): the fresh process
 *   asks first, finds the send, and never sends it again.
 * The creation's inline attempt is a first attempt (no question before its `PUT`); every later
 * attempt asks first.
 */

import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { createRequire } from "node:module"
import { fileURLToPath } from "node:url"
import { Engine } from "@pixgate/core"
import { ApiPix, Gateway } from "@pixgate/gateway-apipix"
import { PspSimulator } from "@pixgate/psp-simulator"
import { testDataKey } from "@pixgate/testkit/dataKeys"
import { send } from "@pixgate/testkit/harness"
import { liveStores, pixKey, settingsFor, until } from "@pixgate/testkit/live"
import { testWait, testWaitMs } from "@pixgate/testkit/wait"
import { Effect } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import * as Cli from "../src/Cli.js"
import { Pixgate } from "../src/index.js"

const script = createRequire(import.meta.url).resolve("@pixgate/testkit/live-process")
const packageDir = fileURLToPath(new URL("..", import.meta.url))
const children = new Set<ChildProcessWithoutNullStreams>()
afterEach(() => {
  for (const child of children) child.kill("SIGKILL")
  children.clear()
})

const spawnEngine = (options: Record<string, string>) =>
  new Promise<{ url: string; child: ChildProcessWithoutNullStreams; stderr: () => string }>(
    (resolve, reject) => {
      const child = spawn(
        process.execPath,
        ["--import", "tsx", "--conditions=@pixgate/source", script, JSON.stringify(options)],
        { cwd: packageDir, env: { ...process.env, NODE_OPTIONS: "" }, stdio: ["pipe", "pipe", "pipe"] }
      )
      children.add(child)
      let out = ""
      let err = ""
      child.stderr.on("data", (chunk) => {
        err = (err + chunk).slice(-20_000)
      })
      child.stdout.on("data", (chunk) => {
        out += chunk
        const line = out.split("\n").find((l) => l.includes('"listening"'))
        if (line !== undefined) resolve({ url: JSON.parse(line).url, child, stderr: () => err })
      })
      child.once("exit", (code) => reject(new Error(`engine exited (${code}): ${err}`)))
    }
  )

const killed = (child: ChildProcessWithoutNullStreams) =>
  new Promise<void>((resolve) => {
    child.once("exit", () => resolve())
    child.kill("SIGKILL")
  })

const stores = liveStores("pixgate-live-crash")

describe.each(stores)("SIGKILL during a live payout's send, on $name", (store) => {
  it.each([
    { case: "before the send reached the bank", after: false },
    { case: "after the send reached the bank, its answer lost", after: true }
  ])("$case: the send happens once, after a restart", { timeout: testWait(3) }, async ({ after }) => {
    const db = await store.open()
    const psp = await PspSimulator.start({ pixKeys: [pixKey] })
    try {
      let out = ""
      const code = await Cli.run(["merchant", "create", "--name", "Loja Crash", "--json"], {
        env: { PIXGATE_DATABASE: db.url, PIXGATE_DATA_KEY: testDataKey },
        cwd: process.cwd(),
        stdout: (t) => {
          out += t
        },
        stderr: (t) => {
          out += t
        }
      })
      expect(code, out).toBe(0)
      const merchant = JSON.parse(out) as { merchantId: string; liveKey: string }
      const secret = randomBytes(24).toString("hex")
      const options = {
        database: db.url,
        baseUrl: psp.url,
        clientId: psp.client.clientId,
        clientSecret: psp.client.clientSecret,
        certPem: psp.tls.clientCertPem,
        keyPem: psp.tls.clientKeyPem,
        caPem: psp.tls.caPem,
        pixKey,
        secret
      }
      const settings = settingsFor(psp)
      const register = (url: string) =>
        Effect.runPromise(
          ApiPix.registerWebhook(settings, `${url}/bank/callbacks/${secret}`).pipe(
            Effect.provide(ApiPix.httpClientNode(settings))
          )
        )
      const first = await spawnEngine(options)
      await register(first.url)
      const statusOf = async (base: string, id: string) =>
        (
          (await send(base, "GET", "/api/v1/transactions", { key: merchant.liveKey })).body.data as Array<{
            id: string
            status: string
          }>
        ).find((t) => t.id === id)?.status

      const charge = await send(first.url, "POST", "/api/v1/charges", {
        key: merchant.liveKey,
        body: { amount: 40 }
      })
      expect(charge.status, charge.text).toBe(201)
      await psp.payCob(charge.body.txid, { callback: "now" })
      await until(
        "funded",
        async () => (await statusOf(first.url, charge.body.transactionId)) === "completed",
        testWaitMs
      )

      // The bank never answers the send: before carrying it out, or after (the answer is lost).
      psp.addFault({ route: "send.put", kind: "timeout", after })
      // Nor any question: should this process's worker reach the job before the kill, it waits too.
      psp.addFault({ route: "send.get", kind: "timeout" })
      const payout = await send(first.url, "POST", "/api/v1/payouts", {
        key: merchant.liveKey,
        body: { amount: 10, pixKey: "destino@banco.example" }
      })
      expect(payout.status, payout.text).toBe(201)
      expect(payout.body.endToEndId).toBeNull()
      const id = Gateway.idEnvio(payout.body.transactionId)
      const calls = () =>
        psp.requests
          .filter((r) => (r.route === "send.put" || r.route === "send.get") && r.path.endsWith(id))
          .map((r) => `${r.route === "send.put" ? "PUT" : "GET"} ${r.outcome}`)
      await until("the send job sends", () => calls().length > 0, testWaitMs)
      await killed(first.child)
      // The inline attempt was the first: it sent without asking (and a worker's run, if any, asked).
      expect(calls()[0]).toBe("PUT timeout")
      expect(
        calls()
          .slice(1)
          .every((c) => c === "GET timeout")
      ).toBe(true)
      const asked = calls().length
      expect(psp.state.sends.get(id) !== undefined).toBe(after)
      psp.clearFaults()

      const second = await spawnEngine(options)
      await register(second.url)
      // The next attempt asks first: it sends only what the bank does not know.
      await until("the restarted engine asks the bank", () => calls().length > asked, testWaitMs)
      expect(calls()[asked]).toBe(after ? "GET 200" : "GET 404")
      await until(
        "the send reaches the bank after the hold",
        () => psp.state.sends.get(id) !== undefined,
        testWaitMs
      )
      await psp.settleSend(id, { callback: "now" })
      await until(
        "completed",
        async () => (await statusOf(second.url, payout.body.transactionId)) === "completed",
        testWaitMs
      )
      // One send carried out by the bank: the held one (answer lost) or the restarted engine's.
      expect(calls().filter((c) => c.startsWith("PUT"))).toEqual(
        after ? ["PUT timeout"] : ["PUT timeout", "PUT 201"]
      )
      expect([...psp.state.sends.keys()].filter((k) => k === id)).toHaveLength(1)
      second.child.kill("SIGTERM")
      await new Promise((resolve) => second.child.once("exit", resolve))

      const reader = await Pixgate.make({
        database: db.url,
        dataKey: testDataKey,
        engine: { worker: false },
        log: { level: "none" }
      })
      try {
        const ledger = await reader.runtime.runPromise(
          Effect.flatMap(Engine.Engine, (e) => e.admin.checkLedger("live"))
        )
        expect(ledger).toMatchObject({ unbalancedEntries: [], balanceMismatches: [], total: 0 })
      } finally {
        await reader.dispose()
      }
    } finally {
      await psp.close()
      await db.drop()
    }
  })
})
