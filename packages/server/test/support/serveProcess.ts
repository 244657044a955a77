/**
 * `pixgate serve` in a child process (the sources through tsx), for tests that need a real
 * process: its signals (SIGTERM, SIGSTOP/SIGCONT), its open files, its priority. `start`
 * resolves with the URL it logs; every child still running is killed by `killAll`.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import { readdirSync } from "node:fs"
import { fileURLToPath } from "node:url"

const bin = fileURLToPath(new URL("../../src/bin.ts", import.meta.url))
const packageDir = fileURLToPath(new URL("../..", import.meta.url))
const children = new Set<ChildProcessWithoutNullStreams>()

/** A running `pixgate serve`. */
export interface ServeProcess {
  readonly url: string
  readonly child: ChildProcessWithoutNullStreams
  readonly pid: number
  /** Its stdout and stderr so far (the tail). */
  readonly output: () => string
  /** Resolves with its exit code (or signal name) once it has exited. */
  readonly exited: Promise<number | string>
}

/** Starts `pixgate serve` with `env` (on top of PORT=0); `nice` runs it at that niceness. */
export const start = (env: Record<string, string>, nice?: number): Promise<ServeProcess> =>
  new Promise((resolve, reject) => {
    const node = [process.execPath, "--import", "tsx", "--conditions=@pixgate/source", bin, "serve"]
    const [command, ...args] = nice === undefined ? node : ["nice", "-n", String(nice), ...node]
    const child = spawn(command, args, {
      cwd: packageDir,
      env: { ...process.env, NODE_OPTIONS: "", PORT: "0", ...env },
      stdio: ["pipe", "pipe", "pipe"]
    })
    children.add(child)
    let out = ""
    const exited = new Promise<number | string>((done) =>
      child.once("exit", (code, signal) => {
        children.delete(child)
        done(code ?? signal ?? "unknown")
      })
    )
    const collect = (chunk: Buffer) => {
      out = (out + chunk).slice(-50_000)
      const match = /"url":"(http:[^"]+)"/.exec(out)
      if (match !== null && child.pid !== undefined)
        resolve({ url: match[1], child, pid: child.pid, output: () => out, exited })
    }
    child.stdout.on("data", collect)
    child.stderr.on("data", collect)
    void exited.then((code) => reject(new Error(`pixgate serve exited (${code}): ${out}`)))
  })

/** Kills every child still running (for `afterEach`). */
export const killAll = () => {
  for (const child of children) child.kill("SIGKILL")
  children.clear()
}

/** How many files a process has open (Linux: its /proc/<pid>/fd entries). */
export const openFiles = (pid: number): number => readdirSync(`/proc/${pid}/fd`).length
