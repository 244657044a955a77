/**
 * PromQL in the repository, for tests: the expressions of docs/operations.md (its `promql`
 * blocks, and every inline code span that is an expression), of the Grafana dashboard (with its
 * variables filled in) and of deploy/prometheus's rules; and `promtool` to check them.
 */
import { execFile } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

/** A file of the repository, by its path from the root. */
export const repoFile = (path: string): string =>
  fileURLToPath(new URL(`../../../../${path}`, import.meta.url))

/** The rules file and its unit tests. */
export const rulesFile = repoFile("deploy/prometheus/pixgate.rules.yml")

/** What a command printed and how it ended. */
export interface Run {
  readonly code: number
  readonly output: string
}

/** Runs `promtool` with `args`, `input` on its standard input. */
export const promtool = (args: ReadonlyArray<string>, input = ""): Promise<Run> =>
  new Promise((resolve) => {
    const child = execFile("promtool", [...args], (error, stdout, stderr) =>
      resolve({
        code: error === null ? 0 : typeof error.code === "number" ? error.code : 1,
        output: `${stdout}${stderr}`
      })
    )
    child.stdin?.end(input)
  })

/** The expressions of docs/operations.md: its `promql` blocks, and inline spans that are expressions. */
export const docsExpressions = (): ReadonlyArray<string> => {
  const text = readFileSync(repoFile("docs/operations.md"), "utf8")
  const blocks = [...text.matchAll(/```promql\n([\s\S]*?)```/g)].map((m) => m[1].trim())
  // An inline span is an expression when it applies a function or compares a metric.
  const inline = [...text.replace(/```[\s\S]*?```/g, "").matchAll(/`([^`\n]+)`/g)]
    .map((m) => m[1])
    .filter((code) => /\bpixgate_[a-z_]+/.test(code) && /[([]|[<>=]=?\s*\d/.test(code))
  return [...blocks, ...inline]
}

/** The dashboard's panel queries as they run: `$instance` any, `$__rate_interval` one minute. */
export const dashboardExpressions = (rateInterval = "1m"): ReadonlyArray<{ title: string; expr: string }> => {
  const dashboard = JSON.parse(readFileSync(repoFile("docs/grafana/pixgate-dashboard.json"), "utf8")) as {
    panels: ReadonlyArray<{ title: string; targets?: ReadonlyArray<{ expr: string }> }>
  }
  return dashboard.panels.flatMap((panel) =>
    (panel.targets ?? []).map((target) => ({
      title: panel.title,
      expr: target.expr.replaceAll("$instance", ".*").replaceAll("$__rate_interval", rateInterval)
    }))
  )
}

/** The rules' names (records and alerts) in the rules file. */
export const ruleNames = (): { records: ReadonlyArray<string>; alerts: ReadonlyArray<string> } => {
  const text = readFileSync(rulesFile, "utf8")
  return {
    records: [...text.matchAll(/^\s+- record: (\S+)$/gm)].map((m) => m[1]),
    alerts: [...text.matchAll(/^\s+- alert: (\S+)$/gm)].map((m) => m[1])
  }
}

/**
 * Checks that each expression parses, by `promtool check rules` over a rules file made of them
 * (one recording rule each); answers the expressions that do not, with promtool's reason.
 */
export const unparsed = async (expressions: ReadonlyArray<string>): Promise<ReadonlyArray<string>> => {
  const dir = mkdtempSync(join(tmpdir(), "pixgate-promql-"))
  try {
    const failed: Array<string> = []
    for (const [i, expr] of expressions.entries()) {
      const file = join(dir, `expr-${i}.yml`)
      writeFileSync(
        file,
        JSON.stringify({ groups: [{ name: "parse", rules: [{ record: "parse:expression", expr }] }] })
      )
      const run = await promtool(["check", "rules", file])
      if (run.code !== 0) failed.push(`${expr}\n  ${run.output.trim()}`)
    }
    return failed
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
