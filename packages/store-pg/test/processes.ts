/**
 * Support of the multi-process tests: engine child processes (`engine-process.ts`, always
 * killed when the test ends), an engine in the test process (worker off) and a fresh database
 * per test. The webhook receiver they deliver to is `@pixgate/testkit/receiver`.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import type { SqlClient } from "@effect/sql"
import { Engine, type Store, WebhookTransport } from "@pixgate/core"
import { createDatabase, databaseUrl, dropDatabase } from "@pixgate/testkit/postgres"
import { testWait, testWaitMs, until } from "@pixgate/testkit/wait"
import { Effect, Layer, ManagedRuntime } from "effect"
import { afterEach } from "vitest"
import type { ChildOptions } from "./engine-process.js"
import { storeLayer } from "./store-layer.js"

/** One JSON line a child printed. */
export type Line = { readonly type: string } & Readonly<Record<string, unknown>>

/** How a child ended. */
export interface ChildExit {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
}

/** A running engine child. */
export interface EngineChild {
  readonly pid: number
  readonly name: string
  /** Every line printed so far, in order. */
  readonly lines: ReadonlyArray<Line>
  /** What it wrote to stderr (logs, failures). */
  readonly stderr: () => string
  /** Resolves with the first line (already printed or to come) that matches; one base wait by default. */
  readonly waitFor: (predicate: (line: Line) => boolean, timeoutMs?: number) => Promise<Line>
  /** Calls `listener` on every line, from now on. */
  readonly onLine: (listener: (line: Line) => void) => void
  /** Writes one line to its stdin. */
  readonly send: (text: string) => void
  readonly kill: (signal: NodeJS.Signals) => void
  /** SIGTERM, then SIGKILL if it has not exited within `graceMs` (a quarter of a base wait by default). */
  readonly stop: (graceMs?: number) => Promise<ChildExit>
  readonly exited: Promise<ChildExit>
}

/** The child script and how the children are started. */
export const childScript = fileURLToPath(new URL("./engine-process.ts", import.meta.url))
const packageDir = fileURLToPath(new URL("..", import.meta.url))
const nodeArgs = ["--import", "tsx", "--conditions=@pixgate/source"]

const running = new Set<ChildProcessWithoutNullStreams>()

const killAll = async (): Promise<void> => {
  const children = [...running]
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
  running.clear()
}

// No child survives its test, whatever way the test ended; nor the test worker itself.
afterEach(killAll)
process.once("exit", () => {
  for (const child of running) child.kill("SIGKILL")
})

/** Starts `engine-process.ts <command> <options>` as a new node process. */
export const spawnEngine = (name: string, command: string, options: ChildOptions): EngineChild => {
  const child = spawn(process.execPath, [...nodeArgs, childScript, command, JSON.stringify(options)], {
    cwd: packageDir,
    env: { ...process.env, NODE_OPTIONS: "" },
    stdio: ["pipe", "pipe", "pipe"]
  })
  running.add(child)
  const lines: Array<Line> = []
  const listeners = new Set<(line: Line) => void>()
  let stderr = ""
  let partial = ""
  child.stdout.setEncoding("utf8")
  child.stdout.on("data", (chunk: string) => {
    partial += chunk
    let newline = partial.indexOf("\n")
    while (newline >= 0) {
      const text = partial.slice(0, newline).trim()
      partial = partial.slice(newline + 1)
      newline = partial.indexOf("\n")
      if (text === "") continue
      let line: Line
      try {
        line = JSON.parse(text) as Line
      } catch {
        line = { type: "text", text }
      }
      lines.push(line)
      for (const listener of listeners) listener(line)
    }
  })
  child.stderr.setEncoding("utf8")
  child.stderr.on("data", (chunk: string) => {
    stderr = (stderr + chunk).slice(-20_000)
  })
  child.stdin.on("error", () => {})
  const exited = new Promise<ChildExit>((resolve) => {
    child.once("exit", (code, signal) => {
      running.delete(child)
      resolve({ code, signal })
    })
  })
  let exit: ChildExit | null = null
  void exited.then((e) => {
    exit = e
  })

  const waitFor = (predicate: (line: Line) => boolean, timeoutMs = testWaitMs) =>
    new Promise<Line>((resolve, reject) => {
      const found = lines.find(predicate)
      if (found !== undefined) return resolve(found)
      const done = () => {
        clearTimeout(timer)
        listeners.delete(listener)
      }
      const listener = (line: Line) => {
        if (predicate(line)) {
          done()
          resolve(line)
        }
      }
      const timer = setTimeout(() => {
        done()
        reject(new Error(`${name}: no expected line within ${timeoutMs} ms\nstderr:\n${stderr}`))
      }, timeoutMs)
      listeners.add(listener)
      void exited.then((e) => {
        // Let the last lines be read before giving up on an exited child.
        setTimeout(() => {
          if (!listeners.has(listener)) return
          done()
          reject(
            new Error(`${name} exited (${JSON.stringify(e)}) before the expected line\nstderr:\n${stderr}`)
          )
        }, 50)
      })
    })

  const kill = (signal: NodeJS.Signals) => {
    if (exit === null) child.kill(signal)
  }

  return {
    pid: child.pid ?? -1,
    name,
    lines,
    stderr: () => stderr,
    waitFor,
    onLine: (listener) => {
      listeners.add(listener)
    },
    send: (text) => {
      child.stdin.write(`${text}\n`)
    },
    kill,
    stop: async (graceMs = testWait(0.25)) => {
      kill("SIGTERM")
      const timer = setTimeout(() => kill("SIGKILL"), graceMs)
      const e = await exited
      clearTimeout(timer)
      return e
    },
    exited
  }
}

