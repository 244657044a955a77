/**
 * One API key's rate limit across instances on one Postgres (skipped with a warning when no
 * server answers, except in CI): a burst split across two instances, in this process and as two
 * real `pixgate serve` processes, gets no more than one bucket's allowance (burst + rate x the
 * measured elapsed time), and every refusal is 429 with `Retry-After`.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { testDataKey } from "@pixgate/testkit/dataKeys"
import { type Answer, send, start } from "@pixgate/testkit/harness"
import { report } from "@pixgate/testkit/output"
import { describePostgres, useFreshDatabase } from "@pixgate/testkit/postgres"
import { testWait } from "@pixgate/testkit/wait"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Cli from "../src/Cli.js"
import * as Environment from "../src/Environment.js"

const limit = { requestsPerSecond: 5, burst: 10 }

/** Creates a merchant with the CLI (which migrates the database) and returns its test key. */
const merchantKey = async (database: string, name: string): Promise<string> => {
  let out = ""
  const code = await Cli.run(["merchant", "create", "--name", name, "--json"], {
    env: { PIXGATE_DATABASE: database, PIXGATE_DATA_KEY: testDataKey },
    cwd: process.cwd(),
    stdout: (t) => {
      out += t
    },
    stderr: (t) => {
      out += t
    }
  })
  expect(code, out).toBe(0)
  return JSON.parse(out).testKey
}

/** What a burst got: its answers and the seconds from the first request sent to the last answer. */
interface Burst {
  readonly answers: ReadonlyArray<Answer>
  readonly seconds: number
}

/** `count` requests with one key, alternating between the instances, `inFlight` at a time. */
const burst = async (
  bases: ReadonlyArray<string>,
  key: string,
  count = 60,
  inFlight = 20
): Promise<Burst> => {
  const answers: Array<Answer> = []
  const began = performance.now()
  for (let i = 0; i < count; i += inFlight) {
    const round = Array.from({ length: Math.min(inFlight, count - i) }, (_, j) =>
      send(bases[(i + j) % bases.length], "GET", "/api/v1/transactions", { key })
    )
    answers.push(...(await Promise.all(round)))
  }
  return { answers, seconds: (performance.now() - began) / 1000 }
}

const fallback = "Shared rate limit unavailable"

/**
 * A burst whose takes the database answered: on a loaded machine a take can miss the store's
 * deadline, and the instance then falls back to its own bucket for a while (by design, tested in
 * store-pg's rateLimit.test.ts). Such a burst says nothing about sharing, so it is run again with
 * a fresh key once the fallback period is over, up to three times.
 */
const sharedBurst = async (
  bases: ReadonlyArray<string>,
  newKey: () => Promise<string>,
  logs: () => string
): Promise<Burst> => {
  for (let attempt = 1; ; attempt++) {
    const before = logs().length
    const result = await burst(bases, await newKey())
    if (!logs().slice(before).includes(fallback)) return result
    report(`burst ${attempt}: an instance fell back to its own bucket; trying again`)
    if (attempt === 3)
      throw new Error("every burst fell back to per-instance buckets: the database was too slow")
    await new Promise((resolve) => setTimeout(resolve, 6_000))
  }
}

/** Checks the answers: 200 or 429, 429s with `Retry-After`; returns how many were let through. */
const granted = ({ answers }: Burst): number => {
  for (const a of answers) {
    expect([200, 429]).toContain(a.status)
    if (a.status === 429) {
      expect(a.body).toMatchObject({ error: "Too many requests", code: "rate_limited" })
      expect(a.headers.get("retry-after")).toMatch(/^[1-9]\d*$/)
    }
  }
  return answers.filter((a) => a.status === 200).length
}

/** One bucket's allowance over the burst's measured time, plus one token of margin. */
const allowance = ({ seconds }: Burst) => limit.burst + limit.requestsPerSecond * seconds + 1

describe("PIXGATE_RATE_LIMIT_SHARED", () => {
  const read = (value: string | undefined) =>
    Effect.runPromise(
      Effect.either(
        Effect.map(
          Effect.withConfigProvider(
            Environment.serve,
            Environment.provider({ PIXGATE_RATE_LIMIT_SHARED: value })
          ),
          (env) => env.rateLimitShared
        )
      )
    )

  it("is on unless 0; anything else is refused, naming the variable", async () => {
    expect(await read(undefined)).toMatchObject({ right: true })
    expect(await read("")).toMatchObject({ right: true })
    expect(await read("1")).toMatchObject({ right: true })
    expect(await read("0")).toMatchObject({ right: false })
    const refused = await read("yes")
    expect(refused._tag).toBe("Left")
    if (refused._tag === "Left")
      expect(Environment.describe(refused.left)).toBe("PIXGATE_RATE_LIMIT_SHARED must be 1 or 0")
  })
})

