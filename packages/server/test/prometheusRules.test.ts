/**
 * Alerts as tested code, checked with Debian's `promtool` (package `prometheus`; CI installs
 * it): deploy/prometheus's rules pass `promtool check rules` and their unit tests pass
 * `promtool test rules`, with a test of every alert firing and one of it staying quiet; every
 * alert has its runbook section in docs/operations.md, which its `runbook_url` points to; and
 * every PromQL expression of docs/operations.md and of the Grafana dashboard parses.
 */
import { readdirSync, readFileSync } from "node:fs"
import { describe, expect, it } from "@effect/vitest"
import { testWait } from "@pixgate/testkit/wait"
import {
  dashboardExpressions,
  docsExpressions,
  promtool,
  repoFile,
  ruleNames,
  rulesFile,
  unparsed
} from "./support/promql.js"

const testsDir = repoFile("deploy/prometheus/tests")
const testFiles = readdirSync(testsDir)
  .filter((name) => name.endsWith(".test.yml"))
  .map((name) => `${testsDir}/${name}`)

/** The alert tests of the unit test files: each alert's name and whether it expects it to fire. */
const alertTests = (): ReadonlyArray<{ alert: string; fires: boolean }> =>
  testFiles.flatMap((file) =>
    [...readFileSync(file, "utf8").matchAll(/alertname: (\S+)\n\s+exp_alerts:( \[\])?/g)].map((m) => ({
      alert: m[1],
      fires: m[2] === undefined
    }))
  )

describe("deploy/prometheus", () => {
  it(
    "passes promtool check rules",
    async () => {
      const run = await promtool(["check", "rules", rulesFile])
      expect(run.output).toContain("SUCCESS")
      expect(run.code).toBe(0)
    },
    testWait(1)
  )

  it(
    "passes its unit tests (promtool test rules)",
    async () => {
      expect(testFiles.length).toBeGreaterThan(0)
      const run = await promtool(["test", "rules", ...testFiles])
      expect(run.output).not.toContain("FAILED")
      expect(run.code).toBe(0)
    },
    testWait(1)
  )

  it("tests every alert firing and staying quiet", () => {
    const { alerts } = ruleNames()
    expect(alerts.length).toBeGreaterThan(15)
    const tests = alertTests()
    expect(alerts.filter((alert) => !tests.some((t) => t.alert === alert && t.fires))).toEqual([])
    expect(alerts.filter((alert) => !tests.some((t) => t.alert === alert && !t.fires))).toEqual([])
    expect(tests.filter((t) => !alerts.includes(t.alert))).toEqual([])
  })

  it("gives every alert a runbook section in docs/operations.md, where its runbook_url points", () => {
    const docs = readFileSync(repoFile("docs/operations.md"), "utf8")
    const rules = readFileSync(rulesFile, "utf8")
    for (const alert of ruleNames().alerts) {
      expect(docs, alert).toContain(`\n#### ${alert}\n`)
      expect(rules, alert).toContain(
        `https://github.com/pixgate/pixgate/blob/main/docs/operations.md#${alert.toLowerCase()}`
      )
    }
  })
})

describe("PromQL in the documentation", () => {
  it(
    "every expression of docs/operations.md parses",
    async () => {
      const expressions = docsExpressions()
      expect(expressions.length).toBeGreaterThan(20)
      expect(expressions.filter((e) => e.includes("..."))).toEqual([])
      expect(await unparsed(expressions)).toEqual([])
    },
    testWait(2)
  )

  it(
    "every query of the Grafana dashboard parses",
    async () => {
      const queries = dashboardExpressions()
      expect(queries.length).toBeGreaterThan(20)
      expect(await unparsed(queries.map((q) => q.expr))).toEqual([])
    },
    testWait(2)
  )
})
