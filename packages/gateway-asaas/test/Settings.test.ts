/**
 * The Asaas gateway's settings and start-up checks: `fromEnv` (off without a base URL, every
 * variable read, the variable named when one is missing or wrong), `Check.check` (the schema,
 * an https base URL, a CA that parses), the layer refusing settings that cannot work, and
 * `Check.probe` asking the simulated Asaas whether the key and the customer work.
 */
import { AsaasSimulator } from "@pixgate/testkit/simulator"
import { Effect, Either, Exit, Layer, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Asaas, Check, Settings } from "../src/index.js"

const env = {
  PIXGATE_ASAAS_BASE_URL: "https://sandbox.asaas.com/api/v3",
  PIXGATE_ASAAS_API_KEY: "$aact_hmlg_key",
  PIXGATE_ASAAS_CUSTOMER_ID: "cus_000005219613",
  PIXGATE_ASAAS_WEBHOOK_TOKEN: "w".repeat(40)
}
const noFiles = (path: string): string => {
  throw Object.assign(new Error(`no ${path}`), { code: "ENOENT" })
}
const messageOf = <A>(result: Either.Either<A, Settings.SettingsError>) =>
  Either.isLeft(result) ? result.left.message : "accepted"

describe("Settings.fromEnv", () => {
  it("is undefined without a base URL: the gateway stays off", () => {
    expect(Settings.fromEnv({}, noFiles)).toEqual(Either.right(undefined))
  })

  it("reads every variable, numbers as numbers, the CA from its file", () => {
    const read = Settings.fromEnv(
      {
        ...env,
        PIXGATE_ASAAS_TIMEOUT_MS: "4000",
        PIXGATE_ASAAS_SEND_BUDGET_MS: "0",
        PIXGATE_ASAAS_CA_FILE: "ca.pem"
      },
      (path) => `contents of ${path}`
    )
    const settings = Either.getOrThrow(read)
    expect(settings).toMatchObject({
      customerId: "cus_000005219613",
      timeoutMs: 4000,
      sendBudgetMs: 0,
      ca: "contents of ca.pem"
    })
    expect(Redacted.value(settings?.apiKey ?? Redacted.make(""))).toBe("$aact_hmlg_key")
    expect(String(settings?.apiKey)).not.toContain("aact")
  })

  it("names the variable that is missing or wrong", () => {
    const without = { ...env, PIXGATE_ASAAS_API_KEY: "" }
    expect(messageOf(Settings.fromEnv(without, noFiles))).toMatch(/^PIXGATE_ASAAS_API_KEY: /)
    expect(messageOf(Settings.fromEnv({ ...env, PIXGATE_ASAAS_CUSTOMER_ID: "42" }, noFiles))).toMatch(
      /^PIXGATE_ASAAS_CUSTOMER_ID: /
    )
    expect(messageOf(Settings.fromEnv({ ...env, PIXGATE_ASAAS_WEBHOOK_TOKEN: "short" }, noFiles))).toMatch(
      /^PIXGATE_ASAAS_WEBHOOK_TOKEN: /
    )
    expect(messageOf(Settings.fromEnv({ ...env, PIXGATE_ASAAS_POLL_MS: "soon" }, noFiles))).toMatch(
      /^PIXGATE_ASAAS_POLL_MS: /
    )
    expect(messageOf(Settings.fromEnv({ ...env, PIXGATE_ASAAS_CA_FILE: "missing.pem" }, noFiles))).toBe(
      "PIXGATE_ASAAS_CA_FILE: cannot read missing.pem (ENOENT)"
    )
  })
})

describe("Check.check", () => {
  const settings = Either.getOrThrow(Settings.fromEnv(env, noFiles)) as Settings.AsaasSettings

  it("accepts working settings; refuses a base URL that is not https, with credentials or a query", () => {
    expect(Either.isRight(Check.check(settings))).toBe(true)
    expect(messageOf(Check.check({ ...settings, baseUrl: "http://api.asaas.com/v3" }))).toBe(
      "baseUrl: must be an https URL, not http:"
    )
    expect(messageOf(Check.check({ ...settings, baseUrl: "https://u:p@api.asaas.com/v3" }))).toMatch(
      /credentials/
    )
    expect(messageOf(Check.check({ ...settings, baseUrl: "https://api.asaas.com/v3?x=1" }))).toMatch(/query/)
    expect(messageOf(Check.check({ ...settings, baseUrl: "api.asaas.com" }, "env"))).toMatch(
      /^PIXGATE_ASAAS_BASE_URL: /
    )
  })

  it("refuses a CA that is not a certificate, and settings the schema refuses", () => {
    expect(messageOf(Check.check({ ...settings, ca: "garbage" }))).toMatch(/^ca: not a PEM certificate/)
    expect(messageOf(Check.check({ ...settings, customerId: "customer" }))).toMatch(/^customerId: /)
  })

  it("the layers refuse settings that cannot work before building anything", async () => {
    const built = await Effect.runPromiseExit(
      Layer.build(Asaas.layerNode({ ...settings, baseUrl: "ftp://asaas" })).pipe(Effect.scoped)
    )
    expect(Exit.isFailure(built)).toBe(true)
    expect(JSON.stringify(built)).toContain("baseUrl: must be an https URL")
  })
})

describe("Check.probe against the simulated Asaas", () => {
  let sim: AsaasSimulator.AsaasSimulator
  let customerId: string
  beforeAll(async () => {
    sim = await AsaasSimulator.start()
    customerId = sim.createCustomer("Pixgate", "12345678000195")
  })
  afterAll(async () => {
    await sim?.close()
  })
  const probe = (overrides: Partial<Settings.AsaasSettings>) => {
    const settings: Settings.AsaasSettings = {
      baseUrl: sim.url,
      apiKey: Redacted.make(sim.apiKey),
      customerId,
      ca: sim.caPem,
      timeoutMs: 5000,
      ...overrides
    }
    return Effect.runPromise(
      Effect.either(Asaas.probe(settings)).pipe(Effect.provide(Asaas.httpClientNode(settings)))
    )
  }

  it("passes with a key and a customer Asaas knows; names the key or the customer it refuses", async () => {
    expect(Either.isRight(await probe({}))).toBe(true)
    expect(messageOf(await probe({ apiKey: Redacted.make("$aact_wrong") }))).toBe(
      "apiKey: Asaas refused the API key (HTTP 401)"
    )
    expect(messageOf(await probe({ customerId: "cus_nobody" }))).toBe(
      "customerId: Asaas has no customer cus_nobody"
    )
  })

  it("says so when Asaas does not answer, without blaming the key", async () => {
    sim.addFault({ route: "customers.get", kind: "reset", times: 1 })
    expect(messageOf(await probe({}))).toMatch(/^baseUrl: Asaas did not answer/)
    sim.clearFaults()
  })
})
