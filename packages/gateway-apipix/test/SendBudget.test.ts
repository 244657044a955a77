/**
 * The inline send budget (`PIXGATE_LIVE_SEND_BUDGET_MS`): read from the environment, 3 s by
 * default, 0 turns the inline attempt off; the gateway's sender carries it to the engine.
 */
import { Effect, Redacted } from "effect"
import { describe, expect, it } from "vitest"
import { type Client, Gateway, Settings } from "../src/index.js"

const read = (path: string) => Buffer.from(path)
const complete = {
  PIXGATE_LIVE_BASE_URL: "https://psp.example",
  PIXGATE_LIVE_CLIENT_ID: "id",
  PIXGATE_LIVE_CLIENT_SECRET: "secret",
  PIXGATE_LIVE_CERT_FILE: "c.pem",
  PIXGATE_LIVE_KEY_FILE: "k.pem",
  PIXGATE_LIVE_PIX_KEY: "recebimentos@example.com",
  PIXGATE_LIVE_CALLBACK_SECRET: "s".repeat(32)
}

const settings: Settings.ApiPixSettings = {
  baseUrl: "https://psp.example",
  clientId: "id",
  clientSecret: Redacted.make("secret"),
  scopes: Settings.defaults.scopes,
  certificate: Settings.pem("CERT", "KEY"),
  pixKey: "recebimentos@example.com"
}
const noPsp: Client.PspClient = { call: () => Effect.die("not called"), tokensIssued: () => 0 }

describe("the inline send budget", () => {
  it("is read from PIXGATE_LIVE_SEND_BUDGET_MS; 0 is allowed, other text is refused", () => {
    expect(Settings.fromEnv(complete, read)?.settings.sendBudgetMs).toBeUndefined()
    expect(
      Settings.fromEnv({ ...complete, PIXGATE_LIVE_SEND_BUDGET_MS: "1500" }, read)?.settings.sendBudgetMs
    ).toBe(1500)
    expect(
      Settings.fromEnv({ ...complete, PIXGATE_LIVE_SEND_BUDGET_MS: "0" }, read)?.settings.sendBudgetMs
    ).toBe(0)
    expect(() => Settings.fromEnv({ ...complete, PIXGATE_LIVE_SEND_BUDGET_MS: "3s" }, read)).toThrow(
      "PIXGATE_LIVE_SEND_BUDGET_MS must be a whole number of milliseconds"
    )
  })

  it("reaches the engine through the sender: 3 s by default", () => {
    expect(Gateway.make(settings, noPsp).sender?.inlineBudget).toBe(3000)
    expect(Gateway.make({ ...settings, sendBudgetMs: 0 }, noPsp).sender?.inlineBudget).toBe(0)
  })
})
