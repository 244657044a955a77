/**
 * Vitest setup of every test file: after the file's tests, fails it when a shared sender
 * received an answer the OpenAPI document does not describe (`contract.ts`), listing them.
 * It imports only the list of findings: test files that use no shared sender pay nothing.
 */
import { afterAll } from "vitest"
import * as Findings from "./findings.js"

afterAll(() => {
  const found = [...Findings.found()]
  if (found.length === 0) return
  const counts = new Map<string, number>()
  for (const line of found) counts.set(line, (counts.get(line) ?? 0) + 1)
  Findings.reset()
  const lines = [...counts].map(([line, n]) => (n === 1 ? line : `${line} (x${n})`))
  throw new Error(
    `${found.length} answer(s) the OpenAPI document does not describe:\n${lines.slice(0, 50).join("\n")}` +
      (lines.length > 50 ? `\n... and ${lines.length - 50} more` : "")
  )
})
