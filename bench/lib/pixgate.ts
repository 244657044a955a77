/**
 * Pixgate's standalone server as a child process (`pixgate serve` from the bundle `pnpm start`
 * runs, with node directly so that the child's pid is the server's; under `--profile`, from the
 * TypeScript sources through tsx, so profiles name the source files), and the admin router
 * calls that set a run up: merchants, keys, sandbox top-ups, webhook endpoints. Plus the other
 * children: the baseline server and the webhook receiver.
 */
import { randomBytes } from "node:crypto"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import { testDataKey } from "@pixgate/testkit/dataKeys"
import { request } from "undici"
import type { BenchDb } from "./db.js"
import { runDirectory } from "./db.js"
import { type Child, freePort, root, spawnNode } from "./proc.js"

/**
 * What the root package.json's `start` script (`[NAME=value ...] node [flags] scripts/pixgate.mjs
 * serve`) gives the server besides the bundle: its node flags and environment, so the benchmark
 * measures the process `pnpm start` runs. `PIXGATE_BENCH_NODE_FLAGS` replaces the flags and
 * `PIXGATE_BENCH_START_ENV` the environment (space-separated; empty for none), for runs comparing
 * them.
 */
export const startScript = ((): {
  readonly flags: ReadonlyArray<string>
  readonly env: Record<string, string>
} => {
  const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
    readonly scripts: Record<string, string>
  }
  const words = (manifest.scripts.start ?? "").split(/\s+/).filter((w) => w !== "")
  const node = words.indexOf("node")
  const entry = words.findIndex((w) => w.endsWith("pixgate.mjs"))
  if (node === -1 || entry < node)
    throw new Error(`package.json's start script is not "node ... pixgate.mjs serve"`)
  const split = (given: string | undefined, fallback: ReadonlyArray<string>) =>
    given === undefined ? fallback : given.split(/\s+/).filter((w) => w !== "")
  const envWords = split(process.env.PIXGATE_BENCH_START_ENV, words.slice(0, node))
  return {
    flags: split(process.env.PIXGATE_BENCH_NODE_FLAGS, words.slice(node + 1, entry)),
    env: Object.fromEntries(
      envWords.map((w) => {
        const at = w.indexOf("=")
        if (at <= 0) throw new Error(`start script: ${w} is not NAME=value`)
        return [w.slice(0, at), w.slice(at + 1)]
      })
    )
  }
})()

/** The node flags of `pnpm start` (see `startScript`). */
export const startFlags: ReadonlyArray<string> = startScript.flags

/** Arguments of `node` for a TypeScript entry point of this repository. */
const tsEntry = (entry: string, extra: ReadonlyArray<string> = []) => [
  ...extra,
  "--import",
  "tsx",
  "--conditions=@pixgate/source",
  entry
]

let bundling: Promise<string> | undefined

/**
 * The bundle `pnpm start` runs (scripts/pixgate.mjs), built once per benchmark run; or the entry
 * file `PIXGATE_BENCH_BUNDLE` names (a bundle of other sources kept aside, for runs alternating
 * the code before and after a change; it must lie under node_modules/ to find better-sqlite3).
 */
const bundled = (): Promise<string> => {
  const given = process.env.PIXGATE_BENCH_BUNDLE
  bundling ??=
    given !== undefined && given !== ""
      ? Promise.resolve(given)
      : import("../../scripts/pixgate.mjs").then((m) => m.bundle())
  return bundling
}

/** A running HTTP child. */
export interface Server extends Child {
  readonly origin: string
}

const healthy = (origin: string, path: string) => async () => {
  const response = await request(`${origin}${path}`, { headersTimeout: 2_000, bodyTimeout: 2_000 })
  await response.body.dump()
  return response.statusCode === 200
}

/** Environment every Pixgate server of a run gets besides its database (see `startPixgate`). */
export interface PixgateEnv {
  readonly [name: string]: string
}

/**
 * Starts `pixgate serve` on `db` with the admin router enabled, logging to a file in the run
 * directory, with the node flags and environment of `pnpm start` (`startScript`). `nodeArgs` go
 * to node after them (e.g. `--cpu-prof`).
 */
export const startPixgate = async (
  db: BenchDb,
  options: {
    readonly env?: PixgateEnv
    readonly nodeArgs?: ReadonlyArray<string>
    readonly label?: string
    /** Run the TypeScript sources through tsx instead of the bundle (for profiles). */
    readonly sources?: boolean
  } = {}
): Promise<Server & { readonly adminToken: string }> => {
  const port = await freePort()
  const origin = `http://127.0.0.1:${port}`
  const adminToken = randomBytes(24).toString("hex")
  const child = await spawnNode({
    name: `pixgate (${db.kind})`,
    args: (options.sources
      ? tsEntry("packages/server/src/bin.ts", [...startFlags, ...(options.nodeArgs ?? [])])
      : [...startFlags, ...(options.nodeArgs ?? []), await bundled()]
    ).concat("serve"),
    env: {
      ...startScript.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      PIXGATE_DATABASE: db.url,
      PIXGATE_DATA_KEY: testDataKey,
      PIXGATE_ADMIN_TOKEN: adminToken,
      ...options.env
    },
    probe: healthy(origin, "/api/health"),
    readyTimeoutMs: 90_000,
    logFile: join(runDirectory(), `pixgate-${options.label ?? db.kind}.log`)
  })
  return { ...child, origin, adminToken }
}

