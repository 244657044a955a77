/**
 * The gateway plugin contract: a plugin's settings schema read from the variables under a prefix
 * (several prefixes in one environment, empty values unset, each problem one line naming its
 * variable), its variables listed for the CLI and the docs, the module check the server runs on
 * what it loads, and a configured plugin in `Engine.layer`: the engine's live gateway carries the
 * plugin's capabilities, and settings the start-up check refuses fail the layer with that line.
 */
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Either, Exit, Layer, Option, Schema } from "effect"
import * as MemoryStore from "../src/adapters/MemoryStore.js"
import { Engine, layer as engineLayer } from "../src/Engine.js"
import {
  type BankGatewayShape,
  type Capabilities,
  capabilitiesOf,
  LiveGateway
} from "../src/ports/BankGateway.js"
import * as GatewayPlugin from "../src/ports/GatewayPlugin.js"
import * as WebhookTransport from "../src/ports/WebhookTransport.js"

interface ToySettings {
  readonly host: string
  readonly retries: number
}

const capabilities: Capabilities = {
  charges: true,
  dueDateCharges: false,
  sends: false,
  refunds: false,
  reconciliation: true,
  recurring: false,
  infractions: false
}

/** A gateway that answers charges only, declaring more than it does (the plugin's word wins). */
const shape: BankGatewayShape = {
  capabilities: { ...capabilities, sends: true },
  createCharge: () => Effect.succeed({ location: "toy.example/qr/1" }),
  timers: () => []
}

const toy = GatewayPlugin.make<ToySettings>({
  name: "toy-bank",
  description: "A bank of the tests",
  capabilities,
  settings: (prefix) =>
    GatewayPlugin.fromVariables(
      prefix,
      Schema.transform(
        Schema.Struct({
          HOST: Schema.String.pipe(
            Schema.pattern(/^[a-z.]+$/, { message: () => `${prefix}HOST must be a lowercase host name` })
          ).annotations({ description: "The bank's host" }),
          RETRIES: Schema.optional(
            Schema.NumberFromString.pipe(Schema.int(), Schema.between(0, 9, { message: () => "from 0 to 9" }))
          ).annotations({ description: "How often to retry (default 3)" })
        }),
        Schema.Struct({ host: Schema.String, retries: Schema.Number }),
        {
          strict: true,
          decode: (v) => ({ host: v.HOST, retries: v.RETRIES ?? 3 }),
          encode: (s) => ({ HOST: s.host, RETRIES: s.retries })
        }
      )
    ),
  check: (settings, prefix) =>
    settings.host.endsWith(".example")
      ? Effect.succeed(settings)
      : Effect.fail({
          message: `${prefix === undefined ? "host" : `${prefix}HOST`}: not a bank of the tests`
        }),
  layer: (settings) =>
    settings.host === "broken.example"
      ? Layer.fail({ message: "host: the bank is down" })
      : Layer.succeed(LiveGateway, shape),
  summary: (settings) => settings.host
})

/** A plugin that names no file: any file asked for is unreadable. */
const noFiles = GatewayPlugin.SettingsFiles.of({
  read: (path) => Effect.fail(new GatewayPlugin.FileUnreadable({ path }))
})

const read = (env: Record<string, string>, prefix?: string) =>
  Effect.runSync(
    Effect.either(GatewayPlugin.read(toy, env, prefix)).pipe(
      Effect.provideService(GatewayPlugin.SettingsFiles, noFiles)
    )
  )

