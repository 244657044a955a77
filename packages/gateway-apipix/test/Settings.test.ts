import { must } from "@pixgate/testkit/must"
import { Option } from "effect"
import { describe, expect, it } from "vitest"
import { Gateway, Settings } from "../src/index.js"

const files: Record<string, string> = { "c.pem": "CERT", "k.pem": "KEY", "ca.pem": "CA", "x.p12": "P12" }
const read = (path: string) => {
  const text = files[path]
  if (text === undefined) throw new Error(`no file ${path}`)
  return Buffer.from(text)
}
const complete = {
  PIXGATE_LIVE_BASE_URL: "https://psp.example",
  PIXGATE_LIVE_CLIENT_ID: "id",
  PIXGATE_LIVE_CLIENT_SECRET: "secret",
  PIXGATE_LIVE_CERT_FILE: "c.pem",
  PIXGATE_LIVE_KEY_FILE: "k.pem",
  PIXGATE_LIVE_PIX_KEY: "recebimentos@example.com",
  PIXGATE_LIVE_CALLBACK_SECRET: "s".repeat(32)
}

describe("Settings.fromEnv", () => {
  it("is undefined without a base URL: live mode stays off", () => {
    expect(Settings.fromEnv({}, read)).toBeUndefined()
  })

  it("reads PEM or PKCS#12, the CA and the intervals", () => {
    const pem = must(
      Settings.fromEnv({ ...complete, PIXGATE_LIVE_CA_FILE: "ca.pem", PIXGATE_LIVE_POLL_MS: "700" }, read),
      'Settings.fromEnv( { ...complete, PIXGATE_LIVE_CA_FILE: "ca.pem", PIXGATE_LIVE_POLL_MS: "700" }, read )'
    )
    expect(pem.settings.certificate._tag).toBe("Pem")
    expect(String(pem.settings.ca)).toBe("CA")
    expect(pem.settings.pollDelayMs).toBe(700)
    // PKCS#12 instead of the PEM pair (both at once is refused, see Check.test.ts).
    const { PIXGATE_LIVE_CERT_FILE: _c, PIXGATE_LIVE_KEY_FILE: _k, ...noPem } = complete
    const p12 = must(
      Settings.fromEnv({ ...noPem, PIXGATE_LIVE_PFX_FILE: "x.p12", PIXGATE_LIVE_PFX_PASSPHRASE: "pw" }, read),
      'Settings.fromEnv( { ...noPem, PIXGATE_LIVE_PFX_FILE: "x.p12", PIXGATE_LIVE_PFX_PASSPHRASE: "pw" }, read )'
    )
    expect(p12.settings.certificate._tag).toBe("Pkcs12")
  })

  it("reads the call deadline, the connect time-out and the unknown charges' window; defaults otherwise", () => {
    const given = must(
      Settings.fromEnv(
        {
          ...complete,
          PIXGATE_LIVE_TIMEOUT_MS: "4000",
          PIXGATE_LIVE_CONNECT_TIMEOUT_MS: "1500",
          PIXGATE_LIVE_UNKNOWN_CHARGE_WINDOW_MS: "60000"
        },
        read
      ),
      'Settings.fromEnv( { ...complete, PIXGATE_LIVE_TIMEOUT_MS: "4000", PIXGATE_LIVE_CONNECT_TIMEOUT_MS: "1500", PIXGATE_LIVE_UNKNOWN_CHARGE_WINDOW_MS: "60000" }, read )'
    ).settings
    expect([given.timeoutMs, given.connectTimeoutMs, given.unknownChargeWindowMs]).toEqual([
      4000, 1500, 60000
    ])
    const unset = must(Settings.fromEnv(complete, read), "Settings.fromEnv(complete, read)").settings
    expect([unset.timeoutMs, unset.connectTimeoutMs, unset.unknownChargeWindowMs]).toEqual([
      undefined,
      undefined,
      undefined
    ])
    expect([
      Settings.defaults.timeoutMs,
      Settings.defaults.connectTimeoutMs,
      Settings.defaults.unknownChargeWindowMs
    ]).toEqual([10_000, 5_000, 900_000])
    expect(() => Settings.fromEnv({ ...complete, PIXGATE_LIVE_TIMEOUT_MS: "0" }, read)).toThrow(
      "PIXGATE_LIVE_TIMEOUT_MS must be a positive integer"
    )
  })

  it("names what is missing or wrong", () => {
    const { PIXGATE_LIVE_PIX_KEY: _, ...noKey } = complete
    expect(() => Settings.fromEnv(noKey, read)).toThrow("PIXGATE_LIVE_PIX_KEY is required")
    expect(() => Settings.fromEnv({ ...complete, PIXGATE_LIVE_CALLBACK_SECRET: "short" }, read)).toThrow(
      "at least 32 characters"
    )
    expect(() => Settings.fromEnv({ ...complete, PIXGATE_LIVE_POLL_MS: "soon" }, read)).toThrow(
      "positive integer"
    )
  })
})

describe("identifiers", () => {
  it("idEnvio is the payout id's 26 letters and digits, and inverts", () => {
    const id = "tx_01M86V08JYD771CBPBVF39RGH0"
    expect(Gateway.idEnvio(id)).toBe("01M86V08JYD771CBPBVF39RGH0")
    expect(Gateway.payoutIdOf(Gateway.idEnvio(id))).toBe(id)
    expect(Gateway.devolucaoId(id)).toMatch(/^[a-zA-Z0-9]{1,35}$/)
  })

  it("amounts: two decimals, positive, else none", () => {
    expect(Option.getOrNull(Gateway.cents("12.34"))).toBe(1234)
    for (const bad of ["12.3", "0.00", "-1.00", 12.34, "1e3"]) expect(Gateway.cents(bad)._tag).toBe("None")
  })
})
