/**
 * `pixgate serve` picks its live gateway plugin by `PIXGATE_LIVE_GATEWAY`: the built-in `efi` by
 * name (against the PSP simulator, over mTLS: a live charge paid at the simulated bank
 * completes), and a plugin from outside the workspace's packages by path
 * (`examples/gateway-plugin/piggy-bank.ts`, relative to the working directory: its charge is paid
 * and its payout settled by the in-process bank, its settings read and refused by its own
 * schema). A name that is no gateway, a module that exports none and a missing callback secret
 * stop the server with one line. The server runs in-process as the CLI does, on SQLite; its own
 * modules name no gateway package but in the table of built-ins, which loads each when chosen.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, relative } from "node:path"
import { fileURLToPath } from "node:url"
import { AsaasSimulator, PspSimulator } from "@pixgate/psp-simulator"
import { send } from "@pixgate/testkit/harness"
import { until } from "@pixgate/testkit/live"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Cli from "../src/Cli.js"

const dir = mkdtempSync(join(tmpdir(), "pixgate-gateway-plugins-"))
const token = "gateway-plugins-admin-token"
const secret = "c".repeat(40)
const piggyBank = fileURLToPath(new URL("../../../examples/gateway-plugin/piggy-bank.ts", import.meta.url))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Runs `pixgate serve` in-process with `env`; `listening` resolves with its URL. */
const serve = (env: Record<string, string>) => {
  let stop = () => {}
  const stopSignal = new Promise<void>((resolve) => {
    stop = resolve
  })
  let out = ""
  let err = ""
  let announce = (_: string) => {}
  const listening = new Promise<string>((resolve) => {
    announce = resolve
  })
  const exit = Cli.run(["serve"], {
    env: {
      PORT: "0",
      PIXGATE_DATABASE: `sqlite:${join(dir, `${Math.random()}.db`)}`,
      PIXGATE_ADMIN_TOKEN: token,
      ...env
    },
    cwd: dir,
    stdout: (text) => {
      out += text
      const match = /"url":"(http:[^"]+)"/.exec(out)
      if (match) announce(match[1])
    },
    stderr: (text) => {
      err += text
    },
    stopSignal
  })
  return { listening, exit, stop, stdout: () => out, stderr: () => err }
}

/** A live merchant's key, made through the admin API. */
const liveKey = async (url: string) => {
  const merchant = await send(url, "POST", "/admin/merchants", {
    body: { name: "Plugin shop" },
    headers: { authorization: `Bearer ${token}` }
  })
  expect(merchant.status, merchant.text).toBe(201)
  return merchant.body.liveKey as string
}

/** The status of one of `key`'s transactions. */
const statusOf = async (url: string, key: string, id: string) =>
  (
    (await send(url, "GET", "/api/v1/transactions?limit=100", { key })).body.data as Array<{
      id: string
      status: string
    }>
  ).find((t) => t.id === id)?.status

describe("the built-in gateway by name", () => {
  const pixKey = "recebimentos@pixgate.example"
  let psp: PspSimulator.PspSimulator
  beforeAll(async () => {
    psp = await PspSimulator.start({ pixKeys: [pixKey] })
    writeFileSync(join(dir, "cert.pem"), psp.tls.clientCertPem)
    writeFileSync(join(dir, "key.pem"), psp.tls.clientKeyPem)
    writeFileSync(join(dir, "ca.pem"), psp.tls.caPem)
  })
  afterAll(async () => {
    await psp?.close()
  })

  it("PIXGATE_LIVE_GATEWAY=efi: a live charge paid at the PSP completes", async () => {
    const server = serve({
      PIXGATE_LIVE_GATEWAY: "efi",
      PIXGATE_LIVE_BASE_URL: psp.url,
      PIXGATE_LIVE_CLIENT_ID: psp.client.clientId,
      PIXGATE_LIVE_CLIENT_SECRET: psp.client.clientSecret,
      PIXGATE_LIVE_CERT_FILE: "cert.pem",
      PIXGATE_LIVE_KEY_FILE: "key.pem",
      PIXGATE_LIVE_CA_FILE: "ca.pem",
      PIXGATE_LIVE_PIX_KEY: pixKey,
      PIXGATE_LIVE_CALLBACK_SECRET: secret,
      PIXGATE_LIVE_RECONCILE_INTERVAL_MS: "1000"
    })
    try {
      const url = await server.listening
      expect(server.stdout()).toContain(`"gateway":"efi"`)
      const key = await liveKey(url)
      const charge = await send(url, "POST", "/api/v1/charges", { key, body: { amount: 12.5 } })
      expect(charge.status, charge.text).toBe(201)
      // No callback reaches this server (none is registered): the charge's own check finds the PIX.
      await psp.payCob(charge.body.txid, { callback: "never" })
      await until(
        "the charge completes",
        async () => (await statusOf(url, key, charge.body.transactionId)) === "completed"
      )
    } finally {
      server.stop()
      expect(await server.exit).toBe(0)
    }
  })
})