/** An engine in the test process (worker off) over the database, with its Store and SqlClient. */
export const testEngine = (url: string) =>
  ManagedRuntime.make(
    Engine.layer({ worker: false }).pipe(
      Layer.provideMerge(storeLayer(url, 5)),
      Layer.provide(WebhookTransport.fetch)
    )
  )

/** The test-process engine's runtime. */
export type TestEngine = ReturnType<typeof testEngine>

/** What a multi-process test runs on: the database's url and the test-process engine over it. */
type DatabaseTest<A> = (db: { url: string; engine: TestEngine }) => Promise<A>

/**
 * Runs `test` with the test-process engine on `url`; afterwards kills every child still running,
 * closes the engine and runs `remove`.
 */
const withDatabase = async <A>(url: string, remove: () => unknown, test: DatabaseTest<A>) => {
  const engine = testEngine(url)
  try {
    return await test({ url, engine })
  } finally {
    await killAll()
    await engine.dispose()
    await remove()
  }
}

/** Runs `test` on a fresh Postgres database of its own, dropped afterwards. */
export const withFreshDatabase = async <A>(test: DatabaseTest<A>) => {
  const name = await createDatabase()
  return withDatabase(databaseUrl(name), () => dropDatabase(name), test)
}

/** Runs `test` on a new SQLite file in a temporary directory, removed afterwards. */
export const withFreshSqliteFile = <A>(test: DatabaseTest<A>) => {
  const dir = mkdtempSync(join(tmpdir(), "pixgate-processes-"))
  return withDatabase(
    `sqlite:${join(dir, "pixgate.db")}`,
    () => rmSync(dir, { recursive: true, force: true }),
    test
  )
}

/** Polls `check` every `everyMs` until it answers true, or fails after `timeoutMs` (one base wait). */
export const waitUntil = (
  what: string,
  check: () => Promise<boolean>,
  timeoutMs = testWaitMs,
  everyMs = 200
): Promise<number> => until(what, check, timeoutMs, everyMs)

/** Runs an effect on the test engine. */
export const run = <A, E>(
  engine: TestEngine,
  effect: Effect.Effect<A, E, Engine.Engine | Store.Store | SqlClient.SqlClient>
): Promise<A> => engine.runPromise(effect)

/** Every page of the merchant's webhook log. */
export const webhookLog = (merchantId: string) =>
  Effect.gen(function* () {
    const engine = yield* Engine.Engine
    const all = []
    for (let offset = 0; ; offset += 500) {
      const page = yield* engine.admin.webhookLog({ merchantId, mode: "test", limit: 500, offset })
      all.push(...page)
      if (page.length < 500) return all
    }
  })