describePostgres("the rate limit across instances on one Postgres", () => {
  const database = useFreshDatabase()

  describe("two instances in this process", () => {
    it("a burst split across both gets one bucket's allowance", async () => {
      let n = 0
      const newKey = () => merchantKey(database.url(), `Two instances ${++n}`)
      await newKey()
      const instances = await Promise.all(
        [0, 1].map(() => start({ database: database.url(), rateLimit: limit }))
      )
      try {
        const result = await sharedBurst(
          instances.map((i) => i.base),
          newKey,
          () => instances.flatMap((i) => i.logs).join("\n")
        )
        const ok = granted(result)
        report("two instances, shared:", { ok, seconds: result.seconds, allowance: allowance(result) })
        expect(ok).toBeGreaterThanOrEqual(limit.burst)
        expect(ok).toBeLessThanOrEqual(allowance(result))
      } finally {
        await Promise.all(instances.map((i) => i.close()))
      }
    })

    it("with `shared: false` each instance has a bucket of its own", async () => {
      const key = await merchantKey(database.url(), "Per process")
      const instances = await Promise.all(
        [0, 1].map(() => start({ database: database.url(), rateLimit: { ...limit, shared: false } }))
      )
      try {
        const result = await burst(
          instances.map((i) => i.base),
          key
        )
        // Each instance's own bucket starts full and sees half the burst: 2 x 10 at least.
        expect(granted(result)).toBeGreaterThanOrEqual(2 * limit.burst)
      } finally {
        await Promise.all(instances.map((i) => i.close()))
      }
    })
  })

  describe("two `pixgate serve` processes", () => {
    const bin = fileURLToPath(new URL("../src/bin.ts", import.meta.url))
    const tsx = pathToFileURL(
      join(dirname(createRequire(import.meta.url).resolve("tsx/package.json")), "dist/loader.mjs")
    ).href
    const children: Array<ChildProcess> = []
    const outputs: Array<string> = []
    let bases: Array<string> = []
    let key = ""

    const serve = (index: number) =>
      new Promise<string>((resolve, reject) => {
        const child = spawn(
          process.execPath,
          ["--import", tsx, "--conditions=@pixgate/source", bin, "serve"],
          {
            env: {
              ...process.env,
              PORT: "0",
              HOST: "127.0.0.1",
              PIXGATE_DATABASE: database.url(),
              PIXGATE_DATA_KEY: testDataKey,
              PIXGATE_ADMIN_TOKEN: "",
              PIXGATE_RATE_LIMIT_RPS: String(limit.requestsPerSecond),
              PIXGATE_RATE_LIMIT_BURST: String(limit.burst),
              PIXGATE_RATE_LIMIT_SHARED: ""
            }
          }
        )
        children.push(child)
        outputs[index] = ""
        const timer = setTimeout(
          () => reject(new Error(`serve ${index} logged no URL: ${outputs[index]}`)),
          testWait(5 / 3)
        )
        const read = (chunk: Buffer) => {
          outputs[index] += chunk.toString()
          const line = outputs[index].split("\n").find((l) => l.includes("Pixgate listening"))
          if (line !== undefined) {
            clearTimeout(timer)
            resolve(JSON.parse(line).url)
          }
        }
        child.stdout.on("data", read)
        child.stderr.on("data", read)
        child.once("exit", (code) => {
          clearTimeout(timer)
          reject(new Error(`serve ${index} exited (${code}): ${outputs[index]}`))
        })
      })

    beforeAll(async () => {
      key = await merchantKey(database.url(), "Two processes")
      bases = await Promise.all([0, 1].map(serve))
    })

    afterAll(async () => {
      await Promise.all(
        children.map(
          (child) =>
            new Promise<void>((resolve) => {
              if (child.exitCode !== null || child.signalCode !== null) return resolve()
              child.once("exit", () => resolve())
              child.kill("SIGKILL")
            })
        )
      )
    })

    it("a burst split across both processes gets one bucket's allowance", async () => {
      expect(new Set(bases).size).toBe(2)
      let n = 0
      const result = await sharedBurst(
        bases,
        async () => (n++ === 0 ? key : merchantKey(database.url(), `Two processes ${n}`)),
        () => outputs.join("\n")
      )
      const ok = granted(result)
      report("two processes, shared:", { ok, seconds: result.seconds, allowance: allowance(result) })
      expect(ok).toBeGreaterThanOrEqual(limit.burst)
      expect(ok).toBeLessThanOrEqual(allowance(result))
    })
  })
})