describe("the asaas built-in by name, and beside another gateway", () => {
  let sim: AsaasSimulator.AsaasSimulator
  let customerId: string
  beforeAll(async () => {
    sim = await AsaasSimulator.start({ transferOutcome: "instant" })
    customerId = sim.createCustomer("Pixgate Cobranças", "12345678000195")
    writeFileSync(join(dir, "asaas-ca.pem"), sim.caPem)
  })
  afterAll(async () => {
    await sim?.close()
  })
  const asaasEnv = (prefix: string) => ({
    [`${prefix}BASE_URL`]: sim.url,
    [`${prefix}API_KEY`]: sim.apiKey,
    [`${prefix}CUSTOMER_ID`]: customerId,
    [`${prefix}CA_FILE`]: "asaas-ca.pem",
    [`${prefix}RECONCILE_INTERVAL_MS`]: "1000"
  })

  it("PIXGATE_LIVE_GATEWAY=asaas: a live charge paid at Asaas completes, a payout is an Asaas transfer", async () => {
    const server = serve({
      PIXGATE_LIVE_GATEWAY: "asaas",
      PIXGATE_LIVE_CALLBACK_SECRET: secret,
      ...asaasEnv("PIXGATE_LIVE_")
    })
    try {
      const url = await server.listening
      expect(server.stdout()).toContain(`"gateway":"asaas"`)
      const key = await liveKey(url)
      const charge = await send(url, "POST", "/api/v1/charges", { key, body: { amount: 12.5 } })
      expect(charge.status, charge.text).toBe(201)
      const payment = sim.paymentOf(charge.body.txid)
      expect(payment).toBeDefined()
      // No webhook reaches this server (none is registered): the charge's own check finds the Pix.
      await sim.pay(payment?.id ?? "", { events: "never" })
      await until(
        "the charge completes",
        async () => (await statusOf(url, key, charge.body.transactionId)) === "completed"
      )
      const payout = await send(url, "POST", "/api/v1/payouts", {
        key,
        body: { amount: 5, pixKey: "destino@banco.example" }
      })
      expect(payout.status, payout.text).toBe(201)
      await until(
        "the payout completes",
        async () => (await statusOf(url, key, payout.body.transactionId)) === "completed"
      )
      expect(sim.transferOf(payout.body.transactionId)).toBeDefined()
      // Due-date charges are not Asaas's: refused with a code of their own, never a 502.
      const due = new Date(Date.now() + 5 * 86_400_000).toISOString().slice(0, 10)
      const refused = await send(url, "POST", "/api/v1/charges", {
        key,
        body: {
          amount: 20,
          dueDate: due,
          clientName: "Empresa de Alimentos SA",
          clientDoc: "11.222.333/0001-81"
        }
      })
      expect(refused.status, refused.text).toBe(422)
      expect(refused.body.code).toBe("capability_unavailable")
    } finally {
      server.stop()
      expect(await server.exit).toBe(0)
    }
  })

  it("PIXGATE_GATEWAYS=asaas beside a plugin by path: both listed, a merchant assigned to Asaas", async () => {
    const server = serve({
      PIXGATE_LIVE_GATEWAY: relative(dir, piggyBank),
      PIXGATE_LIVE_ISPB: "12345678",
      PIXGATE_LIVE_CALLBACK_SECRET: secret,
      PIXGATE_GATEWAYS: "asaas",
      ...asaasEnv("PIXGATE_ASAAS_")
    })
    try {
      const url = await server.listening
      expect(server.stdout()).toContain(`"gateways":["asaas"]`)
      const admin = (method: string, path: string, body?: unknown) =>
        send(url, method, `/admin${path}`, {
          ...(body === undefined ? {} : { body }),
          headers: { authorization: `Bearer ${token}` }
        })
      const listed = await admin("GET", "/gateways")
      expect(listed.status, listed.text).toBe(200)
      expect(listed.body.data.map((g: { name: string }) => g.name)).toEqual(["piggy-bank", "asaas"])
      const merchant = await admin("POST", "/merchants", { name: "Loja Asaas" })
      const assigned = await admin("PUT", `/merchants/${merchant.body.merchantId}/gateway`, {
        gateway: "asaas"
      })
      expect(assigned.status, assigned.text).toBe(200)
      expect(assigned.body.next.gateway).toBe("asaas")
      // The CLI against the running server: set (back to the default) and show.
      const cli = async (...args: Array<string>) => {
        let out = ""
        let err = ""
        const code = await Cli.run([...args, "--server", url, "--json"], {
          env: { PIXGATE_ADMIN_TOKEN: token },
          cwd: dir,
          stdout: (text) => {
            out += text
          },
          stderr: (text) => {
            err += text
          }
        })
        return { code, out, err }
      }
      const later = new Date(Date.now() + 3_600_000).toISOString()
      const set = await cli(
        "merchant-gateway",
        "set",
        "--merchant",
        merchant.body.merchantId,
        "--gateway",
        "piggy-bank",
        "--effective-at",
        later
      )
      expect(set.code, set.err).toBe(0)
      expect(JSON.parse(set.out)).toMatchObject({ next: { gateway: "piggy-bank" } })
      const shown = await cli("merchant-gateway", "show", "--merchant", merchant.body.merchantId)
      expect(shown.code, shown.err).toBe(0)
      expect(JSON.parse(shown.out).history.map((a: { gateway: string }) => a.gateway)).toEqual([
        "asaas",
        "piggy-bank"
      ])
      const local = await Cli.run(
        ["merchant-gateway", "set", "--merchant", merchant.body.merchantId, "--gateway", "asaas"],
        {
          env: { PIXGATE_DATABASE: `sqlite:${join(dir, "cli-local.db")}` },
          cwd: dir,
          stdout: () => {},
          stderr: () => {}
        }
      )
      expect(local).toBe(2)
    } finally {
      server.stop()
      expect(await server.exit).toBe(0)
    }
  })
})