describe("a plugin's settings", () => {
  it("are read from the variables under its prefix; two prefixes in one environment read apart", () => {
    const env = {
      PIXGATE_LIVE_HOST: "one.example",
      PIXGATE_GATEWAY_TWO_HOST: "two.example",
      PIXGATE_GATEWAY_TWO_RETRIES: "5",
      PIXGATE_LIVE_RETRIES: ""
    }
    expect(read(env)).toEqual(Either.right({ host: "one.example", retries: 3 }))
    expect(read(env, "PIXGATE_GATEWAY_TWO_")).toEqual(Either.right({ host: "two.example", retries: 5 }))
  })

  it.each([
    [{}, "PIXGATE_LIVE_HOST is required"],
    [{ PIXGATE_LIVE_HOST: "" }, "PIXGATE_LIVE_HOST is required"],
    [{ PIXGATE_LIVE_HOST: "Bank.Example" }, "PIXGATE_LIVE_HOST must be a lowercase host name"],
    [{ PIXGATE_LIVE_HOST: "a.example", PIXGATE_LIVE_RETRIES: "12" }, "PIXGATE_LIVE_RETRIES: from 0 to 9"]
  ])("%o: one line naming the variable", (env, message) => {
    const result = read(env)
    expect(result._tag).toBe("Left")
    if (result._tag === "Left")
      expect([result.left._tag, result.left.gateway, result.left.message]).toEqual([
        "GatewaySettingsError",
        "toy-bank",
        message
      ])
  })

  it("are listed for the CLI and the docs, in the schema's order, under the prefix asked", () => {
    expect(GatewayPlugin.variables(toy, "PIXGATE_GATEWAY_TOY_")).toEqual([
      { name: "PIXGATE_GATEWAY_TOY_HOST", description: "The bank's host", required: true },
      { name: "PIXGATE_GATEWAY_TOY_RETRIES", description: "How often to retry (default 3)", required: false }
    ])
  })
})

describe("what the server loads", () => {
  it("is a plugin only with its tag, name, functions and every capability", () => {
    expect(GatewayPlugin.isPlugin(toy)).toBe(true)
    const { capabilities: _, ...noCapabilities } = toy
    for (const other of [
      undefined,
      { ...toy, _tag: "Other" },
      { ...toy, name: "Toy Bank" },
      { ...toy, layer: "no" },
      noCapabilities,
      { ...toy, capabilities: { ...capabilities, infractions: undefined } }
    ])
      expect(GatewayPlugin.isPlugin(other)).toBe(false)
    expect(() => GatewayPlugin.make({ ...toy, name: "Toy Bank" })).toThrow(
      "lowercase letters, digits and dashes"
    )
  })
})

describe("a configured plugin in the engine", () => {
  const engine = (gateway: GatewayPlugin.Configured) =>
    engineLayer({ gateway, worker: false, config: { workerPollInterval: Duration.minutes(10) } }).pipe(
      Layer.provideMerge(MemoryStore.layer),
      Layer.provide(WebhookTransport.fetch)
    )

  it.scoped("the engine's live gateway is the plugin's, with the plugin's capabilities", () =>
    Effect.gen(function* () {
      const engine = yield* Engine
      expect(engine.liveEnabled).toBe(true)
      expect(engine.liveCapabilities).toEqual(Option.some(capabilities))
    }).pipe(Effect.provide(engine(GatewayPlugin.configure(toy, { host: "bank.example", retries: 1 }))))
  )

  it.effect("settings the start-up check refuses: a SettingsError naming the field, or the variable", () =>
    Effect.gen(function* () {
      const inCode = GatewayPlugin.configure(toy, { host: "bank.test", retries: 1 })
      expect(inCode.summary).toBe("bank.test")
      const exit = yield* Effect.exit(inCode.check)
      expect(exit).toEqual(
        Exit.fail(expect.objectContaining({ gateway: "toy-bank", message: "host: not a bank of the tests" }))
      )
      const fromEnv = GatewayPlugin.configure(toy, { host: "bank.test", retries: 1 }, "PIXGATE_LIVE_")
      expect(yield* Effect.flip(fromEnv.check)).toMatchObject({
        message: "PIXGATE_LIVE_HOST: not a bank of the tests"
      })
    })
  )

  it.effect("a plugin whose layer fails fails the engine's layer with its line", () =>
    Effect.gen(function* () {
      const failed = yield* Effect.flip(
        Effect.scoped(
          Layer.build(engine(GatewayPlugin.configure(toy, { host: "broken.example", retries: 1 })))
        )
      )
      expect(failed).toMatchObject({ _tag: "GatewaySettingsError", message: "host: the bank is down" })
    })
  )
})

describe("a gateway that declares nothing", () => {
  it("can do what its shape offers: charges, and sends or refunds when it has them", () => {
    const bare: BankGatewayShape = { createCharge: shape.createCharge, timers: () => [] }
    expect(capabilitiesOf(bare)).toEqual({ ...capabilities, dueDateCharges: true, reconciliation: false })
    expect(
      capabilitiesOf({
        ...bare,
        sender: { pollDelay: 1, send: () => Effect.never, status: () => Effect.never }
      }).sends
    ).toBe(true)
  })
})