/** Starts the baseline server (fixed JSON; raw SQL on `db` when given). */
export const startBaseline = async (db: BenchDb | null): Promise<Server> => {
  const port = await freePort()
  const child = await spawnNode({
    name: `baseline (${db?.kind ?? "http"})`,
    args: tsEntry("bench/lib/baseline-server.ts"),
    env: { PORT: String(port), HOST: "127.0.0.1", BASELINE_DATABASE: db?.url ?? "" },
    ready: /^baseline listening/,
    readyTimeoutMs: 60_000
  })
  return { ...child, origin: `http://127.0.0.1:${port}` }
}

/** Starts the webhook receiver. */
export const startReceiver = async (): Promise<Server> => {
  const port = await freePort()
  const child = await spawnNode({
    name: "webhook receiver",
    args: tsEntry("bench/lib/receiver-server.ts"),
    env: { PORT: String(port), HOST: "127.0.0.1" },
    ready: /^receiver listening/,
    readyTimeoutMs: 60_000
  })
  return { ...child, origin: `http://127.0.0.1:${port}` }
}

/** Runs the baseline webhook sender to completion and returns what it printed (JSON). */
export const runSender = async (env: Record<string, string>): Promise<Record<string, number>> => {
  const child = await spawnNode({
    name: "webhook sender",
    args: tsEntry("bench/lib/sender.ts"),
    env,
    ready: /^\{/,
    readyTimeoutMs: 120_000
  })
  await child.stop(2_000)
  return JSON.parse(child.readyLine) as Record<string, number>
}

/** A JSON call; fails unless the answer is 2xx. */
export const call = async <T = Record<string, unknown>>(
  origin: string,
  method: "GET" | "POST" | "PUT",
  path: string,
  options: { readonly body?: unknown; readonly headers?: Record<string, string> } = {}
): Promise<T> => {
  const response = await request(`${origin}${path}`, {
    method,
    headers: { "content-type": "application/json", ...options.headers },
    body: options.body === undefined ? null : JSON.stringify(options.body)
  })
  const text = await response.body.text()
  if (response.statusCode < 200 || response.statusCode > 299) {
    throw new Error(`${method} ${path} -> ${response.statusCode}: ${text.slice(0, 500)}`)
  }
  return (text === "" ? {} : JSON.parse(text)) as T
}

/** A sandbox merchant: its id and test key. */
export interface Merchant {
  readonly merchantId: string
  readonly testKey: string
}

/** The merchant panel operations the benchmark needs, through the admin router. */
export const admin = (server: Server & { readonly adminToken: string }) => {
  const headers = { authorization: `Bearer ${server.adminToken}` }
  const base = "/admin"
  return {
    createMerchant: async (name: string): Promise<Merchant> => {
      const created = await call<{ merchantId: string; testKey: string }>(
        server.origin,
        "POST",
        `${base}/merchants`,
        {
          headers,
          body: { name }
        }
      )
      return { merchantId: created.merchantId, testKey: created.testKey }
    },
    topUp: (merchantId: string, amount: number) =>
      call(server.origin, "POST", `${base}/merchants/${merchantId}/sandbox/topup`, {
        headers,
        body: { amount }
      }),
    setWebhook: (merchantId: string, url: string, secret: string) =>
      call(server.origin, "PUT", `${base}/merchants/${merchantId}/webhooks/test`, {
        headers,
        body: { url, secret }
      })
  }
}

/** Creates `count` funded sandbox merchants, a few at a time. */
export const fundedMerchants = async (
  api: ReturnType<typeof admin>,
  prefix: string,
  count: number,
  funds: number
): Promise<Array<Merchant>> => {
  const merchants: Array<Merchant> = new Array(count)
  let next = 0
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < count) {
        const i = next++
        const merchant = await api.createMerchant(`${prefix} ${i + 1}`)
        if (funds > 0) await api.topUp(merchant.merchantId, funds)
        merchants[i] = merchant
      }
    })
  )
  return merchants
}

/**
 * Waits until the server has no due or soon-due background work left (sandbox settlements,
 * webhook attempts; charge expiries an hour out are ignored), so the next row starts quiet.
 */
export const waitForIdle = async (db: BenchDb, timeoutMs: number): Promise<number> => {
  const start = Date.now()
  for (;;) {
    const [row] = await db.query<{ n: number | string }>(
      "SELECT COUNT(*) AS n FROM jobs WHERE kind <> 'charge.expire'"
    )
    const left = Number(row?.n ?? 0)
    if (left === 0 || Date.now() - start > timeoutMs) return left
    await sleep(250)
  }
}