describe("a plugin from outside the workspace's packages, by path", () => {
  const piggy = { PIXGATE_LIVE_GATEWAY: relative(dir, piggyBank), PIXGATE_LIVE_CALLBACK_SECRET: secret }

  it("the path is relative to the working directory, as a variable's files are", () => {
    expect(piggy.PIXGATE_LIVE_GATEWAY).toMatch(/^\.\.\//)
  })

  it("serves live keys through it: a charge paid and a payout settled by the in-process bank", async () => {
    const server = serve({ ...piggy, PIXGATE_LIVE_ISPB: "87654321", PIXGATE_LIVE_PAY_AFTER_MS: "200" })
    try {
      const url = await server.listening
      expect(server.stdout()).toMatch(/"live":"piggy bank 87654321","gateway":"piggy-bank"/)
      const key = await liveKey(url)
      const charge = await send(url, "POST", "/api/v1/charges", { key, body: { amount: 30 } })
      expect(charge.status, charge.text).toBe(201)
      await until(
        "the charge is paid",
        async () => (await statusOf(url, key, charge.body.transactionId)) === "completed"
      )
      const payout = await send(url, "POST", "/api/v1/payouts", {
        key,
        body: { amount: 10, pixKey: "destino@banco.example" }
      })
      expect(payout.status, payout.text).toBe(201)
      await until(
        "the payout settles",
        async () => (await statusOf(url, key, payout.body.transactionId)) === "completed"
      )
      const list = (await send(url, "GET", "/api/v1/transactions?limit=100", { key })).body.data as Array<{
        endToEndId: string | null
      }>
      // Every end-to-end id is the bank's, under its ISPB.
      expect(list.map((t) => t.endToEndId?.slice(0, 9))).toEqual(["E87654321", "E87654321"])
    } finally {
      server.stop()
      expect(await server.exit).toBe(0)
    }
  })

  it.each([
    ["its required setting missing", {}, /^pixgate: PIXGATE_LIVE_ISPB is required$/],
    [
      "a setting its schema refuses",
      { PIXGATE_LIVE_ISPB: "123" },
      /^pixgate: PIXGATE_LIVE_ISPB must be 8 digits$/
    ],
    [
      "another setting its schema refuses",
      { PIXGATE_LIVE_ISPB: "12345678", PIXGATE_LIVE_PAY_AFTER_MS: "soon" },
      /^pixgate: PIXGATE_LIVE_PAY_AFTER_MS must be a whole number of milliseconds$/
    ]
  ])("%s: exit 2, one line naming the variable", async (_, env, message) => {
    const server = serve({ ...piggy, ...env })
    expect(await server.exit).toBe(2)
    expect(server.stderr().trim()).toMatch(message)
    expect(server.stderr().trim().split("\n")).toHaveLength(1)
  })
})

describe("a gateway that cannot be", () => {
  it.each([
    [
      "a name that is no gateway",
      { PIXGATE_LIVE_GATEWAY: "nope", PIXGATE_LIVE_CALLBACK_SECRET: secret },
      /^pixgate: PIXGATE_LIVE_GATEWAY: no gateway "nope": not a built-in \(efi, asaas\) nor a module to load/
    ],
    [
      "a module that exports no plugin",
      { PIXGATE_LIVE_GATEWAY: "./no-plugin.mjs", PIXGATE_LIVE_CALLBACK_SECRET: secret },
      /^pixgate: PIXGATE_LIVE_GATEWAY: \.\/no-plugin\.mjs exports no gateway plugin/
    ],
    [
      "a path that does not exist",
      { PIXGATE_LIVE_GATEWAY: "./missing.mjs", PIXGATE_LIVE_CALLBACK_SECRET: secret },
      /^pixgate: PIXGATE_LIVE_GATEWAY: cannot load \.\/missing\.mjs/
    ],
    [
      "a gateway without the callback route's secret",
      { PIXGATE_LIVE_GATEWAY: "efi" },
      /^pixgate: PIXGATE_LIVE_CALLBACK_SECRET is required when PIXGATE_LIVE_GATEWAY is set$/
    ],
    [
      "PIXGATE_GATEWAYS without a default gateway",
      { PIXGATE_GATEWAYS: "asaas" },
      /^pixgate: PIXGATE_GATEWAYS needs PIXGATE_LIVE_GATEWAY \(the default gateway\) set too$/
    ],
    [
      "a gateway of PIXGATE_GATEWAYS missing a setting",
      {
        PIXGATE_LIVE_GATEWAY: relative(dir, piggyBank),
        PIXGATE_LIVE_ISPB: "12345678",
        PIXGATE_LIVE_CALLBACK_SECRET: secret,
        PIXGATE_GATEWAYS: "asaas",
        PIXGATE_ASAAS_BASE_URL: "https://api.asaas.com/v3"
      },
      /^pixgate: PIXGATE_ASAAS_API_KEY is required$/
    ]
  ])("%s: exit 2, one line", async (_, env, message) => {
    writeFileSync(join(dir, "no-plugin.mjs"), "export const plugin = { name: 'not a plugin' }\n")
    const server = serve(env)
    expect(await server.exit).toBe(2)
    expect(server.stderr().trim()).toMatch(message)
    expect(server.stdout()).not.toContain("Pixgate listening")
  })
})

describe("the server's own modules", () => {
  const source = (file: string) =>
    readFileSync(fileURLToPath(new URL(`../src/${file}`, import.meta.url)), "utf8")

  it("Server.ts, Environment.ts and Cli.ts name no gateway package; Gateways.ts loads each only when chosen", () => {
    for (const file of ["Server.ts", "Environment.ts", "Cli.ts"])
      expect(source(file), file).not.toMatch(/@pixgate\/gateway-/)
    const gateways = source("Gateways.ts")
    expect(gateways).not.toMatch(/^import[^\n]*@pixgate\/gateway-/m)
    expect(gateways.match(/@pixgate\/gateway-[a-z-]+(\/[a-z-]+)?/g)).toEqual([
      "@pixgate/gateway-apipix",
      "@pixgate/gateway-apipix/efi",
      "@pixgate/gateway-asaas",
      "@pixgate/gateway-asaas/plugin"
    ])
  })
})
