/**
 * The Chromium the browser tests drive (Debian's `chromium`, or `PIXGATE_CHROMIUM`), through
 * playwright-core. Outside CI a missing binary skips those suites loudly; in CI it fails them.
 */
import { existsSync } from "node:fs"
import { type Browser, chromium } from "playwright-core"

/** The binary's path. */
export const executable = process.env.PIXGATE_CHROMIUM ?? "/usr/bin/chromium"

/**
 * Whether the binary exists; when not, throws in CI and warns otherwise, naming `suite` (use
 * with `describe.skipIf(!available(...))`).
 */
export const available = (suite: string): boolean => {
  if (existsSync(executable)) return true
  if (process.env.CI) throw new Error(`Chromium not found at ${executable}: ${suite} cannot run`)
  console.warn(
    `\n*** SKIPPING ${suite}: no Chromium at ${executable} (apt-get install chromium, or set PIXGATE_CHROMIUM) ***\n`
  )
  return false
}

/** A headless Chromium. */
export const launch = (): Promise<Browser> =>
  chromium.launch({ executablePath: executable, args: ["--no-sandbox"] })
