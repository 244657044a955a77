/**
 * Child processes of the benchmark: servers, the baseline, the webhook receiver. Each one is
 * registered, so that a normal end, an error or a signal (Ctrl-C, CI's SIGTERM) kills every
 * child still running: a run never leaves a server behind. Also reads a child's memory.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { closeSync, openSync, readFileSync } from "node:fs"
import { setTimeout as sleep } from "node:timers/promises"
import { must } from "@pixgate/testkit/must"

/** The repository root: children run from here, so `--import tsx` and workspace packages resolve. */
export const root = new URL("../../", import.meta.url).pathname

const children = new Set<ChildProcess>()

const killAll = (signal: NodeJS.Signals) => {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal)
  }
}

const cleanups: Array<() => Promise<void>> = []

/** Registers work to do before exiting on a signal (e.g. dropping databases). */
export const onAbort = (cleanup: () => Promise<void>): void => {
  cleanups.push(cleanup)
}

let installed = false
/** Kills children on exit and on SIGINT/SIGTERM/SIGHUP (running the registered cleanups first). */
export const installExitHandlers = (): void => {
  if (installed) return
  installed = true
  process.on("exit", () => killAll("SIGKILL"))
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.on(signal, () => {
      process.stderr.write(`\nbench: ${signal}, stopping children and cleaning up\n`)
      killAll("SIGKILL")
      const deadline = sleep(10_000).then(() => undefined)
      Promise.race([Promise.allSettled(cleanups.map((c) => c())), deadline]).finally(() =>
        process.exit(signal === "SIGINT" ? 130 : 143)
      )
    })
  }
}

/** A running child process. */
export interface Child {
  readonly name: string
  readonly pid: number
  readonly process: ChildProcess
  /** The last lines the child printed (stdout and stderr). */
  readonly tail: () => string
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when it has exited. */
  readonly stop: (graceMs?: number) => Promise<void>
}

/** How to start a child. */
export interface SpawnOptions {
  readonly name: string
  readonly args: ReadonlyArray<string>
  readonly env?: Record<string, string>
  /** Resolves the start when a printed line matches. */
  readonly ready?: RegExp
  /** Or: resolves the start when this probe answers true (polled every 100 ms). */
  readonly probe?: () => Promise<boolean>
  readonly readyTimeoutMs?: number
  /**
   * Send everything the child prints to this file instead of a pipe: a busy server's logs then
   * never wait on this process reading them (writes to a pipe are synchronous on Linux).
   */
  readonly logFile?: string
}

/** Starts `node <args>` from the repository root and waits until it is ready. */
export const spawnNode = async (options: SpawnOptions): Promise<Child & { readonly readyLine: string }> => {
  const fd = options.logFile === undefined ? null : openSync(options.logFile, "a")
  const child = spawn(process.execPath, [...options.args], {
    cwd: root,
    env: { ...process.env, ...options.env },
    stdio: fd === null ? ["ignore", "pipe", "pipe"] : ["ignore", fd, fd]
  })
  if (fd !== null) closeSync(fd)
  children.add(child)
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
  void exited.then(() => children.delete(child))
  const output: Array<string> = []
  const tail = () => {
    if (options.logFile === undefined) return output.join("\n")
    try {
      return readFileSync(options.logFile, "utf8").slice(-4000)
    } catch {
      return ""
    }
  }
  let readyLine = ""
  let settled = false
  const ready = new Promise<void>((resolve, reject) => {
    let pending = ""
    const onData = (chunk: Buffer) => {
      pending += chunk.toString("utf8")
      let at = pending.indexOf("\n")
      while (at !== -1) {
        const line = pending.slice(0, at)
        pending = pending.slice(at + 1)
        output.push(line)
        if (output.length > 200) output.shift()
        if (readyLine === "" && options.ready?.test(line)) {
          readyLine = line
          resolve()
        }
        at = pending.indexOf("\n")
      }
      if (pending.length > 65_536) pending = pending.slice(-4096)
    }
    child.stdout?.on("data", onData)
    child.stderr?.on("data", onData)
    child.once("exit", (code, signal) =>
      reject(new Error(`${options.name} exited (${signal ?? code}) before it was ready:\n${tail()}`))
    )
    child.once("error", reject)
    const probe = options.probe
    if (probe !== undefined) {
      const poll = async () => {
        while (!settled) {
          if (await probe().catch(() => false)) return resolve()
          await sleep(100)
        }
      }
      void poll()
    } else if (options.ready === undefined) resolve()
  })
  const timeout = options.readyTimeoutMs ?? 60_000
  let timer: NodeJS.Timeout | undefined
  try {
    await Promise.race([
      ready,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`${options.name} not ready after ${timeout} ms:\n${tail()}`)),
          timeout
        )
      })
    ])
  } catch (error) {
    child.kill("SIGKILL")
    throw error
  } finally {
    settled = true
    clearTimeout(timer)
  }
  ready.catch(() => undefined)
  const stop = async (graceMs = 5_000) => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM")
      const killed = await Promise.race([exited.then(() => false), sleep(graceMs).then(() => true)])
      if (killed) {
        child.kill("SIGKILL")
        await exited
      }
    }
  }
  return { name: options.name, pid: must(child.pid, "child.pid"), process: child, tail, stop, readyLine }
}

/** Resident memory of a process, from /proc/<pid>/status: now (VmRSS) and its peak (VmHWM), in MiB. */
export const memoryOf = (pid: number): { readonly rssMiB: number; readonly peakMiB: number } => {
  const status = readFileSync(`/proc/${pid}/status`, "utf8")
  const field = (name: string) => {
    const match = new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)
    return match === null ? Number.NaN : Number(match[1]) / 1024
  }
  return { rssMiB: field("VmRSS"), peakMiB: field("VmHWM") }
}

/** Whether a process id is alive on this machine. */
export const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** A free TCP port on 127.0.0.1. */
export const freePort = async (): Promise<number> => {
  const { createServer } = await import("node:net")
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => (typeof address === "object" && address !== null ? resolve(address.port) : reject()))
    })
  })
}
