/**
 * A real Prometheus for a test (Debian's `prometheus` binary): its own temporary directory and
 * free port, scraping the given targets every second and evaluating the given rule files every
 * second; queried through its HTTP API. `stop` ends it and removes its directory.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { until } from "@pixgate/testkit/wait"

/** One sample of an instant query: its labels and value. */
export interface Series {
  readonly metric: Readonly<Record<string, string>>
  readonly value: number
}

/** A rule as Prometheus loaded it. */
export interface LoadedRule {
  readonly type: "recording" | "alerting"
  readonly name: string
  readonly query: string
}

/** A running Prometheus. */
export interface Prometheus {
  readonly url: string
  /**
   * An instant query, now or at `time` (Unix seconds); fails with Prometheus's error when the
   * expression is invalid.
   */
  readonly query: (expr: string, time?: number) => Promise<ReadonlyArray<Series>>
  /**
   * A range query from `start` to `end` (Unix seconds) every `step` seconds: the points of every
   * series; fails with Prometheus's error when the expression is invalid.
   */
  readonly queryRange: (
    expr: string,
    start: number,
    end: number,
    step?: number
  ) => Promise<ReadonlyArray<{ readonly metric: Readonly<Record<string, string>>; readonly points: number }>>
  /** Every rule of every group it loaded. */
  readonly rules: () => Promise<ReadonlyArray<LoadedRule>>
  readonly stop: () => Promise<void>
}

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      probe.close(() => resolve(port))
    })
  })

interface ApiAnswer<A> {
  readonly status: "success" | "error"
  readonly data: A
  readonly error?: string
}

const get = async <A>(url: string): Promise<A> => {
  const answer = (await (await fetch(url)).json()) as ApiAnswer<A>
  if (answer.status !== "success") throw new Error(`Prometheus: ${answer.error ?? "error"} (${url})`)
  return answer.data
}

const stopped = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    child.once("exit", () => resolve())
    child.kill("SIGTERM")
  })

/** Starts Prometheus scraping `jobs` (name to `host:port` targets), with `ruleFiles` loaded. */
export const startPrometheus = async (
  jobs: Readonly<Record<string, ReadonlyArray<string>>>,
  ruleFiles: ReadonlyArray<string>
): Promise<Prometheus> => {
  const dir = mkdtempSync(join(tmpdir(), "pixgate-prometheus-"))
  const config = {
    global: { scrape_interval: "1s", scrape_timeout: "1s", evaluation_interval: "1s" },
    rule_files: ruleFiles,
    scrape_configs: Object.entries(jobs).map(([job, targets]) => ({
      job_name: job,
      static_configs: [{ targets }]
    }))
  }
  // JSON is YAML: no YAML writer needed.
  writeFileSync(join(dir, "prometheus.yml"), JSON.stringify(config))
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  let output = ""
  const child = spawn(
    "prometheus",
    [
      `--config.file=${join(dir, "prometheus.yml")}`,
      `--storage.tsdb.path=${join(dir, "data")}`,
      `--web.listen-address=127.0.0.1:${port}`,
      "--log.level=warn"
    ],
    { stdio: ["ignore", "pipe", "pipe"] }
  )
  child.stdout?.on("data", (chunk) => (output += chunk))
  child.stderr?.on("data", (chunk) => (output += chunk))
  const stop = async () => {
    await stopped(child)
    rmSync(dir, { recursive: true, force: true })
  }
  try {
    await until(
      () => `Prometheus ready at ${url}: ${output}`,
      async () => {
        if (child.exitCode !== null) throw new Error(`prometheus exited: ${output}`)
        return (await fetch(`${url}/-/ready`).catch(() => undefined))?.status === 200
      }
    )
  } catch (error) {
    await stop()
    throw error
  }
  return {
    url,
    query: async (expr, time) => {
      const data = await get<{
        result: ReadonlyArray<{ metric: Record<string, string>; value: [number, string] }>
      }>(`${url}/api/v1/query?query=${encodeURIComponent(expr)}${time === undefined ? "" : `&time=${time}`}`)
      return data.result.map((r) => ({ metric: r.metric, value: Number(r.value[1]) }))
    },
    queryRange: async (expr, start, end, step = 1) => {
      const params = new URLSearchParams({
        query: expr,
        start: String(start),
        end: String(end),
        step: String(step)
      })
      const data = await get<{
        result: ReadonlyArray<{ metric: Record<string, string>; values: ReadonlyArray<unknown> }>
      }>(`${url}/api/v1/query_range?${params}`)
      return data.result.map((r) => ({ metric: r.metric, points: r.values.length }))
    },
    rules: async () => {
      const data = await get<{ groups: ReadonlyArray<{ rules: ReadonlyArray<LoadedRule> }> }>(
        `${url}/api/v1/rules`
      )
      return data.groups.flatMap((group) => group.rules)
    },
    stop
  }
}
