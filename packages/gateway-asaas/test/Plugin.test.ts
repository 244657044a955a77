/**
 * The `asaas` plugin: its variables under any prefix (the same names as `Settings.envNames`
 * under `PIXGATE_ASAAS_`), decoded by the settings' schema with the CA read as a file, each
 * problem one line naming its variable; its start-up check names the variable too.
 */
import { GatewayPlugin } from "@pixgate/core"
import { Effect, Layer, Redacted } from "effect"
import { describe, expect, it } from "vitest"
import { plugin } from "../src/Plugin.js"
import { envNames } from "../src/Settings.js"

const files = (map: Record<string, string>) =>
  Layer.succeed(
    GatewayPlugin.SettingsFiles,
    GatewayPlugin.SettingsFiles.of({
      read: (path) =>
        path in map
          ? Effect.succeed(new TextEncoder().encode(map[path]))
          : Effect.fail(new GatewayPlugin.FileUnreadable({ path, code: "ENOENT" }))
    })
  )

const read = (env: Record<string, string>, prefix = "PIXGATE_ASAAS_") =>
  Effect.runPromise(
    Effect.either(GatewayPlugin.read(plugin, env, prefix).pipe(Effect.provide(files({ "ca.pem": "PEM" }))))
  )

describe("the asaas plugin", () => {
  it("reads the variables Settings.envNames names, under any prefix", async () => {
    const names = GatewayPlugin.variables(plugin, "PIXGATE_ASAAS_").map((v) => v.name)
    expect(names).toEqual(Object.values(envNames))
    const read1 = await read(
      {
        PIXGATE_LIVE_BASE_URL: "https://api.asaas.com/v3",
        PIXGATE_LIVE_API_KEY: "$aact_key",
        PIXGATE_LIVE_CUSTOMER_ID: "cus_000005219613",
        PIXGATE_LIVE_CA_FILE: "ca.pem",
        PIXGATE_LIVE_POLL_MS: "1500"
      },
      "PIXGATE_LIVE_"
    )
    expect(read1._tag).toBe("Right")
    if (read1._tag === "Right") {
      expect(read1.right.baseUrl).toBe("https://api.asaas.com/v3")
      expect(Redacted.value(read1.right.apiKey)).toBe("$aact_key")
      expect(read1.right.ca).toBe("PEM")
      expect(read1.right.pollDelayMs).toBe(1500)
    }
  })

  it("names the variable at fault", async () => {
    const base = { PIXGATE_ASAAS_BASE_URL: "https://api.asaas.com/v3", PIXGATE_ASAAS_API_KEY: "k" }
    const missing = await read(base)
    expect(missing._tag === "Left" && missing.left.message).toBe("PIXGATE_ASAAS_CUSTOMER_ID is required")
    const wrong = await read({ ...base, PIXGATE_ASAAS_CUSTOMER_ID: "c-1" })
    expect(wrong._tag === "Left" && wrong.left.message).toMatch(/^PIXGATE_ASAAS_CUSTOMER_ID: /)
    const file = await read({ ...base, PIXGATE_ASAAS_CUSTOMER_ID: "cus_1", PIXGATE_ASAAS_CA_FILE: "x.pem" })
    expect(file._tag === "Left" && file.left.message).toBe(
      "PIXGATE_ASAAS_CA_FILE: cannot read x.pem (ENOENT)"
    )
    const ms = await read({ ...base, PIXGATE_ASAAS_CUSTOMER_ID: "cus_1", PIXGATE_ASAAS_TIMEOUT_MS: "soon" })
    expect(ms._tag === "Left" && ms.left.message).toBe(
      "PIXGATE_ASAAS_TIMEOUT_MS must be a whole number of milliseconds"
    )
  })

  it("its start-up check names the variable under the prefix", async () => {
    const settings = await read({
      PIXGATE_ASAAS_BASE_URL: "http://api.asaas.com/v3",
      PIXGATE_ASAAS_API_KEY: "k",
      PIXGATE_ASAAS_CUSTOMER_ID: "cus_1"
    })
    if (settings._tag === "Left") throw settings.left
    const checked = await Effect.runPromise(
      Effect.either(GatewayPlugin.configure(plugin, settings.right, "PIXGATE_ASAAS_").check)
    )
    expect(checked._tag === "Left" && checked.left.message).toBe(
      "PIXGATE_ASAAS_BASE_URL: must be an https URL, not http:"
    )
  })
})
