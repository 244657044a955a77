/**
 * Reads a V8 CPU profile (`node --cpu-prof`) of a server and lists where its CPU went, from its
 * first HTTP request on (start-up and module loading left out): the functions with the most
 * self time, and the functions and packages with the most inclusive time, as shares of busy time.
 */
import { readFileSync } from "node:fs"
import { relative } from "node:path"
import { must } from "@pixgate/testkit/must"
import { root } from "./proc.js"

interface ProfileNode {
  readonly id: number
  readonly callFrame: {
    readonly functionName: string
    readonly url: string
    readonly lineNumber: number
  }
  readonly children?: ReadonlyArray<number>
}

interface CpuProfile {
  readonly nodes: ReadonlyArray<ProfileNode>
  readonly samples: ReadonlyArray<number>
  readonly timeDeltas: ReadonlyArray<number>
}

const source = (url: string): string =>
  url.startsWith("file://") ? relative(root, new URL(url).pathname) : url

/** The package (or `node:` / workspace folder) a frame belongs to. */
const owner = (url: string): string => {
  if (url === "") return "(native/V8)"
  if (url.startsWith("node:")) return "node internals"
  const path = source(url)
  const pkg = /node_modules\/\.pnpm\/[^/]+\/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)
  if (pkg !== null) return pkg[1]
  const workspace = /^(packages\/[^/]+)/.exec(path)
  return workspace !== null ? workspace[1] : path
}

/** Self and inclusive time by function and by package, in milliseconds. */
export const analyse = (file: string) => {
  const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const parent = new Map<number, number>()
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)
  const key = (node: ProfileNode) => {
    const { functionName, url, lineNumber } = node.callFrame
    return `${functionName || "(anonymous)"}${url === "" ? "" : ` ${source(url)}:${lineNumber + 1}`}`
  }
  const stack = (id: number) => {
    const frames: Array<ProfileNode> = []
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at))
      frames.push(must(byId.get(at), "byId.get(at)"))
    return frames
  }
  const first = profile.samples.findIndex((id) =>
    stack(id).some((n) => n.callFrame.functionName === (process.env.FIRST ?? "parserOnIncoming"))
  )
  const self = new Map<string, number>()
  const inclusive = new Map<string, number>()
  const packages = new Map<string, number>()
  let busy = 0
  let idle = 0
  for (let i = Math.max(0, first); i < profile.samples.length; i++) {
    const micros = profile.timeDeltas[i] ?? 0
    const frames = stack(profile.samples[i])
    const leaf = frames[0]
    if (leaf.callFrame.functionName === "(idle)") {
      idle += micros
      continue
    }
    busy += micros
    self.set(key(leaf), (self.get(key(leaf)) ?? 0) + micros)
    const pkg = owner(leaf.callFrame.url)
    packages.set(pkg, (packages.get(pkg) ?? 0) + micros)
    for (const name of new Set(frames.map(key))) inclusive.set(name, (inclusive.get(name) ?? 0) + micros)
  }
  const sorted = (m: Map<string, number>) =>
    [...m].sort((a, b) => b[1] - a[1]).map(([name, micros]) => ({ name, ms: micros / 1000 }))
  return {
    self: sorted(self),
    inclusive: sorted(inclusive),
    packages: sorted(packages),
    busyMs: busy / 1000,
    idleMs: idle / 1000
  }
}

/** The top `n` functions by self time, and the packages, as text. */
export const summarize = (file: string, n: number): string => {
  const { self, packages, busyMs, idleMs } = analyse(file)
  const line = (r: { name: string; ms: number }) =>
    `${((100 * r.ms) / busyMs).toFixed(1).padStart(5)}%  ${r.ms.toFixed(0).padStart(7)} ms  ${r.name}`
  return [
    `busy ${busyMs.toFixed(0)} ms, idle ${idleMs.toFixed(0)} ms (from the first request on)`,
    "self time by package:",
    ...packages.slice(0, 8).map(line),
    "self time by function:",
    ...self.slice(0, n).map(line)
  ].join("\n")
}
